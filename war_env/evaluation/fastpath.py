"""The fast path: whole rounds that no learner plays, computed without their ticks.

Two facts make it possible (see ``randomness``): the cards of a round never depend on timing, and every
random number inside a round is a hash of ``(round_key, stream, counter)``. So ``simulate`` plays every
round's card game to its end first (``BatchedRounds.play_cards``), then lays the clock over its moves
(``BatchedRounds.time_rounds``: each move's tick from the seats' reaction models alone), and derives
seat 0's return from its idle ticks (or, for the ``eager`` agent, its false starts). ``play_reaction_time_rounds``
returns the ``RoundRecord``s that ``evaluation.play_round`` would, field by field, for agents whose
draws are a reaction model (``agent_reaction_model``). Both halves are the batched engine's
(``war_env.batched``, compiled: the ``fast`` extra); ``tests/test_fastpath.py`` proves the results equal,
round by round, to the tick-by-tick ``WarEnv``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from gymnasium.utils import seeding

from war_env import batched
from war_env.core.bots import Bot, Instant, ReactionModel, make_bot
from war_env.core.cards import DECK_SIZE, deal_from_permutation
from war_env.core.deal import draw_deal
from war_env.core.engine import Game
from war_env.core.latency import NO_LATENCY
from war_env.core.rewards import outcome_rewards, tick_reward
from war_env.core.round_info import RoundInfo, RoundTable
from war_env.core.rules import WarConfig
from war_env.evaluation.records import RoundRecord
from war_env.support.extras import require


@dataclass(frozen=True)
class RoundBatch(RoundTable):
    """``simulate``'s rounds: their ``RoundTable`` and seat 0's return in each."""

    episode_return: np.ndarray
    """The float sum ``evaluation.play_round`` makes of the env's step rewards."""

    def round_info(self, i: int) -> dict:
        """Round ``i`` as the env's ``info["round"]``."""
        return self.info(i).as_dict()


def simulate(
    config: WarConfig,
    seat_models: tuple[ReactionModel, ReactionModel],
    decks: np.ndarray | list,
    starters: np.ndarray,
    round_keys: np.ndarray,
) -> RoundBatch:
    """One whole round per deal, both seats timed by their reaction models: the card games first, then
    the clock over their moves. ``decks``: shuffled decks ``(k, 52)`` or a list of ``(pile0, pile1)``
    card lists. Needs the compiled engine (``MissingExtra`` naming the ``fast`` extra without it). No action
    latency: seat 0's model stands for an agent, whose presses latency would delay (docs/speed.md, "Action latency in
    the batched engine")."""
    require("fast", "the fast path (war_env.evaluation.fastpath)")
    if config.has_latency:
        raise ValueError(
            f"the fast path of the batched engine (its closed-form clock) has no action latency yet, got "
            f"latency={config.latency!r}: play such rounds tick by tick (WarLatency-v0)"
        )
    from war_env.batched.rounds import BatchedRounds

    eager = seat_models[0].presses_always
    if eager and (seat_models[0].cdf != Instant().reaction_cdf(config) or seat_models[1].presses_always):
        raise ValueError("presses_always is the eager agent at seat 0: it needs the instant reaction model")
    starters = np.asarray(starters, dtype=np.int64)
    rounds = BatchedRounds(config, len(starters), seat_models)
    rounds.start(
        decks if isinstance(decks, list) else np.asarray(decks), starters, np.asarray(round_keys, dtype=np.uint64)
    )
    rounds.play_cards()
    idle, reactions = rounds.time_rounds()
    table = rounds.table(np.arange(rounds.n), reactions)
    winners = table.column("winner")
    if eager:  # a false start on every tick but those of its own draws
        false_starts = table.column("ticks") - rounds.state["moves"][:, 0]
        table.rows["false_starts"][:, 0] = false_starts
        returns = _eager_returns(config, false_starts, starters == 0, winners)
    else:
        returns = _returns(config, table.column("takeover")[:, 0], idle, winners)
    return RoundBatch(table.rows, table.reaction_ticks, table.reaction_counts, episode_return=returns)


def play_cards(config: WarConfig, decks: np.ndarray, starters: np.ndarray, round_keys: np.ndarray) -> RoundTable:
    """The card game alone of each deal (a ``RoundTable`` whose clock numbers are 0): by the batched engine
    when numba is installed, else by the scalar reference (``engine.Game`` drawn in turn), which gives
    the same results; a few thousand rounds take well under a second either way."""
    starters = np.asarray(starters, dtype=np.int64)
    if batched.available():
        from war_env.batched.rounds import BatchedRounds

        card_rules = config.replace(latency=NO_LATENCY)  # no clock here: latency cannot change a card
        rounds = BatchedRounds(card_rules, len(starters), (None, None))
        rounds.start(np.asarray(decks), starters, np.asarray(round_keys, dtype=np.uint64))
        rounds.play_cards()
        nothing = np.zeros(0, dtype=rounds.log.dtype)
        return rounds.table(np.arange(rounds.n), (nothing, nothing))
    infos = []
    for deck, starter, key in zip(decks, starters.tolist(), np.asarray(round_keys).tolist()):
        result = Game(config, deal_from_permutation(deck), starter, int(key)).play_to_end()
        infos.append(
            RoundInfo(
                **result.as_dict(),
                takeover=(False, False),
                false_starts=(0, 0),
                reaction_ticks=((), ()),
                steps=0,
                ticks=0,
            )
        )
    return RoundTable.of_infos(infos)


