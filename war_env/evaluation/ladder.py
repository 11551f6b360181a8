"""The ladder of simple rules under each probe's optimum: how much of the probe a rule of one, two or three fixed
press times already passes, and the best policy that reads the observation's other fields (docs/probes.md).

A **press-time rule** with ``k`` parameters has ``k`` press times: fixed ticks into the opponent's turn (a press
there if the opponent has not drawn by then), each either whatever is in flight (``always``) or only when nothing
of the seat's is in flight, and, as one of them, "as its own draw lands" (a press sent in the tick a press of its
draws, which lands as early in the opponent's turn as any can); on its own turn it presses whenever nothing is in
flight. ``lead`` is the best
one-press rule of the second kind. The ladder is the check that makes a probe worth having: against the
anticipation probe's v0 opponent the two-press rule "2 and 7, whatever is in flight" was the optimum.

Costs are exact, by a chain over what is in flight as the opponent's turn opens (``rule_cost``): with a fixed
latency a press-time rule plays each move deterministically given the opponent's reaction, so a move is a
transition between the sets of presses left in flight, and the cost per move is the stationary mean of the moves'
costs. ``tests/test_ladder.py`` holds it equal to the solver's evaluation of the same rule
(``optimum.evaluate_policy``). Against a pool or a table reader a rule's cost is the weighted mean over the members or
contexts, as for every yardstick (``evaluation.probe_gaps.exact_gaps``).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from war_env.core.optimum import PolicyCost, TimingProblem

MAX_PRESSES = 3
"""The largest number of press times the ladder tries."""


@dataclass(frozen=True)
class PressRule:
    """Press ``ticks`` ticks into the opponent's turn (``always[i]``: whatever is in flight; else only when nothing
    is); on its own turn whenever nothing is in flight."""

    ticks: tuple[int, ...]
    always: tuple[bool, ...]
    at_own_draw: bool = False
    """One more press time, in its own turn: in the tick a press of its lands and draws, it sends the next (which
    lands ``latency - 1`` ticks into the opponent's turn: the earliest any press can land there)."""

    @property
    def press_times(self) -> int:
        return len(self.ticks) + int(self.at_own_draw)

    def describe(self) -> str:
        parts = [
            f"{tick}{'' if always else ' (if nothing in flight)'}" for tick, always in zip(self.ticks, self.always)
        ]
        own = ["as its own draw lands"] if self.at_own_draw else []
        if not parts:
            return "presses " + own[0] if own else "no press ahead (press_once)"
        return "presses " + " and ".join(own + [", ".join(parts) + " ticks into the opponent's turn"])

    def presses(self, elapsed: int, in_flight: bool) -> bool:
        """Whether the rule presses ``elapsed`` ticks into the opponent's turn."""
        return any(tick == elapsed and (always or not in_flight) for tick, always in zip(self.ticks, self.always))


def fixed_delay(problem: TimingProblem) -> int:
    latency = np.asarray(problem.latency)
    if np.count_nonzero(latency) != 1 or problem.max_delay < 1:
        raise ValueError(
            f"the ladder's chain needs a fixed latency of 1 tick or more, got P(delay) = {problem.latency}"
        )
    return problem.max_delay


def _move(problem: TimingProblem, rule: PressRule, delay: int, left: tuple[int, ...], reaction: int):
    """One move from the opponent's turn opening with presses landing in ticks ``left`` (counted from that
    opening): its cost, and the landing ticks of the presses still in flight as the next opponent turn opens."""
    landings, cost = list(left), 0.0
    for tick in range(reaction + 1):  # the seat acts first in a tick: a press landing in the draw's tick is false
        if rule.presses(tick, any(land >= tick for land in landings)):
            landings.append(tick + delay)
        cost += problem.false_start_cost * landings.count(tick)
    own, after = _own_turn(problem, rule, delay, landings, reaction + 1)
    return cost + own, after


def _own_turn(problem: TimingProblem, rule: PressRule, delay: int, landings: list[int], tick: int):
    """The seat's turn opening in ``tick`` with presses landing in ``landings``: press when nothing is in flight,
    the first landing draws. Its cost, and what is left in flight as the opponent's turn opens."""
    cost = 0.0
    while True:
        if not any(land >= tick for land in landings):
            landings.append(tick + delay)
        landed = landings.count(tick)
        if landed:
            cost += problem.false_start_cost * (landed - 1)
            if rule.at_own_draw:
                landings.append(tick + delay)
            return cost, tuple(sorted(land - tick - 1 for land in landings if land > tick))
        cost += problem.idle_cost
        tick += 1


@lru_cache(maxsize=200_000)
def rule_cost(problem: TimingProblem, rule: PressRule) -> PolicyCost:
    """The rule's exact cost per move while the opponent plays, its ``first_turn_excess`` (a round it starts opens
    its own turn with nothing in flight, and costs that turn and the relative value of what it leaves in flight,
    less one move's cost and the relative value of nothing in flight) and its ``opening_excess`` (the relative value
    of nothing in flight less its stationary mean: ``PolicyCost``)."""
    delay = fixed_delay(problem)
    reaction = np.asarray(problem.reaction, dtype=float)
    reaction[-1] += max(0.0, 1.0 - reaction.sum())  # no reaction: the takeover bot draws on the last tick
    outcomes = [(r, p) for r, p in enumerate(reaction) if p > 0]
    first_cost, first_left = _own_turn(problem, rule, delay, [], 0)
    index, states, rows = {(): 0}, [()], []
    index.setdefault(first_left, len(states))
    states += [first_left] if first_left else []
    while len(rows) < len(states):  # every set in flight reachable from nothing in flight or the first turn
        row, cost = {}, 0.0
        for r, p in outcomes:
            c, after = _move(problem, rule, delay, states[len(rows)], r)
            cost += p * c
            if after not in index:
                index[after] = len(states)
                states.append(after)
            row[index[after]] = row.get(index[after], 0.0) + p
        rows.append((row, cost))
    n = len(states)
    transition = np.zeros((n, n))
    for i, (row, _) in enumerate(rows):
        for j, p in row.items():
            transition[i, j] = p
    costs = np.array([cost for _, cost in rows])
    # the stationary distribution from nothing in flight: pi (P - I) = 0, sum pi = 1
    system = np.vstack([(transition - np.eye(n)).T, np.ones(n)])
    stationary = np.linalg.lstsq(system, np.r_[np.zeros(n), 1.0], rcond=None)[0]
    gain = float(stationary @ costs)
    # relative values: h = c - gain + P h, h(nothing in flight) = 0
    system = np.vstack([np.eye(n) - transition, np.eye(n)[:1]])
    relative = np.linalg.lstsq(system, np.r_[costs - gain, 0.0], rcond=None)[0]
    return PolicyCost(
        gain, first_cost + float(relative[index[first_left]]) - gain, float(relative[0] - stationary @ relative)
    )


def candidate_ticks(problems: list[TimingProblem]) -> range:
    """The ticks where a press ahead may draw: from the earliest reaction less the latency to the last tick an
    opponent may still be in its turn (every other press is a sure false start, or never sent)."""
    delay = fixed_delay(problems[0])
    earliest = min(int(np.argmax(np.asarray(p.reaction) > 0)) for p in problems)
    latest = max(int(np.argmax(p.opponent_hazard >= 1.0)) for p in problems)
    return range(max(0, earliest - delay), latest + 1)


@dataclass(frozen=True)
class BestRule:
    rule: PressRule
    cost: PolicyCost
    """Weighted over the components: cost per move, and the first turn's excess by the first turns' weights."""


def best_rule(
    problems: list[TimingProblem], weights, first_weights, presses: int, moves: float, starts: float
) -> BestRule:
    """The press-time rule with ``presses`` press times of least weighted cost per round (``PolicyCost.per_round``
    of ``moves`` moves, the seat starting with probability ``starts``; exhaustive search). The cost per move is
    weighed by ``weights``, what a round costs beyond it by ``first_weights`` (the components' shares of the rounds'
    first turns)."""
    best, least = None, np.inf
    for at_own_draw, ticks in itertools.chain(
        ((False, ticks) for ticks in itertools.combinations(candidate_ticks(problems), presses)),
        ((True, ticks) for ticks in itertools.combinations(candidate_ticks(problems), presses - 1)),
    ):
        for always in itertools.product((True, False), repeat=len(ticks)):
            rule = PressRule(ticks, always, at_own_draw)
            cost = PolicyCost.weighted([rule_cost(problem, rule) for problem in problems], weights, first_weights)
            per_round = cost.per_round(moves, starts)
            if per_round < least - 1e-15:
                best, least = BestRule(rule, cost), per_round
    return best
