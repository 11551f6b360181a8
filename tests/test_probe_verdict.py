"""A probe model's verdict (``war_env.training.probe_verdict``): below the probe's line of lacking the capability, as
the learners' table counts, never War-v0's bar against ``prompt``; ``war-train`` prints it, and its progress."""

from __future__ import annotations

import pytest

from war_env.training.probe_verdict import capability_line, describe, held_out_verdict, probe_name, verdict

MEMORY_LINE = capability_line("memory")


def regret(value: float, low: float, high: float) -> dict:
    return {"value": value, "low": low, "high": high}


def test_the_line_is_the_best_policy_lacking_the_capability():
    assert MEMORY_LINE["yardstick"] == "press_once" and MEMORY_LINE["regret"] > 3.0
    assert capability_line("inference")["yardstick"] == "blind"


@pytest.mark.parametrize("level, yardstick", [(1, "press_once"), (2, "1 press time"), (3, "2 press times")])
def test_the_anticipation_line_is_the_best_rule_of_fewer_press_times_than_the_opponent_has_modes(level, yardstick):
    """Against ``k`` modes, pressing once ahead of each is the anticipation the level asks: a rule of ``k`` press times
    has the capability, so the line is the best rule of fewer (against one mode, ``press_once``'s), and it lies the
    minimum gap or more above the oracle."""
    from war_env.core.probes import MIN_GAP, PROBES
    from war_env.evaluation.probe_gaps import exact_gaps, ladder

    probe = PROBES["anticipation"].at_level(level)
    gaps = exact_gaps(probe)
    rungs = ladder(probe, gaps)
    line = capability_line(f"anticipation@{level}")
    lacking = [gaps.gap("press_once")] + [rung.margin for rung in rungs[: level - 1]]
    assert line == {"yardstick": yardstick, "regret": min(lacking)}
    assert line["regret"] >= MIN_GAP
    assert rungs[level - 1].margin < MIN_GAP  # one press time a mode: the capability, within the gap of the oracle


@pytest.mark.parametrize(
    "where, figure, passed",
    [
        ("at the oracle", regret(0.011, 0.009, 0.014), True),
        ("between the oracle and the line", regret(1.5, 1.3, 1.7), True),
        ("between, but its interval reaches the line", regret(3.0, 2.6, 3.5), False),
        ("above the line", regret(4.2, 4.0, 4.4), False),
        ("on too few rounds to say", {"value": 0.5, "low": None, "high": None}, False),
    ],
)
def test_a_model_shows_the_capability_when_its_whole_regret_interval_lies_below_the_line(where, figure, passed):
    judged = verdict("memory", figure)
    assert judged["passed"] is passed, where
    text = describe(judged)
    assert f"press_once's {MEMORY_LINE['regret']:.3f}" in text
    assert ("shows the capability" in text) is passed and ("NOT below it" in text) is not passed


def test_played_models_are_judged_on_paired_held_out_rounds_the_oracle_passes_and_the_line_itself_does_not():
    """The oracle plays its own rounds: regret 0 exactly, below the line; ``press_once`` is the line, not below it;
    a model that never presses (taken over) lies far above it."""
    rounds, seed = 20, 2_000_000
    at_oracle = held_out_verdict("oracle", "WarMemory-v1", rounds, seed, MEMORY_LINE)
    assert at_oracle["regret"]["value"] == 0.0 and at_oracle["passed"]
    at_line = held_out_verdict("press_once", "WarMemory-v1", rounds, seed, MEMORY_LINE)
    assert not at_line["passed"] and at_line["regret"]["high"] >= MEMORY_LINE["regret"] - 1.0
    never = held_out_verdict("never", "WarMemory-v1", rounds, seed, MEMORY_LINE)
    assert not never["passed"] and never["regret"]["low"] > MEMORY_LINE["regret"]


def test_only_a_probes_env_id_has_a_line():
    assert probe_name("WarMemory-v1") == "memory" and probe_name("War-v0") is None
    with pytest.raises(ValueError, match="'War-v0' is not a probe's env id"):
        held_out_verdict("prompt", "War-v0", 2, 0)


def test_war_train_judges_a_probe_model_by_the_probes_line_and_prints_its_progress(tmp_path, capsys):
    from war_env.scripts.train import cli

    argv = ["--algo", "fast_ppo", "--env-id", "WarMemory-v1", "--timesteps", "512", "--bench-rounds", "4"]
    argv += ["--set", "num_envs=8,rollout_steps=32,minibatch_size=64", "--run-dir", str(tmp_path / "run")]
    assert cli(argv) == 0
    out = capsys.readouterr().out
    assert "the line of lacking the capability is press_once's" in out and "bar" not in out
    assert "512/512 steps" in out and "steps/s" in out  # the progress line after the last update
    assert "warning: the budget of 512 steps finished" in out  # too few rounds per sub-env


def test_progress_is_printed_at_intervals_and_after_the_last_update():
    from war_env.training.fast_ppo import ProgressPrinter

    lines = []
    printer = ProgressPrinter(400, every_seconds=30.0, out=lines.append)
    for k, (seconds, rounds) in enumerate([(10, 0), (31, 4), (45, 0), (70, 2)], start=1):
        printer(
            {"steps": 100 * k, "seconds": float(seconds), "rounds": rounds, "mean_return": -1.0 if rounds else None}
        )
    assert len(lines) == 2  # at 31 s (30 s passed) and after the last update; not at 45 s
    assert lines[0] == "  200/400 steps, 31 s, 6 steps/s; mean return -1.000 over 4 rounds"
    assert lines[1].startswith("  400/400 steps, 70 s") and "over 2 rounds" in lines[1]


def test_war_train_judges_an_sb3_probe_model_by_the_probes_line_too(tmp_path, capsys):
    import json

    from war_env.data import training_config_file
    from war_env.scripts.train import cli

    raw = json.loads(training_config_file("ppo").read_text())
    raw["hyperparameters"].update({"n_steps": 32, "batch_size": 32, "n_epochs": 1})
    raw["policy_kwargs"]["net_arch"] = {"pi": [8], "vf": [8]}
    raw["evaluation"] = {"every_timesteps": 0}
    (tmp_path / "ppo.json").write_text(json.dumps(raw))
    argv = ["--algo", "ppo", "--config", str(tmp_path / "ppo.json"), "--env-id", "WarMemory-v1", "--timesteps", "32"]
    argv += ["--n-envs", "1", "--bench-rounds", "3", "--run-dir", str(tmp_path / "run"), "--no-progress-bar"]
    cli(argv)
    out = capsys.readouterr().out
    assert "judged by its own line" in out
    assert out.count("the line of lacking the capability is press_once's") == 2  # the best and the final model
