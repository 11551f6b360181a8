"""war-curves (war_env.training.curves): a small curve (two seeds, 2,000 steps, 40 held-out rounds), the
structure of curves.json, its numbers against scipy on the per-seed values, a run continued after an
interruption, seeds in worker processes, and bad arguments; a tiny fast_ppo curve on a probe (the regret to
its oracle, wall seconds) and a folder of another game refused."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
from scipy import stats

from war_env.envs.games import default_opponent
from war_env.league.stats import BOOTSTRAP_RESAMPLES, data_rng
from war_env.scripts.curves import cli
from war_env.training.comparison import BAR, compare_with_baseline, held_out_stats
from war_env.training.curves import METRICS, steps_to_optimum
from war_env.training.fast_ppo import checkpoint_files

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
        assert (
            entry["train_wall_seconds"] > 0 and entry["best"]["timesteps"] == 2000
        )  # no evaluation before 10,000 steps: best.zip is the final model


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
            expected = stats.bootstrap(
                (x,),
                lambda a, axis=-1: stats.trim_mean(a, 0.25, axis=axis),
                n_resamples=BOOTSTRAP_RESAMPLES,
                method="percentile",
                rng=data_rng(x),
            )
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


@pytest.mark.parametrize(
    "passed, first, since",
    [
        ([True, True, True], 5, 5),
        ([False, True, True], 10, 10),
        ([True, False, True], 5, 15),  # a relapse at 10k: optimal only from 15k on
        ([True, True, False], 5, None),  # the final model lost it
        ([False, False, False], None, None),
    ],
)
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
    assert "settings.json was started with rounds=" in (err := capsys.readouterr().err) and ", not 41: pick" in err


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
    assert "train_config.json was started with hyperparameters.gamma=" in capsys.readouterr().err


@pytest.mark.slow
def test_seeds_in_worker_processes_give_the_same_curves(curve, tmp_path):
    assert cli([*SMALL, "--workers", "2", "--run-dir", str(tmp_path / "workers")]) == 0
    assert load(tmp_path / "workers")["metrics"] == load(curve)["metrics"]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--seeds", "0", "0"], "seeds must not repeat, got [0, 0]"),
        (["--every", "5000", "--timesteps", "2000"], "every (5,000) must not exceed the training budget (2,000 steps)"),
        (["--every", "1", "--timesteps", "2000"], "timesteps / every gives 2,000 models per curve; at most 1,000"),
        (["--workers", "0"], "workers must be a whole number >= 1, got 0"),
        (["--opponent", "humann"], "humann"),
        (["--rounds", "0"], "rounds must be a positive integer, got 0"),
    ],
)
def test_bad_arguments_are_one_line_errors_and_make_no_folder(argv, message, tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        cli([*argv, "--run-dir", str(tmp_path / "run")])
    assert exit_.value.code == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last.startswith("war-curves: error: ") and message in last
    assert not (tmp_path / "run").exists()


# --- fast_ppo on a probe -----------------------------------------------------------------------------
FAST_ON_A_PROBE = [
    "--algo",
    "fast_ppo",
    "--env-id",
    "WarAnticipation-v1",
    "--seeds",
    "0",
    "1",
    "--timesteps",
    "1024",
    "--every",
    "512",
    "--rounds",
    "20",
    "--set",
    "num_envs=16",
    "--set",
    "rollout_steps=16",
    "--set",
    "minibatch_size=64",
    "--set",
    "epochs=1",
    "--set",
    "hidden=8",
]
"""An update is 16 x 16 = 256 steps: a checkpoint at 512 steps, the final model at 1,024."""


@pytest.fixture(scope="module")
def probe_curve(tmp_path_factory):
    run_dir = tmp_path_factory.mktemp("curves") / "fast-anticipation"
    assert cli([*FAST_ON_A_PROBE, "--run-dir", str(run_dir)]) == 0
    return run_dir


def test_a_probe_curve_is_the_regret_to_the_probes_oracle_at_each_checkpoint(probe_curve):
    curves = load(probe_curve)
    assert curves["env_id"] == "WarAnticipation-v1"
    assert json.loads((probe_curve / "settings.json").read_text())["env_id"] == "WarAnticipation-v1"
    assert curves["baseline"]["agent"] == "oracle" and curves["reference"]["metric"] == "regret"
    assert curves["reference"]["best_simple_regret_exact"] > 0  # the scale: the oracle beats the simplest rule
    kept = sorted(steps for steps, _ in checkpoint_files(probe_curve / "seed-0"))
    assert curves["steps"] == [*kept[:-1], 1024] == [512, 1024]  # the checkpoint at 1,024 is final.zip's step
    assert set(curves["metrics"]) == {"regret", "takeover_rate", "false_starts_per_100"}
    assert all(len(values) == 2 for values in curves["metrics"]["regret"]["per_seed"].values())
    assert "best" not in curves  # fast_ppo keeps no best model


def test_a_probe_curves_final_regret_is_the_oracles_return_minus_the_models_on_the_same_deals(probe_curve):
    opponent = default_opponent("WarAnticipation-v1")
    oracle = held_out_stats("oracle", opponent, {}, 20, 2_000_000, env_id="WarAnticipation-v1")
    for seed in ("0", "1"):
        model = held_out_stats(
            f"fast_ppo:{probe_curve}/seed-{seed}/final.zip", opponent, {}, 20, 2_000_000, env_id="WarAnticipation-v1"
        )
        regret = load(probe_curve)["metrics"]["regret"]["per_seed"][seed][-1]
        assert regret == pytest.approx(oracle.played.mean_return - model.played.mean_return, abs=1e-12)


def test_each_point_has_its_training_wall_seconds_growing_with_the_steps(probe_curve):
    wall = load(probe_curve)["wall_seconds"]
    for seed in ("0", "1"):
        seconds = wall["per_seed"][seed]
        assert 0 < seconds[0] < seconds[1]
        progress = [
            json.loads(line) for line in (probe_curve / f"seed-{seed}" / "progress.jsonl").read_text().splitlines()
        ]
        assert seconds == [round(entry["seconds"], 2) for entry in progress if entry["steps"] in (512, 1024)]


def test_a_cut_off_fast_ppo_seed_resumes_from_its_checkpoint(probe_curve, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(probe_curve, copy)
    cut_off = (
        "final.zip",
        "model_card.json",
        "curve.json",
        "checkpoints/fast_ppo_1024_steps.zip",
        "checkpoints/fast_ppo_1024_steps.optimizer.pth",
    )
    for name in cut_off:  # seed 1 cut off after its checkpoint at 512 steps
        (copy / "seed-1" / name).unlink()
    assert cli([*FAST_ON_A_PROBE, "--run-dir", str(copy)]) == 0
    card = json.loads((copy / "seed-1" / "model_card.json").read_text())
    assert card["resumed_from_timesteps"] == 512 and load(copy)["steps"] == [512, 1024]
    sessions = json.loads((copy / "run.json").read_text())["sessions"]  # the first command's, then this one's
    assert [session["seeds"] for session in sessions] == [[0, 1], [0, 1]]


def test_a_folder_made_for_another_env_id_is_refused_naming_it(probe_curve, capsys):
    other_game = [("WarMemory-v1" if arg == "WarAnticipation-v1" else arg) for arg in FAST_ON_A_PROBE]
    with pytest.raises(SystemExit) as exit_:
        cli([*other_game, "--run-dir", str(probe_curve)])
    assert exit_.value.code == 2
    assert 'started with env_id="WarAnticipation-v1", not "WarMemory-v1"' in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv, message",
    [
        (
            ["--env-id", "WarAnticipation-v1", "--opponent", "human"],
            "WarAnticipation-v1 is played against its own opponent",
        ),
        (
            ["--env-id", "WarAnticipation-v1", "--env-arg", "latency=2"],
            "WarAnticipation-v1 is played with its own rules",
        ),
        (["--env-id", "WarNope-v0"], "unknown env id 'WarNope-v0'"),
        (["--algo", "fast_ppo"], "--algo fast_ppo needs a training budget (--timesteps N)"),
        (["--algo", "fast_ppo", "--timesteps", "2000", "--config", "x.json"], "--algo fast_ppo takes no --config FILE"),
    ],
)
def test_a_game_the_curve_cannot_measure_is_refused_before_anything_is_made(argv, message, tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        cli([*argv, "--run-dir", str(tmp_path / "run")])
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err and not (tmp_path / "run").exists()
