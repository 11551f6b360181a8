"""Each probe's difficulty scale (``Probe.levels``), with its exact figures, and the lines of a seat that sees only
the last few frames or, in the inference probe, only the opponent's last reaction.

``level_figures(probe, n)`` gives the figures of level ``n``: the oracle's timing cost per round and what the
simple baselines and the yardstick of lacking the capability lose to it per round, from ``probe_gaps.exact_gaps``
of the probe at that level (``Probe.at_level``), so every level's figures are computed as the default's are.

In the memory probe nothing in War-v0's fields varies within the opponent's turn: the last change a seat sees is
its own draw, which ends its turn. A policy that sees only the last ``k`` observations (a stack of ``k`` frames)
tells the ticks of the opponent's turn apart up to tick ``k - 2`` (its oldest frame is then the one before its own
draw: ``window_reach``); from tick ``k - 1`` on, every window is the same, so it presses there with one
probability, whatever the tick and whatever it has in flight. ``window_line(probe, k)`` is the least cost per round
of such a policy, given everything else (the ticks it tells apart, its presses in flight, its own turn): for each
probability the solver's optimum of the other decisions (``optimum.solve``'s ``given``), least over the probability
(a grid, then a golden-section search). It is a bound: a stack of ``k`` frames knows less, so it pays at least
that. A stack that also sees its own earlier actions (``FastPPOConfig.previous_action``) can count on from a press
it remembers: ``window_line(probe, k, sees_actions=True)`` bounds it by telling the seat the tick whenever one of
its last ``k`` actions was a press (more than it knows after a press at random), so it presses with the one
probability only where its last ``k`` actions were all waits. The presses in flight are the seat's actions of the
last ``latency`` ticks, so that bound is for ``k`` up to the latency. Both bound the cost per move; a round's first
turn and its opening with nothing in flight, which a stack padded with zero frames may tell apart, are counted as
the solver counts them (``PolicyCost``: they move a round's figure by less than one move's cost, 0.06).

From the latency on, a stack that sees its actions sees its presses in flight (the latency is fixed), so it can play
a policy of the solver's state where it tells the tick, and past its reach one that reads only its presses in flight:
``played_with_actions_line(probe, k)`` is the exact cost of the best found of those (``pressing_after_waits``: past
the reach, it presses with one probability where nothing is in flight, and waits where something is). It is what
such a stack can reach, so it bounds its loss from above. With probability 1 it presses on the first tick its frames
no longer tell apart and then waits while that press is in flight: at memory level 5 that is tick 23, the oracle's.

In the inference probe the seat sees the opponent's last reaction (``opponent_reaction``), which stays as it was from
the opponent's draw through the seat's own turn and the opponent's next turn until its next draw, and is 0 before its
first draw of the round. ``last_reaction_line(probe)`` is the cost per round of the best policy that reads only that
reaction, the clocks and its presses in flight: after a draw on tick ``t`` it believes the member of the pool with
``P(member | t)``, so it plays the solver's optimum against the pool's reactions mixed by that belief
(``last_reaction_policies``), and before the first draw blind's. Each move (the opponent's turn and the seat's next)
costs what that policy pays per move, since every such optimum plays the seat's own turn alike and none keeps a press
in flight as the opponent's turn opens, so no move hands the next anything but its reaction (checked: refused
otherwise). So the figure is exact: the cost of a policy a memoryless reader plays, and the least of those whose
presses do not depend on presses sent before the opponent's turn opened. It bounds a memoryless reader's loss from
above, not below: one that kept a press in flight into the opponent's turn could read it there as a note of an earlier
reaction, each note a sure false start (it lands before the opponent can draw), and that is not solved. Where a draw
names the member (level 1) it is the oracle's cost; after a draw in a shared tick the belief is the prior, and the
next move is played blind.

``counting_depth(probe)`` is the least tick into the opponent's turn up to which a policy must be able to press to
reach the oracle's cost: how far the level makes a seat count.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from war_env.core.best_response import problem_with
from war_env.core.bots import VARIES_BY_ROUND, make_bot
from war_env.core.optimum import OURS, PolicyCost, TimingPolicy, TimingProblem, nothing_carries_over, solve
from war_env.core.probes import PROBES, Probe
from war_env.core.rules import WarConfig
from war_env.evaluation.probe_gaps import ProbeGaps, exact_gaps

WINDOWS = (4, 24)
"""The frame stacks whose lines the memory levels give: the learners' 4-frame and 24-frame stacks."""
WITH_ACTIONS = (4,)
"""The stacks whose bound seeing their actions too the memory levels give (up to the latency, 6 ticks)."""
PLAYED_WITH_ACTIONS = (24,)
"""The stacks seeing their actions too whose played line the memory levels give (from the latency on, 6 ticks)."""
SAME_COST = 1e-12
"""Costs per move closer than this are the same (the solver's tolerance is 1e-10 of the values' size)."""


