"""war_env.training and war-train: config validation, a smoke run per algorithm, resume, paired evaluation, RL Zoo.

Tiny budgets (a few hundred steps) keep this module at about a minute on a free core; the one
test that trains to the bar is marked ``slow``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import war_env  # noqa: F401
from war_env.agents import make_opponent
from war_env.agents.fields import TIMING_FIELDS
from war_env.agents.model_files import read_metadata
from war_env.agents.sb3_agent import load_sb3_agent
from war_env.core.observation import latency_fields
from war_env.core.rules import WarConfig
from war_env.core.specs import parse_assignments
from war_env.data import rl_zoo_file, training_config_file
from war_env.support.run_folder import RunFolderConflict
from war_env.training.comparison import HeldOutRounds, compare_with_baseline, held_out_stats
from war_env.training.config import load_config, parse_config
from war_env.training.run import train as main

ROOT = Path(__file__).resolve().parent.parent
ALGORITHMS = ("ppo", "a2c", "dqn", "maskable_ppo")
TINY = {
    "ppo": {"n_steps": 64, "batch_size": 64, "n_epochs": 1},
    "maskable_ppo": {"n_steps": 64, "batch_size": 64, "n_epochs": 1},
    "a2c": {"n_steps": 8},
    "dqn": {"buffer_size": 1000, "learning_starts": 64, "batch_size": 32, "target_update_interval": 64},
}


def tiny_config(tmp_path: Path, algo: str) -> Path:
    """The shipped config with a tiny network and frequent evaluations and checkpoints."""
    raw = json.loads(training_config_file(algo).read_text())
    raw["hyperparameters"].update(TINY[algo])
    raw["policy_kwargs"]["net_arch"] = [16] if algo == "dqn" else {"pi": [16], "vf": [16]}
    raw["evaluation"] = {"every_timesteps": 128, "rounds": 1, "seed": 1_000_000}
    raw["checkpoint_every_timesteps"] = 128
    path = tmp_path / f"{algo}.json"
    path.write_text(json.dumps(raw))
    return path


def play_one_round(agent, seed: int = 5) -> dict:
    env = gym.make("War-v0", opponent="human")
    observation, _ = env.reset(seed=seed)
    while True:
        observation, _, terminated, truncated, info = env.step(agent.act(observation))
        if terminated or truncated:
            return info["round"]


# --- the configuration files ----------------------------------------------------------------------
@pytest.mark.parametrize("algo", ALGORITHMS)
def test_every_shipped_config_is_valid(algo):
    config = load_config(training_config_file(algo))
    assert config.algorithm == algo
    assert config.timesteps == 100_000


def _ppo_raw() -> dict:
    return json.loads(training_config_file("ppo").read_text())


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda c: c.update(learning_rat=0.1), r"unknown key\(s\) \['learning_rat'\]"),
        (lambda c: c["hyperparameters"].update(n_step=64), r"unknown ppo hyperparameter\(s\) \['n_step'\]"),
        (lambda c: c["hyperparameters"].update(gamma=1.5), r"gamma must be in \[0, 1\], got 1.5"),
        (lambda c: c["hyperparameters"].update(n_steps=64.5), r"n_steps must be an integer, got 64.5"),
        (lambda c: c["hyperparameters"].update(n_steps=0), r"n_steps must be in \[1, 65,536\], got 0"),
        # ranges that bound what a run allocates and computes, checked before anything is built
        (lambda c: c["hyperparameters"].update(learning_rate=1e300), r"learning_rate must be in \(0, 1\], got 1e\+300"),
        (lambda c: c["hyperparameters"].update(n_steps=10**9), r"n_steps must be in \[1, 65,536\]"),
        (lambda c: c["hyperparameters"].update(n_epochs=10**8), r"n_epochs must be in \[1, 1,000\]"),
        (lambda c: c["hyperparameters"].update(vf_coef=1e300), r"vf_coef must be in \[0, 1,000,000\]"),
        (lambda c: c["hyperparameters"].update(clip_range_vf=-1e300), r"clip_range_vf must be in \[-1,000,000"),
        (lambda c: c["policy_kwargs"].update(net_arch=[200000, 200000]), r"parameters; at most 10,000,000"),
        (lambda c: c["evaluation"].update(rounds=10**9), r"evaluation.rounds must be an integer in \[1, 10,000\]"),
        (lambda c: c.update(n_envs=10**6), r"n_envs must be an integer in \[1, 64\]"),
        (lambda c: c.update(keep_checkpoints=0), r"keep_checkpoints must be an integer in \[1, 1,000\]"),
        (lambda c: c["hyperparameters"].update(learning_rate="fast"), r"learning_rate must be a finite number"),
        (lambda c: c["hyperparameters"].update(normalize_advantage="yes"), r"must be true or false"),
        (lambda c: c["hyperparameters"].update(env="War-v0"), r"unknown ppo hyperparameter\(s\) \['env'\]"),
        (lambda c: c["train_env"].update(turn_seconds=1.0), r"train_env takes only reward fields"),
        (lambda c: c["train_env"].update(reward_win="big"), r"reward_win must be a number from"),
        (lambda c: c["policy_kwargs"].update(activation_fn="sigmoid"), r"activation_fn must be one of"),
        (lambda c: c["policy_kwargs"].update(net_arch=[64, -1]), r"net_arch must be"),
        (lambda c: c["evaluation"].update(every=5), r"unknown evaluation key\(s\) \['every'\]"),
        (lambda c: c.update(n_envs=0), r"n_envs must be an integer in \[1, 64\], got 0"),
        (lambda c: c.update(observation=["can_draw", "timer"]), r"unknown observation field\(s\) \['timer'\]"),
        (lambda c: c.update(version=2), r"version must be 1, got 2"),
        (lambda c: c.update(algorithm="sac"), r"unknown algorithm 'sac'"),
    ],
)
def test_bad_configs_get_clear_errors(change, message):
    raw = _ppo_raw()
    change(raw)
    with pytest.raises(ValueError, match=message):
        parse_config(raw)


def test_a_config_file_error_names_the_file(tmp_path):
    path = tmp_path / "ppo.json"
    path.write_text("{ not json")
    with pytest.raises(ValueError, match="ppo.json.*not valid JSON"):
        load_config(path)
    path.write_text(json.dumps({**_ppo_raw(), "extra": 1}))
    with pytest.raises(ValueError, match=r"ppo.json.*unknown key\(s\) \['extra'\]"):
        load_config(path)


def test_command_line_assignments_are_typed():
    assert parse_assignments(["gamma=0.95", "n_steps=128", "pickup=shuffled", "target_points=None"], "--set") == {
        "gamma": 0.95,
        "n_steps": 128,
        "pickup": "shuffled",
        "target_points": None,
    }
    with pytest.raises(ValueError, match="expected key=value"):
        parse_assignments(["gamma"], "--set")
    # numbers are ASCII digits: Python's int() also reads these, which would then be stored as written
    assert parse_assignments(["a=\uff11\uff10,b=\u0661\u0660,c=1_0,d=1_0.5"]) == {
        "a": "\uff11\uff10",
        "b": "\u0661\u0660",
        "c": "1_0",
        "d": "1_0.5",
    }


def test_a_spec_value_takes_the_rest_of_its_item_commas_included():
    assert parse_assignments(["turn_seconds=2,latency=uniform:low=1,high=4"], "--env") == {
        "turn_seconds": 2,
        "latency": "uniform:low=1,high=4",
    }
    assert parse_assignments(["latency=fixed:ticks=2", "reward_idle_tick=0"], "--env") == {
        "latency": "fixed:ticks=2",
        "reward_idle_tick": 0,
    }


def test_bad_env_arguments_fail_before_a_run_folder_is_made(tmp_path):
    with pytest.raises(ValueError, match=r"War-v0 got an unexpected keyword argument 'turn_second'"):
        main("ppo", env_args={"turn_second": 2}, run_dir=tmp_path / "run")
    with pytest.raises(ValueError, match="turn_seconds"):
        main("ppo", env_args={"turn_seconds": 0.05}, run_dir=tmp_path / "run")
    with pytest.raises(ValueError, match="is for 'ppo', not 'a2c'"):
        main("a2c", config_path=str(training_config_file("ppo")), run_dir=tmp_path / "run")
    assert not (tmp_path / "run").exists()


# --- a smoke run per algorithm -----------------------------------------------------------------
@pytest.mark.parametrize("algo", ALGORITHMS)
def test_each_algorithm_trains_saves_reloads_and_plays(algo, tmp_path):
    result = main(
        algo,
        config_path=tiny_config(tmp_path, algo),
        timesteps=256,
        n_envs=2,
        seed=3,
        run_dir=tmp_path / "run",
        bench_rounds=2,
    )
    run = result.run_dir
    assert result.timesteps >= 256
    for name in ("config.json", "final.zip", "best.zip", "model_card.json", "eval/evaluations.npz"):
        assert (run / name).is_file(), name
    assert sorted(p.name for p in (run / "checkpoints").glob("ckpt_*.zip"))
    assert any((run / "tb").rglob("events.out.tfevents*"))
    card = json.loads((run / "model_card.json").read_text())
    assert card["algorithm"] == algo and card["seed"] == 3 and card["timesteps"] == result.timesteps
    versions = card["provenance"]["versions"]
    assert versions["stable-baselines3"] and versions["torch"].startswith("2.13.0")
    assert card["benchmark"]["model"]["rounds"] == 2
    assert card["benchmark"]["model_file"] == "best.zip" and card["benchmark_final"]["model_file"] == "final.zip"
    assert card["benchmark_final"]["baseline"] == card["benchmark"]["baseline"]  # prompt on the same deals
    recorded = json.loads((run / "config.json").read_text())
    assert recorded["settings"]["timesteps"] == 256 and recorded["config"]["algorithm"] == algo

    agent = load_sb3_agent(algo, str(result.best_model))
    round_info = play_one_round(agent)
    assert round_info["reason"] is not None
    if algo == "maskable_ppo":  # the mask keeps the policy from pressing out of turn
        assert round_info["false_starts"][0] == 0


@pytest.mark.slow
def test_subprocess_envs_train_in_real_worker_processes(tmp_path):
    result = main(
        "ppo",
        config_path=tiny_config(tmp_path, "ppo"),
        timesteps=128,
        n_envs=2,
        vec_env="subproc",
        run_dir=tmp_path / "run",
        bench_rounds=0,
    )
    assert result.timesteps == 128
    assert json.loads((result.run_dir / "config.json").read_text())["settings"]["vec_env"] == "subproc"


@pytest.mark.slow
@pytest.mark.parametrize("algo", ["ppo", "maskable_ppo"])
def test_the_batched_env_and_sb3s_dummy_vec_env_train_the_same_weights(algo, tmp_path):
    # war-train's default (the batched env through the SB3 adapter) is the same game, step for step,
    # as DummyVecEnv over War-v0 envs: with one seed the learner sees the same data and ends with the
    # same weights, bit for bit.
    import torch

    from war_env.agents.model_files import load_model

    weights = {}
    for vec_env in ("batched", "dummy"):
        result = main(
            algo,
            config_path=tiny_config(tmp_path, algo),
            timesteps=640,
            n_envs=3,
            seed=4,
            vec_env=vec_env,
            run_dir=tmp_path / vec_env,
            bench_rounds=0,
        )
        assert json.loads((result.run_dir / "config.json").read_text())["settings"]["vec_env"] == vec_env
        weights[vec_env] = load_model(algo, result.final_model).policy.state_dict()
    assert weights["batched"].keys() == weights["dummy"].keys()
    assert all(torch.equal(weights["batched"][name], weights["dummy"][name]) for name in weights["dummy"])


def test_war_train_trains_on_the_batched_env_by_default(tmp_path):
    result = main(
        "ppo",
        config_path=tiny_config(tmp_path, "ppo"),
        timesteps=64,
        n_envs=2,
        run_dir=tmp_path / "run",
        bench_rounds=0,
    )
    assert json.loads((result.run_dir / "config.json").read_text())["settings"]["vec_env"] == "batched"


def test_a_saved_model_can_be_the_opponent_for_self_play(tmp_path):
    first = main(
        "ppo",
        config_path=tiny_config(tmp_path, "ppo"),
        timesteps=64,
        n_envs=1,
        run_dir=tmp_path / "first",
        bench_rounds=0,
    )
    opponent = f"ppo:{first.best_model}"
    second = main(
        "ppo",
        config_path=tiny_config(tmp_path, "ppo"),
        timesteps=64,
        n_envs=1,
        opponent=opponent,
        run_dir=tmp_path / "second",
        bench_rounds=1,
    )
    assert second.model_card["opponent"] == opponent
    assert second.model_card["benchmark"]["baseline"]["opponent"] == opponent


@pytest.mark.slow
def test_a_policy_can_train_on_the_timing_fields_only(tmp_path):
    config = tiny_config(tmp_path, "a2c")
    config.write_text(json.dumps({**json.loads(config.read_text()), "observation": "timing"}))
    result = main("a2c", config_path=config, timesteps=128, n_envs=2, run_dir=tmp_path / "run", bench_rounds=1)
    assert result.model_card["observation_fields"] == list(TIMING_FIELDS)
    assert read_metadata(result.best_model)["observation_fields"] == list(TIMING_FIELDS)
    assert play_one_round(load_sb3_agent("a2c", str(result.best_model)))["reason"] is not None


@pytest.mark.slow
@pytest.mark.parametrize("vec_env", ["batched", "dummy"])
def test_with_latency_a_run_trains_on_war_latency_v0_and_its_model_sees_the_presses_in_flight(vec_env, tmp_path):
    result = main(
        "ppo",
        config_path=tiny_config(tmp_path, "ppo"),
        timesteps=64,
        n_envs=2,
        vec_env=vec_env,
        env_args={"latency": "uniform:low=1,high=3"},
        run_dir=tmp_path / "run",
        bench_rounds=1,
    )
    fields = read_metadata(result.best_model)["observation_fields"]
    assert (
        fields
        == result.model_card["observation_fields"]
        == list(latency_fields(WarConfig.from_kwargs({"latency": "uniform:low=1,high=3"})))
    )
    agent = load_sb3_agent("ppo", str(result.best_model))
    env = gym.make("WarLatency-v0", opponent="human", latency="uniform:low=1,high=3")
    observation, _ = env.reset(seed=3)
    assert agent.observes_latency and agent.act(observation) in (0, 1)


def test_the_command_line_trains_and_prints_the_comparison(tmp_path, capsys):
    from war_env.scripts.train import cli

    argv = [
        "--algo",
        "ppo",
        "--config",
        str(tiny_config(tmp_path, "ppo")),
        "--timesteps",
        "64",
        "--n-envs",
        "1",
        "--run-dir",
        str(tmp_path / "run"),
        "--bench-rounds",
        "2",
        "--no-progress-bar",
        "--set",
        "gamma=0.8",
        "--env-arg",
        "turn_seconds=2",
    ]
    assert cli(argv) == 0  # an exit status: the console script calls sys.exit(cli())
    printed = capsys.readouterr().out
    assert "held-out comparison, 2 rounds vs human" in printed and "bar (0 takeovers" in printed
    card = json.loads((tmp_path / "run" / "model_card.json").read_text())
    assert card["hyperparameters"]["gamma"] == 0.8 and card["war_config"]["turn_seconds"] == 2
    seconds = re.search(r"timesteps, (\S+) s training\)", printed).group(1)
    stderr = re.search(r"\(stderr (\S+)\)", printed).group(1)
    assert re.fullmatch(r"\d+\.\d", seconds) and re.fullmatch(r"\d+\.\d{4}", stderr)  # rounded for reading


def test_a_comparison_of_one_round_prints_its_stderr_as_undefined(tmp_path, capsys):
    from war_env.scripts.train import cli

    argv = [
        "--algo",
        "ppo",
        "--config",
        str(tiny_config(tmp_path, "ppo")),
        "--timesteps",
        "64",
        "--n-envs",
        "1",
        "--run-dir",
        str(tmp_path / "run"),
        "--bench-rounds",
        "1",
        "--no-progress-bar",
    ]
    assert cli(argv) == 0
    assert "(stderr undefined for one round)" in capsys.readouterr().out


def test_require_bar_makes_a_missed_bar_a_failure_and_keeps_the_run(tmp_path, capsys):
    from war_env.scripts.train import cli

    argv = [
        "--algo",
        "ppo",
        "--config",
        str(tiny_config(tmp_path, "ppo")),
        "--timesteps",
        "64",
        "--n-envs",
        "1",
        "--run-dir",
        str(tmp_path / "run"),
        "--bench-rounds",
        "2",
        "--no-progress-bar",
        "--require-bar",
    ]
    assert cli(argv) == 1  # 64 steps of PPO are far from the bar
    captured = capsys.readouterr()
    assert "bar (0 takeovers" in captured.out and "NOT reached" in captured.out
    assert captured.err.strip().splitlines() == [
        f"war-train: error: the bar was not reached (--require-bar); the run is in {tmp_path / 'run'}"
    ]
    assert (tmp_path / "run" / "final.zip").is_file()
    with pytest.raises(SystemExit) as usage:
        cli([*argv[:-1], "--bench-rounds", "0", "--require-bar"])
    assert usage.value.code == 2 and "--require-bar needs the held-out comparison" in capsys.readouterr().err


def test_a_scripted_opponent_gets_the_rules_of_the_run(tmp_path):
    opponent = make_opponent("last_moment", config=WarConfig(turn_seconds=2.0))
    env = gym.make("War-v0", opponent=opponent, turn_seconds=2.0)
    env.reset(seed=0)
    for _ in range(300):
        *_, terminated, _, info = env.step(0)
        if terminated:
            break
    assert not env.unwrapped.round.taken_over[1]  # it drew on the last tick of a 20-tick timer
    unaware = gym.make("War-v0", opponent=make_opponent("last_moment"), turn_seconds=2.0)
    unaware.reset(seed=0)
    with pytest.raises(ValueError, match="does not fit a turn of 30 ticks"):  # built for the default rules
        for _ in range(300):
            unaware.step(0)
    with pytest.raises(ValueError, match="unknown opponent 'nobody'"):
        make_opponent("nobody")


def test_a_run_folder_is_never_overwritten(tmp_path):
    config = tiny_config(tmp_path, "ppo")
    main("ppo", config_path=config, timesteps=64, n_envs=1, run_dir=tmp_path / "run", bench_rounds=0)
    with pytest.raises(RunFolderConflict, match="already holds a run: continue it with war-train --resume"):
        main("ppo", config_path=config, timesteps=64, n_envs=1, run_dir=tmp_path / "run", bench_rounds=0)


# --- resume -------------------------------------------------------------------------------------
def test_resume_continues_from_the_checkpoint_weights_and_step_count(tmp_path):
    first = main(
        "ppo",
        config_path=tiny_config(tmp_path, "ppo"),
        timesteps=256,
        n_envs=2,
        run_dir=tmp_path / "run",
        bench_rounds=0,
    )
    checkpoint = first.run_dir / "checkpoints" / "ckpt_128.zip"
    assert read_metadata(checkpoint)["num_timesteps"] == 128

    # Resuming to the checkpoint's own step count trains nothing: final.zip must be the checkpoint.
    same = main(resume=checkpoint, timesteps=128, bench_rounds=0)
    assert same.timesteps == 128
    observations = np.random.default_rng(0).random((100, 16), dtype=np.float32)
    from war_env.agents.model_files import load_model

    expected = load_model("ppo", checkpoint).policy.state_dict()
    resumed = load_model("ppo", same.final_model).policy.state_dict()
    assert all(np.array_equal(expected[key].numpy(), resumed[key].numpy()) for key in expected)
    assert np.array_equal(
        load_sb3_agent("ppo", str(checkpoint)).predict(observations)[0],
        load_sb3_agent("ppo", str(same.final_model)).predict(observations)[0],
    )

    # Resuming the run folder (its latest checkpoint) to a larger budget continues the step count.
    longer = main(resume=first.run_dir, timesteps=512, bench_rounds=0)
    assert longer.timesteps == 512
    assert longer.model_card["resumed_from"].endswith("ckpt_256.zip")
    assert (first.run_dir / "checkpoints" / "ckpt_512.zip").is_file()


def test_resume_needs_a_checkpoint(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such checkpoint"):
        main(resume=tmp_path / "nothing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match=r"is not a war-train run folder \(no config.json\)"):
        main(resume=tmp_path / "empty")
    (tmp_path / "empty" / "config.json").write_text('{"settings": {}')
    with pytest.raises(RunFolderConflict, match="config.json is not a war-train run's settings: Expecting"):
        main(resume=tmp_path / "empty")


def test_a_folder_trained_before_run_json_keeps_its_earlier_sessions_from_its_model_card(tmp_path):
    config = tiny_config(tmp_path, "ppo")
    first = main("ppo", config_path=config, timesteps=128, n_envs=1, run_dir=tmp_path / "run", bench_rounds=0)
    (first.run_dir / "run.json").unlink()  # as a folder written before the record existed
    resumed = main(resume=first.run_dir, timesteps=256, bench_rounds=0)
    assert [(s["from_timesteps"], s["to_timesteps"]) for s in resumed.model_card["sessions"]] == [(0, 128), (128, 256)]
    assert json.loads((first.run_dir / "run.json").read_text())["sessions"] == resumed.model_card["sessions"]


def test_resume_appends_to_the_evaluation_log_and_the_model_card_keeps_every_session(tmp_path):
    config = tiny_config(tmp_path, "ppo")
    first = main("ppo", config_path=config, timesteps=256, n_envs=1, run_dir=tmp_path / "run", bench_rounds=0)
    assert first.model_card["evaluation_callback"]["timesteps"] == [128, 256]
    resumed = main(resume=first.run_dir, timesteps=512, bench_rounds=0)
    with np.load(first.run_dir / "eval" / "evaluations.npz") as log:
        assert log["timesteps"].tolist() == [128, 256, 384, 512]
        assert log["results"].shape == (4, 1)
    card = resumed.model_card
    assert card["evaluation_callback"]["timesteps"] == [128, 256, 384, 512]
    assert [(s["from_timesteps"], s["to_timesteps"]) for s in card["sessions"]] == [(0, 256), (256, 512)]
    assert card["sessions"][1]["resumed_from"].endswith("ckpt_256.zip")
    assert json.loads((first.run_dir / "run.json").read_text())["sessions"] == card["sessions"]  # the folder's record


def test_resuming_an_earlier_checkpoint_evaluates_each_step_once(tmp_path, capsys):
    """``war-train --resume RUN/checkpoints/ckpt_256.zip`` of a run that went to 512: the evaluations
    after 256 belong to the part that is trained again; the log holds each step once, in order."""
    first = main(
        "ppo",
        config_path=tiny_config(tmp_path, "ppo"),
        timesteps=512,
        n_envs=2,
        run_dir=tmp_path / "run",
        bench_rounds=0,
    )
    assert first.model_card["evaluation_callback"]["timesteps"] == [128, 256, 384, 512]
    again = main(resume=first.run_dir / "checkpoints" / "ckpt_256.zip", timesteps=640, bench_rounds=0)
    assert again.model_card["evaluation_callback"]["timesteps"] == [128, 256, 384, 512, 640]
    assert "the evaluations at [384, 512] steps come after it and are dropped" in capsys.readouterr().err


@pytest.mark.slow
def test_a_run_killed_after_a_checkpoint_has_that_steps_evaluation(tmp_path):
    """A checkpoint is written after the evaluation of its step: killed the moment a checkpoint appears,
    the run's log already holds that evaluation, and the resumed run evaluates every step once."""
    import signal
    import time

    config = json.loads(tiny_config(tmp_path, "ppo").read_text())
    config["evaluation"]["rounds"] = 20  # an evaluation long enough to be killed in the middle of
    (tmp_path / "slow_eval.json").write_text(json.dumps(config))
    run = tmp_path / "run"
    command = [
        sys.executable,
        "-m",
        "war_env.scripts.train",
        "--algo",
        "ppo",
        "--config",
        str(tmp_path / "slow_eval.json"),
        "--timesteps",
        "512",
        "--n-envs",
        "1",
        "--run-dir",
        str(run),
        "--bench-rounds",
        "0",
    ]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tmp_path)
    try:
        deadline = time.monotonic() + 120
        while not (run / "checkpoints" / "ckpt_256.zip").exists() and time.monotonic() < deadline:
            time.sleep(0.005)
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    assert (run / "checkpoints" / "ckpt_256.zip").exists()
    resumed = main(resume=run, timesteps=512, bench_rounds=0)
    assert resumed.model_card["evaluation_callback"]["timesteps"] == [128, 256, 384, 512]


