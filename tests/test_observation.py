"""The observation: its index table, what it shows of a seat's clock, and the takeover flags."""

import re

import gymnasium as gym

import war_env
from war_env.core.observation import INDEX, OBSERVATION_FIELDS, OBSERVATION_SIZE


def test_the_docstring_index_table_matches_the_encoding():
    rows = re.findall(
        r"^\s*\|\s*(\d+)\s*\|\s*(\w+)\s*\|",
        war_env.WarEnv.__doc__.split("## Observation Space")[1].split("##")[0],
        re.M,
    )
    assert [(int(i), name) for i, name in rows] == list(enumerate(OBSERVATION_FIELDS))
    assert OBSERVATION_SIZE == 16 == gym.make("War-v0").observation_space.shape[0]


def test_the_timer_empties_tick_by_tick_while_the_agent_waits():
    env = gym.make("War-v0", opponent="instant", turn_seconds=1.0)
    observation, _ = env.reset(seed=0, options={"starter": 0})
    seen = [observation[INDEX["timer_left"]]]
    for _ in range(5):
        observation, *_ = env.step(0)
        seen.append(observation[INDEX["timer_left"]])
    assert [round(float(x), 5) for x in seen] == [1.0, 0.9, 0.8, 0.7, 0.6, 0.5]


def test_the_opponents_drawn_card_is_face_down_until_the_agent_draws():
    env = gym.make("War-v0", opponent="instant")
    observation, _ = env.reset(seed=0, options={"piles": [["AC", "2C"], ["KD", "3D"]], "starter": 1})
    observation, *_ = env.step(0)  # the instant starter draws on tick 1
    assert observation[INDEX["opponent_has_drawn"]] == 1 and observation[INDEX["opponent_card"]] == 0
    assert observation[INDEX["can_draw"]] == 1
    observation, *_ = env.step(1)
    assert observation[INDEX["own_card"]] == 14 / 14 and observation[INDEX["opponent_card"]] == 13 / 14
    assert observation[INDEX["own_points"]] == 1 / 50


def test_the_takeover_of_the_opponent_is_visible_in_the_observation():
    env = gym.make("War-v0", opponent="absent")
    observation, info = env.reset(seed=0, options={"starter": 1})
    for tick in range(1, 31):
        assert observation[INDEX["opponent_taken_over"]] == 0
        observation, _, _, _, info = env.step(0)
    assert observation[INDEX["opponent_taken_over"]] == 1 and observation[INDEX["own_taken_over"]] == 0
    assert observation[INDEX["opponent_has_drawn"]] == 1 and observation[INDEX["can_draw"]] == 1


def test_the_war_flag_and_the_pot_follow_a_tie():
    env = gym.make("War-v0", opponent="instant")
    env.reset(seed=0, options={"piles": [["9C", "2C", "KC"], ["9D", "3D", "7D"]], "starter": 0})
    env.step(1)
    observation, *_ = env.step(0)
    assert observation[INDEX["at_war"]] == 1 and observation[INDEX["pot"]] * 52 == 2
    assert observation[INDEX["started"]] == 1


def test_every_field_is_its_count_over_its_scale_capped_at_one():
    # The encoding's rule, min(count / scale, 1.0) in float64 then float32, on counts around every
    # scale: encode takes the cap after the cast, which must give the same numbers.
    import numpy as np

    from war_env.core.observation import encode, scales
    from war_env.core.rules import WarConfig

    for config in (WarConfig(), WarConfig(target_points=None, max_battles=7, turn_seconds=1.3)):
        divisors = scales(config)
        assert len(divisors) == OBSERVATION_SIZE and divisors[INDEX["timer_left"]] == config.turn_ticks
        for count in (0, 1, 2, 13, 14, 29, 30, 51, 52, 499, 500, 501, 999, 1000, 1001, 10**9):
            expected = np.array([min(count / divisor, 1.0) for divisor in divisors]).astype(np.float32)
            np.testing.assert_array_equal(encode([count] * OBSERVATION_SIZE, divisors), expected)
