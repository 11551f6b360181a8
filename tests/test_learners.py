"""Learners with memory on the probes: RecurrentPPO (sb3-contrib) and PPO with frame stacking, through
``war-train``, ``war-curves`` and agent specs (``recurrent_ppo:PATH``, ``ppo:PATH`` of a frame-stacked model).

Tiny budgets: the point is the plumbing (what the files say, that the agent replays the policy exactly as SB3
runs it, the LSTM state reset each round), not what the learners learn (docs/probes.md, "The learners").
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import war_env  # noqa: F401
from war_env.agents import make_agent
from war_env.agents.model_files import load_model, read_metadata
from war_env.core.observation import OBSERVATION_FIELDS
from war_env.core.probes import PROBES
from war_env.data import training_config_file
from war_env.support.run_folder import RunFolderConflict
from war_env.training.run import train

TINY = {"n_steps": 32, "batch_size": 32, "n_epochs": 1}


def tiny_config(tmp_path, algo: str, lstm: int = 8):
    raw = json.loads(training_config_file(algo).read_text())
    raw["hyperparameters"].update(TINY)
    raw["policy_kwargs"]["net_arch"] = {"pi": [8], "vf": [8]}
    if algo == "recurrent_ppo":
        raw["policy_kwargs"]["lstm_hidden_size"] = lstm
    raw["evaluation"] = {"every_timesteps": 64, "rounds": 1, "seed": 1_000_000}
    path = tmp_path / f"{algo}.json"
    path.write_text(json.dumps(raw))
    return path


@pytest.fixture(scope="module")
def recurrent(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("recurrent")
    return train(
        "recurrent_ppo",
        config_path=tiny_config(tmp_path, "recurrent_ppo"),
        timesteps=128,
        n_envs=2,
        env_id="WarMemory-v1",
        run_dir=tmp_path / "run",
        bench_rounds=2,
    )


@pytest.fixture(scope="module")
def stacked(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("stacked")
    return train(
        "ppo",
        config_path=tiny_config(tmp_path, "ppo"),
        timesteps=128,
        n_envs=2,
        env_id="WarMemory-v1",
        frame_stack=3,
        run_dir=tmp_path / "run",
        bench_rounds=2,
    )


def sb3_actions_over_rounds(model, env_id: str, seeds, frame_stack: int = 1) -> list[list[int]]:
    """SB3's own greedy actions, round by round, in a DummyVecEnv of one env (VecFrameStack when stacked;
    sb3-contrib's state with episode starts when recurrent): the reference the agent must replay."""
    from stable_baselines3.common.vec_env import DummyVecEnv, VecFrameStack

    rounds = []
    for seed in seeds:
        venv = DummyVecEnv([lambda: gym.make(env_id)])
        venv.seed(seed)
        if frame_stack > 1:
            venv = VecFrameStack(venv, frame_stack)
        observation, state, start, actions = venv.reset(), None, np.ones(1, dtype=bool), []
        while True:
            action, state = model.predict(observation, state=state, episode_start=start, deterministic=True)
            actions.append(int(action[0]))
            observation, _, done, _ = venv.step(action)
            start = done
            if done[0]:
                break
        rounds.append(actions)
    return rounds


def agent_actions_over_rounds(agent, env_id: str, seeds) -> list[list[int]]:
    """The agent's actions, round by round, in one env it plays on after another (reset each round)."""
    env = gym.make(env_id)
    rounds = []
    for seed in seeds:
        observation, _ = env.reset(seed=seed)
        agent.reset()
        actions, done = [], False
        while not done:
            actions.append(agent.act(observation))
            observation, _, terminated, truncated, _ = env.step(actions[-1])
            done = terminated or truncated
        rounds.append(actions)
    return rounds


@pytest.mark.slow
def test_recurrent_ppo_trains_on_a_probe_and_its_file_says_so(recurrent):
    metadata = read_metadata(recurrent.final_model)
    assert metadata["algorithm"] == "recurrent_ppo" and metadata["policy"] == "MlpLstmPolicy"
    assert metadata["env_id"] == "WarMemory-v1" and metadata["frame_stack"] == 1
    assert metadata["observation_fields"] == list(OBSERVATION_FIELDS)  # the memory probe shows War-v0's fields
    assert metadata["policy_kwargs"]["lstm_hidden_size"] == 8
    card = recurrent.model_card
    assert card["env_id"] == "WarMemory-v1" and card["opponent"] == PROBES["memory"].opponent  # the probe's own
    assert card["war_config"]["reward_idle_tick"] == -0.01  # the probe's weights
    assert card["benchmark"]["model"]["rounds"] == 2


def test_the_recurrent_agent_replays_sb3_contribs_policy_with_the_state_reset_each_round(recurrent):
    agent = make_agent(f"recurrent_ppo:{recurrent.final_model}")
    assert agent.recurrent and agent._lstm is not None  # the numpy LSTM, not torch
    assert agent.batch_policy() is None  # its memory goes from tick to tick: rounds one by one
    seeds = [3, 4, 3]
    expected = sb3_actions_over_rounds(load_model("recurrent_ppo", recurrent.final_model), "WarMemory-v1", seeds)
    played = agent_actions_over_rounds(agent, "WarMemory-v1", seeds)
    assert played == expected
    assert played[0] == played[2]  # round 3 replays round 1: nothing carried over from the rounds between