def window_reach(frames: int) -> int:
    """The last tick of the opponent's turn that a stack of ``frames`` observations tells apart from the later
    ones in the memory probe: its oldest frame must show the seat's turn before its own draw."""
    if isinstance(frames, bool) or not isinstance(frames, int) or frames < 1:
        raise ValueError(f"frames must be an integer >= 1, got {frames!r}")
    return frames - 2


def pressing_up_to(problem: TimingProblem, last_tick: int, chance: float = 0.0, sees_actions: int = 0) -> TimingPolicy:
    """The best policy that, in the opponent's turn, chooses only up to ``last_tick`` ticks in, and later presses
    with probability ``chance`` on every tick (0: never), whatever is in flight, except, with ``sees_actions``, where
    one of its last ``sees_actions`` actions was a press: it chooses there too (exact)."""
    if sees_actions > problem.max_delay:
        raise ValueError(
            f"the presses in flight show the last {problem.max_delay} actions (the latency), not {sees_actions}"
        )
    sets = np.arange(1 << max(problem.max_delay, 1))
    given = np.where(sets & ((1 << sees_actions) - 1) != 0, np.nan, chance)  # bit a: the press sent a + 1 ticks ago
    return solve(problem, given=lambda elapsed: None if elapsed <= last_tick else given)


def pressing_after_waits(problem: TimingProblem, last_tick: int, chance: float) -> TimingPolicy:
    """The best policy that, in the opponent's turn, chooses only up to ``last_tick`` ticks in, and later presses
    with probability ``chance`` where nothing is in flight and waits where something is, whatever the tick (exact).
    With a fixed latency its presses in flight are its actions of the last ``latency`` ticks, so a stack of at least
    as many frames that sees its actions plays it (the solver's other decisions read the ticks it tells apart, its own
    turn's clock and those actions)."""
    if problem.latency[problem.max_delay] != 1.0:
        raise ValueError(f"the presses in flight are the last actions only with a fixed latency, got {problem.latency}")
    sets = np.arange(1 << max(problem.max_delay, 1))
    given = np.where(sets == 0, chance, 0.0)
    return solve(problem, given=lambda elapsed: None if elapsed <= last_tick else given)


GRID = 20
"""Steps of the grid of press probabilities ``window_line`` tries before its golden-section search."""
SEARCH_STEPS = 20
"""Golden-section steps around the grid's best probability (the bracket shrinks to 0.618**20 of a grid step)."""


@lru_cache(maxsize=64)
def least_over_chance(problem: TimingProblem, last_tick: int, sees_actions: int = 0) -> tuple[float, TimingPolicy]:
    """The probability of least cost per move, and ``pressing_up_to`` at it (``least_of``)."""
    return least_of(lambda chance: pressing_up_to(problem, last_tick, chance, sees_actions))


@lru_cache(maxsize=64)
def least_after_waits(problem: TimingProblem, last_tick: int) -> tuple[float, TimingPolicy]:
    """The probability of least cost per move, and ``pressing_after_waits`` at it (``least_of``)."""
    return least_of(lambda chance: pressing_after_waits(problem, last_tick, chance))


