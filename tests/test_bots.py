import dataclasses
import math

import gymnasium as gym
import pytest
from test_probes import FS, IDLE, best_return, timing_return
from test_vector import play_side_by_side, pressing

import war_env  # noqa: F401  (registers the envs)
from war_env.agents import make_agent
from war_env.core.bots import (
    BOTS,
    Absent,
    Fixed,
    Human,
    Instant,
    Uniform,
    VariesByScore,
    make_bot,
    sample_reaction,
)
from war_env.core.cards import parse_card
from war_env.core.rules import WarConfig
from war_env.envs.latency import WarLatencyEnv

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
    [
        ("instant", Instant()),
        ("fixed:ticks=3", Fixed(3)),
        ("uniform:low=0,high=4", Uniform(0, 4)),
        ("human", Human()),
        ("human:median=1.0", Human(median=1.0)),
        ("absent", Absent()),
        ("HUMAN", Human()),
    ],
)
def test_bots_are_built_from_spec_strings(spec, expected):
    assert make_bot(spec) == expected


@pytest.mark.parametrize(
    "spec, message",
    [
        ("robot", "unknown bot 'robot'"),
        ("fixed:ticks=-1", "ticks"),
        ("fixed:speed=2", "no parameter 'speed'"),
        ("uniform:low=5,high=2", "low <= high"),
        ("human:sigma=0", "sigma"),
        ("human:miss=2", "miss"),
        ("fixed:ticks", "key=value"),
        ("", "non-empty"),
        ("human:median=inf", "median must be a positive finite"),
        ("human:median=nan", "median"),
        ("human:sigma=inf", "sigma must be a positive finite"),
        ("human:miss=true", "miss must be a probability"),
        ("human:miss=0.1,miss=0.2", "given twice"),
        ("humn", "unknown bot 'humn'.*did you mean 'human'"),
    ],
)
def test_a_bad_bot_spec_gets_a_clear_error(spec, message):
    with pytest.raises(ValueError, match=message):
        make_bot(spec)


# --- the bots that vary: a pool drawn per round, a leader that reads the score --------------------------------
def test_a_pool_plays_each_round_as_one_member_drawn_by_the_round_key_with_its_prior():
    pool = make_bot("pool:fast=4,slow=10,width=2,share_fast=0.25")
    assert [member.spec() for member in pool.windows()] == ["uniform:low=4,high=5", "uniform:low=10,high=11"]
    members = [pool.member_of(key, 1) for key in range(4000)]
    assert members == [pool.member_of(key, 1) for key in range(4000)]  # a round key names its member
    assert abs(members.count(0) / 4000 - 0.25) < 0.03


def test_a_pool_reacts_within_its_member_window_and_its_average_reaction_is_the_mixture():
    pool = make_bot("pool")
    for key in range(50):
        member = pool.windows()[pool.member_of(key, 1)]
        cdf = pool.turn_cdf(CONFIG, key, 1, game=None)
        assert cdf == member.reaction_cdf(CONFIG)
    mixture = pool.reaction_probabilities(CONFIG)
    assert mixture[3] == mixture[4] == mixture[9] == mixture[10] == 0.25 and sum(mixture) == 1


class _Score:
    def __init__(self, points):
        self.points = points


def test_a_leader_reacts_fast_when_it_is_ahead_on_points_and_slowly_when_it_is_not():
    leader = make_bot("leader:ahead=4,behind=10,width=1")
    assert sample_reaction(leader.turn_cdf(CONFIG, 0, 1, _Score([3, 5])), 0.5) == 4  # seat 1 leads 5-3
    assert sample_reaction(leader.turn_cdf(CONFIG, 0, 1, _Score([5, 5])), 0.5) == 10  # level: not ahead
    assert sample_reaction(leader.turn_cdf(CONFIG, 0, 0, _Score([6, 5])), 0.5) == 4  # as seat 0


class _Table:
    def __init__(self, visible):
        self.visible = visible