@pytest.mark.slow
def test_a_frame_stacked_policy_remembers_its_frames_and_the_agent_stacks_them_as_sb3_does(stacked):
    metadata = read_metadata(stacked.final_model)
    assert metadata["frame_stack"] == 3 and metadata["env_id"] == "WarMemory-v1"
    assert stacked.model_card["frame_stack"] == 3
    model = load_model("ppo", stacked.final_model)
    assert model.observation_space.shape == (3 * len(OBSERVATION_FIELDS),)
    agent = make_agent(f"ppo:{stacked.final_model}")
    assert agent.frame_stack == 3 and agent.batch_policy() is None
    seeds = [5, 6]
    assert agent_actions_over_rounds(agent, "WarMemory-v1", seeds) == sb3_actions_over_rounds(
        model, "WarMemory-v1", seeds, frame_stack=3
    )


def test_a_model_trained_on_a_probe_refuses_a_game_whose_observation_lacks_its_fields(tmp_path):
    from war_env.evaluation import play_rounds

    result = train(
        "ppo",
        config_path=tiny_config(tmp_path, "ppo"),
        timesteps=64,
        n_envs=1,
        env_id="WarInference-v0",
        run_dir=tmp_path / "run",
        bench_rounds=0,
    )
    assert "opponent_reaction" in read_metadata(result.final_model)["observation_fields"]
    with pytest.raises(ValueError, match="opponent_reaction.*WarTableReading-v2"):
        play_rounds(
            f"ppo:{result.final_model}",
            "parity:even=4,odd=10,width=2",
            gym.make("WarTableReading-v2").unwrapped.config,
            [0],
            env_id="WarTableReading-v2",
        )


def test_war_train_takes_the_algorithm_the_probe_and_the_frame_stack_on_its_command_line(tmp_path, capsys):
    from war_env.scripts.train import cli

    config = tiny_config(tmp_path, "ppo")
    assert (
        cli(
            [
                "--algo",
                "ppo",
                "--config",
                str(config),
                "--env-id",
                "WarAnticipation-v1",
                "--frame-stack",
                "2",
                "--timesteps",
                "64",
                "--n-envs",
                "1",
                "--bench-rounds",
                "0",
                "--run-dir",
                str(tmp_path / "run"),
                "--no-progress-bar",
            ]
        )
        == 0
    )
    settings = json.loads((tmp_path / "run" / "config.json").read_text())["settings"]
    assert settings["env_id"] == "WarAnticipation-v1" and settings["frame_stack"] == 2
    assert settings["opponent"] == PROBES["anticipation"].opponent


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--env-id", "WarNothing-v0"], "unknown env id 'WarNothing-v0'"),
        (["--frame-stack", "0"], r"frame_stack must be an integer in \[1, 64\], got 0"),
    ],
)
def test_bad_env_ids_and_frame_stacks_get_one_line_errors(argv, message, tmp_path, capsys):
    from war_env.scripts.train import cli

    with pytest.raises(SystemExit):
        cli(["--timesteps", "64", "--run-dir", str(tmp_path / "run"), *argv])
    last = capsys.readouterr().err.strip().splitlines()[-1]  # argparse's usage, then the one-line error
    assert re.fullmatch(f"war-train: error: {message}.*", last)
    assert not (tmp_path / "run").exists()


@pytest.mark.slow
def test_war_curves_trains_and_evaluates_recurrent_ppo(tmp_path):
    from war_env.training.curves import learning_curves

    result = learning_curves(
        "recurrent_ppo",
        config_path=tiny_config(tmp_path, "recurrent_ppo"),
        seeds=(0,),
        timesteps=128,
        every=64,
        rounds=2,
        run_dir=tmp_path / "curves",
        log=lambda _: None,
    )
    curves = result.curves
    assert curves["settings"]["algorithm"] == "recurrent_ppo" and curves["steps"] == [64, 128]
    assert result.png.read_bytes().startswith(b"\x89PNG")


@pytest.mark.slow
def test_the_learners_table_trains_each_learner_per_probe_and_seed_and_scores_the_final_models(tmp_path):
    from war_env.scripts.learners import main

    out = tmp_path / "learners"
    argv = [
        "--out",
        str(out),
        "--timesteps",
        "64",
        "--seeds",
        "0",
        "1",
        "--learners",
        "ppo",
        "a2c",
        "--probes",
        "memory",
        "--rounds",
        "2",
    ]
    table = main(argv)
    for name in ("ppo", "a2c"):
        for seed in (0, 1):
            card = json.loads((out / "runs" / "memory" / f"{name}-s{seed}" / "model_card.json").read_text())
            assert card["env_id"] == "WarMemory-v1" and card["seed"] == seed and card["timesteps"] >= 64
            assert card["train_env_rewards"] == {"reward_win": 0.0, "reward_loss": 0.0}  # the probe's timing weights
        scores = table[name]["scores"]["memory"]
        assert len(scores) == 2 and table[name]["mean"]["memory"] == pytest.approx(np.mean(scores))
        assert table[name]["iqm"]["value"] == pytest.approx(np.mean(scores))  # two runs: the IQM is their mean
    assert set(table["ppo"]["improvement"]) == {"a2c"} and 0 <= table["a2c"]["improvement"]["ppo"]["value"] <= 1
    assert table["a2c"]["improvement"]["ppo"]["value"] + table["ppo"]["improvement"]["a2c"]["value"] == pytest.approx(1)
    suite = json.loads((out / "suites" / "memory-seeds-0-1-ppo-a2c" / "suite.json").read_text())
    assert len(suite["suite"]["agents"]) == 4
    assert "| a2c | 64 | " in (out / "learners.md").read_text()
    trained = {path: path.stat().st_mtime_ns for path in (out / "runs").rglob("final.zip")}
    assert main(argv) == table  # run again: nothing trained again, the same scores
    assert {path: path.stat().st_mtime_ns for path in (out / "runs").rglob("final.zip")} == trained