def least_of(policy_at: Callable[[float], TimingPolicy]) -> tuple[float, TimingPolicy]:
    """The probability of least cost per move, and ``policy_at`` it: the best of a grid of ``GRID`` + 1 steps from 0
    to 1, then a golden-section search between its neighbours (the cost is smooth in the probability)."""
    grid = [step / GRID for step in range(GRID + 1)]
    policies = [policy_at(chance) for chance in grid]
    best = min(range(len(grid)), key=lambda i: policies[i].cost_per_move)
    low, high = grid[max(best - 1, 0)], grid[min(best + 1, GRID)]
    ratio = (5**0.5 - 1) / 2
    found = grid[best], policies[best]
    for _ in range(SEARCH_STEPS):
        left, right = high - ratio * (high - low), low + ratio * (high - low)
        at_left, at_right = policy_at(left), policy_at(right)
        if at_left.cost_per_move <= at_right.cost_per_move:
            high, candidate = right, (left, at_left)
        else:
            low, candidate = left, (right, at_right)
        found = min(found, candidate, key=lambda pair: pair[1].cost_per_move)
    return found


def single_problem(probe: Probe) -> TimingProblem:
    """The timing problem of a probe whose opponent has one reaction distribution (the memory probe's)."""
    config, bot = probe.config(), make_bot(probe.opponent)
    if len(bot.windows()) != 1:
        raise ValueError(f"a window line needs an opponent with one reaction distribution, got {probe.opponent!r}")
    return problem_with(config, bot.reaction_probabilities(config))


def window_line(probe: Probe, frames: int, gaps: ProbeGaps | None = None, sees_actions: bool = False) -> float:
    """The least timing cost per round of a policy that sees only the last ``frames`` observations of the memory
    probe, and with ``sees_actions`` its last ``frames`` actions (bounds, the module docstring), as every
    yardstick's per-round figure (``ProbeGaps.per_round``)."""
    gaps = exact_gaps(probe) if gaps is None else gaps
    reach = window_reach(frames)
    _, policy = least_over_chance(single_problem(probe), reach, frames if sees_actions else 0)
    return per_round(policy, gaps)


def played_with_actions_line(probe: Probe, frames: int, gaps: ProbeGaps | None = None) -> float:
    """The timing cost per round of the best policy found that a stack of ``frames`` observations of the memory
    probe that sees its actions of as many ticks plays (``pressing_after_waits`` past its reach, least over the
    probability): exact, and a bound from above on what such a stack loses (the module docstring). ``frames`` from
    the latency on: a shorter stack does not see all its presses in flight."""
    gaps = exact_gaps(probe) if gaps is None else gaps
    problem = single_problem(probe)
    if frames < problem.max_delay:
        raise ValueError(f"a stack of {frames} frames does not see its presses of the last {problem.max_delay} ticks")
    _, policy = least_after_waits(problem, window_reach(frames))
    return per_round(policy, gaps)


def per_round(policy: TimingPolicy, gaps: ProbeGaps) -> float:
    """A solved policy's timing cost per round, as every yardstick's (``ProbeGaps.per_round``)."""
    return policy.policy_cost.per_round(gaps.moves, gaps.starts)


NO_REACTION = -1
"""The key of ``last_reaction_policies`` before the opponent's first draw of the round (``opponent_reaction`` 0)."""


def last_reaction_policies(probe: Probe) -> tuple[dict[int, float], dict[int, TimingPolicy]]:
    """For each tick ``t`` the pool bot of the inference probe draws on, the share of its draws on ``t``, and the
    solver's optimum against its reactions as the belief ``P(member | a draw on t)`` mixes them; ``NO_REACTION``:
    blind's optimum, the prior's mixture, with the share 0. Refused where the moves' costs do not add up
    (``last_reaction_line``): a press in flight that the opponent could meet, own turns played apart, a press kept in
    flight into the opponent's turn."""
    return reaction_policies(probe.config(), probe.opponent)


