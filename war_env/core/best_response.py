"""The exact optimum against an opponent bot, whatever it is: the policies a bot builds for ``Bot.optimal_timing``.

* a bot with one reaction distribution: ``war_env.core.optimum``'s stationary optimum (``Stationary``);
* a bot that varies by round (a ``pool``: drawn per round, never named): the Bayes-optimal policy
  (``optimum.solve_pool``), which watches the bot's draws to tell the member (``Inferring``);
* a bot that reads the table (a ``leader``, whose reactions depend on the score as its turn opens, or a ``parity``,
  on its own last face-up card): each context's optimum, picked by what the seat sees (``ReadingTheTable``); exact
  because nothing carries over from one of the bot's turns to the next (``optimum.nothing_carries_over``, checked),
  so each turn is the problem of its context.

``context_shares`` counts the share of a table-reading bot's turns in each context over dealt card games (the cards
never depend on timing): ``Bot.components`` weighs its contexts by them.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from war_env.core.cards import deal_from_permutation
from war_env.core.deal import draw_deal
from war_env.core.engine import Game
from war_env.core.optimum import OURS, THEIRS, PoolPolicy, State, TimingPolicy, TimingProblem, solve_pool
from war_env.core.rules import WarConfig

SHARE_DEALS = 2000
"""Card games dealt to count the share of a table-reading bot's turns in each context."""


def costs_of(config: WarConfig) -> tuple[float, float, float]:
    """The reward weights as the solver's costs (false start, idle tick, takeover); rewards that pay for bad
    timing are refused."""
    weights = {
        "reward_false_start": config.reward_false_start,
        "reward_idle_tick": config.reward_idle_tick,
        "reward_takeover": config.reward_takeover,
    }
    paid = {name: value for name, value in weights.items() if value > 0}
    if paid:
        raise ValueError(
            f"the timing solver optimises costs: it needs reward_false_start, reward_idle_tick and "
            f"reward_takeover <= 0, got {paid}"
        )
    return -config.reward_false_start, -config.reward_idle_tick, -config.reward_takeover


def problem_with(config: WarConfig, reactions) -> TimingProblem:
    """The seat's timing problem in ``config`` against an opponent reacting by ``reactions``."""
    return TimingProblem(
        config.turn_ticks, config.latency_probabilities, tuple(float(p) for p in reactions), *costs_of(config)
    )


def dealt_game(config: WarConfig, seed: int) -> Game:
    """The card game of the round a reset with ``seed`` deals (the cards never depend on timing, so it can be
    played draw by draw without a clock)."""
    permutation, starter, round_key = draw_deal(np.random.default_rng(seed))
    return Game(config, deal_from_permutation(permutation), starter, round_key)


@lru_cache(maxsize=32)
def context_shares(config: WarConfig, bot, deals: int = SHARE_DEALS) -> tuple[float, ...]:
    """The share of a table-reading bot's turns (seat 1) opening in each of its contexts (``bot.context_at``, one
    per entry of ``bot.windows()``), over ``deals`` card games dealt from seeds 0, 1, ... (``dealt_game``)."""
    counts = np.zeros(len(bot.windows()))
    for seed in range(deals):
        game = dealt_game(config, seed)

        def count_the_bots_turn(seat: int, game: Game = game) -> None:
            if seat == 1:
                counts[bot.context_at(game, 1)] += 1

        game.play_to_end(before_draw=count_the_bots_turn)
    return tuple(counts / counts.sum())


@lru_cache(maxsize=16)
def pool_policy(config: WarConfig, bot) -> PoolPolicy:
    """``optimum.solve_pool`` once per config and bot that varies by round (its ``windows`` and their ``prior``)."""
    members = [problem_with(config, window.reaction_probabilities(config)) for window in bot.windows()]
    return solve_pool(members, bot.prior)


# --- the optimum against each way a bot varies ----------------------------------------------------------
class Stationary:
    """The solver's policy against a bot with one reaction distribution."""

    def __init__(self, policy: TimingPolicy):
        self.policy = policy

    def reset(self) -> None:
        pass

    def press(self, state: State, observation) -> bool:
        return self.policy.press(state)


class Inferring:
    """The Bayes-optimal policy against a bot that varies by round: it notes the tick of each of the bot's draws
    (the last tick of the bot's turn it saw before its own turn opened) until one falls in a tick only one member
    reacts in, and from then on plays that member."""

    def __init__(self, policy: PoolPolicy):
        self.policy = policy
        self.reset()

    def reset(self) -> None:
        self.member: int | None = None
        self._last: State | None = None

    def press(self, state: State, observation) -> bool:
        last = self._last
        if (
            self.member is None
            and last is not None
            and last.phase == THEIRS
            and state.phase == OURS
            and not state.opponent_taken_over
        ):
            self.member = self.policy.member_reacting_at(last.elapsed)
        self._last = state
        return self.policy.press(state, self.member)


class ReadingTheTable:
    """Each context's optimum against a bot that reads the table, the context read from the seat's observation
    (``bot.context_seen``)."""

    def __init__(self, bot, policies: tuple[TimingPolicy, ...]):
        self.bot, self.policies = bot, policies

    def reset(self) -> None:
        pass

    def press(self, state: State, observation) -> bool:
        return self.policies[self.bot.context_seen(observation)].press(state)
