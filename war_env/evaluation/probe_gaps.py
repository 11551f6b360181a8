"""Each probe's capability gap, computed exactly from the distributions, and the rounds that measure it.

``exact_gaps(probe)`` gives the expected timing cost per move of the ``oracle`` and of every yardstick agent
(``press_once``, ``lead``, ``blind``) against the probe's opponent, each by the solver (``optimum.solve``,
``optimum.evaluate_policy``) or the lead's closed form (``agents.lead.lead_cost``): against a ``pool`` the mean
over its members weighted by their prior, against a bot that reads the table (``leader``, ``parity``) over its
contexts weighted by their shares of its turns (each turn is the problem of its context, since nothing carries over
from one to the next). A
per-round figure is the per-move one times the mean number of the seat's moves in a round (``mean_moves``:
the cards never depend on timing, so it is counted over dealt card games), plus, in the share of rounds the seat
starts (``starting_share``), what the first turn costs beyond that (``PolicyCost.first_turn_excess``), plus, for the
Bayes-optimal ``oracle`` against a pool, the price of not knowing the member in the first turns
(``PoolPolicy.price_of_not_knowing`` of each starting seat, weighed by that share). ``ProbeGaps.lacking`` names the
yardstick of lacking the capability (``Probe.lacking_yardstick``): the agent of the row's ``other_fields``, or a bound
of ``BOUNDS`` (the reading probe's ``card_blind``, the best policy that reads every shown field but the bot's card:
``best_field_reader``); else the probe's ``lacking`` agent.

``ladder(probe)`` is the ladder of simple rules (``evaluation.ladder``) with the oracle's margin over each rung.

``clairvoyant_records`` plays the upper bound of the inference probe: in each round, the ``oracle`` of the
member the pool drew, against that member (the same deal, reactions and delays as the pool's round).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache, partial

import numpy as np

from war_env.agents import make_agent
from war_env.agents.lead import best_lead, lead_cost
from war_env.core.best_response import SHARE_DEALS, dealt_game, problem_with
from war_env.core.bots import READS_THE_TABLE, VARIES_BY_ROUND, Bot, make_bot
from war_env.core.cards import rank_value
from war_env.core.optimum import OURS, THEIRS, PolicyCost, State, TimingProblem, evaluate_policy, solve
from war_env.core.probes import Probe
from war_env.core.rules import WarConfig
from war_env.envs.latency import WarLatencyEnv
from war_env.evaluation import play_round
from war_env.evaluation.ladder import MAX_PRESSES, best_rule
from war_env.evaluation.records import RoundRecord

MOVE_DEALS = 2000
"""Card games dealt (seeds 0, 1, ...) to count the seat's mean number of moves in a round."""


def mean_moves(config: WarConfig, deals: int = MOVE_DEALS) -> float:
    """The mean number of draws seat 0 makes in a round of ``config``'s card game, over ``deals`` deals."""
    return float(np.mean(seat_moves(config, deals)))


def seat_moves(config: WarConfig, deals: int = MOVE_DEALS) -> np.ndarray:
    """The draws seat 0 makes in each of ``deals`` dealt rounds (seeds 0, 1, ...) of ``config``'s card game."""
    return dealt_rounds(config, deals)[0]


def starting_share(config: WarConfig, deals: int = MOVE_DEALS) -> float:
    """The share of the ``deals`` dealt rounds (seeds 0, 1, ...) that seat 0 starts."""
    return float(np.mean(dealt_rounds(config, deals)[1]))


@lru_cache(maxsize=16)
def dealt_rounds(config: WarConfig, deals: int = MOVE_DEALS) -> tuple[np.ndarray, np.ndarray]:
    """Seat 0's draws in each of ``deals`` dealt rounds (seeds 0, 1, ...), and whether it started it."""
    moves, starts = [], []
    for seed in range(deals):
        game = dealt_game(config, seed)
        game.play_to_end()
        moves.append(game.moves[0])
        starts.append(game.starter == 0)
    return np.array(moves), np.array(starts)


def component_problems(config: WarConfig, bot: Bot) -> tuple[tuple[float, ...], tuple[float, ...], tuple]:
    """The bot's components (``Bot.components``) as their shares of its moves, their shares of a round's first
    turns, and each one's timing problem."""
    parts = bot.components(config)
    return (
        tuple(part.share for part in parts),
        tuple(part.first_turn_share for part in parts),
        tuple(problem_with(config, part.bot.reaction_probabilities(config)) for part in parts),
    )


