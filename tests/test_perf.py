"""war-perf runs end to end on a tiny budget (speed itself is measured by the command, not here)."""

import re
import warnings

import pytest

from war_env import batched
from war_env.core.rules import WarConfig
from war_env.perf import (
    MEMORY_ENV_STEPS,
    REFERENCE_SHARE,
    WITHOUT_ROUND_INFO,
    WORKLOADS,
    measure_all,
    reference_cards_run,
    vector_row_name,
)


@pytest.mark.slow
def test_the_table_has_every_measurement_and_its_peer():
    result = measure_all(
        repeats=1, budget=0.01, fast_rounds=64, league=False, memory=False, training=False, print_table=False
    )
    names = [row.what for row in result.rows]
    assert "single env via gym.make" in names
    for num_envs in (1, 16, 256, 4096):
        assert all(vector_row_name(num_envs, workload) in names for workload in WORKLOADS)
    assert all(vector_row_name(4096, workload, WITHOUT_ROUND_INFO) in names for workload in WORKLOADS)
    assert "reading the ended rounds' info, at least 1.2x CartPole's" in result.table
    assert any(name.startswith("fast path battles") for name in names)
    assert all(row.ratio > 0 for row in result.rows if row.peer is not None)
    for peer in ("CartPole-v1", "Blackjack-v1", "War-v0 tick by tick", "engine.Game"):
        assert peer in result.table
    assert "Engine start" in result.table and "| target |" in result.table


def test_the_reference_card_game_plays_whole_rounds():
    battles = reference_cards_run(200, WarConfig())()
    assert 50 * 200 <= battles <= 150 * 200  # War rounds to 50 points take about 70-100 battles


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="repeats"):
        measure_all(repeats=0)


@pytest.mark.slow
@pytest.mark.parametrize("compiled", [True, False], ids=["with numba", "without numba"])
def test_every_section_scales_its_work_with_the_budget(monkeypatch, compiled):
    # Without numba the memory figures once ran ten million env steps on the scalar reference whatever the
    # budget (minutes of silence); now the league, memory and vector sections all shrink with it.
    if not compiled:
        monkeypatch.setattr(batched, "available", lambda: False)
    elif not batched.available():
        pytest.skip("the fast extra")
    budget = 0.001
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = measure_all(
            repeats=1, budget=budget, fast_rounds=64, league_rounds=1000, training=False, print_table=False
        )
    fallbacks = [w for w in caught if "numba is not installed" in str(w.message)]
    assert bool(fallbacks) != compiled  # without numba the env and the league say that they fall back
    share = 1.0 if compiled else REFERENCE_SHARE
    memory = result.memory
    assert memory["backend"] == ("numba" if compiled else "reference")
    assert memory["env_steps"] <= max(memory["num_envs"], MEMORY_ENV_STEPS * budget * share)
    (league,) = [row for row in result.rows if row.what.startswith("benchmark league")]
    assert league.what.startswith(f"benchmark league end to end ({max(1, round(1000 * budget * share))} rounds x 28 ")
    assert any(name.startswith("fast path") for name in (row.what for row in result.rows)) == compiled


@pytest.mark.slow
def test_the_solver_benchmark_prints_one_line_per_config_with_its_time_or_its_refusal(capsys):
    from war_env.perf.solver import CONFIGS, line, measure, solve_times

    rows = solve_times(quick=True)
    assert len(rows) == 3 and all(row["seconds"] > 0 and row["cost_per_move"] >= 0 for row in rows)
    assert len(capsys.readouterr().out.strip().splitlines()) == 3
    config, bot = CONFIGS[-1]  # estimated above the bound: refused up front, in one line
    refused = measure(config, bot)
    assert "refuses this problem" in line(config, bot, refused) and "seconds" not in refused


TINY = ["--repeats", "1", "--budget", "0.01", "--fast-rounds", "64", "--no-league", "--no-training", "--no-memory"]


def test_progress_says_as_each_section_starts_and_ends_with_its_seconds(capsys):
    from war_env.scripts.perf import cli

    assert cli(TINY) == 0
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert all(re.fullmatch(r"war-perf: \d+ s, .+", line) for line in lines), lines
    said = [line.split(" s, ", 1)[1] for line in lines]
    sections = ["the single env against CartPole and Blackjack"] + [
        f"the vector env at N={num_envs} against CartPole's" for num_envs in (1, 16, 256, 4096)
    ]
    if batched.available():
        sections = (
            ["the engine's start in a new process"]
            + sections
            + [
                "the vector env at N=4096 without info['round']",
                "the vector env at N=256 without numba",
                "the fast path against War-v0 tick by tick",
            ]
        )
    started = [message.removeprefix("started: ") for message in said if message.startswith("started: ")]
    finished = [re.fullmatch(r"finished: (.+) in \d+\.\d s", message) for message in said]
    assert started == sections
    assert [end.group(1) for end in finished if end] == sections
    in_order = [message for message in said if not message.startswith("skipped: ")]
    assert len(in_order) == 2 * len(sections)  # a start and an end line per section, nothing else
    assert in_order[0::2] == [f"started: {name}" for name in sections]  # each ends before the next starts
    assert all(message.startswith(f"finished: {name} in ") for name, message in zip(sections, in_order[1::2]))
    assert "| measurement |" in captured.out and "war-perf:" not in captured.out  # the table alone on stdout