def test_resume_falls_back_from_a_cut_checkpoint_says_so_and_ignores_other_files(tmp_path, capsys):
    first = main(
        "ppo",
        config_path=tiny_config(tmp_path, "ppo"),
        timesteps=384,
        n_envs=1,
        run_dir=tmp_path / "run",
        bench_rounds=0,
    )
    folder = first.run_dir / "checkpoints"
    latest = folder / "ckpt_384.zip"
    latest.write_bytes(latest.read_bytes()[:1000])  # a crash cut it short
    (folder / "ckpt_final.zip").write_bytes((folder / "ckpt_256.zip").read_bytes())  # someone's copy
    capsys.readouterr()
    resumed = main(resume=first.run_dir, timesteps=512, bench_rounds=0)
    said = capsys.readouterr().err
    assert (
        f"skipping checkpoint {latest}, it does not load: model file '{latest}' is not a zip file, or a truncated one"
        in said
        and f"resuming from the previous checkpoint, {folder / 'ckpt_256.zip'}" in said
    )
    assert "war_env_model.json" not in said
    assert resumed.timesteps == 512 and resumed.model_card["resumed_from"].endswith("ckpt_256.zip")
    assert "ckpt_384.zip" in resumed.model_card["sessions"][1]["skipped_checkpoints"][0]