@pytest.mark.slow
def test_the_fast_learners_train_two_at_once_at_their_own_budget_and_their_curves_are_drawn(tmp_path):
    from war_env.scripts.learners import main

    out = tmp_path / "fast"
    table = main(
        [
            "--out",
            str(out),
            "--timesteps",
            "64",
            "--budget",
            "fast_lstm=131072",
            "--seeds",
            "0",
            "1",
            "--learners",
            "fast_mlp",
            "fast_lstm",
            "--probes",
            "anticipation",
            "--rounds",
            "2",
            "--jobs",
            "2",
            "--fast-set",
            "gae_lambda=0.9",
        ]
    )
    cards = {
        name: [
            json.loads((out / "runs" / "anticipation" / f"{name}-s{seed}" / "model_card.json").read_text())
            for seed in (0, 1)
        ]
        for name in ("fast_mlp", "fast_lstm")
    }
    assert [card["timesteps"] for card in cards["fast_mlp"]] == [65536, 65536]  # 64 steps: one whole rollout
    assert [card["timesteps"] for card in cards["fast_lstm"]] == [131072, 131072]
    assert all(card["config"]["lstm_hidden_size"] == 64 for card in cards["fast_lstm"])
    assert all(card["config"]["gae_lambda"] == 0.9 for card in cards["fast_mlp"] + cards["fast_lstm"])
    assert all(card["env_id"] == "WarAnticipation-v1" for card in cards["fast_mlp"] + cards["fast_lstm"])
    saved = json.loads((out / "learners.json").read_text())
    assert saved["budgets"] == {"fast_mlp": 64, "fast_lstm": 131072}
    assert saved["fast_settings"] == {"gae_lambda": 0.9}
    assert "defaults changed by {'gae_lambda': 0.9}" in (out / "learners.md").read_text()
    assert all(card["config"]["learning_rate"] == 0.001 for card in cards["fast_mlp"])  # the learner's own
    assert saved["learner_settings"]["fast_lstm"]["previous_action"] is True
    assert (
        "- fast_mlp: normalize_advantage True, learning_rate 0.001, ent_coef 0.01\n"
        in (out / "learners.md").read_text()
    )
    assert set(table) == {"fast_mlp", "fast_lstm"} and len(table["fast_lstm"]["scores"]["anticipation"]) == 2
    for points in saved["curves"]["anticipation"].values():
        assert [point["steps"] for point in points] == sorted(point["steps"] for point in points)
        assert all(point["seconds"] > 0 and point["return"]["low"] <= point["return"]["high"] for point in points)
    assert (out / "curves.png").read_bytes().startswith(b"\x89PNG")
    assert set(saved["last_stretch"]["anticipation"]) == {"fast_mlp", "fast_lstm"}
    sampled = main(
        [
            "--out",
            str(out),
            "--timesteps",
            "64",
            "--budget",
            "fast_lstm=131072",
            "--seeds",
            "0",
            "1",
            "--learners",
            "fast_mlp",
            "fast_lstm",
            "--probes",
            "anticipation",
            "--rounds",
            "2",
            "--jobs",
            "2",
            "--actions",
            "sampled",
        ]
    )  # the same runs (nothing trained again), played as trained
    suite_dir = out / "suites" / "anticipation-seeds-0-1-fast_mlp-fast_lstm-sampled"
    suite = json.loads((suite_dir / "suite.json").read_text())
    played = [spec for spec in suite["suite"]["agents"] if spec.startswith("fast_ppo:")]
    assert len(played) == 4 and all(spec.endswith(",actions=sampled") for spec in played)
    assert set(sampled) == set(table) and (out / "learners-sampled.md").is_file()
    drawn = (out / "learners.md").read_text()
    for gone in [out / "runs", out / "suites"]:
        shutil.rmtree(gone)
    for gone in [out / "learners.md", out / "learners.png", out / "curves.png"]:
        gone.unlink()
    assert main(["--out", str(out), "--rerender"]) == table  # from learners.json alone
    assert (out / "learners.md").read_text() == drawn
    assert all((out / name).read_bytes().startswith(b"\x89PNG") for name in ("learners.png", "curves.png"))