@lru_cache(maxsize=16)
def reaction_policies(config: WarConfig, opponent: str) -> tuple[dict[int, float], dict[int, TimingPolicy]]:
    """``last_reaction_policies`` of the probe of ``config`` against the bot ``opponent``."""
    bot = make_bot(opponent)
    if bot.varies_by != VARIES_BY_ROUND:
        raise ValueError(f"a last reaction tells the member of a pool drawn per round, got {opponent!r}")
    prior = np.asarray(bot.prior)
    reactions = np.array([window.reaction_probabilities(config) for window in bot.windows()])
    drawn = prior @ reactions
    shares, policies = {NO_REACTION: 0.0}, {NO_REACTION: solve(problem_with(config, tuple(drawn)))}
    for tick in np.flatnonzero(drawn > 0).tolist():
        belief = prior * reactions[:, tick] / drawn[tick]
        shares[tick] = float(drawn[tick])
        policies[tick] = solve(problem_with(config, tuple(belief @ reactions)))
    check_moves_add_up(policies)
    return shares, policies


def check_moves_add_up(policies: dict[int, TimingPolicy]) -> None:
    """Each move's cost is its policy's cost per move, whatever reaction the move before read, only if nothing a
    move does reaches into the next: presses in flight as the opponent's turn opens land before it can draw
    (``nothing_carries_over``), no policy keeps one in flight there (``opening_excess`` 0: its long run opens the
    opponent's turns with nothing in flight, as the round does) and all play the seat's own turn alike (it follows a
    new reaction but belongs to the move of the one before)."""
    own_turns = [policy.table()[OURS] for policy in policies.values()]
    for tick, policy in policies.items():
        if not nothing_carries_over(policy.problem):
            raise ValueError(f"after a draw on tick {tick}, a press in flight as the opponent's turn opens can meet it")
        if abs(policy.opening_excess) > SAME_COST:
            raise ValueError(f"after a draw on tick {tick}, a press is kept in flight into the opponent's turn")
    if any(not np.array_equal(own_turns[0], table) for table in own_turns):
        raise ValueError("the policies after different reactions play the seat's own turn differently")


def last_reaction_line(probe: Probe, gaps: ProbeGaps | None = None) -> float:
    """The timing cost per round of the best policy that reads only the opponent's last reaction (and the clocks
    and presses in flight) in the inference probe (the module docstring), as every yardstick's
    (``ProbeGaps.per_round``): exact; a bound from above on what such a reader loses.

    A round's first move reads no reaction and plays blind's policy; every later move reads the reaction before it,
    a draw on ``t`` with the pool's marginal share of ``t``. So a round costs the mean per move over those shares for
    every move, plus, once, blind's cost per move less that mean; its first turn and opening are blind's."""
    gaps = exact_gaps(probe) if gaps is None else gaps
    shares, policies = last_reaction_policies(probe)
    blind = policies[NO_REACTION]
    per_move = sum(share * policies[tick].cost_per_move for tick, share in shares.items())
    first_move = blind.cost_per_move - per_move
    cost = PolicyCost(per_move, blind.first_turn_excess + first_move, first_move)  # every opening_excess is 0
    return cost.per_round(gaps.moves, gaps.starts)


def counting_depth(probe: Probe) -> int:
    """The least tick ``d`` such that the best policy pressing at most ``d`` ticks into the opponent's turn costs
    what the oracle does (binary search: allowing more ticks never costs more)."""
    problem = single_problem(probe)
    oracle = solve(problem).cost_per_move
    low, high = -1, problem.turn_ticks - 1  # pressing up to `high` is the oracle; up to `low` is not (or none)
    while high - low > 1:
        middle = (low + high) // 2
        if pressing_up_to(problem, middle).cost_per_move <= oracle + SAME_COST:
            high = middle
        else:
            low = middle
    return high


