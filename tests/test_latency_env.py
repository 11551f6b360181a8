"""WarLatency-v0: Gymnasium's checker, War-v0's game step for step without latency, the richer observation,
and the driver that does not play latency (the fast path) refusing it instead of ignoring it. (The vector
env's latency: ``test_vector_latency.py``; the two-seat env's: ``test_multiagent.py``.)"""

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import war_env  # noqa: F401  (registers the ids)
from war_env.core.observation import OBSERVATION_SIZE, latency_fields
from war_env.core.rules import WarConfig

BOTS = ["instant", "fixed:ticks=5", "uniform:low=1,high=10", "human", "absent"]
LATENCIES = ["fixed:ticks=0", "fixed:ticks=2", "uniform:low=1,high=4"]


@pytest.mark.parametrize("latency", LATENCIES)
def test_gymnasiums_env_checker_passes(latency):
    check_env(gym.make("WarLatency-v0", latency=latency).unwrapped)
    check_env(gym.make("WarLatency-v0", latency=latency, render_mode="ansi").unwrapped)


def test_the_default_latency_and_the_observation_size():
    env = gym.make("WarLatency-v0")
    assert env.unwrapped.config.latency == "fixed:ticks=2"
    assert env.observation_space.shape == (OBSERVATION_SIZE + 2 + 2,)
    assert latency_fields(WarConfig(latency="uniform:low=1,high=4"))[-4:] == tuple(f"in_flight_{a}" for a in range(4))


@pytest.mark.parametrize("opponent", BOTS)
def test_without_latency_it_is_war_v0_step_for_step_on_the_shared_fields(opponent):
    rng = np.random.default_rng(5)
    for seed in range(3):
        plain = gym.make("War-v0", opponent=opponent)
        latency = gym.make("WarLatency-v0", opponent=opponent, latency="fixed:ticks=0")
        first, _ = plain.reset(seed=seed)
        second, _ = latency.reset(seed=seed)
        assert np.array_equal(first, second[:OBSERVATION_SIZE])
        done = False
        while not done:
            action = int(rng.random() < 0.3)
            a, b = plain.step(action), latency.step(action)
            assert np.array_equal(a[0], b[0][:OBSERVATION_SIZE]) and a[1:4] == b[1:4]
            assert a[4].get("round") == b[4].get("round")
            done = a[2]


def test_the_opponents_clock_is_observed_as_the_seats_own_is():
    env = gym.make("WarLatency-v0", opponent="fixed:ticks=3", latency="fixed:ticks=2")
    observation, _ = env.reset(options={"piles": [["AC", "KC"], ["2D", "3D"]], "starter": 1})
    ticks = env.unwrapped.config.turn_ticks
    seen = [observation[16:18].tolist()]
    for _ in range(4):
        observation, *_ = env.step(0)
        seen.append(observation[16:18].tolist())
    # the opponent's turn opens in tick 1 and it draws in tick 4; then it is closed
    assert seen == [[1.0, pytest.approx(1 - k / ticks)] for k in range(4)] + [[0.0, 0.0]]


def test_the_presses_in_flight_are_observed_by_age_until_they_land():
    env = gym.make("WarLatency-v0", opponent="fixed:ticks=5", latency="fixed:ticks=3")
    env.reset(options={"piles": [["AC", "KC"], ["2D", "3D"]], "starter": 1})
    flights = []
    for action in (1, 0, 1, 0, 0):
        observation, *_ = env.step(action)
        flights.append(observation[18:].tolist())
    assert flights == [[1, 0, 0], [0, 1, 0], [1, 0, 1], [0, 1, 0], [0, 0, 1]]


def test_war_v0_refuses_a_config_with_latency():
    with pytest.raises(ValueError, match="War-v0 has no action latency.*WarLatency-v0"):
        gym.make("War-v0", latency="fixed:ticks=2")


def test_the_fast_path_refuses_latency():
    pytest.importorskip("numba")
    from war_env.core.bots import ReactionModel
    from war_env.evaluation.fastpath import simulate

    config = WarConfig(latency="uniform:low=1,high=2")
    models = (ReactionModel.of_bot("instant", config, 0), ReactionModel.of_bot("human", config, 1))
    with pytest.raises(ValueError, match="batched engine .* has no action latency yet"):
        simulate(config, models, np.arange(52, dtype=np.int8)[None, :], np.zeros(1), np.zeros(1, dtype=np.uint64))


def test_the_evaluation_loop_plays_latency_tick_by_tick_whatever_the_agent():
    """``prompt`` has a reaction model, but with latency its rounds must not take the fast path (which has
    no latency): pressing on every open tick, it sends presses that land after it drew: false starts."""
    from war_env.evaluation import play_rounds

    records = play_rounds("prompt", "fixed:ticks=5", WarConfig(latency="fixed:ticks=2"), [0, 1])
    assert all(record.false_starts[0] > 0 for record in records)
    assert all(min(record.reaction_ticks[0]) == 2 for record in records)


def test_the_card_games_alone_ignore_latency_which_only_times_them():
    from war_env.evaluation.fastpath import deals_from_seeds, play_cards

    deals = deals_from_seeds(range(20))
    np.testing.assert_array_equal(
        play_cards(WarConfig(latency="fixed:ticks=3"), *deals).rows, play_cards(WarConfig(), *deals).rows
    )
