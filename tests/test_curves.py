"""war-curves (war_env.training.curves): a small curve (two seeds, 2,000 steps, 40 held-out rounds), the
structure of curves.json, its numbers against scipy on the per-seed values, a run continued after an
interruption, seeds in worker processes, and bad arguments."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
from scipy import stats

from war_env.league.stats import BOOTSTRAP_RESAMPLES, data_rng
from war_env.scripts.curves import cli
from war_env.training.comparison import BAR, compare_with_baseline
from war_env.training.curves import METRICS, steps_to_optimum

pytest.importorskip("stable_baselines3")
SMALL = ["--algo", "ppo", "--seeds", "0", "1", "--timesteps", "2000", "--every", "1000", "--rounds", "40"]


@pytest.fixture(scope="module")
def curve(tmp_path_factory):
    run_dir = tmp_path_factory.mktemp("curves") / "ppo-human"
    assert cli([*SMALL, "--run-dir", str(run_dir)]) == 0
    return run_dir


def load(run_dir):
    return json.loads((run_dir / "curves.json").read_text())


@pytest.mark.slow
def test_the_folder_holds_the_curves_and_one_war_train_run_per_seed(curve):
    for name in ("curves.json", "curves.png", "settings.json", "train_config.json"):
        assert (curve / name).is_file(), name
    assert (curve / "curves.png").read_bytes().startswith(b"\x89PNG")
    for seed in (0, 1):
        for name in ("final.zip", "best.zip", "model_card.json", "curve.json", "checkpoints/ckpt_1000.zip"):
            assert (curve / f"seed-{seed}" / name).is_file(), (seed, name)
    train_config = json.loads((curve / "train_config.json").read_text())
    assert train_config["checkpoint_every_timesteps"] == 1000  # every model of the curve is kept


@pytest.mark.slow
def test_curves_json_holds_every_metric_per_seed_and_step(curve):
    curves = load(curve)
    assert curves["steps"] == [1000, 2000]
    assert curves["settings"]["seeds"] == [0, 1] and curves["settings"]["rounds"] == 40
    assert curves["bar"] == BAR and BAR["return_gap_at_most"] == 0.005
    assert curves["baseline"]["agent"] == "prompt" and curves["baseline"]["rounds"] == 40
    assert set(curves["metrics"]) == set(METRICS)
    for data in curves["metrics"].values():
        assert set(data["per_seed"]) == {"0", "1"}
        assert all(len(values) == 2 for values in data["per_seed"].values())
        assert len(data["iqm"]) == len(data["low"]) == len(data["high"]) == 2
    for kind in ("final", "best"):
        assert set(curves[kind]) >= {"all_meet_bar", *METRICS, "takeovers_total", "return_gap_max"}
    for seed in ("0", "1"):
        entry = curves["seeds"][seed]
        assert entry["train_wall_seconds"] > 0 and entry["best"]["timesteps"] == 2000  # no evaluation before 10,000 steps: best.zip is the final model


@pytest.mark.slow
def test_the_iqm_and_its_interval_are_scipys_on_the_per_seed_values(curve):
    curves = load(curve)
    bootstrapped = 0
    for data in curves["metrics"].values():
        for step in range(2):
            x = np.array([data["per_seed"][seed][step] for seed in ("0", "1")])
            assert data["iqm"][step] == pytest.approx(stats.trim_mean(x, 0.25), abs=1e-15)
            if x[0] == x[1]:  # no spread: the interval is the value
                assert data["low"][step] == data["high"][step] == x[0]
                continue
            bootstrapped += 1
            expected = stats.bootstrap((x,), lambda a, axis=-1: stats.trim_mean(a, 0.25, axis=axis),
                                       n_resamples=BOOTSTRAP_RESAMPLES, method="percentile", rng=data_rng(x))
            assert data["low"][step] == expected.confidence_interval.low
            assert data["high"][step] == expected.confidence_interval.high
    assert bootstrapped  # two seeds this early differ somewhere (they do: seeds 0 and 1 at 1,000 steps)


@pytest.mark.slow
def test_each_point_is_the_models_paired_comparison_with_prompt(curve):
    """The final point of a seed is war-train's own comparison of its final.zip (round by round through
    the one evaluation loop) on the same held-out rounds."""
    curves = load(curve)
    for seed in ("0", "1"):
        comparison = compare_with_baseline(f"ppo:{curve}/seed-{seed}/final.zip", "human", {}, 40, 2_000_000)
        final = curves["seeds"][seed]["final"]
        assert final["return_gap"] == pytest.approx(-comparison["mean_return_difference"], abs=1e-12)
        assert final["takeovers"] == comparison["model"]["takeovers"]
        assert final["bar_passed"] == comparison["bar"]["passed"]
        assert curves["metrics"]["return_gap"]["per_seed"][seed][-1] == final["return_gap"]
        assert curves["metrics"]["takeover_rate"]["per_seed"][seed][-1] == final["takeovers"] / 40


@pytest.mark.slow
def test_steps_to_the_optimum_follow_the_bar_at_each_step(curve):
    for seed in ("0", "1"):
        seed_curve = json.loads((curve / f"seed-{seed}" / "curve.json").read_text())
        steps, passed = seed_curve["curve"]["steps"], seed_curve["curve"]["bar_passed"]
        first = next((s for s, ok in zip(steps, passed) if ok), None)
        assert seed_curve["first_optimal_at"] == first
        if not passed[-1]:
            assert seed_curve["optimal_from"] is None
        else:
            start = steps.index(seed_curve["optimal_from"])
            assert all(passed[start:]) and (start == 0 or not passed[start - 1])


@pytest.mark.parametrize("passed, first, since", [
    ([True, True, True], 5, 5),
    ([False, True, True], 10, 10),
    ([True, False, True], 5, 15),  # a relapse at 10k: optimal only from 15k on
    ([True, True, False], 5, None),  # the final model lost it
    ([False, False, False], None, None),
])
def test_a_seed_is_optimal_from_the_step_after_its_last_failure(passed, first, since):
    assert steps_to_optimum([5, 10, 15], passed) == {"first_optimal_at": first, "optimal_from": since}


@pytest.mark.slow
def test_running_the_folder_again_reuses_finished_seeds_and_continues_an_interrupted_one(curve, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(curve, copy)
    trained = (copy / "seed-0" / "final.zip").stat().st_mtime_ns
    (copy / "seed-1" / "curve.json").unlink()  # seed 1 interrupted after training, before its evaluation
    (copy / "curves.json").unlink()
    assert cli([*SMALL, "--run-dir", str(copy)]) == 0
    assert (copy / "seed-0" / "final.zip").stat().st_mtime_ns == trained  # not trained again
    assert load(copy)["metrics"] == load(curve)["metrics"]


@pytest.mark.slow
def test_a_folder_made_with_other_settings_is_refused(curve, capsys):
    with pytest.raises(SystemExit) as exit_:
        cli([*SMALL[:-2], "--rounds", "41", "--run-dir", str(curve)])
    assert exit_.value.code == 2
    assert "was made with other settings (rounds)" in capsys.readouterr().err


@pytest.mark.slow
def test_the_training_config_is_compared_by_content_not_by_its_path(curve, tmp_path, capsys):
    shipped = json.loads((curve / "train_config.json").read_text())
    for key in ("checkpoint_every_timesteps", "keep_checkpoints"):
        del shipped[key]
    same, other = tmp_path / "same.json", tmp_path / "other.json"
    same.write_text(json.dumps(shipped))  # the shipped config, copied elsewhere: the folder continues
    assert cli([*SMALL, "--config", str(same), "--run-dir", str(curve)]) == 0
    other.write_text(json.dumps({**shipped, "hyperparameters": {**shipped["hyperparameters"], "gamma": 0.8}}))
    with pytest.raises(SystemExit):
        cli([*SMALL, "--config", str(other), "--run-dir", str(curve)])
    assert "other settings (the training config's content)" in capsys.readouterr().err


@pytest.mark.slow
def test_seeds_in_worker_processes_give_the_same_curves(curve, tmp_path):
    assert cli([*SMALL, "--workers", "2", "--run-dir", str(tmp_path / "workers")]) == 0
    assert load(tmp_path / "workers")["metrics"] == load(curve)["metrics"]


@pytest.mark.parametrize("argv, message", [
    (["--seeds", "0", "0"], "seeds must not repeat, got [0, 0]"),
    (["--every", "5000", "--timesteps", "2000"], "every (5,000) must not exceed the training budget (2,000 steps)"),
    (["--every", "1", "--timesteps", "2000"], "timesteps / every gives 2,000 models per curve; at most 1,000"),
    (["--workers", "0"], "workers must be a whole number >= 1, got 0"),
    (["--opponent", "humann"], "humann"),
    (["--rounds", "0"], "rounds must be a positive integer, got 0"),
])
def test_bad_arguments_are_one_line_errors_and_make_no_folder(argv, message, tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        cli([*argv, "--run-dir", str(tmp_path / "run")])
    assert exit_.value.code == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last.startswith("war-curves: error: ") and message in last
    assert not (tmp_path / "run").exists()