@dataclass(frozen=True)
class ProbeGaps:
    """Expected timing cost per move of each agent (``per_move``), the seat's mean moves per round, what a round
    the seat starts costs each agent beyond its per-move cost (``first_turn``: its first turn opens with nothing
    in flight), the share of rounds it starts, and what the oracle pays once per round beyond that (the
    inference probe's price of not knowing the member in its first turns)."""

    probe: Probe
    per_move: dict[str, float]
    moves: float
    oracle_once: float = 0.0
    first_turn: dict[str, float] = field(default_factory=dict)
    starts: float = 0.5
    lacking: str = ""
    """The entry of ``per_move`` that is the yardstick of lacking the capability: the probe's ``lacking`` agent, or
    in the reading probe ``card_blind``, the best policy that reads every field but the bot's card (a bound, not an
    agent: ``best_field_reader``)."""
    opening: dict[str, float] = field(default_factory=dict)
    """Agent -> what a round costs it beyond its cost per move as it opens with nothing in flight
    (``PolicyCost.opening_excess``)."""

    def per_round(self, agent: str) -> float:
        """The agent's expected timing cost of a round: its cost per move times the mean moves, plus what the
        round's opening with nothing in flight costs it, plus its first turn's excess in the rounds the seat starts
        (and the oracle's price of not knowing). The round's end is not modelled (a press in flight as it ends), as
        in the solver."""
        once = self.oracle_once if agent == "oracle" else 0.0
        cost = PolicyCost(self.per_move[agent], self.first_turn.get(agent, 0.0), self.opening.get(agent, 0.0))
        return cost.per_round(self.moves, self.starts) + once

    def gap(self, agent: str) -> float:
        """What ``agent`` loses per round to the oracle, in expectation."""
        return self.per_round(agent) - self.per_round("oracle")

    @property
    def best_simple(self) -> str:
        """The simple baseline of least cost among those that play from the probe's observation."""
        return min(self.probe.simple, key=self.per_round)


def lead_first_turn(problem: TimingProblem, ticks: int | None) -> float:
    """The lead's (``press_once``'s with ``None``) ``first_turn_excess``: every move of it starts with nothing
    in flight, and a round it starts opens with its own turn, which costs the latency in idle ticks."""
    waiting = problem.idle_cost * float(np.asarray(problem.latency) @ np.arange(len(problem.latency)))
    return waiting - lead_cost(problem, ticks)


def lead_policy_cost(problem: TimingProblem, ticks: int | None) -> PolicyCost:
    """The lead's (``press_once``'s with ``None``) ``PolicyCost``: every move of it starts with nothing in flight,
    as the round does, so its opening costs nothing more."""
    return PolicyCost(lead_cost(problem, ticks), lead_first_turn(problem, ticks), 0.0)


def exact_gaps(probe: Probe) -> ProbeGaps:
    config, bot = probe.config(), make_bot(probe.opponent)
    weights, first, parts = component_problems(config, bot)
    marginal = problem_with(config, bot.marginal_reactions(config))
    lead = best_lead(marginal)
    blind = solve(marginal)

    def blind_rule(phase, elapsed, masks):
        return [blind.press(State(phase, elapsed, False, int(mask))) for mask in masks]

    def mean(costs: Callable[[TimingProblem], PolicyCost]) -> PolicyCost:
        return PolicyCost.weighted([costs(problem) for problem in parts], weights, first)

    def solved(problem):
        return solve(problem).policy_cost

    def leading(ticks):
        return lambda problem: lead_policy_cost(problem, ticks)

    costs = {
        "oracle": mean(solved),
        "press_once": mean(leading(None)),
        "lead": mean(leading(lead)),
        "blind": mean(lambda problem: evaluate_policy(problem, blind_rule)) if len(parts) > 1 else mean(solved),
    }
    lacking = probe.lacking_yardstick
    if lacking in BOUNDS:  # a bound, not an agent: its first turn and opening cost what blind's do
        blind_cost = costs["blind"]
        costs[lacking] = PolicyCost(BOUNDS[lacking](probe), blind_cost.first_turn_excess, blind_cost.opening_excess)
    starts = starting_share(config)
    once = starts * bot.price_of_not_knowing(config, OURS) + (1 - starts) * bot.price_of_not_knowing(config, THEIRS)
    return ProbeGaps(
        probe,
        {agent: cost.cost_per_move for agent, cost in costs.items()},
        mean_moves(config),
        once,
        {agent: cost.first_turn_excess for agent, cost in costs.items()},
        starts,
        lacking,
        {agent: cost.opening_excess for agent, cost in costs.items()},
    )