def test_quiet_prints_the_table_and_no_progress(capsys):
    from war_env.scripts.perf import cli

    assert cli([*TINY, "--quiet"]) == 0
    captured = capsys.readouterr()
    assert "| measurement |" in captured.out and captured.err == ""


def test_a_section_whose_extra_is_missing_is_named_as_skipped_with_the_install(monkeypatch):
    from war_env.perf import sections

    monkeypatch.setattr(sections, "has_extra", lambda extra: extra != "train")
    said = []
    result = measure_all(
        repeats=1,
        budget=0.01,
        fast_rounds=64,
        league=False,
        memory=False,
        training=True,
        print_table=False,
        progress=said.append,
    )
    skipped = 'PPO training frames: the "train" extra is not installed (pip install "war-env[train]"'
    assert [section for section in result.skipped if section.startswith(skipped)]
    assert f"Not measured: {skipped}" in result.table
    assert any(message.startswith(f"skipped: {skipped}") for message in said)
    assert not any(row.what.startswith("PPO training") for row in result.rows)


def test_the_memory_figure_counts_what_the_env_keeps_not_the_last_steps_info(monkeypatch):
    # A step's info holds the reaction ticks of the rounds that ended on it: from a few bytes to 100 kB
    # by the step. Here each info holds more than the last, so an info alive at a reading would show as growth.
    from war_env.envs.vector import WarVectorEnv
    from war_env.perf import memory_figures

    step = WarVectorEnv.step
    calls = []

    def step_with_a_growing_info(self, actions):
        calls.append(None)
        observations, rewards, terminated, truncated, info = step(self, actions)
        return observations, rewards, terminated, truncated, {**info, "ballast": [0.5] * (100 * len(calls))}

    monkeypatch.setattr(WarVectorEnv, "step", step_with_a_growing_info)
    memory = memory_figures(num_envs=16, env_steps=16 * 200, warm_up=20)
    assert abs(memory["traced_growth_bytes"]) < 20_000  # the ballast of the last step alone: 160 kB


def test_the_memory_warm_up_lasts_until_a_round_has_ended():
    # The info's blank rows (112 bytes per game) are made when the first round ends: a warm-up of one step
    # would count them as growth.
    from war_env.perf import memory_figures

    memory = memory_figures(num_envs=4096, env_steps=4096 * 150, warm_up=1)  # the first rounds end after ~100 steps
    assert abs(memory["traced_growth_bytes"]) < 64_000  # the blank rows alone: 459 kB


@pytest.mark.slow
def test_the_trainers_runs_learn_whole_rollouts_and_count_them():
    """About 30 s on a loaded machine: the fast trainer's run is a whole default rollout (65,536 steps)."""
    pytest.importorskip("sb3_contrib")
    from war_env.perf.trainers import PeerSettings, fast_ppo_run, sb3_run

    tiny = PeerSettings("tiny", 2, 16, 32, 1)
    assert sb3_run(tiny, 10)() == 32  # at least one rollout of 2 envs x 16 steps
    assert sb3_run(tiny, 10, recurrent=True)() == 32
    assert fast_ppo_run(0, 1)() == 1024 * 64  # one rollout of the fast trainer's default sizes


def test_the_fast_trainers_targets_are_judged_against_the_shipped_peers():
    from war_env.perf import FAST_ROW, PerfResult, Row, Timing, targets

    def row(network, peer, ours_rate, peer_rate):
        return Row(FAST_ROW.format(network=network), Timing(ours_rate, 1.0, 1.0), peer, Timing(peer_rate, 1.0, 1.0))

    result = PerfResult(
        rows=[
            row("MLP", "same sizes", 200e3, 100e3),
            row("MLP", "shipped", 200e3, 10e3),
            row("LSTM", "same sizes", 40e3, 20e3),
            row("LSTM", "shipped", 40e3, 5e3),
        ]
    )
    found = {target.split(" at least")[0]: met for target, _, met in targets(result)}
    assert found == {"fast_ppo MLP": True, "fast_ppo LSTM": False}  # 20x and 200k/s; but only 8x RecurrentPPO