def test_a_parity_bot_reacts_fast_after_laying_an_even_rank_and_slowly_after_an_odd_one_or_none():
    parity = make_bot("parity:even=4,odd=10,width=1")
    seen = {
        card: sample_reaction(parity.turn_cdf(CONFIG, 0, 1, _Table([None, parse_card(card)])), 0.5)
        for card in ("2C", "3D", "10H", "JS", "QC", "KD", "AH")
    }
    assert seen == {"2C": 4, "3D": 10, "10H": 4, "JS": 10, "QC": 4, "KD": 10, "AH": 4}  # ace = 14, even
    assert sample_reaction(parity.turn_cdf(CONFIG, 0, 1, _Table([parse_card("2C"), None])), 0.5) == 10  # none yet
    assert sample_reaction(parity.turn_cdf(CONFIG, 0, 0, _Table([parse_card("8S"), None])), 0.5) == 4  # as seat 0


@pytest.mark.parametrize("spec", ["pool", "leader", "parity"])
def test_a_bot_that_varies_has_no_one_cdf_but_a_reaction_model_of_its_windows_and_rule(spec):
    from war_env.core.bots import VARIES_BY_CARD, VARIES_BY_ROUND, VARIES_BY_SCORE, ReactionModel

    bot = make_bot(spec)
    with pytest.raises(ValueError, match="has no one reaction CDF") as refused:
        bot.reaction_cdf(CONFIG)
    assert "\n" not in str(refused.value)
    model = ReactionModel.of_bot(spec, CONFIG, seat=1)
    assert model.cdfs == tuple(window.reaction_cdf(CONFIG) for window in bot.windows())
    assert model.varies_by == {"pool": VARIES_BY_ROUND, "leader": VARIES_BY_SCORE, "parity": VARIES_BY_CARD}[spec]
    assert model.prior == (bot.prior if spec == "pool" else ())
    assert ReactionModel.of_bot("uniform", CONFIG, seat=1).cdfs == (make_bot("uniform").reaction_cdf(CONFIG),)
    with pytest.raises(ValueError, match="needs a prior"):
        ReactionModel(model.cdf, 2, choices=model.cdfs, varies_by=VARIES_BY_ROUND)


@pytest.mark.parametrize(
    "spec, message",
    [
        ("pool:fast=4,slow=4,width=2", "must differ"),
        ("pool:share_fast=1", "strictly between 0 and 1"),
        ("pool:width=0", "width must be at least 1"),
        ("leader:ahead=-1", "ahead"),
        ("leader:ahead=3,behind=3", "must not overlap"),
        ("parity:even=4,odd=4,width=2", "must differ"),
        ("parity:odd=-2", "odd"),
    ],
)
def test_a_bad_pool_leader_or_parity_is_refused(spec, message):
    with pytest.raises(ValueError, match=message):
        make_bot(spec)


def test_a_parity_bots_windows_may_overlap_so_its_card_tells_less():
    bot = make_bot("parity:even=4,odd=6,width=4")
    odd, even = ([k for k, p in enumerate(w.reaction_probabilities(WarConfig())) if p > 0] for w in bot.windows())
    assert even == [4, 5, 6, 7] and odd == [6, 7, 8, 9]


def test_modes_reacts_in_each_of_its_windows_alike():
    bot = make_bot("modes:first=3,every=8,count=3,width=2")
    probabilities = bot.reaction_probabilities(WarConfig())
    assert [k for k, p in enumerate(probabilities) if p > 0] == [3, 4, 11, 12, 19, 20]
    assert sum(probabilities) == pytest.approx(1.0) and len(set(p for p in probabilities if p > 0)) == 1
    assert make_bot(bot.spec()) == bot


@pytest.mark.parametrize(
    "spec, message",
    [("modes:every=1,width=2", "every >= width"), ("modes:count=0", "count >= 1"), ("modes:first=-1", "whole number")],
)
def test_a_bad_modes_bot_is_refused(spec, message):
    with pytest.raises(ValueError, match=message):
        make_bot(spec)