@pytest.mark.slow
def test_a_table_continued_from_another_trains_its_fast_runs_on_from_their_last_checkpoint(tmp_path):
    from war_env.scripts.learners import main

    first, longer, same = tmp_path / "first", tmp_path / "longer", tmp_path / "same"
    common = ["--seeds", "0", "1", "--learners", "fast_mlp", "--probes", "memory", "--rounds", "2"]
    table = main(["--out", str(first), "--timesteps", "64", "--fast-set", "gae_lambda=0.9", *common])
    source_files = {path: path.read_bytes() for path in first.rglob("*") if path.is_file()}
    main(["--out", str(longer), "--timesteps", "131072", "--continue-from", str(first), *common])
    assert {path: path.read_bytes() for path in first.rglob("*") if path.is_file()} == source_files  # untouched
    assert json.loads((longer / "fast_settings.json").read_text()) == {"gae_lambda": 0.9}  # its source's
    for seed in (0, 1):
        run = longer / "runs" / "memory" / f"fast_mlp-s{seed}"
        card = json.loads((run / "model_card.json").read_text())
        assert (card["timesteps"], card["resumed_from_timesteps"]) == (131072, 65536)
        assert [json.loads(line)["steps"] for line in (run / "progress.jsonl").read_text().splitlines()] == [
            65536,
            131072,
        ]
    origin = {"folder": str(first.resolve()), "steps": 65536, "goes_on_from": 65536}
    assert json.loads((longer / "learners.json").read_text())["continued_from"] == {
        "memory/fast_mlp-s0": origin,
        "memory/fast_mlp-s1": origin,
    }
    assert (
        f"Continued from `{first.resolve()}` at 65,536 steps: memory/fast_mlp (seeds 0, 1)."
        in (longer / "learners.md").read_text()
    )
    assert main(["--out", str(same), "--timesteps", "64", "--continue-from", str(first), *common]) == table
    for seed in (0, 1):  # at the same budget a run is copied whole, not trained again
        model = Path("runs") / "memory" / f"fast_mlp-s{seed}" / "final.zip"
        assert (same / model).read_bytes() == (first / model).read_bytes()


def _finished_run(table: Path, run: str, card: dict) -> Path:
    run_dir = table / "runs" / run
    run_dir.mkdir(parents=True)
    (run_dir / "model_card.json").write_text(json.dumps(card))
    return run_dir


FAST_CARD = {"timesteps": 131072, "config": {"num_envs": 1024, "rollout_steps": 64}}


@pytest.mark.parametrize(
    "runs, argv, message",
    [
        ({}, ["--timesteps", "64"], "holds no table's runs"),
        (
            {"memory/fast_mlp-s0": {**FAST_CARD, "timesteps": 65536}, "memory/fast_mlp-s1": FAST_CARD},
            ["--timesteps", "65536"],
            "trained 131,072 steps, past the budget 65,536 of fast_mlp",
        ),
        (
            {"memory/ppo-s0": {"timesteps": 100352, "timesteps_requested": 100000}},
            ["--timesteps", "200000"],
            "trained 100000 steps, not the budget 200000, and an SB3 run cannot go on",
        ),
        (
            {"memory/fast_mlp-s1": None},
            ["--timesteps", "200000"],
            "did not finish; finish it with its own table's command",
        ),
    ],
)
def test_a_table_that_cannot_go_on_from_another_is_refused_before_anything_is_copied(
    runs, argv, message, tmp_path, capsys
):
    from war_env.scripts.learners import main

    source, out = tmp_path / "source", tmp_path / "out"
    for run, card in runs.items():
        run_dir = _finished_run(source, run, card or {})
        if card is None:
            (run_dir / "model_card.json").unlink()  # cut off
    with pytest.raises(SystemExit):
        main(
            [
                "--out",
                str(out),
                "--continue-from",
                str(source),
                "--seeds",
                "0",
                "1",
                "--learners",
                "fast_mlp",
                "ppo",
                "--probes",
                "memory",
                *argv,
            ]
        )
    assert message in capsys.readouterr().err
    assert not (out / "runs").exists()


def test_each_run_is_continued_from_the_first_folder_that_holds_it(tmp_path, capsys):
    from war_env.scripts.learners import main

    first, second, out = tmp_path / "first", tmp_path / "second", tmp_path / "out"
    sb3_card = {"timesteps": 128, "timesteps_requested": 100}
    for table, runs in [(first, ["memory/ppo-s0"]), (second, ["memory/ppo-s0", "memory/ppo-s1"])]:
        for run in runs:
            (_finished_run(table, run, sb3_card) / "final.zip").write_text(f"{table.name}'s {run}")
    assert (
        main(
            [
                "--out",
                str(out),
                "--continue-from",
                str(first),
                str(second),
                "--timesteps",
                "100",
                "--seeds",
                "0",
                "1",
                "--learners",
                "ppo",
                "--probes",
                "memory",
                "--train-only",
            ]
        )
        == {}
    )  # at their budget: no training
    assert [(out / "runs" / "memory" / f"ppo-s{seed}" / "final.zip").read_text() for seed in (0, 1)] == [
        "first's memory/ppo-s0",
        "second's memory/ppo-s1",
    ]
    assert {run: origin["folder"] for run, origin in json.loads((out / "continued_from.json").read_text()).items()} == {
        "memory/ppo-s0": str(first.resolve()),
        "memory/ppo-s1": str(second.resolve()),
    }
    assert "memory/ppo-s1: 128 steps copied from" in capsys.readouterr().out


def test_a_learner_may_have_its_own_budget_on_one_probe():
    from war_env.experiments.learners import _budget_cell, budget_of, parse_budgets

    budgets = parse_budgets(["fast_stack4=200", "fast_stack4@memory=800"], 100, ["fast_mlp", "fast_stack4"])
    assert [budget_of(budgets, "fast_stack4", probe) for probe in ("anticipation", "memory")] == [200, 800]
    assert budget_of(budgets, "fast_mlp", "memory") == 100
    assert _budget_cell(budgets, "fast_stack4", ["anticipation", "memory"]) == "200 (memory 800)"
    assert _budget_cell(budgets, "fast_stack4", ["anticipation"]) == "200"


