"""Self-play: a tiny run refreshes the frozen opponent on schedule and keeps every snapshot; a match puts
each agent in seat 0 for every deal (the benchmark's paired loop)."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("stable_baselines3")
pytest.importorskip("pettingzoo")

from war_env.agents import make_agent  # noqa: E402
from war_env.agents.model_files import read_metadata  # noqa: E402
from war_env.agents.sb3_agent import load_sb3_agent  # noqa: E402
from war_env.training import selfplay  # noqa: E402

TINY = {"n_steps": 64, "batch_size": 64}


def weights(path: str) -> dict:
    return {key: value.numpy() for key, value in load_sb3_agent("ppo", path).model.policy.state_dict().items()}


def same_weights(first: dict, second: dict) -> bool:
    return all(np.array_equal(first[key], second[key]) for key in first)


def test_a_tiny_self_play_run_refreshes_the_opponent_every_n_steps_and_keeps_each_copy(tmp_path):
    # two envs x 64 steps: a rollout of 128 learner steps, then an update
    result = selfplay.self_play(
        timesteps=384, refresh_every=128, n_envs=2, run_dir=tmp_path, eval_deals=1, hyperparameters=TINY, seed=3
    )
    assert result.timesteps == 384 and result.refreshes == 2
    # the untrained learner, then a copy after the update at 128 and at 256 learner steps
    assert [read_metadata(path)["num_timesteps"] for path in result.snapshots] == [0, 128, 256]
    assert result.opponent_ticks > 0  # the frozen copies really played seat 1
    copies = [weights(path) for path in result.snapshots]
    assert not any(same_weights(a, b) for a, b in zip(copies, copies[1:]))  # it learned between copies
    final = load_sb3_agent("ppo", result.model_path)
    assert final.act(np.zeros(16, np.float32)) in (0, 1)
    saved = json.loads((tmp_path / "selfplay.json").read_text())
    assert saved["snapshots"] == result.snapshots and set(saved["evaluation"]) == set(result.evaluation)
    for match in result.evaluation.values():
        (a, b) = match["agents"].values()
        assert a["rounds"] == b["rounds"] == 1  # one deal, each agent in seat 0
        assert a["wins"] == b["wins"] and a["losses"] == b["losses"]  # paired: the cards decide


def test_a_refresh_interval_shorter_than_a_rollout_never_saves_the_same_weights_twice(tmp_path):
    # --refresh-every 1000 with rollouts of 2048 steps once saved a copy every 1000 steps, half of them
    # identical to the one before, and the evaluation then compared them
    result = selfplay.self_play(
        timesteps=384, refresh_every=32, n_envs=2, run_dir=tmp_path, eval_deals=1, hyperparameters=TINY, seed=3
    )
    assert [read_metadata(path)["num_timesteps"] for path in result.snapshots] == [0, 128, 256]
    copies = [weights(path) for path in result.snapshots]
    assert not any(same_weights(a, b) for a, b in zip(copies, copies[1:]))


def test_a_run_that_never_refreshed_is_not_compared_with_its_only_copy_twice(tmp_path):
    result = selfplay.self_play(
        timesteps=128, refresh_every=1000, n_envs=2, run_dir=tmp_path, eval_deals=1, hyperparameters=TINY, seed=3
    )
    assert result.refreshes == 0 and set(result.evaluation) == {"first opponent (untrained)", "prompt"}


def test_a_match_plays_every_deal_with_each_agent_in_seat_0():
    match = selfplay.play_match((make_agent("prompt"), make_agent("never")), deals=6, seed=0)
    prompt, never = match.as_dict()["agents"].values()
    assert prompt["rounds"] == never["rounds"] == 6
    # the cards decide who wins: on the same deals in the same seat both win exactly the same rounds
    assert prompt["wins"] == never["wins"] and prompt["losses"] == never["losses"]
    assert prompt["wins"] + prompt["losses"] >= 4
    assert prompt["takeover_rate"] == 0 and prompt["false_starts_per_round"] == 0 and prompt["mean_reaction_ticks"] == 0
    assert never["takeover_rate"] == 1 and never["mean_reaction_ticks"] is None
    assert prompt["mean_return"] - never["mean_return"] == pytest.approx(
        1.0 + 30 * 0.001, abs=1e-9
    )  # taken over: 30 idle ticks and -1
    assert match.as_dict()["mean_return_difference"] == pytest.approx(1.0 + 30 * 0.001, abs=1e-9)


def test_a_match_of_an_agent_against_a_second_copy_of_itself_keeps_both_sides_apart():
    match = selfplay.play_match((make_agent("prompt"), make_agent("prompt")), deals=1, seed=4)
    summary = match.as_dict()["agents"]
    assert list(summary) == ["prompt #1", "prompt #2"]
    assert summary["prompt #1"]["wins"] == summary["prompt #2"]["wins"]


def test_bad_input_is_refused(tmp_path):
    with pytest.raises(ValueError, match="distinct"):
        agent = make_agent("prompt")
        selfplay.play_match((agent, agent), deals=1)
    with pytest.raises(ValueError, match="deals"):
        selfplay.play_match((make_agent("prompt"), make_agent("never")), deals=0)
    with pytest.raises(ValueError, match="refresh_every"):
        selfplay.self_play(timesteps=10, refresh_every=0, run_dir=tmp_path)
    with pytest.raises(ValueError, match="self-play supports"):
        selfplay.self_play(algo="dqn", run_dir=tmp_path)