# --- a new bot is a class of core/bots.py, nothing else -----------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Chaser(VariesByScore):
    """A test's toy bot: it hurries when it is not ahead on points (it draws 1 tick into its turn) and dawdles when
    it is (3 ticks in). It varies by the score, a rule the engines know, so its class is all it needs."""

    name = "chaser"

    def windows(self):
        return Fixed(1), Fixed(3)  # in the order of CONTEXTS: not ahead, ahead


@pytest.fixture
def chaser(monkeypatch):
    monkeypatch.setitem(BOTS, "chaser", Chaser)  # what a new bot's row in BOTS does
    return make_bot("chaser")


@pytest.mark.parametrize("opponent", ["parity:even=1,odd=3,width=1", "parity:even=2,odd=40,width=3"])
def test_a_parity_bot_plays_alike_on_the_single_env_and_the_batched_engine(opponent, backend):
    """The parity bot's context, read as each of its turns opens, by the scalar clock and the batched engine alike;
    with a window past the timer it is taken over, the rest of the round played out the same."""
    kwargs = {"opponent": opponent, "latency": "fixed:ticks=1", "target_points": 8}
    vector = gym.make_vec(
        "WarLatency-v0", num_envs=3, vectorization_mode="vector_entry_point", backend=backend, **kwargs
    )
    singles = [gym.make("WarLatency-v0", **kwargs) for _ in range(3)]
    ended = play_side_by_side(vector, singles, pressing(3, 0.3, seed=5), steps=900, seed=21)
    assert len(ended) >= 3
    reactions = {tick for info in ended for tick in info["reaction_ticks"][1]}
    if "odd=3" in opponent:
        assert reactions == {1, 3}  # both contexts played
    else:
        assert reactions <= {2, 3, 4} and any(info["takeover"][1] for info in ended)


def test_a_new_bot_that_varies_by_the_score_plays_alike_on_the_single_env_and_the_batched_engine(chaser, backend):
    kwargs = {"opponent": "chaser", "latency": "fixed:ticks=1", "target_points": 8}
    vector = gym.make_vec(
        "WarLatency-v0", num_envs=3, vectorization_mode="vector_entry_point", backend=backend, **kwargs
    )
    singles = [gym.make("WarLatency-v0", **kwargs) for _ in range(3)]
    ended = play_side_by_side(vector, singles, pressing(3, 0.3, seed=4), steps=900, seed=12)
    assert len(ended) >= 3
    assert {tick for info in ended for tick in info["reaction_ticks"][1]} == {1, 3}  # both contexts played


def test_a_new_bot_that_varies_by_the_score_answers_for_its_components_and_its_optimum(chaser):
    config = WarConfig(turn_seconds=0.5, latency="fixed:ticks=2", reward_false_start=-FS, reward_idle_tick=-IDLE)
    parts = chaser.components(config)
    assert [part.bot for part in parts] == [Fixed(1), Fixed(3)] and [p.first_turn_share for p in parts] == [1, 0]
    assert sum(part.share for part in parts) == pytest.approx(1.0) and min(part.share for part in parts) > 0
    marginal = chaser.marginal_reactions(config)
    assert marginal[1] == pytest.approx(parts[0].share) and marginal[3] == pytest.approx(parts[1].share)
    with pytest.raises(ValueError, match="no one per round"):
        chaser.round_member(round_key=7, seat=1)
    for starter in (0, 1):  # the chaser behind after the first battle, then ahead: brute force over press schedules
        for piles in ([["AC", "KC"], ["2D", "3D"]], [["2C", "3C"], ["AD", "KD"]]):
            oracle = make_agent("oracle", config=config, opponent=chaser)
            played = timing_return(WarLatencyEnv(opponent=chaser, config=config), oracle, piles, starter)
            assert played == pytest.approx(best_return(config, piles, starter, chaser), abs=1e-12)