def test_a_table_continues_neither_itself_nor_runs_trained_with_other_fast_settings(tmp_path, capsys):
    from war_env.scripts.learners import main
    from war_env.training.fast_ppo import _new_settings

    source = tmp_path / "source"
    run_dir = _finished_run(source, "memory/fast_mlp-s0", FAST_CARD)
    _new_settings(run_dir, 131072, {}, "WarMemory-v0", None, None, 0, 1)  # the default gae_lambda, 0.95
    argv = ["--continue-from", str(source), "--seeds", "0", "1", "--learners", "fast_mlp", "--probes", "memory"]
    with pytest.raises(SystemExit):
        main(["--out", str(source), *argv])
    assert f"--continue-from {source} is the table's own --out" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--out", str(tmp_path / "out"), "--fast-set", "gae_lambda=0.8", *argv])
    assert (
        "fast_mlp-s0 was trained with {'gae_lambda': 0.95}, not with --fast-set {'gae_lambda': 0.8}: "
        "continue only from a table trained with the same --fast-set"
    ) in capsys.readouterr().err
    for table, rate in [(source, 0.95), (tmp_path / "other", 0.8)]:
        _finished_run(table, "memory/fast_mlp-s1", FAST_CARD)
        (table / "fast_settings.json").write_text(json.dumps({"gae_lambda": rate}))
    with pytest.raises(SystemExit):
        main(["--out", str(tmp_path / "out"), *argv[2:], "--continue-from", str(source), str(tmp_path / "other")])
    assert (
        "--continue-from folders started with other --fast-set settings, [{'gae_lambda': 0.95}, "
        "{'gae_lambda': 0.8}]: a table holds one" in capsys.readouterr().err
    )
    assert not (tmp_path / "out" / "runs").exists()


LINES = {
    "memory": {"yardstick": "press_once", "regret": 3.39, "oracle_cost": 2.45},
    "reading": {"yardstick": "card_blind", "regret": 0.85, "oracle_cost": 0.5},
}


def _table_file(folder: Path, scores: dict[str, dict[str, list[float]]], budget: int, rounds: int = 200) -> Path:
    """A table's learners.json as --merge reads it: per learner and probe the scores of seeds 0 and 1."""
    from war_env.experiments.learners import with_aggregates

    probes = list(next(iter(scores.values())))
    table = {
        name: {
            "scores": per_probe,
            "regrets": {probe: [1 - score for score in values] for probe, values in per_probe.items()},
            "capability": {probe: [score > 0.5 for score in values] for probe, values in per_probe.items()},
        }
        for name, per_probe in scores.items()
    }
    report = {
        "seeds": [0, 1],
        "rounds": rounds,
        "actions": "greedy",
        "fast_settings": {"gae_lambda": 0.8},
        "budgets": dict.fromkeys(scores, budget),
        "capability_lines": {probe: LINES[probe.partition("@")[0]] for probe in probes},
        "learners": with_aggregates(table, probes),
        "curves": {},
        "last_stretch": {},
    }
    folder.mkdir(parents=True)
    (folder / "learners.json").write_text(json.dumps(report))
    return folder


def test_a_merged_table_takes_each_learner_on_each_probe_from_the_first_folder_that_has_it(tmp_path):
    from war_env.experiments.learners import with_aggregates
    from war_env.scripts.learners import main

    longer = _table_file(tmp_path / "longer", {"fast_mlp": {"memory": [0.5, 0.7]}}, budget=800)
    shorter = _table_file(
        tmp_path / "shorter",
        {
            "fast_mlp": {"memory": [0.0, 0.0], "reading": [0.2, 0.3]},
            "ppo": {"memory": [0.1, 0.1], "reading": [0.0, 0.4]},
        },
        budget=100,
    )
    out = tmp_path / "merged"
    table = main(["--out", str(out), "--merge", str(longer), str(shorter)])

    assert table["fast_mlp"]["scores"] == {"memory": [0.5, 0.7], "reading": [0.2, 0.3]}
    assert table["fast_mlp"]["mean"]["memory"] == pytest.approx(0.6)
    raw = {name: {key: table[name][key] for key in ("scores", "regrets", "capability")} for name in table}
    assert table == with_aggregates(raw, ["memory", "reading"])  # the IQM and the improvements of the merged scores
    report = json.loads((out / "learners.json").read_text())
    assert report["budgets"] == {"fast_mlp": 800, "fast_mlp@reading": 100, "ppo": 100}
    assert report["merged_from"] == {
        "fast_mlp@memory": str(longer),
        "fast_mlp@reading": str(shorter),
        "ppo@memory": str(shorter),
        "ppo@reading": str(shorter),
    }
    text = (out / "learners.md").read_text()
    assert (
        f"From `{longer}`: fast_mlp (memory).\n\nFrom `{shorter}`: fast_mlp (reading); ppo (memory, reading)."
    ) in text
    assert "| fast_mlp | 800 (reading 100) | 0.60 | 0.25 |" in text


def test_merging_one_table_gives_that_table(tmp_path):
    from war_env.experiments.learners import merge_reports

    folder = _table_file(tmp_path / "table", {"fast_mlp": {"memory": [0.5, 0.7]}, "ppo": {"memory": [0.0, 0.2]}}, 100)
    report = json.loads((folder / "learners.json").read_text())
    assert merge_reports([(str(folder), report)])["learners"] == report["learners"]


