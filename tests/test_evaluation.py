"""war_env.evaluation: the one paired-seed loop, and its batched path for greedy models, which must give
the very records of ``play_round`` (one round after the other, tick by tick through War-v0)."""

from __future__ import annotations

import pytest

from war_env import batched
from war_env.agents import make_agent
from war_env.core.bots import make_bot
from war_env.core.rules import WarConfig
from war_env.envs.war import WarEnv
from war_env.evaluation import play_round, play_rounds, play_rounds_batched

pytest.importorskip("stable_baselines3")
pytestmark = pytest.mark.skipif(not batched.available(), reason="the batched engine needs numba (the fast extra)")

SEEDS = [7, 123, 4_000_001, 55, 9, 2_000_000]


def untrained_agent(algo: str, seed: int, deterministic: bool = True):
    """A greedy policy with random weights: it waits, draws late and false-starts, all in one round."""
    from war_env.agents.algorithms import build_model
    from war_env.agents.sb3_agent import SB3Agent
    from war_env.training.envs import make_vec

    net_arch = [16] if algo == "dqn" else {"pi": [16], "vf": [16]}
    model = build_model(algo, make_vec({}, "human", 1, 0, "dummy"), {"net_arch": net_arch}, {}, seed=seed)
    return SB3Agent(model, algo, f"untrained-{seed}", deterministic)


def one_by_one(agent, opponent: str, seeds) -> list:
    env = WarEnv(opponent=make_bot(opponent), config=WarConfig())
    return [play_round(env, agent, seed, index=index) for index, seed in enumerate(seeds)]


@pytest.mark.parametrize("algo, model_seed", [("ppo", 1), ("ppo", 3), ("dqn", 0)])
@pytest.mark.parametrize("opponent", ["human", "uniform", "fixed:ticks=5"])
def test_a_batch_of_rounds_gives_the_records_of_the_rounds_played_one_by_one(algo, model_seed, opponent):
    agent = untrained_agent(algo, model_seed)
    records = play_rounds_batched(agent, make_bot(opponent), WarConfig(), SEEDS)
    assert records == one_by_one(agent, opponent, SEEDS)
    # the comparison covers every kind of round: taken over, false starts, own draws
    assert sum(record.takeover[0] for record in records) + sum(record.false_starts[0] for record in records) > 0


def test_rounds_beyond_one_batch_keep_their_seeds_and_indices(monkeypatch):
    import war_env.evaluation.paired_rounds as evaluation

    monkeypatch.setattr(evaluation, "BATCH_ROUNDS", 4)  # 6 rounds: a batch of 4, then one of 2
    agent = untrained_agent("ppo", 3)
    records = play_rounds_batched(agent, make_bot("human"), WarConfig(), SEEDS, indices=range(10, 16))
    assert [record.round for record in records] == list(range(10, 16))
    assert [record.seed for record in records] == SEEDS
    expected = one_by_one(agent, "human", SEEDS)
    assert [record.episode_return for record in records] == [record.episode_return for record in expected]


def test_play_rounds_plays_a_greedy_model_batched_and_a_sampling_one_round_by_round(monkeypatch):
    import war_env.evaluation.paired_rounds as evaluation

    calls = []
    original = evaluation.play_rounds_batched
    monkeypatch.setattr(evaluation, "play_rounds_batched", lambda *a, **k: calls.append(1) or original(*a, **k))
    greedy = untrained_agent("ppo", 1)
    assert play_rounds(greedy, "human", WarConfig(), SEEDS[:3]) == one_by_one(greedy, "human", SEEDS[:3])
    assert calls == [1]
    sampling = untrained_agent("ppo", 1, deterministic=False)
    assert sampling.batch_policy() is None  # its draws come from torch's generator, seeded round by round
    play_rounds(sampling, "human", WarConfig(), SEEDS[:1])
    assert calls == [1]


def test_an_agent_without_a_batch_policy_is_refused_by_the_batched_loop():
    with pytest.raises(ValueError, match="cannot play a batch of rounds"):
        play_rounds_batched(make_agent("random"), make_bot("human"), WarConfig(), [1])
