import math

import pytest

from war_env.core.bots import Absent, Fixed, Human, Instant, Uniform, make_bot, sample_reaction
from war_env.core.rules import WarConfig

CONFIG = WarConfig()


def test_instant_draws_on_the_opening_tick():
    assert sample_reaction(Instant().reaction_cdf(CONFIG), 0.999) == 0


def test_fixed_draws_after_k_ticks_or_never_within_the_timer():
    assert sample_reaction(Fixed(7).reaction_cdf(CONFIG), 0.5) == 7
    assert sample_reaction(Fixed(30).reaction_cdf(CONFIG), 0.0) == CONFIG.turn_ticks


def test_uniform_covers_low_to_high_evenly():
    cdf = Uniform(2, 5).reaction_cdf(CONFIG)
    draws = [sample_reaction(cdf, (i + 0.5) / 400) for i in range(400)]
    assert sorted(set(draws)) == [2, 3, 4, 5] and all(draws.count(k) == 100 for k in (2, 3, 4, 5))


def test_absent_never_draws():
    assert sample_reaction(Absent().reaction_cdf(CONFIG), 0.0) == CONFIG.turn_ticks


def test_human_has_its_median_at_six_tenths_of_a_second_and_misses_one_turn_in_200():
    probabilities = Human().reaction_probabilities(CONFIG)
    cdf = Human().reaction_cdf(CONFIG)
    assert math.isclose(1 - sum(probabilities), 0.005 + 0.995 * (1 - Human()._lognormal_cdf(3.0)), rel_tol=1e-9)
    median_tick = sample_reaction(cdf, 0.5)
    assert median_tick == 6  # 0.6 s falls in tick 6 (0.6 .. 0.7 s)
    assert sample_reaction(cdf, 0.9999) == CONFIG.turn_ticks  # the missed turn


@pytest.mark.parametrize(
    "spec, expected",
    [("instant", Instant()), ("fixed:ticks=3", Fixed(3)), ("uniform:low=0,high=4", Uniform(0, 4)),
     ("human", Human()), ("human:median=1.0", Human(median=1.0)), ("absent", Absent()), ("HUMAN", Human())],
)
def test_bots_are_built_from_spec_strings(spec, expected):
    assert make_bot(spec) == expected


@pytest.mark.parametrize(
    "spec, message",
    [("robot", "unknown bot 'robot'"), ("fixed:ticks=-1", "ticks"), ("fixed:speed=2", "no parameter 'speed'"),
     ("uniform:low=5,high=2", "low <= high"), ("human:sigma=0", "sigma"), ("human:miss=2", "miss"),
     ("fixed:ticks", "key=value"), ("", "non-empty"),
     ("human:median=inf", "median must be a positive finite"), ("human:median=nan", "median"),
     ("human:sigma=inf", "sigma must be a positive finite"), ("human:miss=true", "miss must be a probability"),
     ("human:miss=0.1,miss=0.2", "given twice"), ("humn", "unknown bot 'humn'.*did you mean 'human'")],
)
def test_a_bad_bot_spec_gets_a_clear_error(spec, message):
    with pytest.raises(ValueError, match=message):
        make_bot(spec)
