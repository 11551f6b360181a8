"""Ray Tune over war-train trials, on a tiny budget: every trial is an ordinary war-train run with its
sampled hyperparameters, scored on the same held-out deals, ranked in tune.json; bad spaces fail early."""

import json
import re
from pathlib import Path

import pytest

from war_env.data import training_config_file
from war_env.scripts.tune import cli
from war_env.training.tune import check_space, trial_folder
from war_env.training.tune import tune_sweep as main

ray = pytest.importorskip("ray")


@pytest.fixture(scope="session")
def ray_instance():
    """One local Ray instance for the session (shared with tests/test_ray_backend.py if it started first)."""
    started = not ray.is_initialized()
    if started:
        ray.init(address="local", num_cpus=2, include_dashboard=False, logging_level="WARNING")
    yield
    if started:
        ray.shutdown()


def tiny_ppo_config(folder: Path) -> Path:
    raw = json.loads(training_config_file("ppo").read_text())
    raw["hyperparameters"].update({"n_steps": 64, "batch_size": 64, "n_epochs": 1})
    raw["policy_kwargs"]["net_arch"] = {"pi": [16], "vf": [16]}
    raw["evaluation"] = {"every_timesteps": 0, "rounds": 1, "seed": 1_000_000}
    raw["checkpoint_every_timesteps"] = 0
    path = folder / "ppo.json"
    path.write_text(json.dumps(raw))
    return path


@pytest.mark.slow
def test_a_tiny_sweep_trains_every_trial_with_its_own_hyperparameters(ray_instance, tmp_path):
    space = {"learning_rate": {"loguniform": [1e-4, 1e-2]}, "gamma": {"choice": [0.5, 0.99]}}
    run = main(
        "ppo",
        space,
        samples=2,
        timesteps=64,
        config_path=tiny_ppo_config(tmp_path),
        n_envs=1,
        seed=4,
        bench_rounds=3,
        out=tmp_path / "sweep",
    )
    assert run.errors == [] and len(run.trials) == 2
    assert [t["mean_return"] for t in run.trials] == sorted((t["mean_return"] for t in run.trials), reverse=True)
    for trial in run.trials:
        card = json.loads((Path(trial["run_dir"]) / "model_card.json").read_text())
        assert card["hyperparameters"]["learning_rate"] == trial["config"]["learning_rate"]
        assert card["hyperparameters"]["gamma"] == trial["config"]["gamma"]
        assert 1e-4 <= trial["config"]["learning_rate"] <= 1e-2 and trial["config"]["gamma"] in (0.5, 0.99)
        assert card["benchmark"]["model"]["mean_return"] == trial["mean_return"]
        assert card["benchmark"]["rounds"] == 3 and card["benchmark"]["seed"] == 2_000_000  # the same deals for all
        assert card["seed"] == 4 and card["timesteps"] >= 64
        assert (Path(trial["run_dir"]) / "best.zip").is_file()
        assert Path(trial["run_dir"]).parent == tmp_path / "sweep" / "trials"
    assert sorted(Path(trial["run_dir"]).name for trial in run.trials) == ["trial_000", "trial_001"]
    assert run.trials[0]["config"] != run.trials[1]["config"]
    summary = json.loads((tmp_path / "sweep" / "tune.json").read_text())
    assert summary["trials"] == json.loads(json.dumps(run.trials)) and summary["space"] == space

    from war_env.agents.sb3_agent import load_sb3_agent

    best = load_sb3_agent("ppo", str(Path(run.best["run_dir"]) / "best.zip"))
    assert best.act(__import__("numpy").zeros(16, dtype="float32")) in (0, 1)


def test_a_trial_folder_is_named_by_the_trials_place_in_the_sweep():
    assert trial_folder("ab039_00000") == "trial_000" and trial_folder("ab039_00012") == "trial_012"
    with pytest.raises(ValueError, match="ends in the trial's index"):
        trial_folder("_trial")


@pytest.mark.parametrize(
    "space, message",
    [
        ({"learning_rat": {"uniform": [0.1, 0.2]}}, "unknown ppo hyperparameter"),
        ({"gamma": {"uniform": [0.9, 1.5]}}, "gamma must be in"),
        ({"gamma": {"normal": [0.9, 0.1]}}, "must be one of"),
        ({"learning_rate": {"loguniform": [0, 0.1]}}, "low > 0"),
        ({"n_steps": {"randint": [64, 32]}}, "low < high"),
        ({}, "non-empty"),
    ],
)
def test_a_bad_search_space_is_refused_before_ray_starts(space, message):
    with pytest.raises(ValueError, match=message):
        check_space("ppo", space)


def test_the_cli_reports_a_bad_space_as_a_usage_error(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_status:
        cli(["--space", '{"gamma": {"choice": []}}', "--out", str(tmp_path / "x")])
    assert exit_status.value.code == 2 and "gamma: choice takes a non-empty list" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--opponent", "humann"], "unknown opponent 'humann'.*did you mean 'human'"),
        (["--n-envs", "1000"], r"n_envs must be an integer in \[1, 64\]"),
        (["--address", "nonsense"], "address must be 'auto', 'HOST:PORT'"),
        (["--max-concurrent", "0"], "max_concurrent must be a whole number >= 1, got 0"),
    ],
)
def test_a_bad_opponent_or_setting_is_a_usage_error_before_ray_starts(tmp_path, capsys, argv, message):
    with pytest.raises(SystemExit) as exit_status:
        cli([*argv, "--out", str(tmp_path / "x")])
    assert exit_status.value.code == 2
    assert re.search(message, capsys.readouterr().err.strip().splitlines()[-1])
    assert not (tmp_path / "x").exists()


@pytest.mark.slow
def test_an_address_where_no_ray_cluster_answers_is_refused_within_seconds(tmp_path, capsys):
    assert cli(["--address", "127.0.0.1:1", "--out", str(tmp_path / "x")]) == 1
    assert capsys.readouterr().err.strip().splitlines() == [
        "war-tune: error: no Ray cluster answers at 127.0.0.1:1 (nothing there took a gRPC connection within 5 s)"
    ]
    assert not (tmp_path / "x").exists()