def test_a_merge_keeps_the_probes_levels_each_family_easiest_first(tmp_path):
    from war_env.experiments.learners import merge_reports

    folders = []
    for name, probes in (("hard", ["memory@3", "reading@2"]), ("easy", ["memory@1"])):
        folder = _table_file(tmp_path / name, {"fast_mlp": dict.fromkeys(probes, [0.5, 0.7])}, 100)
        folders.append((str(folder), json.loads((folder / "learners.json").read_text())))
    merged = merge_reports(folders)
    assert list(merged["capability_lines"]) == ["memory@1", "memory@3", "reading@2"]
    assert list(merged["learners"]["fast_mlp"]["scores"]) == ["memory@1", "memory@3", "reading@2"]


@pytest.mark.parametrize(
    "shorter_rounds, out_name, message",
    [
        (100, "merged", "--merge: {shorter} has rounds 100, {longer} 200: their scores cannot share a table"),
        (200, "longer", "--out must not be one of the folders merged"),
    ],
)
def test_tables_that_cannot_share_a_table_are_not_merged(shorter_rounds, out_name, message, tmp_path, capsys):
    from war_env.scripts.learners import main

    longer = _table_file(tmp_path / "longer", {"fast_mlp": {"memory": [0.5, 0.7]}}, budget=800)
    shorter = _table_file(tmp_path / "shorter", {"fast_mlp": {"memory": [0.0, 0.0]}}, 100, rounds=shorter_rounds)
    with pytest.raises(SystemExit):
        main(["--out", str(tmp_path / out_name), "--merge", str(longer), str(shorter)])
    assert message.format(longer=longer, shorter=shorter) in capsys.readouterr().err
    assert not (tmp_path / "merged").exists()


def test_a_merge_missing_a_learner_on_a_probe_names_both(tmp_path, capsys):
    from war_env.scripts.learners import main

    longer = _table_file(tmp_path / "longer", {"fast_mlp": {"memory": [0.5, 0.7]}, "ppo": {"memory": [0.0, 0.1]}}, 800)
    shorter = _table_file(tmp_path / "shorter", {"fast_mlp": {"reading": [0.0, 0.0]}}, 100)
    with pytest.raises(SystemExit):
        main(["--out", str(tmp_path / "merged"), "--merge", str(longer), str(shorter)])
    assert "--merge: none of the folders has ppo on the reading probe" in capsys.readouterr().err


def test_rerendering_a_folder_without_a_table_names_the_file(tmp_path, capsys):
    from war_env.scripts.learners import main

    with pytest.raises(SystemExit):
        main(["--out", str(tmp_path), "--rerender"])
    assert f"--rerender draws from {tmp_path / 'learners.json'}" in capsys.readouterr().err
    (tmp_path / "learners.json").write_text('{"learners": {}}')
    with pytest.raises(SystemExit):
        main(["--out", str(tmp_path), "--rerender"])
    assert "lacks ['budgets', 'capability_lines', 'curves', 'last_stretch', 'seeds']" in capsys.readouterr().err


@pytest.mark.parametrize(
    "setting, message",
    [
        ("frame_stack=2", "--fast-set cannot change ['frame_stack']"),
        ("lr=0.001", "unknown fast_ppo setting(s) ['lr']"),
        ("gae_lambda", "expected key=value"),
    ],
)
def test_a_fast_setting_that_would_change_a_learner_or_is_unknown_is_named(setting, message, tmp_path, capsys):
    from war_env.scripts.learners import main

    with pytest.raises(SystemExit):
        main(["--out", str(tmp_path), "--fast-set", setting, "--learners", "fast_mlp"])
    assert message in capsys.readouterr().err
    assert not (tmp_path / "fast_settings.json").exists()


def test_a_table_folder_keeps_the_fast_settings_it_was_started_with(tmp_path):
    from war_env.experiments.learners import check_fast_settings

    assert check_fast_settings(tmp_path, ["gae_lambda=0.8"]) == {"gae_lambda": 0.8}
    assert check_fast_settings(tmp_path, []) == {"gae_lambda": 0.8}  # continued with its own
    assert check_fast_settings(tmp_path, ["gae_lambda=0.8"]) == {"gae_lambda": 0.8}
    with pytest.raises(RunFolderConflict, match="json was started with gae_lambda=0.8, not 0.95: give the"):
        check_fast_settings(tmp_path, ["gae_lambda=0.95"])
    assert check_fast_settings(tmp_path / "fresh", []) == {}


def test_a_table_folder_older_than_its_fast_settings_is_held_to_the_settings_its_runs_trained_with(tmp_path):
    from war_env.experiments.learners import check_fast_settings
    from war_env.training.fast_ppo import _new_settings

    run_dir = tmp_path / "runs" / "memory" / "fast_stack4-s0"  # cut off before fast_settings.json existed
    run_dir.mkdir(parents=True)
    _new_settings(run_dir, 4096, {"frame_stack": 4, "checkpoint_every": 512}, "WarMemory-v0", None, None, 0, 1)
    with pytest.raises(
        ValueError,
        match=r"fast_stack4-s0 was trained with {'gae_lambda': 0.95}, not with "
        r"--fast-set {'gae_lambda': 0.8}",
    ):
        check_fast_settings(tmp_path, ["gae_lambda=0.8"])
    assert not (tmp_path / "fast_settings.json").exists()
    assert check_fast_settings(tmp_path, []) == {}  # the defaults its runs trained with, now kept in the file
    assert json.loads((tmp_path / "fast_settings.json").read_text()) == {}


