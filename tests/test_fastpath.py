"""The fast path: whole rounds computed move by move must equal rounds played tick by tick.

The reference is the single War-v0 env stepped one tick at a time; the fast path never looks at a
tick in which nothing happens. Round by round they must agree on every statistic: winner, reason,
battles, wars, points, cards, takeovers, false starts, reaction ticks, steps, ticks and the agent's
return (the same float, not an approximation). The fast path is the batched engine's (compiled: the
``fast`` extra); without numba these tests are skipped and ``evaluation.play_rounds`` plays tick by tick.
"""

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("numba")

import war_env  # noqa: F401
from war_env.agents import make_agent
from war_env.core.bots import make_bot, sample_reaction
from war_env.core.cards import parse_piles
from war_env.core.randomness import (
    STREAM_REACTION,
    hash64,
    hash64_array,
    hash_uniform,
    hash_uniform_array,
)
from war_env.core.rules import WarConfig
from war_env.evaluation import play_round
from war_env.evaluation.fastpath import (
    ReactionModel,
    agent_reaction_model,
    deals_from_seeds,
    play_reaction_time_rounds,
    random_deals,
    simulate,
)

BOTS = ["instant", "human", "uniform:low=1,high=10", "fixed:ticks=29", "fixed:ticks=30", "absent"]


def test_the_numpy_hashes_equal_the_scalar_hashes():
    rng = np.random.default_rng(0)
    keys = np.concatenate(
        [
            rng.integers(0, 1 << 63, 3000, dtype=np.int64).astype(np.uint64),
            np.array([0, 1, (1 << 64) - 1, 1 << 63], dtype=np.uint64),
        ]
    )
    counters = rng.integers(0, 1 << 40, keys.size).astype(np.uint64)
    for stream in (1, 2, 3, 18):
        bits = hash64_array(keys, stream, counters)
        uniforms = hash_uniform_array(keys, stream, counters)
        for key, counter, got_bits, got_uniform in zip(
            keys.tolist(), counters.tolist(), bits.tolist(), uniforms.tolist()
        ):
            assert got_bits == hash64(key, stream, counter)
            assert got_uniform == hash_uniform(key, stream, counter)


def test_searchsorted_samples_reactions_like_bisect():
    config = WarConfig()
    cdf = make_bot("human").reaction_cdf(config)
    uniforms = np.concatenate([np.random.default_rng(1).random(5000), np.array(cdf), [0.0]])
    batched = np.searchsorted(np.array(cdf), uniforms, side="right")
    assert batched.tolist() == [sample_reaction(cdf, u) for u in uniforms.tolist()]


def play_with_a_clock_bot_at_seat_0(env, bot, seed, options=None, round_key=None):
    """The tick-by-tick reference for a bot at seat 0: press exactly when ``TimedRound`` would press
    for a bot controller of seat 0 (reaction from ``STREAM_REACTION[0]``). ``round_key`` replaces the
    dealt round's key (for rounds the fast path was given a key of its own)."""
    env.reset(seed=seed, options=options)
    if round_key is not None:
        env.round.round_key = env.round.game.round_key = round_key
    cdf = make_bot(bot).reaction_cdf(env.config)
    total, done = 0.0, False
    while not done:
        timed = env.round
        tick = timed.tick_count + 1
        press = 0
        if timed.turn_open(0, tick):
            uniform = hash_uniform(timed.round_key, STREAM_REACTION[0], timed.game.moves[0])
            press = int(tick - timed.opens_at[0] >= sample_reaction(cdf, uniform))
        _, reward, done, _, info = env.step(press)
        total += reward
    return info["round"], total


@pytest.mark.slow
@pytest.mark.parametrize("pickup", ["in_order", "shuffled"])
def test_rounds_of_every_bot_pair_equal_the_tick_by_tick_env(pickup):
    config = WarConfig(pickup=pickup)
    seeds = [3, 14]
    decks, starters, keys = deals_from_seeds(seeds)
    compared = 0
    for agent_bot in BOTS:
        for opponent in BOTS:
            models = (ReactionModel.of_bot(agent_bot, config, 0), ReactionModel.of_bot(opponent, config, 1))
            batch = simulate(config, models, decks, starters, keys)
            env = gym.make("War-v0", opponent=opponent, config=config).unwrapped
            for i, seed in enumerate(seeds):
                expected_round, expected_return = play_with_a_clock_bot_at_seat_0(env, agent_bot, seed)
                assert batch.round_info(i) == expected_round, (agent_bot, opponent, seed)
                assert batch.episode_return[i] == expected_return, (agent_bot, opponent, seed)
                compared += 1
    assert compared == len(BOTS) ** 2 * len(seeds)


