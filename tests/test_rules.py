import gymnasium as gym
import pytest

import war_env  # noqa: F401  (registers War-v0)
from war_env.core.rules import MAX_REWARD, MAX_ROUND_LENGTH, MAX_TURN_TICKS, WarConfig


def test_defaults_are_the_projects_reading_of_the_sources():
    config = WarConfig()
    assert (config.war_face_down, config.target_points, config.max_battles) == (1, 50, 500)
    assert config.pickup == "in_order"
    assert config.turn_ticks == 30 and config.cards_for_war == 2
    assert (config.reward_win, config.reward_loss, config.reward_draw) == (1.0, -1.0, 0.0)
    assert (config.reward_takeover, config.reward_false_start, config.reward_idle_tick) == (-1.0, -0.1, -0.001)


def test_the_config_is_frozen():
    with pytest.raises(AttributeError):
        WarConfig().target_points = 3


def test_turn_ticks_follow_the_timer_and_the_tick():
    assert WarConfig(tick_seconds=0.05, turn_seconds=1.0).turn_ticks == 20
    assert WarConfig(tick_seconds=0.1, turn_seconds=0.1).turn_ticks == 1


@pytest.mark.parametrize(
    "changes, field",
    [
        ({"war_face_down": -1}, "war_face_down"),
        ({"war_face_down": 1.5}, "war_face_down"),
        ({"war_face_down": True}, "war_face_down"),
        ({"target_points": 0}, "target_points"),
        ({"max_battles": "500"}, "max_battles"),
        ({"pickup": "random"}, "pickup"),
        ({"tick_seconds": 0}, "tick_seconds"),
        ({"tick_seconds": float("nan")}, "tick_seconds"),
        ({"turn_seconds": -3}, "turn_seconds"),
        ({"turn_seconds": 0.25}, "whole number"),
        ({"turn_seconds": 0.05}, "whole number"),
        ({"reward_win": float("inf")}, "reward_win"),
        ({"reward_idle_tick": "x"}, "reward_idle_tick"),
        ({"target_points": None, "max_battles": None}, "cycle forever"),
        # bounded: a timer of millions of ticks made reset take seconds, then a MemoryError or a hang
        ({"turn_seconds": 1e6}, "from 1 to 10000"),
        ({"turn_seconds": 1e12}, "from 1 to 10000"),
        ({"turn_seconds": 1e308}, "from 1 to 10000"),
        ({"tick_seconds": 1e-7}, "from 1 to 10000"),
        ({"war_face_down": 53}, "war_face_down"),
        ({"target_points": 2**63}, "target_points"),
        ({"max_battles": MAX_ROUND_LENGTH + 1}, "max_battles"),
        ({"reward_win": 1e300}, "reward_win"),
        ({"reward_idle_tick": -2 * MAX_REWARD}, "reward_idle_tick"),
    ],
)
def test_each_invalid_value_gets_an_error_that_names_it(changes, field):
    with pytest.raises(ValueError, match=field):
        WarConfig(**changes)


def test_either_end_may_be_switched_off_alone():
    assert WarConfig(target_points=None).max_battles == 500
    assert WarConfig(max_battles=None).target_points == 50


def test_the_largest_values_are_allowed_and_a_reset_stays_quick(count_calls):
    config = WarConfig(
        tick_seconds=0.01,
        turn_seconds=MAX_TURN_TICKS / 100,
        war_face_down=52,
        target_points=MAX_ROUND_LENGTH,
        max_battles=MAX_ROUND_LENGTH,
        reward_win=MAX_REWARD,
    )
    assert config.turn_ticks == MAX_TURN_TICKS
    env = gym.make("War-v0", config=config)
    # A reset's work grows with the turn at most linearly: about 7 calls a tick (the reaction tables).
    assert count_calls(lambda: env.reset(seed=0)) < 10 * MAX_TURN_TICKS + 20_000


# --- action latency --------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "latency, probabilities",
    [
        ("fixed:ticks=0", (1.0,)),
        ("fixed:ticks=3", (0.0, 0.0, 0.0, 1.0)),
        ("uniform:low=1,high=2", (0.0, 0.5, 0.5)),
        ("uniform:low=0,high=0", (1.0,)),
    ],
)
def test_a_latency_spec_is_a_distribution_of_delays(latency, probabilities):
    config = WarConfig(latency=latency)
    assert config.latency_probabilities == probabilities
    assert config.max_delay == len(probabilities) - 1
    assert config.has_latency == (len(probabilities) > 1)


def test_by_default_there_is_no_latency():
    assert WarConfig().latency == "fixed:ticks=0" and not WarConfig().has_latency


@pytest.mark.parametrize(
    "changes, message",
    [
        (
            {"latency": "fixed:ticks=10", "turn_seconds": 1.0},
            "a turn has 10",
        ),  # a press sent as the turn opens must land in it
        ({"latency": "uniform:low=1,high=5", "turn_seconds": 0.5}, "a turn has 5"),
        ({"latency": "fixed:ticks=17", "turn_seconds": 10.0}, "from 0 to 16"),
        ({"latency": "fixed:ticks=-1"}, "from 0 to 16"),
        ({"latency": "uniform:low=3,high=1"}, "low <= high"),
        ({"latency": "gauss:mean=2"}, "unknown latency 'gauss'"),
        ({"latency": "fixed:tick=2"}, "has no parameter 'tick'"),
        ({"latency": 2}, "latency must be a spec string"),
        ({"latency": "fixed:ticks=\uff12"}, "whole number of ticks from 0 to 16, got '\uff12'"),  # a full-width 2
        ({"latency": "fixed:ticks=\u0662"}, "got '\u0662'"),  # an Arabic-Indic 2
        ({"latency": "uniform:low=1,high=1_0"}, "high must be a whole number .* got '1_0'"),
        ({"latency": "fixed"}, "missing 1 required .*'ticks'"),  # fixed alone names no delay
    ],
)
def test_a_bad_latency_is_refused_with_an_error_that_names_it(changes, message):
    with pytest.raises(ValueError, match=message):
        WarConfig(**changes)


@pytest.mark.parametrize(
    "written, canonical",
    [
        ("Fixed: ticks = 02", "fixed:ticks=2"),
        ("uniform:high=4,low=1", "uniform:low=1,high=4"),
        ("fixed:ticks=+3", "fixed:ticks=3"),
    ],
)
def test_a_latency_is_held_in_one_spelling(written, canonical):
    assert WarConfig(latency=written).latency == canonical
    assert WarConfig(latency=written) == WarConfig(latency=canonical)
