"""A run folder never starts a program by itself: every reader of a run folder (a league's, a suite's and its probes'
folders, the learners' runs, the latency table, a war-train run, a war-tune sweep) starts an ``exec:`` command only
when the command
line names it too (``war_env.agents.check_commands_restated``). Each test plants ``exec:touch MARKER`` where that
reader reads specs and checks that the marker is never made (a folder may come from someone else)."""

from __future__ import annotations

import json
import stat
import sys
from pathlib import Path

import pytest

from war_env.agents import check_commands_restated
from war_env.league.latency_table import latency_table
from war_env.league.run import CONFIG_FILE, run_league
from war_env.league.suite import SUITE_CONFIG, run_suite
from war_env.scripts.learners import main as learners_main
from war_env.support.run_folder import RunFolderConflict
from war_env.training.run import train

TINY_LEAGUE = {"env_kwargs": {"target_points": 8}, "workers": 1, "progress": False}
CLIENT = f"exec:{sys.executable} {Path(__file__).resolve().parent.parent / 'examples' / 'python_agent.py'}"


def touch(marker: Path) -> str:
    return f"exec:touch {marker}"


def plant(path: Path, key: str, field: str, spec: str) -> None:
    """Add ``spec`` to the list ``field`` of the object ``key`` of the JSON file ``path``, as an intruder would."""
    data = json.loads(path.read_text())
    data[key][field] = [*data[key][field], spec]
    path.write_text(json.dumps(data))


def test_the_rule_refuses_an_unrestated_command_and_a_spec_that_is_not_the_folders():
    check_commands_restated(["prompt", "exec:a"], ["exec:a"], "f.json", "--agents", "war-bench --resume d")
    check_commands_restated(["prompt"], [], "f.json", "--agents", "war-bench --resume d")
    with pytest.raises(
        ValueError,
        match=r"f.json has exec: specs that run commands: \['exec:b'\]; a run folder never "
        r"starts a program by itself: restate them to run them \(war-bench --resume d "
        r"--agents exec:a exec:b\)",
    ):
        check_commands_restated(["exec:a", "exec:b"], ["exec:a"], "f.json", "--agents", "war-bench --resume d")
    with pytest.raises(ValueError, match=r"--agents on a resume only restates its exec: specs, and \['eager'\] is not"):
        check_commands_restated(["prompt"], ["eager"], "f.json", "--agents", "war-bench --resume d")


def test_a_resumed_league_does_not_run_a_command_planted_in_its_config(tmp_path):
    run = run_league(["prompt"], ["instant"], rounds=1, out=tmp_path / "run", **TINY_LEAGUE)
    marker = tmp_path / "marker"
    plant(run.run_dir / CONFIG_FILE, "league", "agents", touch(marker))
    with pytest.raises(ValueError, match="a run folder never starts a program by itself"):
        run_league(resume=run.run_dir, workers=1, progress=False)
    assert not marker.exists()


def test_a_resumed_suite_does_not_run_a_command_planted_in_its_config(tmp_path):
    marker = tmp_path / "marker"
    folder = tmp_path / "suite"
    folder.mkdir()
    (folder / SUITE_CONFIG).write_text(
        json.dumps({"suite": {"agents": [touch(marker)], "probes": ["memory"], "rounds": 2, "seed": 0}})
    )
    with pytest.raises(ValueError, match="a run folder never starts a program by itself"):
        run_suite(resume=folder, progress=False)
    assert not marker.exists()
    with pytest.raises(ValueError, match=r"--agents on a resume only restates its exec: specs, and \['prompt'\]"):
        run_suite(["prompt"], resume=folder, progress=False)


def test_a_suites_exec_agent_plays_on_resume_when_restated_and_a_command_planted_in_a_probes_folder_does_not(tmp_path):
    suite = run_suite([CLIENT], ["memory"], 2, 0, tmp_path / "suite", progress=False)
    with pytest.raises(ValueError, match="restate them to run them"):
        run_suite(resume=suite.run_dir, progress=False)
    resumed = run_suite([CLIENT], resume=suite.run_dir, progress=False)
    assert resumed.rounds_played == 0 and resumed.results == suite.results
    marker = tmp_path / "marker"
    plant(suite.run_dir / "memory" / CONFIG_FILE, "league", "agents", touch(marker))
    with pytest.raises(ValueError, match=r"memory/config.json has exec: specs that run commands: \['exec:touch"):
        run_suite([CLIENT], resume=suite.run_dir, progress=False)
    assert not marker.exists()


def test_the_learners_table_takes_a_models_algorithm_from_the_learner_not_from_its_run_folder(tmp_path):
    """A run folder whose model card says ``exec`` and whose final.zip is a script: the old reader built the spec
    ``exec:<final.zip>`` from the card and ran the script; the learner's own algorithm makes it a model file, which
    is refused as one."""
    marker = tmp_path / "marker"
    for seed in (0, 1):
        run_dir = tmp_path / "out" / "runs" / "memory" / f"ppo-s{seed}"
        run_dir.mkdir(parents=True)
        (run_dir / "model_card.json").write_text(json.dumps({"algorithm": "exec"}))
        script = run_dir / "final.zip"
        script.write_text(f"#!/bin/sh\ntouch {marker}\n")
        script.chmod(script.stat().st_mode | stat.S_IXUSR)
    with pytest.raises(ValueError, match="final.zip"):
        learners_main(["--out", str(tmp_path / "out"), "--learners", "ppo", "--probes", "memory", "--rounds", "2"])
    assert not marker.exists()


def test_the_latency_table_reads_a_folder_without_running_its_commands(tmp_path):
    run = run_league(["prompt"], ["instant"], rounds=2, out=tmp_path / "run", **TINY_LEAGUE)
    marker = tmp_path / "marker"
    plant(run.run_dir / CONFIG_FILE, "league", "agents", touch(marker))
    try:
        latency_table([run.run_dir])
    except ValueError:  # the planted agent has no rounds: refusing the folder is as good as reading it
        pass
    assert not marker.exists()


def test_a_resumed_training_does_not_run_an_opponent_command_planted_in_its_config(tmp_path):
    first = train(
        "ppo",
        timesteps=64,
        n_envs=1,
        overrides={"n_steps": 32, "batch_size": 32},
        run_dir=tmp_path / "run",
        bench_rounds=0,
        vec_env="dummy",
    )
    marker = tmp_path / "marker"
    config_file = first.run_dir / "config.json"
    recorded = json.loads(config_file.read_text())
    recorded["settings"]["opponent"] = touch(marker)
    config_file.write_text(json.dumps(recorded))
    with pytest.raises(ValueError, match="a run folder never starts a program by itself"):
        train(resume=first.run_dir, timesteps=128, bench_rounds=0)
    with pytest.raises(RunFolderConflict, match=r'with opponent="exec:.*, not "human": --opponent on --resume only'):
        train(resume=first.run_dir, timesteps=128, bench_rounds=0, opponent="human")
    assert not marker.exists()


def test_a_sweep_never_reads_its_specs_from_a_folder_that_holds_one(tmp_path):
    from war_env.training.tune import tune_sweep

    out, marker = tmp_path / "sweep", tmp_path / "marker"
    out.mkdir()
    (out / "tune.json").write_text(json.dumps({"settings": {"algo": "ppo", "opponent": touch(marker)}}))
    with pytest.raises(ValueError, match="already holds a sweep; choose another --out"):
        tune_sweep("ppo", samples=1, timesteps=64, out=out)  # refused before Ray starts: nothing is resumed
    assert not marker.exists()