# --- reading the table without the field that decides ---------------------------------------------------------------
TABLE_FIELDS = (
    "own_card",
    "opponent_card",
    "at_war",
    "pot",
    "started",
    "own_pile",
    "opponent_pile",
    "own_points",
    "opponent_points",
    "battles",
)
"""The fields of the observation that differ from one of a table-reading bot's turns to the next as they open (the
clocks, the drawn flags and the takeover flags read the same in every one)."""


def visible_table_fields(probe: Probe) -> tuple[str, ...]:
    """The table fields the probe shows other than those that show its bot's context (``ReadsTheTable.READS``)."""
    reads = make_bot(probe.opponent).READS
    return tuple(name for name in TABLE_FIELDS if name not in probe.hidden and name not in reads)


@lru_cache(maxsize=8)
def table_turns(
    config: WarConfig, bot: Bot, deals: int = SHARE_DEALS, first: int = 0
) -> tuple[np.ndarray, np.ndarray, dict]:
    """Every turn of a table-reading bot (seat 1) over ``deals`` dealt card games (seeds ``first``, ``first`` + 1,
    ...), in the order played: the round it is in, its context, and the ``TABLE_FIELDS`` as the seat's observation
    shows them as it opens (as counts: ranks, cards, points, flags)."""
    rounds, contexts, rows = [], [], []

    def as_the_bots_turn_opens(game, seed: int, seat: int) -> None:
        if seat == 1:
            ranks = [0 if card is None else rank_value(card) for card in game.visible]
            rounds.append(seed)
            contexts.append(bot.context_at(game, 1))
            rows.append(
                (
                    *ranks,
                    int(game.at_war),
                    len(game.pot),
                    int(game.starter == 0),
                    len(game.piles[0]),
                    len(game.piles[1]),
                    game.points[0],
                    game.points[1],
                    game.battles,
                )
            )

    for seed in range(first, first + deals):
        game = dealt_game(config, seed)
        game.play_to_end(partial(as_the_bots_turn_opens, game, seed))
    columns = np.array(rows).T
    return np.array(rounds), np.array(contexts), dict(zip(TABLE_FIELDS, columns))


@lru_cache(maxsize=8)
def context_policies(config: WarConfig, bot: Bot, grid: int = 21) -> np.ndarray:
    """``[policy, context]``: the cost per move, against each context, of the optimum for each belief P(the second
    context) on a grid (``grid`` points from 0 to 1; the distinct ones). A policy that knows only a belief of its
    context as a turn opens plays one of them: nothing carries over from one of the bot's turns to the next."""
    windows = [window.reaction_probabilities(config) for window in bot.windows()]
    problems = [problem_with(config, window) for window in windows]
    lines = []
    for ahead in np.linspace(0.0, 1.0, grid):
        policy = solve(problem_with(config, (1 - ahead) * np.asarray(windows[0]) + ahead * np.asarray(windows[1])))

        def rule(phase, elapsed, masks, policy=policy):
            return [policy.press(State(phase, elapsed, False, int(mask))) for mask in masks]

        lines.append([evaluate_policy(problem, rule).cost_per_move for problem in problems])
    return np.unique(np.round(np.array(lines), 15), axis=0)


@dataclass(frozen=True)
class FieldReader:
    """The best policy that, as each of the bot's turns opens, reads only ``fields`` (no memory): its cost per
    move chosen on the dealt turns themselves (``bound``: the best such choice for those very turns, at most what
    the best reader pays in expectation) and each half of the deals' choices played on the other half
    (``held_out``: what a reader built from data pays)."""

    fields: tuple[str, ...]
    bound: float
    held_out: float