# --- seat 0's return -------------------------------------------------------------------------
def _returns(config: WarConfig, taken_over0, idle_before_last, winners) -> np.ndarray:
    """Seat 0's return: ``total += reward`` over its env steps. Every step before the last adds an
    idle tick or nothing; the last adds its tick's reward (idle + takeover, summed as ``clock.tick``
    does, if seat 0 is taken over, else nothing) plus the outcome."""
    idle_sums = _running_sums(tick_reward(config, 0, True, False), int(idle_before_last.max(initial=0)))
    last_tick = tick_reward(config, 0, True, True)
    last_step = np.where(taken_over0, last_tick, 0.0) + _outcomes(config)[winners + 1]
    return idle_sums[idle_before_last] + last_step


def _eager_returns(config: WarConfig, false_starts, started, winners) -> np.ndarray:
    """The eager agent's return: a false start on every step but those of its own draws. A round
    ends on the second draw of a step; when seat 0 started, that is the opponent's, so the last step
    holds a false start too (pressed before the opponent drew)."""
    false_start = tick_reward(config, 1, False, False)
    sums = _running_sums(false_start, int(false_starts.max(initial=0)))
    last_step = np.where(started, false_start, 0.0) + _outcomes(config)[winners + 1]
    return sums[false_starts - started] + last_step


def _outcomes(config: WarConfig) -> np.ndarray:
    """Seat 0's outcome reward by winner + 1 (a draw, seat 0, seat 1)."""
    return np.array(outcome_rewards(config, seat=0))


@lru_cache(maxsize=16)
def _running_sums_cached(reward: float, size: int) -> np.ndarray:
    sums = np.empty(size, dtype=np.float64)
    total = 0.0
    for k in range(size):  # the same left-to-right float additions as ``total += reward``
        sums[k] = total
        total += reward
    return sums


def _running_sums(reward: float, largest: int) -> np.ndarray:
    """``sums[k]``: ``reward`` added k times from 0.0, for k up to at least ``largest``."""
    size = 1 << max(10, int(largest + 1).bit_length())
    return _running_sums_cached(float(reward), size)


# --- deals ------------------------------------------------------------------------------
def deals_from_seeds(seeds: Sequence[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The deals ``env.reset(seed=s)`` makes for each seed: decks ``(k, 52)``, starters, round keys."""
    decks = np.empty((len(seeds), DECK_SIZE), dtype=np.int8)
    starters = np.empty(len(seeds), dtype=np.int64)
    keys = np.empty(len(seeds), dtype=np.uint64)
    for i, seed in enumerate(seeds):
        rng, _ = seeding.np_random(int(seed))
        decks[i], starters[i], keys[i] = draw_deal(rng)
    return decks, starters, keys


def random_deals(rng: np.random.Generator, count: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``count`` independent deals from one generator at once (for throughput, not per-seed pairing)."""
    decks = rng.permuted(np.tile(np.arange(DECK_SIZE, dtype=np.int8), (count, 1)), axis=1)
    starters = rng.integers(2, size=count)
    keys = rng.integers(0, 1 << 63, size=count, dtype=np.int64).astype(np.uint64)
    return decks, starters, keys


# --- the benchmark's entry point -------------------------------------------------------
def agent_reaction_model(agent, config: WarConfig) -> ReactionModel | None:
    """The reaction model of a bot, or of an agent that times its draws like one (its
    ``reaction_model(config)``, see ``war_env.agents.base.Agent``), or ``None`` when the agent's draws depend
    on more than its turn clock (then it must be played tick by tick). An agent class that overrides
    ``act`` below the class that defines ``reaction_model`` is played tick by tick: its draws may
    no longer be the model's."""
    if isinstance(agent, Bot):
        return ReactionModel.of_bot(agent, config, seat=0)
    if not callable(getattr(agent, "reaction_model", None)):
        return None
    if not issubclass(_defined_in(type(agent), "reaction_model"), _defined_in(type(agent), "act")):
        return None
    return agent.reaction_model(config)


def _defined_in(cls: type, name: str) -> type:
    return next(klass for klass in cls.__mro__ if name in vars(klass))


def play_reaction_time_rounds(
    agent,
    opponent: str | Bot,
    config: WarConfig,
    seeds: Sequence[int],
    *,
    first_index: int = 0,
    indices: Sequence[int] | None = None,
    agent_spec: str | None = None,
    opponent_spec: str | None = None,
) -> list[RoundRecord]:
    """``evaluation.play_round(env, agent, seed, index=...)`` for every seed at once, for agents that
    ``agent_reaction_model`` covers: the same ``RoundRecord`` list, field by field. Round i gets
    index ``indices[i]`` (default ``first_index + i``).

    Raises ``ValueError`` for an agent whose draws are not a reaction-time model (play it tick by tick).
    """
    model = agent_reaction_model(agent, config)
    if model is None:
        raise ValueError(
            f"the fast path plays reaction-time agents only, not {agent!r}: use war_env.evaluation.play_round"
        )
    opponent_bot = make_bot(opponent)
    if indices is None:
        indices = range(first_index, first_index + len(seeds))
    elif len(indices) != len(seeds):
        raise ValueError(f"indices must give one round index per seed, got {len(indices)} for {len(seeds)} seeds")
    batch = simulate(config, (model, ReactionModel.of_bot(opponent_bot, config, seat=1)), *deals_from_seeds(seeds))
    agent_name = agent_spec if agent_spec is not None else agent.spec()
    opponent_name = opponent_spec if opponent_spec is not None else opponent_bot.spec()
    return [
        RoundRecord.of_round(
            batch.info(i),
            round=int(index),
            seed=int(seed),
            agent=agent_name,
            opponent=opponent_name,
            episode_return=float(batch.episode_return[i]),
        )
        for i, (index, seed) in enumerate(zip(indices, seeds))
    ]