@pytest.mark.parametrize("budget", ["fast_mlp", "fast_mlp=0", "nobody=100", "fast_mlp=1e6", "fast_mlp@nowhere=5"])
def test_a_bad_budget_is_named(budget, tmp_path, capsys):
    from war_env.scripts.learners import main

    with pytest.raises(SystemExit):
        main(["--out", str(tmp_path), "--budget", budget, "--learners", "fast_mlp"])
    printed = capsys.readouterr().err
    assert "--budget takes LEARNER=STEPS" in printed and repr(budget) in printed


@pytest.mark.slow
def test_the_capability_line_is_the_best_policy_that_lacks_the_capability():
    from war_env.evaluation.probe_gaps import exact_gaps, ladder
    from war_env.experiments.learners import capability_lines

    lines = capability_lines(["anticipation", "memory", "inference", "reading"])
    assert {probe: line["yardstick"] for probe, line in lines.items()} == {
        "anticipation": "2 press times",  # the clock is shown: two fixed press times play without the capability
        "memory": "press_once",  # the clock is hidden: a fixed press time needs counting, the capability itself
        "inference": "blind",
        "reading": "card_blind",
    }
    anticipation = exact_gaps(PROBES["anticipation"])
    two_presses = next(rung for rung in ladder(PROBES["anticipation"], anticipation) if rung.family == "2 press times")
    assert lines["anticipation"]["regret"] == two_presses.margin < anticipation.gap("lead")
    reading = exact_gaps(PROBES["reading"])
    assert lines["reading"]["regret"] == reading.gap("card_blind") < reading.gap("blind")
    assert lines["reading"]["oracle_cost"] == reading.per_round("oracle")


def test_a_run_shows_the_capability_only_when_its_whole_regret_interval_is_below_the_line(tmp_path):
    from war_env.experiments.learners import _spec, learners_table, render_table

    models = {
        (name, "inference", seed): tmp_path / f"{name}-s{seed}.zip"
        for name in ("fast_mlp", "fast_lstm")
        for seed in (0, 1)
    }
    regrets = {
        ("fast_mlp", 0): (0.90, 0.95),
        ("fast_mlp", 1): (0.90, 0.97),  # the interval reaches the line
        ("fast_lstm", 0): (0.01, 0.02),
        ("fast_lstm", 1): (1.40, 1.50),
    }
    scores = {
        "inference": {
            _spec(name, models[(name, "inference", seed)]): {
                "score": {"value": 0.5},
                "regret": {"value": (low + high) / 2, "low": low, "high": high},
            }
            for (name, seed), (low, high) in regrets.items()
        }
    }
    lines = {"inference": {"yardstick": "blind", "regret": 0.96, "oracle_cost": 0.5}}
    table = learners_table(scores, models, ["fast_mlp", "fast_lstm"], ["inference"], [0, 1], capability=lines)
    assert table["fast_mlp"]["capability"] == {"inference": [True, False]}
    assert table["fast_lstm"]["capability"] == {"inference": [True, False]}
    text = render_table(table, ["inference"], [0, 1], {"fast_mlp": 64, "fast_lstm": 64}, lines)
    assert "| the best policy lacking it (exact regret per round) | blind: 0.960 |" in text
    assert "| fast_lstm | 1 of 2 |" in text


def test_below_the_baseline_the_regret_still_orders_the_learners_that_the_score_ties_at_0():
    from war_env.experiments.learners import render_regret_improvement

    table = {
        "fast_mlp": {"regrets": {"memory": [97.8, 98.4]}, "scores": {"memory": [0.0, 0.0]}},  # never presses
        "fast_stack4": {"regrets": {"memory": [3.378, 3.378]}, "scores": {"memory": [0.0, 0.0]}},
    }  # press_once
    text = render_regret_improvement(table, ["memory"])
    assert "| memory: P(row's regret < column's) | fast_mlp | fast_stack4 |" in text
    assert "| fast_stack4 | 1.00 [1.00, 1.00] |  |" in text and "| fast_mlp |  | 0.00 [0.00, 0.00] |" in text


def test_an_undefined_score_is_named_not_averaged(tmp_path):
    from war_env.experiments.learners import _spec, learners_table

    models = {("fast_mlp", "inference", seed): tmp_path / f"s{seed}.zip" for seed in (0, 1)}
    scores = {
        "inference": {
            _spec("fast_mlp", path): {"score": {"value": None}, "regret": {"value": 0.0, "high": 0.1}}
            for path in models.values()
        }
    }
    with pytest.raises(ValueError, match="no score for fast_mlp seed 0 on the inference probe .* play more --rounds"):
        learners_table(
            scores,
            models,
            ["fast_mlp"],
            ["inference"],
            [0, 1],
            capability={"inference": {"yardstick": "blind", "regret": 0.96, "oracle_cost": 0.5}},
        )


