"""The batched engine against the scalar reference: the rules table of ``test_engine.py`` through every
driver of the engine, its sampling and hashing, and rules whose numbers do not fit in 64 bits.

Every hand-built deal of ``test_engine.DEALS`` is played by each driver of ``war_env.batched``: the
vector env's step (seat 0 drawing as its turn opens, or pressing on every tick), the play-out of a
round whose seat 0 was taken over (seat 0 never draws), and the fast path (cards first, then the clock).
Each must end the round as the table says, and give the round info War-v0 gives for the same play.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("numba")

from test_engine import DEALS  # noqa: E402

import war_env  # noqa: E402,F401
from war_env.batched import hashing, turn_clock  # noqa: E402
from war_env.batched.models import reaction_tables  # noqa: E402
from war_env.batched.state import UNREACHABLE, new_state, params_of  # noqa: E402
from war_env.core.bots import (  # noqa: E402
    ReactionModel,  # noqa: E402
    sample_reaction,
)
from war_env.core.cards import parse_piles  # noqa: E402
from war_env.core.randomness import STREAM_REACTION, Stream, hash64, hash_uniform  # noqa: E402
from war_env.core.rules import WarConfig  # noqa: E402
from war_env.envs.vector import WarVectorEnv, sub_env_round_info  # noqa: E402
from war_env.evaluation.fastpath import simulate  # noqa: E402

POLICIES = {
    "draws as its turn opens": lambda observation: int(observation[0] > 0.5),
    "presses on every tick": lambda observation: 1,
    "never draws (taken over, the rest played out)": lambda observation: 0,
}


def outcome(info: dict) -> tuple:
    return (info["winner"], info["reason"], info["battles"], info["wars"], info["points"], info["cards"])


def play_a_deal(env, policy, piles=None, starter=None, seed=0) -> tuple[dict, list[float]]:
    """One round of ``env`` (War-v0, or a vector env of one), from dealt piles or dealt by ``seed``;
    the round info and the rewards."""
    vector = isinstance(env, WarVectorEnv)
    options = {} if piles is None else {"piles": piles, "starter": starter}
    observation, _ = env.reset(seed=seed, options=options)
    rewards, done = [], False
    while not done:
        action = policy(observation[0] if vector else observation)
        observation, reward, terminated, truncated, info = env.step(np.array([action]) if vector else action)
        rewards.append(float(reward[0] if vector else reward))
        done = bool(terminated[0] if vector else terminated)
    return (sub_env_round_info(info, 0) if vector else info["round"]), rewards


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("opponent", ["instant", "human"])
@pytest.mark.parametrize("name, piles, starter, rules, expected", DEALS, ids=[deal[0] for deal in DEALS])
def test_the_vector_env_and_its_play_out_end_every_dealt_round_as_the_rules_say(
    name, piles, starter, rules, expected, opponent, policy
):
    config = WarConfig(**rules)
    round_info, rewards = play_a_deal(
        WarVectorEnv(1, opponent=opponent, config=config, backend="numba"), POLICIES[policy], piles, starter
    )
    assert outcome(round_info) == expected
    reference_info, reference_rewards = play_a_deal(
        gym.make("War-v0", opponent=opponent, config=config), POLICIES[policy], piles, starter
    )
    assert (round_info, rewards) == (reference_info, reference_rewards)


@pytest.mark.parametrize("seat_bots", [("instant", "instant"), ("human", "uniform:low=0,high=40"), ("absent", "human")])
@pytest.mark.parametrize("name, piles, starter, rules, expected", DEALS, ids=[deal[0] for deal in DEALS])
def test_the_fast_path_ends_every_dealt_round_as_the_rules_say(name, piles, starter, rules, expected, seat_bots):
    config = WarConfig(**rules)
    models = tuple(ReactionModel.of_bot(bot, config, seat) for seat, bot in enumerate(seat_bots))
    batch = simulate(config, models, [parse_piles(piles)], np.array([starter]), np.array([12345], dtype=np.uint64))
    assert outcome(batch.round_info(0)) == expected


def test_the_compiled_hash_is_randomness_hash64():
    rng = np.random.default_rng(0)
    for key, counter in zip(
        rng.integers(0, 1 << 63, 500).tolist() + [0, (1 << 64) - 1], rng.integers(0, 1 << 40, 502).tolist()
    ):
        for stream in (*STREAM_REACTION, Stream.PICKUP, Stream.AGENT_REACTION):
            assert int(hashing.hash64(np.uint64(key), stream, counter)) == hash64(key, stream, counter)


@pytest.mark.parametrize(
    "bot",
    [
        "human",
        "uniform:low=1,high=10",
        "human:median=0.3,sigma=1.5,miss=0.3",
        "absent",
        "pool:fast=2,slow=9,width=5",
        "leader:ahead=0,behind=20,width=7",
        "parity:even=0,odd=20,width=7",
    ],
)
def test_reactions_are_sampled_exactly_as_the_bots_sample_them(bot):
    # The bucket table answers most reactions with one lookup; it must agree with bisect everywhere,
    # also right at the CDF's steps; a bot that varies, from each of its CDFs (the record's choice).
    config = WarConfig()
    models = (ReactionModel.of_bot(bot, config, 0), None)
    params, (tables, cdfs) = params_of(config, models), reaction_tables(models, config)
    state = new_state(1)
    keys = np.random.default_rng(1).integers(0, 1 << 63, 3000)
    for choice, cdf in enumerate(models[0].cdfs):
        state["choice"][0, 0] = choice
        for key in keys.tolist():
            state["reaction_key"][0, 0] = key
            for move in (0, 7):
                expected = sample_reaction(cdf, hash_uniform(key, STREAM_REACTION[0], move))
                assert turn_clock.reaction(state[0], params[0], tables, cdfs, 0, move) == expected


def test_a_parity_bot_s_context_is_read_from_its_last_face_up_card_as_the_scalar_bot_reads_it():
    from war_env.core.bots import make_bot
    from war_env.core.cards import DECK_SIZE, rank_value
    from war_env.core.engine import Game

    bot, config = make_bot("parity"), WarConfig()
    models = (None, ReactionModel.of_bot(bot, config, 1))
    params = params_of(config, models)
    state = new_state(1)
    game = Game(config, ([], []), 0, 0)
    for card in (None, *range(DECK_SIZE)):
        state["visible"][0, 1] = -1 if card is None else card
        state["choice"][0, 1] = 7
        turn_clock.choose_by_table(state[0], params[0], 1)
        game.visible = [None, card]
        expected = bot.context_at(game, 1)
        assert state["choice"][0, 1] == expected == (card is not None and rank_value(card) % 2 == 0), card


@pytest.mark.parametrize(
    "field, value",
    [
        ("target_points", 2**63),
        ("target_points", 2**64),
        ("max_battles", 2**63),
        ("max_battles", 2**70),
        ("war_face_down", 2**63),
        ("war_face_down", 60),
    ],
)
def test_rules_beyond_64_bits_play_the_same_game_in_every_front_end(field, value):
    # WarConfig takes Python ints of any size; the engine's integers are int64. A target or a limit no
    # round reaches, or more face-down cards than a deck holds, play exactly as the engine's capped value.
    try:
        config = WarConfig(**{field: value})
    except ValueError:  # refused at validation: then every front end refuses it alike
        return
    params = params_of(config, (None, None))[0]
    assert max(params["war_face_down"], params["target_points"], params["max_battles"]) <= UNREACHABLE
    for seed in range(3):
        options = {"seed": seed}
        batched = play_a_deal(
            WarVectorEnv(1, opponent="human", config=config, backend="numba"),
            POLICIES["draws as its turn opens"],
            **options,
        )
        reference = play_a_deal(
            gym.make("War-v0", opponent="human", config=config), POLICIES["draws as its turn opens"], **options
        )
        assert batched == reference