def best_field_reader(probe: Probe, fields: Sequence[str], deals: int = SHARE_DEALS) -> FieldReader:
    config, bot = probe.config(), make_bot(probe.opponent)
    if bot.varies_by not in READS_THE_TABLE:
        raise ValueError(f"a field reader reads the context of a bot that reads the table, got {probe.opponent!r}")
    unknown = set(fields) - set(TABLE_FIELDS)
    if unknown:
        raise ValueError(f"unknown table fields {sorted(unknown)}; known: {TABLE_FIELDS}")
    rounds, contexts, table = table_turns(config, bot, deals)
    cost = context_policies(config, bot)[:, contexts].T  # [turn, policy]
    keys = np.stack([table[name] for name in fields], axis=1) if fields else np.zeros((len(contexts), 1))
    _, group = np.unique(keys, axis=0, return_inverse=True)
    group = group.ravel()

    def choices(turns: np.ndarray) -> np.ndarray:
        sums = np.zeros((group.max() + 1, cost.shape[1]))
        np.add.at(sums, group[turns], cost[turns])
        chosen = sums.argmin(axis=1)
        chosen[~np.isin(np.arange(len(sums)), group[turns])] = cost[turns].sum(axis=0).argmin()  # unseen: blind's
        return chosen

    everything = np.ones(len(contexts), dtype=bool)
    bound = cost[np.arange(len(cost)), choices(everything)[group]].mean()
    halves = [rounds % 2 == 0, rounds % 2 == 1]
    held_out = sum(
        cost[test][np.arange(test.sum()), choices(train)[group[test]]].sum() for train, test in (halves, halves[::-1])
    ) / len(cost)
    return FieldReader(tuple(fields), float(bound), float(held_out))


def clairvoyant_records(probe: Probe, seeds: Sequence[int]) -> list[RoundRecord]:
    """The inference probe's upper bound, round by round: the oracle of the member the pool drew for the round
    (``Pool.member_of`` of its round key), playing against that member."""
    config, bot = probe.config(), make_bot(probe.opponent)
    if bot.varies_by != VARIES_BY_ROUND:
        raise ValueError(f"the clairvoyant is the upper bound of a bot that varies by round, got {probe.opponent!r}")
    keys = WarLatencyEnv(opponent=bot, config=config)
    players = {}  # member -> (its env, its oracle)
    records = []
    for index, seed in enumerate(seeds):
        keys.reset(seed=seed)  # the round key of the seed (the deal does not depend on the opponent)
        member = bot.round_member(keys.round.round_key, 1)
        if member not in players:
            players[member] = (
                WarLatencyEnv(opponent=member, config=config),
                make_agent("oracle", config=config, opponent=member),
            )
        env, oracle = players[member]
        records.append(play_round(env, oracle, seed, index=index, agent_spec="clairvoyant", opponent_spec=bot.spec()))
    return records


def card_blind(probe: Probe) -> float:
    """The reading probe's yardstick: the best cost per move of a policy that reads every field it shows but the
    bot's card (``best_field_reader``'s bound over ``visible_table_fields``)."""
    return best_field_reader(probe, visible_table_fields(probe)).bound


BOUNDS: dict[str, Callable[[Probe], float]] = {"card_blind": card_blind}
"""The yardsticks that are bounds, not agents (``OtherFields.yardstick``), by name: ``probe -> cost per move``."""


# --- the ladder of simple rules ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Rung:
    """One rung of a probe's ladder: the best rule of a family, its exact cost per round and the oracle's margin
    over it (its gap, per round)."""

    family: str
    rule: str
    per_round: float
    margin: float


def ladder(probe: Probe, gaps: ProbeGaps | None = None) -> list[Rung]:
    """The best press-time rule with 1, 2 and 3 press times (``evaluation.ladder``), then the best policy that reads
    the observation's fields other than the one the capability is about (the probe's yardstick of lacking it),
    each with the oracle's margin over it per round."""
    gaps = exact_gaps(probe) if gaps is None else gaps
    weights, first, problems = component_problems(probe.config(), make_bot(probe.opponent))
    rungs, fewer = [], None
    for presses in range(1, MAX_PRESSES + 1):
        best = best_rule(list(problems), weights, first, presses, gaps.moves, gaps.starts)
        if (
            fewer is not None
            and best.cost.per_round(gaps.moves, gaps.starts) >= fewer.cost.per_round(gaps.moves, gaps.starts) - 1e-12
        ):
            best = fewer  # one more press time changes nothing: the rule with fewer stands
        per_round = best.cost.per_round(gaps.moves, gaps.starts)
        rungs.append(
            Rung(
                f"{presses} press time{'s' if presses > 1 else ''}",
                best.rule.describe(),
                per_round,
                per_round - gaps.per_round("oracle"),
            )
        )
        fewer = best
    if probe.other_fields is not None:
        rungs.append(
            Rung(
                "the observation's other fields",
                probe.other_fields.what,
                gaps.per_round(gaps.lacking),
                gaps.gap(gaps.lacking),
            )
        )
    return rungs