@pytest.mark.parametrize("pickup", ["in_order", "shuffled"])
def test_many_seeded_rounds_of_human_bots_equal_the_tick_by_tick_env(pickup):
    config = WarConfig(pickup=pickup)
    seeds = list(range(1000, 1025))
    models = (ReactionModel.of_bot("human", config, 0), ReactionModel.of_bot("human", config, 1))
    batch = simulate(config, models, *deals_from_seeds(seeds))
    env = gym.make("War-v0", opponent="human", config=config).unwrapped
    takeovers = 0
    for i, seed in enumerate(seeds):
        expected_round, expected_return = play_with_a_clock_bot_at_seat_0(env, "human", seed)
        assert batch.round_info(i) == expected_round, seed
        assert batch.episode_return[i] == expected_return, seed
        takeovers += any(expected_round["takeover"])
    assert takeovers >= 1  # the human bot misses 1 turn in 200: some rounds have a takeover


@pytest.mark.slow
@pytest.mark.parametrize("pickup", ["in_order", "shuffled"])
def test_the_fast_path_gives_the_records_of_play_round_for_scripted_agents(pickup):
    config = WarConfig(pickup=pickup)
    seeds = list(range(40, 46))
    for spec in ["prompt", "eager", "never", "last_moment", "human", "bot:uniform:low=2,high=8", "bot:absent"]:
        for opponent in ["instant", "human", "absent"]:
            fast = play_reaction_time_rounds(make_agent(spec, config=config), opponent, config, seeds, first_index=5)
            env = gym.make("War-v0", opponent=opponent, config=config)
            slow = [play_round(env, make_agent(spec, config=config), seed, index=5 + i) for i, seed in enumerate(seeds)]
            assert fast == slow, (spec, opponent)


@pytest.mark.parametrize(
    "piles, starter, reason",
    [
        ([["AC", "KC"], ["2C", "3C"]], 0, "all_cards"),
        ([["5C", "AC"], ["5D"]], 1, "war_shortage"),  # seat 1 cannot finish the war
        ([["5C"], ["5D"]], 0, "war_shortage"),  # both short: a draw
        ([["5C", "9H", "AD", "2S"], ["5D", "8H", "3C", "KS"]], 1, "points"),  # a war, then 2 points
    ],
)
def test_dealt_piles_reach_each_end_like_the_env(piles, starter, reason):
    config = WarConfig(target_points=2, max_battles=3)
    models = (ReactionModel.of_bot("uniform:low=0,high=3", config, 0), ReactionModel.of_bot("human", config, 1))
    parsed = [parse_piles(piles)]
    batch = simulate(config, models, parsed, np.array([starter]), np.array([77], dtype=np.uint64))
    env = gym.make("War-v0", opponent="human", config=config).unwrapped
    round_info, total = play_with_a_clock_bot_at_seat_0(
        env,
        "uniform:low=0,high=3",
        0,
        {"piles": piles, "starter": starter},
        round_key=77,  # the fast path's key
    )
    assert batch.round_info(0) == round_info
    assert round_info["reason"] == reason
    assert batch.episode_return[0] == total


def test_the_battle_limit_and_points_end_rounds_like_the_env():
    config = WarConfig(target_points=12, max_battles=20)
    seeds = list(range(30))
    decks, starters, keys = deals_from_seeds(seeds)
    models = (ReactionModel.of_bot("instant", config, 0), ReactionModel.of_bot("instant", config, 1))
    batch = simulate(config, models, decks, starters, keys)
    env = gym.make("War-v0", opponent="instant", config=config).unwrapped
    reasons = set()
    for i, seed in enumerate(seeds):
        expected, total = play_with_a_clock_bot_at_seat_0(env, "instant", seed)
        assert batch.round_info(i) == expected and batch.episode_return[i] == total
        reasons.add(expected["reason"])
    assert {"points", "battle_limit"} <= reasons


def test_random_deals_are_full_decks_and_rounds_conserve_cards():
    config = WarConfig()
    decks, starters, keys = random_deals(np.random.default_rng(0), 500)
    assert (np.sort(decks, axis=1) == np.arange(52)).all() and set(starters.tolist()) <= {0, 1}
    models = (ReactionModel.of_bot("human", config, 0), ReactionModel.of_bot("human", config, 1))
    batch = simulate(config, models, decks, starters, keys)
    held = batch.cards.sum(axis=1)
    double_shortage = (batch.reason == 3) & (batch.winner == -1)  # the pot stays on the table
    assert (held[~double_shortage] == 52).all() and (held[double_shortage] < 52).all()
    assert set(batch.reason.tolist()) <= {0, 1, 2, 3} and (batch.battles > 0).all()


