"""Each probe's capability gap, computed exactly from the distributions, and the rounds that measure it.

``exact_gaps(probe)`` gives the expected timing cost per move of the ``oracle`` and of every yardstick agent
(``press_once``, ``lead``, ``blind``) against the probe's opponent, each by the solver (``optimum.solve``,
``optimum.evaluate``) or the lead's closed form (``agents.lead.lead_cost``): against a ``pool`` the mean
over its members weighted by their prior, against a ``leader`` over its contexts weighted by their shares of
its turns (each turn is the problem of its context, since nothing carries over from one to the next). A
per-round figure is the per-move one times the mean number of the seat's moves in a round (``mean_moves``:
the cards never depend on timing, so it is counted over dealt card games), plus, for the Bayes-optimal
``oracle`` against a pool, the price of not knowing the member in the first turns
(``PoolPolicy.price_of_not_knowing``, half the rounds started by each seat).

``clairvoyant_records`` plays the upper bound of the inference probe: in each round, the ``oracle`` of the
member the pool drew, against that member (the same deal, reactions and delays as the pool's round).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from war_env.agents import make_agent
from war_env.agents.informed import context_shares, marginal_reactions, pool_policy, problem_with
from war_env.agents.lead import best_lead, lead_cost
from war_env.core.bots import Bot, Leader, Pool, make_bot
from war_env.core.cards import deal_from_permutation
from war_env.core.deal import draw_deal
from war_env.core.engine import Game
from war_env.core.optimum import OURS, THEIRS, State, evaluate, solve
from war_env.core.probes import Probe
from war_env.core.rules import WarConfig
from war_env.envs.latency import WarLatencyEnv
from war_env.evaluation import play_round
from war_env.evaluation.records import RoundRecord

MOVE_DEALS = 2000
"""Card games dealt (seeds 0, 1, ...) to count the seat's mean number of moves in a round."""


def mean_moves(config: WarConfig, deals: int = MOVE_DEALS) -> float:
    """The mean number of draws seat 0 makes in a round of ``config``'s card game, over ``deals`` deals."""
    return float(np.mean(seat_moves(config, deals)))


@lru_cache(maxsize=16)
def seat_moves(config: WarConfig, deals: int = MOVE_DEALS) -> np.ndarray:
    """The draws seat 0 makes in each of ``deals`` dealt rounds (seeds 0, 1, ...) of ``config``'s card game."""
    moves = []
    for seed in range(deals):
        permutation, starter, round_key = draw_deal(np.random.default_rng(seed))
        game = Game(config, deal_from_permutation(permutation), starter, round_key)
        while game.result is None:
            game.draw(game.next_to_draw())
        moves.append(game.moves[0])
    return np.array(moves)


def components(config: WarConfig, bot: Bot) -> list[tuple[float, Bot]]:
    """The bot as (weight, bot with one reaction distribution) pairs: a pool's members with their prior, a
    leader's contexts with their shares of its turns, any other bot itself."""
    if isinstance(bot, Pool):
        return list(zip(bot.prior, bot.windows()))
    if isinstance(bot, Leader):
        return list(zip(context_shares(config, bot), bot.windows()))
    return [(1.0, bot)]


@dataclass(frozen=True)
class ProbeGaps:
    """Expected timing cost per move of each agent (``per_move``), the seat's mean moves per round, and what
    the oracle pays once per round beyond its per-move cost (the inference probe's first turns)."""

    probe: Probe
    per_move: dict[str, float]
    moves: float
    oracle_once: float = 0.0

    def per_round(self, agent: str) -> float:
        once = self.oracle_once if agent == "oracle" else 0.0
        return self.per_move[agent] * self.moves + once

    def gap(self, agent: str) -> float:
        """What ``agent`` loses per round to the oracle, in expectation."""
        return self.per_round(agent) - self.per_round("oracle")

    @property
    def best_simple(self) -> str:
        """The simple baseline of least cost among those that play from the probe's observation."""
        return min(self.probe.simple, key=self.per_round)


def exact_gaps(probe: Probe) -> ProbeGaps:
    config, bot = probe.config(), make_bot(probe.opponent)
    parts = [(weight, problem_with(config, part.reaction_probabilities(config))) for weight, part in
             components(config, bot)]
    marginal = problem_with(config, marginal_reactions(config, bot))
    lead = best_lead(marginal)
    blind = solve(marginal)

    def blind_rule(phase, elapsed, masks):
        return [blind.press(State(phase, elapsed, False, int(mask))) for mask in masks]

    def mean(cost) -> float:
        return float(sum(weight * cost(problem) for weight, problem in parts))

    per_move = {
        "oracle": mean(lambda problem: solve(problem).cost_per_move),
        "press_once": mean(lambda problem: lead_cost(problem, None)),
        "lead": mean(lambda problem: lead_cost(problem, lead)),
        "blind": mean(lambda problem: evaluate(problem, blind_rule)) if len(parts) > 1 else blind.cost_per_move,
    }
    once = 0.0
    if isinstance(bot, Pool):
        policy = pool_policy(config, bot)
        once = 0.5 * (policy.price_of_not_knowing(OURS) + policy.price_of_not_knowing(THEIRS))
    return ProbeGaps(probe, per_move, mean_moves(config), once)


def clairvoyant_records(probe: Probe, seeds: Sequence[int]) -> list[RoundRecord]:
    """The inference probe's upper bound, round by round: the oracle of the member the pool drew for the round
    (``Pool.member_of`` of its round key), playing against that member."""
    config, pool = probe.config(), make_bot(probe.opponent)
    if not isinstance(pool, Pool):
        raise ValueError(f"the clairvoyant is the upper bound of a pool opponent, got {probe.opponent!r}")
    envs = [WarLatencyEnv(opponent=member, config=config) for member in pool.windows()]
    oracles = [make_agent("oracle", config=config, opponent=member) for member in pool.windows()]
    records = []
    for index, seed in enumerate(seeds):
        envs[0].reset(seed=seed)  # the round key of the seed (the deal does not depend on the opponent)
        member = pool.member_of(envs[0].unwrapped.round.round_key, 1)
        records.append(play_round(envs[member], oracles[member], seed, index=index, agent_spec="clairvoyant",
                                  opponent_spec=pool.spec()))
    return records
