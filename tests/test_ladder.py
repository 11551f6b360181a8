"""The ladder of simple rules: its exact chain costs what the solver's evaluation of the same rule costs, its best
rules are the least of every rule of their family, and the ladder of each probe is published with the margins."""

from __future__ import annotations

import numpy as np
import pytest

from war_env.core.best_response import problem_with
from war_env.core.bots import make_bot
from war_env.core.optimum import OURS, TimingProblem, evaluate_policy
from war_env.core.probes import MIN_GAP, PROBES
from war_env.core.rules import WarConfig
from war_env.evaluation.ladder import PressRule, best_rule, rule_cost
from war_env.evaluation.probe_gaps import exact_gaps, ladder

FS, IDLE = 0.02, 0.01


def as_policy(rule: PressRule, delay: int):
    def press(phase, elapsed, masks):
        if phase == OURS:  # a press of age delay - 1 lands in this tick: it draws
            return (masks == 0) | (rule.at_own_draw & ((masks >> (delay - 1)) & 1 == 1))
        return np.array([rule.presses(elapsed, mask != 0) for mask in masks])

    return press


@pytest.mark.parametrize(
    "bot, latency",
    [
        ("uniform:low=3,high=12", 6),
        ("uniform:low=12,high=13", 4),
        ("uniform:low=4,high=5", 4),
        ("uniform:low=1,high=20", 2),
        ("fixed:ticks=9", 3),
    ],
)
@pytest.mark.parametrize(
    "rule",
    [
        PressRule((), ()),
        PressRule((7,), (False,)),
        PressRule((2, 7), (True, True)),
        PressRule((1, 5, 9), (True, False, True)),
        PressRule((0, 1, 2), (True,) * 3),
        PressRule((), (), True),
        PressRule((7, 15), (True, False), True),
    ],
)
def test_the_chain_costs_a_rule_what_the_solver_evaluates_for_it(bot, latency, rule):
    config = WarConfig(latency=f"fixed:ticks={latency}", reward_false_start=-FS, reward_idle_tick=-IDLE)
    problem = problem_with(config, make_bot(bot).reaction_probabilities(config))
    chain, solver = rule_cost(problem, rule), evaluate_policy(problem, as_policy(rule, latency))
    assert chain.cost_per_move == pytest.approx(solver.cost_per_move, abs=1e-10)
    assert chain.first_turn_excess == pytest.approx(solver.first_turn_excess, abs=1e-8)
    assert chain.opening_excess == pytest.approx(solver.opening_excess, abs=1e-8)


def test_the_best_rule_of_a_family_is_the_least_of_all_its_rules():
    config = WarConfig(latency="fixed:ticks=6", reward_false_start=-FS, reward_idle_tick=-IDLE)
    problem = problem_with(config, make_bot("uniform:low=3,high=12").reaction_probabilities(config))
    moves, starts = 97.0, 0.5
    best = best_rule([problem], [1.0], [1.0], 2, moves, starts)
    every = [
        rule_cost(problem, PressRule((a, b), (x, y))).per_round(moves, starts)
        for a in range(30)
        for b in range(a + 1, 30)
        for x in (True, False)
        for y in (True, False)
    ]
    every += [
        rule_cost(problem, PressRule((a,), (x,), True)).per_round(moves, starts)
        for a in range(30)
        for x in (True, False)
    ]
    assert best.cost.per_round(moves, starts) == pytest.approx(min(every), abs=1e-12)


def test_the_chain_needs_a_fixed_latency():
    problem = TimingProblem(30, (0.0, 0.5, 0.5), (1.0,) + (0.0,) * 29, FS, IDLE, 100.0)
    with pytest.raises(ValueError, match="fixed latency"):
        rule_cost(problem, PressRule((1,), (True,)))


@pytest.mark.parametrize("name", sorted(PROBES))
def test_every_probe_publishes_its_ladder_and_the_oracle_is_above_every_rung(name):
    probe = PROBES[name]
    gaps = exact_gaps(probe)
    rungs = ladder(probe, gaps)
    assert [rung.family for rung in rungs[:3]] == ["1 press time", "2 press times", "3 press times"]
    assert all(rung.margin >= -1e-9 for rung in rungs)
    assert rungs[0].margin >= rungs[1].margin >= rungs[2].margin
    if name != "anticipation":
        assert rungs[-1].family == "the observation's other fields"
        assert rungs[-1].margin == pytest.approx(gaps.gap(gaps.lacking))
    if name == "anticipation":  # the lead is the best one-press rule of its kind
        assert rungs[0].margin <= gaps.gap("lead") + 1e-9


@pytest.mark.parametrize("name", sorted(PROBES))
def test_no_rule_of_two_press_times_comes_within_the_minimum_gap_of_the_oracle(name):
    """Issue 29: the first anticipation probe's optimum was the two-press rule "2 and 7", the memory probe's one
    press 10 ticks in; their opponents now react in three modes, and every two-press rule is 0.48 or more away."""
    rungs = ladder(PROBES[name])
    assert rungs[1].margin >= MIN_GAP


@pytest.mark.parametrize("level", [1, 2, 3])
def test_no_fixed_press_time_rule_beats_the_oracle_at_any_anticipation_level(level):
    """Each rung is the least per-round cost of every rule of its size (above), so no rule of up to three press
    times costs a round less than the oracle. At level 1 the oracle is itself a rule: "as its own draw lands, and 0
    ticks into the opponent's turn if nothing is in flight" (the second press time only opens a round the opponent
    starts)."""
    probe = PROBES["anticipation"].at_level(level)
    gaps = exact_gaps(probe)
    rungs = ladder(probe, gaps)
    assert min(rung.margin for rung in rungs) >= -1e-9
    assert min(rung.margin for rung in rungs) == pytest.approx(0.0, abs=1e-9) or level == 3


@pytest.mark.parametrize("level", [1, 2, 3])
def test_a_rounds_exact_figure_is_what_its_moves_cost_from_nothing_in_flight(level):
    """``ProbeGaps.per_round`` of the oracle is the mean, over the dealt rounds, of the exact expected cost of the
    round's moves from its opening with nothing in flight (``optimum.round_costs``, the seat starting it or not): the
    opening of a round the opponent starts counts (``PolicyCost.opening_excess``), not only the seat's first turn."""
    from war_env.core.optimum import THEIRS, round_costs, solve
    from war_env.evaluation.probe_gaps import component_problems, dealt_rounds

    probe = PROBES["anticipation"].at_level(level)
    gaps = exact_gaps(probe)
    (problem,) = component_problems(probe.config(), make_bot(probe.opponent))[2]
    moves, starts = dealt_rounds(probe.config())
    costs = round_costs(solve(problem), int(moves.max()))
    exact = np.mean(costs[moves, np.where(starts, OURS, THEIRS)])
    assert gaps.per_round("oracle") == pytest.approx(exact, abs=1e-9)