def test_agents_that_are_not_reaction_models_are_refused():
    config = WarConfig()
    assert agent_reaction_model(make_agent("random:p=0.2"), config) is None
    with pytest.raises(ValueError, match="reaction-time agents only"):
        play_reaction_time_rounds(make_agent("random:p=0.2"), "human", config, [1])
    fast_clock = WarConfig(turn_seconds=1.0)
    with pytest.raises(ValueError, match="built for a turn of 30 ticks"):
        agent_reaction_model(make_agent("human"), fast_clock)


def test_a_subclass_that_changes_act_is_played_tick_by_tick():
    from war_env.agents.scripted import Prompt

    class NeverDraws(Prompt):  # draws differently, yet inherits Prompt's reaction model
        def act(self, observation):
            return 0

    assert agent_reaction_model(Prompt(), WarConfig()) is not None
    assert agent_reaction_model(NeverDraws(), WarConfig()) is None


@pytest.mark.slow
@pytest.mark.parametrize(
    "config",
    [
        WarConfig(),
        WarConfig(pickup="shuffled"),
        WarConfig(target_points=None),
        WarConfig(war_face_down=3, max_battles=None),
        WarConfig(target_points=20, max_battles=40, pickup="shuffled"),
    ],
)
def test_many_deals_under_other_rules_equal_the_tick_by_tick_env(config):
    # simulate (cards first, then the clock over the moves) against War-v0 under more rules and bot
    # pairs than above, including rounds with takeovers on both sides. 16 deals a pair (there were 40: the
    # long rounds without target points took a minute), and both seats are still taken over (counted below).
    seeds = list(range(500, 516))
    decks, starters, keys = deals_from_seeds(seeds)
    taken_over = [0, 0]
    for pair in [("human", "human"), ("uniform:low=1,high=10", "fixed:ticks=29"), ("absent", "human")]:
        models = (ReactionModel.of_bot(pair[0], config, 0), ReactionModel.of_bot(pair[1], config, 1))
        batch = simulate(config, models, decks, starters, keys)
        env = gym.make("War-v0", opponent=pair[1], config=config).unwrapped
        for i, seed in enumerate(seeds):
            expected_round, expected_return = play_with_a_clock_bot_at_seat_0(env, pair[0], seed)
            assert batch.round_info(i) == expected_round, (pair, seed)
            assert batch.episode_return[i] == expected_return, (pair, seed)
            taken_over = [count + seat for count, seat in zip(taken_over, expected_round["takeover"])]
    assert min(taken_over) > 0, taken_over


def test_without_numba_the_evaluation_loop_plays_tick_by_tick_to_the_same_records(monkeypatch):
    import sys

    from war_env.evaluation import play_rounds as evaluate

    config = WarConfig()
    seeds = list(range(70, 74))
    fast = evaluate("prompt", "human", config, seeds)
    monkeypatch.setitem(sys.modules, "numba", None)  # as if the fast extra were not installed
    with pytest.warns(RuntimeWarning, match=r'plays these rounds tick by tick.*pip install "war-env\[fast\]"'):
        slow = evaluate("prompt", "human", config, seeds)
    assert slow == fast
    with pytest.raises(ImportError, match=r'"fast" extra'):
        simulate(
            config,
            (ReactionModel.of_bot("human", config, 0), ReactionModel.of_bot("human", config, 1)),
            *deals_from_seeds(seeds),
        )


@pytest.mark.parametrize("pickup", ["in_order", "shuffled"])
def test_the_card_games_alone_are_the_references_with_and_without_numba(pickup, monkeypatch):
    import sys

    from war_env.evaluation.fastpath import play_cards

    config = WarConfig(pickup=pickup, target_points=30)
    deals = deals_from_seeds(range(60))
    compiled = play_cards(config, *deals)
    monkeypatch.setitem(sys.modules, "numba", None)  # the scalar reference plays them instead
    reference = play_cards(config, *deals)
    np.testing.assert_array_equal(compiled.rows, reference.rows)
    env = gym.make("War-v0", opponent="instant", config=config)
    env.reset(seed=7)
    done = False
    while not done:
        *_, done, _, info = env.step(int(env.unwrapped.action_masks()[1]))
    assert {
        key: value
        for key, value in compiled.info(7).as_dict().items()
        if key in ("winner", "reason", "battles", "wars", "points", "cards")
    } == {key: info["round"][key] for key in ("winner", "reason", "battles", "wars", "points", "cards")}