def test_a_curve_still_rising_over_its_last_eighth_is_named_and_a_flat_one_is_not(tmp_path):
    from war_env.experiments.learners import last_stretch, render_last_stretch

    def write_log(name: str, seed: int, mean_return) -> None:
        run = tmp_path / "runs" / "memory" / f"{name}-s{seed}"
        run.mkdir(parents=True)
        entries = [
            {"steps": 100 * k, "seconds": float(k), "rounds": 10, "mean_return": mean_return(k)} for k in range(1, 17)
        ]
        (run / "progress.jsonl").write_text("".join(json.dumps(entry) + "\n" for entry in entries))

    for seed in (0, 1):
        write_log("fast_lstm", seed, lambda k: float(k))  # rises by one per update: 2 updates per eighth
        write_log("fast_mlp", seed, lambda k: -9.5)  # flat at once
    stretches = last_stretch(tmp_path, ["fast_mlp", "fast_lstm", "ppo"], ["memory"], [0, 1])
    assert stretches["memory"]["fast_lstm"]["rise"]["value"] == 2.0 == stretches["memory"]["fast_lstm"]["rise"]["low"]
    assert stretches["memory"]["fast_lstm"]["last"]["value"] == 15.5  # the last eighth: updates 15 and 16
    assert stretches["memory"]["fast_mlp"]["rise"]["value"] == 0.0
    assert "ppo" not in stretches["memory"]  # SB3's runs log no curve
    line = {"yardstick": "press_once", "regret": 3.4, "oracle_cost": 6.0}
    text = render_last_stretch(stretches, ["memory"], {"memory": line})
    assert "| fast_lstm | 2 (exact) (at the oracle); -21.50 |" in text and "| fast_mlp | 0 (exact); 3.50 |" in text
    text = render_last_stretch(stretches, ["memory"], {"memory": {**line, "oracle_cost": -18.0}})
    assert "| fast_lstm | 2 (exact) (still rising); 2.50 |" in text  # 2.5 below the oracle: room for more
    text = render_last_stretch(stretches, ["memory"], {"memory": {**line, "oracle_cost": -16.5}})
    assert "| fast_lstm | 2 (exact) (still rising); 1.00 |" in text  # nearer the oracle than its rise, not at it
    assert stretches["memory"]["fast_mlp"]["resumed_late"] == []
    card = tmp_path / "runs" / "memory" / "fast_lstm-s1" / "model_card.json"
    card.write_text(json.dumps({"resumed_from_timesteps": 1300}))  # in the last three eighths (after 1000)
    stretches = last_stretch(tmp_path, ["fast_lstm"], ["memory"], [0, 1])
    assert stretches["memory"]["fast_lstm"]["resumed_late"] == [1]
    text = render_last_stretch(stretches, ["memory"], {"memory": line})
    assert "| fast_lstm | 2 (exact) (resumed late: seeds 1); -21.50 |" in text
    card.write_text(json.dumps({"resumed_from_timesteps": 1000}))  # where the sixth eighth starts: not late
    assert last_stretch(tmp_path, ["fast_lstm"], ["memory"], [0, 1])["memory"]["fast_lstm"]["resumed_late"] == []


@pytest.mark.parametrize("algo", ["ppo", "recurrent_ppo", "dqn", "a2c"])
def test_the_sb3_learners_discount_as_the_fast_learners_not_as_shipped(algo, tmp_path):
    from war_env.experiments.learners import suite_config
    from war_env.training.fast_ppo import FastPPOConfig

    shipped = json.loads(training_config_file(algo).read_text())["hyperparameters"]
    written = json.loads(suite_config(algo, tmp_path).read_text())
    assert shipped["gamma"] == 0.9 and written["hyperparameters"]["gamma"] == FastPPOConfig().gamma == 0.99
    assert written["hyperparameters"].get("gae_lambda") == (0.95 if "gae_lambda" in shipped else None)
    assert written["train_env"] == {"reward_win": 0.0, "reward_loss": 0.0} and written["observation"] == "all"


@pytest.mark.slow
def test_the_learners_table_trains_and_judges_a_probe_at_one_of_its_levels(tmp_path):
    from war_env.core.probes import probe_named
    from war_env.scripts.learners import main

    out, level = tmp_path / "learners", probe_named("memory@1")
    argv = ["--out", str(out), "--timesteps", "64", "--seeds", "0", "1", "--learners", "fast_mlp"]
    table = main([*argv, "--probes", "memory@1", "--rounds", "2", "--fast-set", "num_envs=16"])
    for seed in (0, 1):
        card = json.loads((out / "runs" / "memory@1" / f"fast_mlp-s{seed}" / "model_card.json").read_text())
        assert (card["env_id"], card["opponent"]) == ("WarMemory-v1", level.opponent)  # level 1's bot, not the row's
    assert level.opponent != PROBES["memory"].opponent
    line = json.loads((out / "learners.json").read_text())["capability_lines"]["memory@1"]
    assert line["yardstick"] == "press_once" and line["regret"] == pytest.approx(5.332, abs=5e-4)  # probes.md, Levels
    assert len(table["fast_mlp"]["scores"]["memory@1"]) == 2
    assert (out / "suites" / "memory@1-seeds-0-1-fast_mlp" / "suite.json").is_file()


def test_a_budget_may_name_a_probe_at_a_level_and_a_level_that_does_not_exist_is_named(tmp_path, capsys):
    from war_env.experiments.learners import budget_of, parse_budgets
    from war_env.scripts.learners import main

    budgets = parse_budgets(["fast_mlp@memory@1=800"], 100, ["fast_mlp"])
    assert [budget_of(budgets, "fast_mlp", probe) for probe in ("memory@1", "memory")] == [800, 100]
    with pytest.raises(SystemExit):
        main(["--out", str(tmp_path), "--learners", "fast_mlp", "--probes", "memory@9"])
    assert "WarMemory-v1 has levels 1 to 5, got level=9" in capsys.readouterr().err