@dataclass(frozen=True)
class LevelFigures:
    """One level's exact figures, per round: the oracle's timing cost, and what each line loses to it."""

    probe: str
    level: int
    what: str
    opponent: str
    default: bool
    oracle: float
    gaps: dict[str, float]
    """Agent or bound -> what it loses per round to the oracle: ``press_once``, ``lead``, ``blind`` and the
    yardstick of lacking the capability."""
    lacking: str
    best_simple: str
    windows: dict[int, float] = field(default_factory=dict)
    """Frames -> the least a policy seeing only that many frames loses per round (the memory probe; a bound)."""
    windows_with_actions: dict[int, float] = field(default_factory=dict)
    """Frames -> the least a policy seeing that many frames and its actions of as many ticks loses per round (frames
    up to the latency; a bound)."""
    played_with_actions: dict[int, float] = field(default_factory=dict)
    """Frames -> what the best policy found that a stack of that many frames seeing its actions plays loses per round
    (frames from the latency on; exact, a bound from above)."""
    depth: int | None = None
    """How far into the opponent's turn a policy must press to reach the oracle (the memory probe)."""

    @property
    def lacking_gap(self) -> float:
        return self.gaps[self.lacking]


def level_figures(probe: Probe, level: int) -> LevelFigures:
    at = probe.at_level(level)
    gaps = exact_gaps(at)
    oracle = gaps.per_round("oracle")
    windows, with_actions, played, depth = {}, {}, {}, None
    if probe.observation == "war":  # the clocks are hidden: how far a window of frames sees is the question
        windows = {frames: window_line(at, frames, gaps) - oracle for frames in WINDOWS}
        latency = at.config().max_delay
        with_actions = {k: window_line(at, k, gaps, True) - oracle for k in WITH_ACTIONS if k <= latency}
        played = {k: played_with_actions_line(at, k, gaps) - oracle for k in PLAYED_WITH_ACTIONS if k >= latency}
        depth = counting_depth(at)
    return LevelFigures(
        probe.name,
        level,
        probe.levels[level - 1].what,
        at.opponent,
        level == probe.default_level,
        oracle,
        {agent: gaps.gap(agent) for agent in gaps.per_move if agent != "oracle"},
        gaps.lacking,
        gaps.best_simple,
        windows,
        with_actions,
        played,
        depth,
    )


def all_levels(names=None) -> list[LevelFigures]:
    """Every level of the probes named (all with levels by default), easiest first."""
    names = [name for name in PROBES if PROBES[name].levels] if names is None else names
    return [level_figures(PROBES[name], n) for name in names for n in range(1, len(PROBES[name].levels) + 1)]


def levels_table(figures: list[LevelFigures]) -> str:
    """The levels' table of docs/probes.md: per level, the oracle's cost per round and each line's loss to it."""
    lines = [
        "| probe | level | what it asks | the oracle's cost | `press_once` loses | `lead` loses | lacking it loses | "
        + " | ".join(f"{k} frames lose at least" for k in WINDOWS)
        + " | "
        + " | ".join(f"{k} frames and actions lose at least" for k in WITH_ACTIONS)
        + " | "
        + " | ".join(f"{k} frames and actions lose at most" for k in PLAYED_WITH_ACTIONS)
        + " |",
        "|---|---|---|---|---|---|---|" + "---|" * (len(WINDOWS) + len(WITH_ACTIONS) + len(PLAYED_WITH_ACTIONS)),
    ]
    for f in figures:
        level = f"{f.level} (default)" if f.default else str(f.level)
        windows = [f"{f.windows[k]:.3f}" if k in f.windows else "" for k in WINDOWS]
        windows += [f"{f.windows_with_actions[k]:.3f}" if k in f.windows_with_actions else "" for k in WITH_ACTIONS]
        played = f.played_with_actions
        windows += [f"{played[k]:.3f}" if k in played else "" for k in PLAYED_WITH_ACTIONS]
        lead = f"{f.gaps['lead']:.3f}" if "lead" in PROBES[f.probe].simple else "(hidden clock)"
        lines.append(
            f"| {f.probe} | {level} | {f.what} | {f.oracle:.3f} | {f.gaps['press_once']:.3f} | {lead} "
            f"| `{f.lacking}`: {f.lacking_gap:.3f} | {' | '.join(windows)} |"
        )
    return "\n".join(lines)
