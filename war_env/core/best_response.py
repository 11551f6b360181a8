"""How the agents built for an opponent bot time their presses against it: the exact optimum for every kind
of bot, and what an agent that ignores how the bot varies faces.

* a bot with one reaction distribution: ``war_env.core.optimum``'s stationary optimum (``Stationary``);
* a ``pool`` bot (drawn per round, never named): the Bayes-optimal policy (``optimum.solve_pool``), which
  watches the bot's first own draw of the round to tell the member (``Inferring``);
* a ``leader`` bot (its reactions depend on the score as its turn opens): each context's optimum, picked by
  the score the seat sees (``ReadingTheTable``); exact because nothing carries over from one of the bot's
  turns to the next (``optimum.nothing_carries_over``, checked), so each turn is the problem of its context.

``marginal_reactions`` is the bot's reaction distribution for an agent that does not tell the members or
the contexts apart: the prior's mixture for a pool, the contexts' shares of the bot's turns for a leader
(``context_shares``: counted over dealt card games, since the cards never depend on timing).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from war_env.core.bots import Bot, Leader, Pool
from war_env.core.cards import deal_from_permutation
from war_env.core.deal import draw_deal
from war_env.core.engine import Game
from war_env.core.observation import INDEX
from war_env.core.optimum import (
    OURS,
    THEIRS,
    PoolPolicy,
    State,
    TimingPolicy,
    TimingProblem,
    nothing_carries_over,
    solve,
    solve_pool,
)
from war_env.core.rules import WarConfig

_OWN_POINTS, _OPPONENT_POINTS = INDEX["own_points"], INDEX["opponent_points"]
SHARE_DEALS = 2000
"""Card games dealt to count the share of a ``leader`` bot's turns in each context."""


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
def context_shares(config: WarConfig, bot: Leader, deals: int = SHARE_DEALS) -> tuple[float, ...]:
    """The share of a ``leader`` bot's turns (seat 1) opening in each of its contexts, over ``deals`` card games
    dealt from seeds 0, 1, ... (``dealt_game``)."""
    counts = np.zeros(len(Leader.CONTEXTS))
    for seed in range(deals):
        game = dealt_game(config, seed)

        def count_the_bots_turn(seat: int, game: Game = game) -> None:
            if seat == 1:
                counts[bot.context(game.points[1], game.points[0])] += 1

        game.play_to_end(before_draw=count_the_bots_turn)
    return tuple(counts / counts.sum())


def marginal_reactions(config: WarConfig, bot: Bot) -> tuple[float, ...]:
    """The bot's reaction distribution for an agent that does not tell its members or contexts apart."""
    if isinstance(bot, Leader):
        shares = context_shares(config, bot)
        windows = [window.reaction_probabilities(config) for window in bot.windows()]
        return tuple(sum(share * window[k] for share, window in zip(shares, windows)) for k in range(config.turn_ticks))
    return tuple(bot.reaction_probabilities(config))


# --- the optimum against each kind of bot ---------------------------------------------------------------
class Stationary:
    """The solver's policy against a bot with one reaction distribution."""

    def __init__(self, policy: TimingPolicy):
        self.policy = policy

    def reset(self) -> None:
        pass

    def press(self, state: State, observation) -> bool:
        return self.policy.press(state)


class Inferring:
    """The Bayes-optimal policy against a ``pool`` bot: it notes the tick of the bot's first own draw of the
    round (the last tick of the bot's turn it saw before its own turn opened) and from then on plays the
    member that reacts in that tick."""

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
    """Each context's optimum against a ``leader`` bot, the context read from the score the seat sees."""

    def __init__(self, bot: Leader, policies: tuple[TimingPolicy, ...]):
        self.bot, self.policies = bot, policies

    def reset(self) -> None:
        pass

    def press(self, state: State, observation) -> bool:
        # the score scales both seats' points alike, so comparing the fields compares the points
        context = self.bot.context(observation[_OPPONENT_POINTS], observation[_OWN_POINTS])
        return self.policies[context].press(state)


@lru_cache(maxsize=16)
def pool_policy(config: WarConfig, bot: Pool) -> PoolPolicy:
    """``optimum.solve_pool`` once per config and pool."""
    members = [problem_with(config, window.reaction_probabilities(config)) for window in bot.windows()]
    return solve_pool(members, bot.prior)


def optimal_timing(config: WarConfig, bot: Bot, solved=solve) -> Stationary | Inferring | ReadingTheTable:
    """The exact optimum against ``bot`` in ``config`` (``solved`` solves one problem: the oracle's cache)."""
    if isinstance(bot, Pool):
        return Inferring(pool_policy(config, bot))
    if isinstance(bot, Leader):
        problems = [problem_with(config, window.reaction_probabilities(config)) for window in bot.windows()]
        if not all(nothing_carries_over(problem) for problem in problems):
            raise ValueError(
                f"the optimum against {bot.spec()} is exact only when every reaction window starts at "
                f"least max_delay - 1 = {config.max_delay - 1} ticks into the bot's turn (a press in "
                f"flight as its turn opens is then a sure false start in every context)"
            )
        return ReadingTheTable(bot, tuple(solved(problem) for problem in problems))
    return Stationary(solved(problem_with(config, bot.reaction_probabilities(config))))
