"""war-perf runs end to end on a tiny budget (speed itself is measured by the command, not here)."""

import warnings

import pytest

from war_env import batched
from war_env.core.rules import WarConfig
from war_env.perf import MEMORY_ENV_STEPS, REFERENCE_SHARE, WORKLOADS, measure_all, reference_cards_run, vector_row_name


@pytest.mark.slow
def test_the_table_has_every_measurement_and_its_peer():
    result = measure_all(repeats=1, budget=0.01, fast_rounds=64, league=False, memory=False, training=False,
                         print_table=False)
    names = [row.what for row in result.rows]
    assert "single env via gym.make" in names
    for num_envs in (1, 16, 256, 4096):
        assert all(vector_row_name(num_envs, workload) in names for workload in WORKLOADS)
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
        result = measure_all(repeats=1, budget=budget, fast_rounds=64, league_rounds=1000, training=False,
                             print_table=False)
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
    from war_env.perf.solver import CONFIGS, line, main, measure

    rows = main(["--quick"])
    assert len(rows) == 3 and all(row["seconds"] > 0 and row["cost_per_move"] >= 0 for row in rows)
    assert len(capsys.readouterr().out.strip().splitlines()) == 3
    config, bot = CONFIGS[-1]  # estimated above the bound: refused up front, in one line
    refused = measure(config, bot)
    assert "refuses this problem" in line(config, bot, refused) and "seconds" not in refused