def test_only_the_latest_checkpoints_are_kept(tmp_path):
    config = tiny_config(tmp_path, "ppo")
    config.write_text(
        json.dumps(
            {
                **json.loads(config.read_text()),
                "keep_checkpoints": 2,
                "evaluation": {"every_timesteps": 0, "rounds": 1, "seed": 0},
            }
        )
    )
    result = main("ppo", config_path=config, timesteps=640, n_envs=1, run_dir=tmp_path / "run", bench_rounds=0)
    assert sorted(p.name for p in (result.run_dir / "checkpoints").iterdir()) == ["ckpt_512.zip", "ckpt_640.zip"]


def test_a_bad_opponent_fails_before_a_run_folder_is_made(tmp_path):
    with pytest.raises(ValueError, match="unknown opponent 'humann'.*did you mean 'human'"):
        main("ppo", config_path=tiny_config(tmp_path, "ppo"), opponent="humann", run_dir=tmp_path / "run")
    assert not (tmp_path / "run").exists()


def test_a_run_that_failed_before_saving_anything_is_started_again_by_the_same_command(tmp_path, monkeypatch):
    import war_env.training.run as run

    arguments = dict(
        config_path=tiny_config(tmp_path, "ppo"), timesteps=128, n_envs=1, run_dir=tmp_path / "run", bench_rounds=0
    )

    def lost_connection(*args, **kwargs):
        raise ConnectionError("the opponent's server went away")

    with monkeypatch.context() as patch:
        patch.setattr(run, "make_vec", lost_connection)
        with pytest.raises(ConnectionError):
            main("ppo", **arguments)
    assert (tmp_path / "run" / "config.json").is_file()
    assert main("ppo", **arguments).timesteps == 128
    with pytest.raises(RunFolderConflict, match="already holds a run"):  # now it has trained: refused
        main("ppo", **arguments)


# --- paired evaluation -----------------------------------------------------------------------------
def test_paired_rounds_give_identical_returns_to_identical_agents():
    first = held_out_stats("prompt", "human", {}, rounds=6, seed=11)
    second = held_out_stats("prompt", "human", {}, rounds=6, seed=11)
    assert isinstance(first, HeldOutRounds)
    assert first.played.returns.tolist() == second.played.returns.tolist()
    assert first.takeovers == 0 and first.summary()["false_starts"] == 0 and first.mean_reaction_ticks == 0


def test_the_bar_fails_for_an_agent_that_never_draws():
    from war_env.agents import make_agent

    comparison = compare_with_baseline(make_agent("never"), "human", {}, rounds=4, seed=0)
    assert comparison["model"]["takeovers"] == 4
    assert comparison["mean_return_difference"] < -0.9  # the takeover penalty, on the same deals
    assert comparison["bar"]["passed"] is False
    prompt = compare_with_baseline(make_agent("prompt"), "human", {}, rounds=4, seed=0)
    assert prompt["mean_return_difference"] == 0 and prompt["bar"]["passed"] is True


# --- RL Zoo ------------------------------------------------------------------------------------------
@pytest.mark.slow
def test_the_rl_zoo_trains_war_v0_and_its_model_loads_weights_only(tmp_path):
    pytest.importorskip("rl_zoo3")
    command = [
        sys.executable,
        "-m",
        "rl_zoo3.train",
        "--algo",
        "ppo",
        "--env",
        "War-v0",
        "--gym-packages",
        "war_env",
        "-conf",
        str(rl_zoo_file("ppo")),
        "-n",
        "1024",
        "--eval-freq",
        "-1",
        "--seed",
        "0",
        "-f",
        str(tmp_path),
        "--num-threads",
        "1",
    ]
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=600, cwd=ROOT, env={**os.environ, "OMP_NUM_THREADS": "1"}
    )
    assert done.returncode == 0, done.stderr[-2000:]
    model_file = tmp_path / "ppo" / "War-v0_1" / "War-v0.zip"
    assert model_file.is_file()
    agent = load_sb3_agent("ppo", str(model_file))  # no war_env_model.json: SB3's default MlpPolicy
    assert play_one_round(agent)["reason"] is not None


# --- the bar (slow) -----------------------------------------------------------------------------------
@pytest.mark.slow
def test_ppo_with_the_shipped_config_learns_and_its_final_model_stays_optimal(tmp_path):
    """PPO, the shipped ppo.json, against human, 100,000 steps: the final model (what a user who trains
    longer or takes final.zip gets), and the best one, meet the bar on 1,000 held-out rounds: no
    takeover, < 1 false start per 100 rounds, at most 0.005 per round below prompt (about 60 s)."""
    result = main("ppo", timesteps=100_000, seed=0, run_dir=tmp_path / "run", bench_rounds=1_000)
    for key in ("benchmark_final", "benchmark"):
        bench = result.model_card[key]
        assert bench["rounds"] == 1_000
        assert bench["model"]["takeovers"] == 0, bench
        assert bench["model"]["false_starts_per_100_rounds"] < 1, bench
        assert bench["mean_return_difference"] >= -0.005, bench
        assert bench["bar"]["passed"] is True and bench["bar"]["return_gap_at_most"] == 0.005
