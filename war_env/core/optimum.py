"""The exact optimal timing policy of a seat, by dynamic programming over what the seat observes.

Nobody chooses a card in War, and the cards of a round never depend on timing, so a round's return
splits into its outcome (the same for every policy) and the timing cost of each move: false starts,
idle ticks, a takeover. The number of moves a seat makes in a round is fixed by the cards too, so the
best timing policy is the one with the lowest expected timing cost *per move* in the long run. With
action latency (a press sent in tick t acts in tick t + d) that is a real decision: a seat that waits to
see its turn open pays the latency in idle ticks, one that presses early risks false starts.

What matters for the future, at the end of a tick (before the seat acts in the next one):

* the phase: ``OURS`` with ``elapsed`` = ticks the seat's own turn will have been open in the next tick
  (0 .. turn_ticks - 1), or ``THEIRS`` with ``elapsed`` = ticks the opponent's turn will have been open.
  The seat's turn opens the tick after the opponent's draw, the opponent's the tick after the seat's,
  whoever started the round (the starter's first turn opens in tick 1: ``OURS`` 0 at reset; the other
  seat starts in ``THEIRS`` 0);
* whether the opponent has been taken over (its takeover bot then draws the tick its turn opens);
* the seat's presses still in flight: bit ``a`` of ``in_flight`` is set when the press sent ``a`` ticks
  ago has not landed yet.

A tick: the seat presses or waits; a press of age ``a`` lands with the hazard of the latency
distribution, a new press lands at once with P(delay = 0). With ``L`` presses landing:

* ``OURS``: ``L >= 1`` draws (the other ``L - 1`` find the turn closed: false starts) and ends the move,
  the opponent's turn opens next; ``L = 0`` is an idle tick, and on the turn's last tick a takeover;
* ``THEIRS``: ``L`` false starts (the seat's presses act before the opponent's in a tick); the opponent
  draws with the hazard of its reaction distribution (surely on its turn's last tick, by itself or as
  the takeover bot), and the seat's turn opens next.

``solve`` runs relative value iteration over the number of moves left: within a move the elapsed counters
only grow, so each iteration is one backward pass; it stops when the values have settled (relative to their
size: large weights make large values) and the greedy policy has not changed for a few iterations (or has
changed only between actions whose values agree, ``SETTLED_PATIENCE``). Two modelling choices, both in the seat's
favour of playing
on: a takeover is charged its penalty and play goes on (a seat is never better off handing its seat to
the bot to skip the rest's costs: the stationary criterion has no end); and the end of the round is not
modelled (it depends on the hidden cards; a press still in flight when the round ends costs nothing in
the game). With latency 0 the policy is exactly ``prompt``: press if and only if the seat's turn is open.

How it stays fast for every config the env accepts (turns of up to 10,000 ticks, delays of up to 16),
exactly, without touching most of the ``2 * turn_ticks * 2 * 2**max_delay`` states:

* **presses land independently**, so the expectation over which of the presses in flight land is a
  product over their ages: one sweep per age that can go either way (``InFlight.expect``), ``max_delay *
  2**max_delay`` operations instead of the ``3**max_delay`` of listing every outcome;
* **the seat's own turn far from its deadline does not depend on the clock**: once a press is in flight
  that surely lands before the takeover tick, the turn ends by that press whatever the seat does, so
  every such state is the state ``max_delay`` ticks before the deadline (``ours_from``); with nothing in
  flight the choice is between pressing now and one more idle tick, a scalar recursion;
* **ticks where the opponent cannot draw** (a zero hazard, for example before the lowest reaction of a
  ``uniform`` bot, or between the last tick a ``human`` bot can react in floating point and its
  takeover) need no table: a press that surely lands before the opponent can draw is a pure false start,
  so waiting is optimal there, and the value is the false starts of what is in flight plus the value
  after it has landed (``_Shape``); ticks after the opponent surely drew are never reached.

``solve`` bounds its work, iterations times states, not its time: it refuses up front, in one line, a problem
whose tables would take too long at ``TYPICAL_ITERATIONS`` (``SECONDS_BOUND``), and a problem that has not
settled within the iterations that fit in that bound when it reaches them (``TimingProblem.iteration_budget``);
it reports its progress to a callback (the ``oracle`` prints it after a second).
``evaluate`` gives the cost per move of any stationary policy on the same state (the scripted baselines
and the probes' yardsticks are measured exactly that way); ``round_costs`` the expected cost of a round's first
``n`` moves under a solved policy, the opponent's takeover included (real-time pricing, ``league.compute``).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from war_env.core.latency import MAX_LATENCY

OURS, THEIRS = 0, 1
LIVE, TAKEN = 0, 1
"""The two classes of states: the opponent plays by itself, or it has been taken over (for good)."""
MAX_DELAY = MAX_LATENCY
"""Largest latency (in ticks) the solver takes: every latency the env accepts."""
SECONDS_BOUND = 30.0
"""The most work a solve takes on, in seconds of the project's machine (``TimingProblem.seconds_per_iteration``
times its iterations): a problem whose ``TYPICAL_ITERATIONS`` would not fit is refused up front, and a solve
that has not settled within the iterations that fit (``TimingProblem.iteration_budget``) refuses it then."""
TYPICAL_ITERATIONS = 40
"""Iterations of a solve (value iteration and the evaluation of its policy together) in the estimate: 12 to 40
on most problems measured, up to 64 (a latency spread over several ticks, false starts as dear as idle ticks)."""
MAX_ITERATIONS = 20_000
"""The most iterations of a small problem, whose budget of ``SECONDS_BOUND`` would allow more."""
_EPSILON = 1e-13
"""Pressing must beat waiting by more than this times the size of the values (at least the problem's
``cost_scale``): ties wait, a press that changes nothing is not sent. Relative, because values carry rounding
noise in proportion to their size (values of millions change in their last bits from one iteration to the
next, and an absolute threshold let that noise flip tied choices for ever), and tiny weights are not ties."""


def _beats(press, wait, scale: float):
    """Where pressing beats waiting by more than the rounding noise of their size (``_EPSILON``)."""
    return press < wait - _EPSILON * np.maximum(scale, np.abs(wait))


@dataclass(frozen=True)
class TimingProblem:
    """One seat's timing problem: the turn length, the distributions and the costs (positive numbers)."""

    turn_ticks: int
    latency: tuple[float, ...]
    """P(delay = d) for d = 0 .. len - 1: ticks from sending a press to its acting."""
    reaction: tuple[float, ...]
    """The opponent bot's P(draw on tick k of its open turn), k = 0 .. turn_ticks - 1; what is missing
    to 1 is the chance it does not react (it is taken over on its turn's last tick)."""
    false_start_cost: float
    idle_cost: float
    takeover_cost: float

    def __post_init__(self):
        if isinstance(self.turn_ticks, bool) or not isinstance(self.turn_ticks, int) or self.turn_ticks < 1:
            raise ValueError(f"turn_ticks must be an integer >= 1, got {self.turn_ticks!r}")
        check_distribution("latency", self.latency, exact=True)
        check_distribution("reaction", self.reaction, exact=False)
        if len(self.reaction) != self.turn_ticks:
            raise ValueError(
                f"reaction needs one probability per tick of the turn ({self.turn_ticks}), got {len(self.reaction)}"
            )
        if self.max_delay > MAX_DELAY or self.max_delay >= self.turn_ticks:
            raise ValueError(
                f"the largest latency ({self.max_delay} ticks) must be below {MAX_DELAY + 1} and below "
                f"the turn's {self.turn_ticks} ticks (a press sent as the turn opens must land in it)"
            )
        for name in ("false_start_cost", "idle_cost", "takeover_cost"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value >= 0):
                raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")

    @property
    def cost_scale(self) -> float:
        """The largest cost (1 when every cost is 0): the unit of the solver's tolerances."""
        return max(self.false_start_cost, self.idle_cost, self.takeover_cost) or 1.0

    @property
    def max_delay(self) -> int:
        return max(d for d, p in enumerate(self.latency) if p > 0)

    @cached_property
    def landing_hazard(self) -> np.ndarray:
        """``[a]``: P(a press of age a, still in flight, lands in the next tick) = P(d = a + 1 | d > a)."""
        p = np.asarray(self.latency, dtype=float)
        survival = p[::-1].cumsum()[::-1]  # P(d >= x)
        hazard = np.ones(max(self.max_delay, 1))  # no press is older than the largest delay
        for age in range(self.max_delay):
            hazard[age] = p[age + 1] / survival[age + 1] if survival[age + 1] > 0 else 1.0
        return hazard

    @cached_property
    def opponent_hazard(self) -> np.ndarray:
        """``[k]``: P(the opponent draws on tick k of its turn | it has not drawn before); 1 on the last tick."""
        return reaction_hazard(self.reaction)

    @cached_property
    def taken_over_on_last_tick(self) -> float:
        """P(the opponent is taken over | it has not drawn before its turn's last tick)."""
        r = np.asarray(self.reaction, dtype=float)
        missing = max(0.0, 1.0 - r.sum())
        waiting = r[-1] + missing
        return missing / waiting if waiting > 0 else 0.0

    @cached_property
    def shape(self) -> _Shape:
        return _Shape.of(self)

    @property
    def states(self) -> int:
        """The states one iteration of the solve updates: its tables (both classes) times the sets in flight."""
        return self.shape.states(self)

    @property
    def seconds_per_iteration(self) -> float:
        return self.shape.seconds_per_iteration(self)

    @property
    def seconds(self) -> float:
        """The solve's estimated time on one core of the project's machine: ``TYPICAL_ITERATIONS`` of
        ``seconds_per_iteration``."""
        return self.seconds_per_iteration * TYPICAL_ITERATIONS

    @property
    def iteration_budget(self) -> int:
        """The most iterations a solve makes (both stages together): as many as fit in ``SECONDS_BOUND``."""
        return _fits(self, self.shape)

    def check_solvable(self) -> None:
        """Refuse, in one line, a problem whose tables would take too long (``SECONDS_BOUND``)."""
        if self.seconds > SECONDS_BOUND:
            raise ValueError(
                f"the exact timing solver refuses this problem: {self.shape.theirs_tables} ticks of the opponent's "
                f"turn (of {self.turn_ticks}) where it may draw, times 2**{self.max_delay} sets of presses in flight, "
                f"would take about {self.seconds:.0f} s, above its bound of {SECONDS_BOUND:.0f} s; use a shorter "
                f"turn_seconds, a longer tick_seconds, a smaller latency or an opponent that reacts sooner"
            )

    def unsettled(self, iterations: int, budget: bool) -> Exception:
        """The one-line error of a solve that has not settled in ``iterations``: a refusal (``ValueError``) when
        they were all its ``iteration_budget`` allows (``budget``), else the caller's limit (``RuntimeError``)."""
        problem = (
            f"costs: false start {self.false_start_cost:g}, idle tick {self.idle_cost:g}, takeover "
            f"{self.takeover_cost:g}; turn {self.turn_ticks} ticks, latency up to {self.max_delay}"
        )
        if budget:
            return ValueError(
                f"the exact timing solver refuses this problem ({problem}): it had not settled after "
                f"{iterations} iterations of {self.states:,} states, all its bound of {SECONDS_BOUND:.0f} s allows"
            )
        return RuntimeError(
            f"the timing problem did not converge in {iterations} iterations ({problem}): weights this far "
            f"apart may need a looser tolerance"
        )


def reaction_hazard(reaction: Sequence[float]) -> np.ndarray:
    """``[k]``: P(a draw on tick k | none before) of a reaction distribution; 1 on its turn's last tick."""
    r = np.asarray(reaction, dtype=float)
    missing = max(0.0, 1.0 - r.sum())
    still_waiting = r[::-1].cumsum()[::-1] + missing  # P(R >= k)
    hazard = np.where(still_waiting > 0, r / np.where(still_waiting > 0, still_waiting, 1), 1.0)
    hazard[-1] = 1.0
    return np.minimum(hazard, 1.0)


def check_distribution(name: str, probabilities, exact: bool) -> None:
    values = np.asarray(probabilities, dtype=float)
    if values.ndim != 1 or values.size == 0 or not np.all(np.isfinite(values)) or np.any(values < 0):
        raise ValueError(f"{name} must be a non-empty sequence of probabilities, got {probabilities!r}")
    total = values.sum()
    if total > 1 + 1e-9 or (exact and abs(total - 1) > 1e-9):
        raise ValueError(f"{name} probabilities must sum to {'1' if exact else 'at most 1'}, got {total}")


@dataclass(frozen=True)
class State:
    """What the seat knows at the end of a tick (see the module docstring)."""

    phase: int
    elapsed: int
    opponent_taken_over: bool = False
    in_flight: int = 0


# --- where the tables are needed ----------------------------------------------------------------------
FULL, WAIT, DRAINED, NEVER = 0, 1, 2, 3
"""How a tick of the opponent's turn is solved: a full table; a table where waiting is optimal (a press
would surely land before the opponent can draw); no table (the presses in flight all land as false
starts before the next full table, the value is theirs plus that table's with nothing in flight); never
reached (the opponent surely drew before)."""


@dataclass(frozen=True)
class _Shape:
    """Which ticks of each phase need a table over the sets of presses in flight (see the module docstring)."""

    ours_from: int
    """The seat's own turn: ticks ``ours_from .. turn_ticks - 1`` have tables; before them a state with a
    press in flight is the state at ``ours_from`` (that press surely lands before the deadline)."""
    theirs: tuple[int, ...]
    """The opponent's turn (opponent playing): ``FULL``, ``WAIT``, ``DRAINED`` or ``NEVER`` per tick."""
    drained_to: tuple[int, ...]
    """For a ``DRAINED`` tick, the first ``FULL`` tick after it (else -1)."""

    @classmethod
    def of(cls, problem: TimingProblem, hazard: np.ndarray | None = None, compress: bool = True) -> _Shape:
        T, D = problem.turn_ticks, problem.max_delay
        hazard = problem.opponent_hazard if hazard is None else hazard
        last = int(np.argmax(hazard >= 1.0))  # the opponent surely draws there: later ticks are never reached
        kinds, drained_to = [NEVER] * T, [-1] * T
        for e in range(last + 1):
            kinds[e] = FULL
        if compress:
            e = 0
            while e <= last:
                if hazard[e] > 0:
                    e += 1
                    continue
                end = e
                while end + 1 <= last and hazard[end + 1] == 0:
                    end += 1  # the opponent cannot draw in ticks e .. end
                full = end - D + 1  # from here a press may land after `end`
                for tick in range(e, min(full, last + 1)):
                    kinds[tick] = DRAINED if tick + D <= full else WAIT
                    drained_to[tick] = full if kinds[tick] == DRAINED else -1
                e = end + 1
        return cls(max(0, T - max(D, 1)) if compress else 0, tuple(kinds), tuple(drained_to))

    @property
    def theirs_tables(self) -> int:
        return sum(kind in (FULL, WAIT) for kind in self.theirs)

    def tables(self, problem: TimingProblem) -> int:
        """The tables of one iteration, both classes: the opponent's turn, the seat's own (twice: the
        taken-over class has its own) and the taken-over opponent's one tick."""
        return self.theirs_tables + 2 * (problem.turn_ticks - self.ours_from) + 1

    def states(self, problem: TimingProblem) -> int:
        return self.tables(problem) * (1 << max(problem.max_delay, 1))

    def seconds_per_iteration(self, problem: TimingProblem) -> float:
        """Tables (both classes) x 2 actions x (a fixed cost per table, one per age a press may or may not
        land at, and the same per mask): fitted to measured solves of fixed:ticks=10 and uniform:low=0,high=10
        with 10,000-tick turns and to fixed:ticks=16 and uniform:low=0,high=16 with the default turn."""
        masks = 1 << max(problem.max_delay, 1)
        sweeps = int(np.sum((problem.landing_hazard > 0) & (problem.landing_hazard < 1)))
        return 2.0 * self.tables(problem) * (34e-6 + 16e-6 * sweeps + 2.2e-9 * masks * (4 + sweeps))


# --- the presses in flight ------------------------------------------------------------------------------
class InFlight:
    """The algebra of the sets of presses in flight: every set at once, as arrays over ``2**width`` masks."""

    def __init__(self, problem: TimingProblem):
        self.width = max(problem.max_delay, 1)
        self.size = 1 << self.width
        self.hazard = problem.landing_hazard
        self.now = float(problem.latency[0])  # P(a new press lands in the tick it is sent)
        masks = np.arange(self.size)
        bits = (masks[:, None] >> np.arange(self.width)) & 1
        self.popcount = bits.sum(axis=1).astype(float)
        self.expected_landings = bits @ self.hazard
        """Expected number of the set's presses landing in the next tick."""
        self.none_land = np.prod(np.where(bits == 1, 1.0 - self.hazard, 1.0), axis=1)
        """P(none of the set's presses lands in the next tick)."""
        self.shifted = (masks << 1) & (self.size - 1)
        """The set a tick later when none lands (every age + 1; the oldest surely lands, so is never kept)."""

    def expect(self, f: np.ndarray, press: bool) -> np.ndarray:
        """``[m]``: E[f(the set a tick later)] from set ``m``, each press landing by its own hazard, plus a new
        press (``press``) that lands at once with P(delay = 0) and else is in flight at age 0.

        Built from the sets the survivors make, then one sweep per age: the press of age ``a`` survives
        with 1 - hazard (the sum keeps it) or lands (the sum drops it)."""
        survivors = f[self.shifted]
        if press:
            survivors = self.now * survivors + (1.0 - self.now) * f[self.shifted | 1]
        result = survivors.copy()
        for age, hazard in enumerate(self.hazard):
            if hazard == 0.0:
                continue
            view = result.reshape(-1, 2, 1 << age)
            kept, landed = view[:, 1, :], view[:, 0, :]
            kept *= 1.0 - hazard
            kept += hazard * landed
        return result

    def kept(self, press: bool) -> np.ndarray:
        """``[m]``: the set a tick later when nothing lands (a new press then stays in flight at age 0)."""
        return self.shifted | 1 if press else self.shifted


# --- one class's tables -------------------------------------------------------------------------------------
@dataclass
class _ClassPolicy:
    """The press decisions of one class, stored where ``_Shape`` keeps tables."""

    ours: np.ndarray
    """``[e - ours_from, m]`` for the seat's own turn's tabled ticks."""
    ours_idle: np.ndarray
    """``[e]`` for e < ours_from with nothing in flight: press (or one more idle tick)."""
    theirs: dict[int, np.ndarray]
    """``{e: [m]}`` for the opponent's turn's ``FULL`` ticks; every other tick waits."""

    def press(self, shape: _Shape, phase: int, elapsed: int, in_flight: int) -> bool:
        if phase == OURS:
            if elapsed >= shape.ours_from:
                return bool(self.ours[elapsed - shape.ours_from, in_flight])
            return bool(self.ours_idle[elapsed]) if in_flight == 0 else bool(self.ours[0, in_flight])
        row = self.theirs.get(elapsed)
        return bool(row[in_flight]) if row is not None else False

    def same(self, other: _ClassPolicy) -> bool:
        return (
            np.array_equal(self.ours, other.ours)
            and np.array_equal(self.ours_idle, other.ours_idle)
            and self.theirs.keys() == other.theirs.keys()
            and all(np.array_equal(row, other.theirs[e]) for e, row in self.theirs.items())
        )


def _rule_choice(choice) -> np.ndarray:
    """An outside rule's answer: press or not (bools), or the probability of pressing (floats in [0, 1])."""
    choice = np.asarray(choice)
    if choice.dtype == bool or np.issubdtype(choice.dtype, np.integer):
        return choice.astype(bool)
    if np.any((choice < 0) | (choice > 1)):
        raise ValueError("a policy rule gives press probabilities in [0, 1]")
    return choice.astype(float)


class _Chooser:
    """Picks the action in each tabled state of a class: the greedy one (``fixed=None``), a stored policy's,
    or an outside policy's (``rule(phase, elapsed, in_flight_masks) -> press``, evaluated on full tables)."""

    def __init__(
        self,
        shape: _Shape,
        size: int,
        turn_ticks: int,
        fixed: _ClassPolicy | None = None,
        rule=None,
        scale: float = 1.0,
        given: Callable[[int], float | np.ndarray | None] | None = None,
    ):
        self.fixed, self.rule, self.scale, self.given = fixed, rule, scale, given
        self.masks = np.arange(size)
        self.made = _ClassPolicy(
            np.zeros((turn_ticks - shape.ours_from, size), dtype=bool), np.zeros(shape.ours_from, dtype=bool), {}
        )

    def ours(self, elapsed: int, row: int, wait: np.ndarray, press: np.ndarray) -> np.ndarray:
        stored = None if self.fixed is None else self.fixed.ours[row]
        self.made.ours[row] = choice = self._choice(OURS, elapsed, stored, wait, press)
        return choice

    def ours_idle(self, elapsed: int, wait: float, press: float) -> bool:
        # an outside rule is evaluated on full tables, which have no such ticks
        stored = None if self.fixed is None else bool(self.fixed.ours_idle[elapsed])
        self.made.ours_idle[elapsed] = choice = stored if stored is not None else bool(_beats(press, wait, self.scale))
        return choice

    def theirs(self, elapsed: int, wait: np.ndarray, press: np.ndarray) -> np.ndarray:
        stored = None if self.fixed is None else self.fixed.theirs[elapsed]
        self.made.theirs[elapsed] = choice = self._choice(THEIRS, elapsed, stored, wait, press)
        return choice

    def _choice(self, phase: int, elapsed: int, stored, wait: np.ndarray, press: np.ndarray) -> np.ndarray:
        if stored is not None:
            return stored
        if self.rule is not None:
            return _rule_choice(self.rule(phase, elapsed, self.masks))
        given = None if self.given is None or phase != THEIRS else self.given(elapsed)
        if given is None:
            return _beats(press, wait, self.scale)
        # the seat's action is given there: it presses with that probability (per set in flight; NaN: it chooses)
        given = np.broadcast_to(np.asarray(given, dtype=float), (len(self.masks),))
        choice = np.where(np.isnan(given), _beats(press, wait, self.scale), given)
        return choice.astype(bool) if np.all((choice == 0) | (choice == 1)) else choice


def _played(choice: np.ndarray, wait: np.ndarray, press: np.ndarray) -> np.ndarray:
    """The value of the actions chosen: a press (``True``) or a wait, or a press with a probability."""
    if choice.dtype == bool:
        return np.where(choice, press, wait)
    return wait + choice * (press - wait)


def _ours_turn(
    problem: TimingProblem, masks: InFlight, shape: _Shape, after_draw: np.ndarray, restart: float, chooser: _Chooser
) -> np.ndarray:
    """The seat's own turn, backwards from its last tick: ``[m]``, the value as the turn opens with set ``m``
    in flight. ``after_draw[m]``: the value right after its draw with ``m`` left in flight; ``restart``:
    after a takeover (nothing in flight)."""
    fs, idle, T = problem.false_start_cost, problem.idle_cost, problem.turn_ticks
    later = None
    for elapsed in range(T - 1, shape.ours_from - 1, -1):
        go_on = np.full(masks.size, problem.takeover_cost + restart) if elapsed == T - 1 else later
        q = []
        for press in (False, True):
            none = masks.none_land * (1.0 - masks.now) if press else masks.none_land
            landings = masks.expected_landings + (masks.now if press else 0.0)
            kept = masks.kept(press)
            drew = fs * (landings - 1.0 + none) + masks.expect(after_draw, press) - none * after_draw[kept]
            q.append(drew + none * (idle + go_on[kept]))
        later = _played(chooser.ours(elapsed, elapsed - shape.ours_from, q[0], q[1]), q[0], q[1])
    if shape.ours_from == 0:
        return later
    # before ours_from: a set in flight is the state at ours_from; with nothing in flight, press or idle
    press_now = masks.now * after_draw[0] + (1.0 - masks.now) * (idle + later[1])
    idle_value = later[0]
    for elapsed in range(shape.ours_from - 1, -1, -1):
        wait = idle + idle_value
        idle_value = press_now if chooser.ours_idle(elapsed, wait, press_now) else wait
    opening = later.copy()
    opening[0] = idle_value
    return opening


def _theirs_turn(
    problem: TimingProblem,
    masks: InFlight,
    shape: _Shape,
    hazard: np.ndarray,
    opens_ours: Callable[[int], np.ndarray],
    chooser: _Chooser,
) -> np.ndarray:
    """The opponent's turn, backwards: ``[m]``, the value as it opens with set ``m`` in flight.
    ``opens_ours(e)[m]``: the value as the seat's turn opens after the opponent's draw in tick e."""
    fs = problem.false_start_cost
    tables: dict[int, np.ndarray] = {}
    later = None
    for elapsed in range(len(shape.theirs) - 1, -1, -1):
        kind = shape.theirs[elapsed]
        if kind == NEVER:
            continue
        if kind == DRAINED:
            later = fs * masks.popcount + tables[shape.drained_to[elapsed]][0]
            continue
        draws = hazard[elapsed]
        following = draws * opens_ours(elapsed) + (1.0 - draws) * later if draws < 1 else opens_ours(elapsed)
        wait = fs * masks.expected_landings + masks.expect(following, False)
        if kind == WAIT:
            later = wait
        else:
            press = fs * (masks.expected_landings + masks.now) + masks.expect(following, True)
            later = _played(chooser.theirs(elapsed, wait, press), wait, press)
            tables[elapsed] = later
    return later


# --- the solved problem -----------------------------------------------------------------------------------
class TimingPolicy:
    """The solved problem: ``press(state)``, the optimal ``cost_per_move`` and the relative values of the
    states that open a turn (``opening_value``)."""

    def __init__(
        self,
        problem: TimingProblem,
        shape: _Shape,
        classes: tuple[_ClassPolicy, _ClassPolicy],
        openings: np.ndarray,
        cost_per_move: float,
        iterations: int,
    ):
        self.problem = problem
        self.shape = shape
        self._taken_shape = _taken_shape(problem, shape)
        self._classes = classes
        self.openings = openings
        """``[taken, phase, m]``: expected cost from the opening of a turn with set m in flight, minus the cost
        per move for each move (defined up to a constant per class)."""
        self.cost_per_move = cost_per_move
        self.iterations = iterations
        """Iterations of the solve, both stages: at most the problem's ``iteration_budget``."""
        self.states = shape.states(problem)
        """States each iteration updated: the work of the solve is ``iterations * states``."""

    def press(self, state: State) -> bool:
        taken = int(state.opponent_taken_over)
        shape = self._taken_shape if taken else self.shape
        return self._classes[taken].press(shape, state.phase, state.elapsed, state.in_flight)

    def opening_value(self, phase: int, in_flight: int = 0, opponent_taken_over: bool = False) -> float:
        return float(self.openings[int(opponent_taken_over), phase, in_flight])

    @property
    def first_turn_excess(self) -> float:
        """What a round the seat starts costs beyond one the opponent starts: its first turn opens with nothing in
        flight (it could send nothing ahead), ``opening_value(OURS) - opening_value(THEIRS)``."""
        return self.opening_value(OURS) - self.opening_value(THEIRS)

    @cached_property
    def opening_excess(self) -> float:
        """What a round costs beyond ``cost_per_move`` times its moves as it opens with nothing in flight, the
        opponent starting (``PolicyCost.opening_excess``): the policy evaluated while the opponent plays."""
        return _settled_cost(self.problem, self.shape, self._classes, None, 1e-10, MAX_ITERATIONS).opening_excess

    @property
    def policy_cost(self) -> PolicyCost:
        """Its cost per move with what a round's opening and the seat's first turn cost beyond it."""
        return PolicyCost(self.cost_per_move, self.first_turn_excess, self.opening_excess)

    def presses_exactly_when_its_turn_is_open(self) -> bool:
        """Whether, with nothing in flight, it presses on every tick of its turn and never in the opponent's:
        ``prompt``'s policy (without latency nothing is ever in flight)."""
        T = self.problem.turn_ticks
        return all(self.press(State(OURS, e, taken, 0)) for e in range(T) for taken in (False, True)) and not any(
            self.press(State(THEIRS, e, taken, 0)) for e in range(T) for taken in (False, True)
        )

    def table(self) -> np.ndarray:
        """The whole policy, ``[phase, elapsed, taken, in_flight]`` -> press (bool), for small problems."""
        size = 1 << max(self.problem.max_delay, 1)
        T = self.problem.turn_ticks
        if 4 * T * size > 10_000_000:
            raise ValueError(f"the policy table of {4 * T * size} states is too large to list: use press(state)")
        return np.array(
            [
                [
                    [[self.press(State(phase, e, bool(taken), m)) for m in range(size)] for taken in (0, 1)]
                    for e in range(T)
                ]
                for phase in (OURS, THEIRS)
            ]
        )


def _taken_shape(problem: TimingProblem, shape: _Shape) -> _Shape:
    """The taken-over opponent's turn: its takeover bot draws on the tick the turn opens."""
    return _Shape(shape.ours_from, (FULL,) + (NEVER,) * (problem.turn_ticks - 1), (-1,) * problem.turn_ticks)


@dataclass
class _Iteration:
    """The tables of one iteration (one move more to go), for both classes."""

    openings: np.ndarray  # [taken, phase, m]
    policies: tuple[_ClassPolicy, _ClassPolicy]


def _one_move(
    problem: TimingProblem,
    masks: InFlight,
    shape: _Shape,
    next_move: np.ndarray,
    choosers,
    opponent_takeover: bool,
    hazard: np.ndarray | None = None,
) -> _Iteration:
    """V_n from V_{n-1}: ``next_move[taken, m]`` is the value right after the seat's draw (the opponent's
    turn opens next) with ``m`` in flight. ``choosers[taken]`` picks the actions; without
    ``opponent_takeover`` the opponent's last tick is a draw that leaves it playing."""
    hazard = problem.opponent_hazard if hazard is None else hazard
    openings = np.zeros((2, 2, masks.size))
    taken_shape = _taken_shape(problem, shape)
    for taken in (TAKEN, LIVE):  # the live class's last tick may open the seat's turn against a taken-over one
        openings[taken, OURS] = _ours_turn(
            problem, masks, shape, next_move[taken], next_move[taken, 0], choosers[taken]
        )
    becomes_taken = problem.taken_over_on_last_tick if opponent_takeover else 0.0
    last = problem.turn_ticks - 1

    def opens_ours(elapsed: int) -> np.ndarray:
        if elapsed == last and becomes_taken > 0:
            return (1 - becomes_taken) * openings[LIVE, OURS] + becomes_taken * openings[TAKEN, OURS]
        return openings[LIVE, OURS]

    openings[TAKEN, THEIRS] = _theirs_turn(
        problem, masks, taken_shape, np.ones(problem.turn_ticks), lambda elapsed: openings[TAKEN, OURS], choosers[TAKEN]
    )
    openings[LIVE, THEIRS] = _theirs_turn(problem, masks, shape, hazard, opens_ours, choosers[LIVE])
    return _Iteration(openings, (choosers[LIVE].made, choosers[TAKEN].made))


def _iterate(
    problem,
    masks,
    shape,
    fixed,
    rule,
    opponent_takeover,
    tolerance,
    max_iterations,
    stable_iterations,
    progress,
    stage,
    start=None,
    given=None,
):
    """Relative value iteration over the moves left (each class relative to its opponent's turn opening
    with nothing in flight) until the values settle and the policy holds for ``stable_iterations``. A policy
    whose moves cycle through sets in flight (a periodic chain, even in states it never reaches) makes the
    iteration oscillate: if it has not settled after ``DAMPED_AFTER`` iterations, each new iterate is
    averaged with the last (the aperiodicity transformation, Puterman 1994, section 8.5.4), which has the
    same fixed point and gain. With a policy given (``fixed`` or ``rule``) it stops when the gain has held to
    ``tolerance`` for five iterations: a policy may cycle in states it never reaches, at another gain."""
    next_move = np.zeros((2, masks.size)) if start is None else start
    previous_policy, unchanged, started = None, 0, time.monotonic()
    calm, last_gain, settled_for = 0, np.inf, 0
    taken_shape = _taken_shape(problem, shape)
    for iteration in range(1, max_iterations + 1):
        choosers = [
            _Chooser(s, masks.size, problem.turn_ticks, fixed[c] if fixed else None, rule, problem.cost_scale, given)
            for c, s in ((LIVE, shape), (TAKEN, taken_shape))
        ]
        step = _one_move(problem, masks, shape, next_move, choosers, opponent_takeover)
        values = step.openings[:, THEIRS] - step.openings[:, THEIRS, :1]
        if iteration > DAMPED_AFTER:
            values = 0.5 * (values + next_move)
        same = previous_policy is not None and all(a.same(b) for a, b in zip(step.policies, previous_policy))
        unchanged = unchanged + 1 if same else 0
        if fixed is None and rule is None:
            settled = float(np.abs(values - next_move).max()) <= _scaled(tolerance, values, problem.cost_scale)
        else:  # a fixed policy: only its gain from the opponent's opening (states it never reaches may diverge)
            gain = step.openings[LIVE, THEIRS, 0]
            calm = calm + 1 if abs(gain - last_gain) <= _scaled(tolerance, gain, problem.cost_scale) else 0
            settled, last_gain = calm >= 5, gain
        if progress is not None:
            progress(stage, iteration, time.monotonic() - started)
        next_move, previous_policy = values, step.policies
        settled_for = settled_for + 1 if settled else 0
        if settled and (unchanged >= stable_iterations or settled_for >= SETTLED_PATIENCE):
            return step, next_move, iteration
    raise _Unsettled(max_iterations)


class _Unsettled(Exception):
    """``_iterate`` ran out of iterations; the caller says why in one line (``TimingProblem.unsettled``)."""


SETTLED_PATIENCE = 20
"""Iterations the values may stay settled while the greedy policy still changes: then its changes are between
actions whose values agree to the tolerance (the values would move otherwise), so either is optimal."""


def _scaled(tolerance: float, values, scale: float) -> float:
    """``tolerance`` relative to the size of the values (at least the problem's ``cost_scale``, 1 with the
    default weights): float64 resolves values of size ``v`` only to about ``v * 1e-16``, so a fixed tolerance
    would never be met by the values of large weights (an idle tick of -1e6 makes values of millions, whose
    last bits keep changing by 5e-10 after the policy settled)."""
    return tolerance * max(scale, float(np.max(np.abs(values))))


DAMPED_AFTER = 200
"""Iterations of plain relative value iteration before it is damped (``_iterate``)."""

Progress = Callable[[str, int, float], None]
"""``progress(stage, iteration, seconds)``: called after every iteration of a solve."""


def solve(
    problem: TimingProblem,
    tolerance: float = 1e-10,
    max_iterations: int = MAX_ITERATIONS,
    stable_iterations: int = 5,
    progress: Progress | None = None,
    every_tick: bool = False,
    given: Callable[[int], float | np.ndarray | None] | None = None,
) -> TimingPolicy:
    """The optimal stationary policy, by relative value iteration over the number of moves left: it stops
    when the relative values (within each class: opponent playing, opponent taken over) have settled to
    ``tolerance`` and the greedy policy has not changed for ``stable_iterations``. Then ``cost_per_move`` is
    the policy's long-run cost per move while the opponent plays (its own takeover switched off), found by
    the same iteration with the policy fixed, from the optimum's values. Both stages together make at most
    ``max_iterations`` and the problem's ``iteration_budget``: a problem above ``SECONDS_BOUND`` is refused up
    front, one that has not settled within its budget then, in one line.
    ``every_tick`` tables every tick of both turns, without the shortcuts of the module docstring: the plain
    dynamic programme, which the tests hold the shortcuts to.
    ``given(elapsed)``, for each tick of the opponent's turn, is ``None`` where the solver chooses, or the probability
    with which the seat presses there, one for every set in flight or one per set (``NaN``: the solver chooses for
    that set): the optimum of the other decisions of a seat that cannot tell those ticks apart
    (``evaluation.probe_levels.window_line``). Every tick is tabled then."""
    problem.check_solvable()
    every_tick = every_tick or given is not None  # a given press may fall in a tick the shortcuts leave out
    masks, shape = InFlight(problem), _Shape.of(problem, compress=False) if every_tick else problem.shape
    budget = min(max_iterations, problem.iteration_budget if shape is problem.shape else _fits(problem, shape))
    try:
        step, values, iterations = _iterate(
            problem,
            masks,
            shape,
            None,
            None,
            True,
            tolerance,
            budget,
            stable_iterations,
            progress,
            "optimum",
            given=given,
        )
        policies = step.policies
        gain, more = _gain(problem, masks, shape, policies, None, tolerance, budget - iterations, progress, values)
    except _Unsettled:
        raise problem.unsettled(budget, budget < max_iterations) from None
    return TimingPolicy(
        problem, shape, policies, step.openings - step.openings[:, THEIRS, :1][:, None], gain, iterations + more
    )


def _fits(problem: TimingProblem, shape: _Shape) -> int:
    """The iterations on ``shape``'s tables that fit in ``SECONDS_BOUND``, at most ``MAX_ITERATIONS``."""
    return min(MAX_ITERATIONS, int(SECONDS_BOUND / shape.seconds_per_iteration(problem)))


def _gain(problem, masks, shape, fixed, rule, tolerance, max_iterations, progress, start=None) -> tuple[float, int]:
    """The long-run cost per move of a policy while the opponent plays (its takeover switched off), its
    iteration started from ``start`` (the optimum's relative values: they differ only by the takeover)."""
    cost, iterations = _policy_cost(problem, masks, shape, fixed, rule, tolerance, max_iterations, progress, start)
    return cost.cost_per_move, iterations


@dataclass(frozen=True)
class PolicyCost:
    """A stationary policy's long-run cost per move while the opponent plays, and what a round costs beyond it.
    A round of ``n`` moves costs ``n * cost_per_move + opening_excess``, plus ``first_turn_excess`` if the seat
    starts it, up to the round's end, which the solver does not model (a press in flight after the seat's last draw
    costs nothing).

    ``first_turn_excess`` is ``h(OURS, 0) - h(THEIRS, 0)`` in the policy's relative values ``h``: the seat's first
    turn opens with nothing in flight. ``opening_excess`` is ``h(THEIRS, 0)`` less the mean of ``h`` over the
    opponent's turns as they open in the long run (``pi h``, ``pi`` the stationary share of each set in flight):
    a round opens with nothing in flight, the long run may not (a policy that sends a press as its own draw lands
    has one in flight whenever the opponent's turn opens). Both count: against a fixed cost per move, the
    finite-horizon cost of ``n`` moves from nothing in flight is ``n * cost_per_move + h(start) - pi h`` as ``n``
    grows, and ``pi h`` differs from policy to policy."""

    cost_per_move: float
    first_turn_excess: float
    opening_excess: float

    def per_round(self, moves: float, starts: float) -> float:
        """The expected cost of a round of ``moves`` moves (a mean) that the seat starts with probability
        ``starts``."""
        return self.cost_per_move * moves + self.opening_excess + starts * self.first_turn_excess

    @staticmethod
    def weighted(costs, weights, first_weights) -> PolicyCost:
        """A policy's cost against a bot of several components, from its ``costs`` against each: the cost per move
        weighed by the components' shares of the bot's moves (``weights``), what a round costs beyond it by their
        shares of the rounds' first turns (``first_weights``)."""
        return PolicyCost(
            float(np.dot(weights, [cost.cost_per_move for cost in costs])),
            float(np.dot(first_weights, [cost.first_turn_excess for cost in costs])),
            float(np.dot(first_weights, [cost.opening_excess for cost in costs])),
        )


def _policy_cost(
    problem, masks, shape, fixed, rule, tolerance, max_iterations, progress, start=None, opening: bool = False
) -> tuple[PolicyCost, int]:
    """The policy's ``PolicyCost`` and the iterations it took; ``opening_excess`` is NaN unless ``opening``."""
    step, values, iterations = _iterate(
        problem, masks, shape, fixed, rule, False, tolerance, max_iterations, 0, progress, "cost per move", start
    )
    # the values it started from were relative to this very state: what one more move added is the gain
    gain = float(step.openings[LIVE, THEIRS, 0])
    first = float(step.openings[LIVE, OURS, 0]) - gain
    if not opening:
        return PolicyCost(gain, first, math.nan), iterations
    mean, more = _long_run_mean(problem, masks, shape, fixed, rule, values, tolerance, max_iterations - iterations)
    return PolicyCost(gain, first, float(values[LIVE, 0]) - mean), iterations + more


def _long_run_mean(problem, masks, shape, fixed, rule, values, tolerance, max_iterations) -> tuple[float, int]:
    """``pi h``: the mean of the relative values ``values`` (``h`` over the opponent's openings) over the sets in
    flight as the opponent's turn opens in the long run, from nothing in flight. The policy's one-move operator is
    affine, ``T x = c + P x``, so ``T x - T 0 = P x``; ``P^n h`` at nothing in flight settles to ``pi h`` (damped as
    ``_iterate`` is after ``DAMPED_AFTER`` iterations: ``(P + I) / 2`` has the same ``pi``)."""
    taken_shape = _taken_shape(problem, shape)

    def one_move(after_draw: np.ndarray) -> np.ndarray:
        choosers = [
            _Chooser(s, masks.size, problem.turn_ticks, fixed[c] if fixed else None, rule, problem.cost_scale)
            for c, s in ((LIVE, shape), (TAKEN, taken_shape))
        ]
        return _one_move(problem, masks, shape, after_draw, choosers, False).openings[:, THEIRS]

    costs = one_move(np.zeros_like(values))
    current, last, calm = values, np.inf, 0
    for iteration in range(1, max_iterations + 1):
        moved = one_move(current) - costs
        current = 0.5 * (moved + current) if iteration > DAMPED_AFTER else moved
        mean = float(current[LIVE, 0])
        calm = calm + 1 if abs(mean - last) <= _scaled(tolerance, values, problem.cost_scale) else 0
        last = mean
        if calm >= 5:
            return mean, iteration
    raise _Unsettled(max_iterations)


PolicyRule = Callable[[int, int, np.ndarray], np.ndarray]
"""``rule(phase, elapsed, in_flight_masks) -> press`` per mask (bools, or press probabilities in [0, 1]): a
stationary policy while the opponent plays by itself, for ``evaluate``."""


def evaluate(
    problem: TimingProblem, rule: PolicyRule, tolerance: float = 1e-10, max_iterations: int = MAX_ITERATIONS
) -> float:
    """The long-run cost per move, while the opponent plays, of the stationary policy ``rule`` (the same
    rule once the opponent is taken over). Every tick is tabled, so it is for problems of ordinary size."""
    return evaluate_policy(problem, rule, tolerance, max_iterations).cost_per_move


def evaluate_policy(
    problem: TimingProblem, rule: PolicyRule, tolerance: float = 1e-10, max_iterations: int = MAX_ITERATIONS
) -> PolicyCost:
    """``evaluate``'s cost per move and what a round costs beyond it (``PolicyCost``)."""
    shape = _Shape.of(problem, compress=False)
    if _fits(problem, shape) < TYPICAL_ITERATIONS:
        raise ValueError(
            f"evaluate tables every tick: this problem ({problem.turn_ticks} ticks, latency up to "
            f"{problem.max_delay}) is too large for it"
        )
    return _settled_cost(problem, shape, None, rule, tolerance, max_iterations)


def _settled_cost(problem, shape, fixed, rule, tolerance, max_iterations) -> PolicyCost:
    """A policy's whole ``PolicyCost`` (its opening too), within the iterations ``shape``'s tables fit
    (``problem.unsettled`` if it does not settle by then)."""
    budget = min(max_iterations, _fits(problem, shape))
    try:
        cost, _ = _policy_cost(problem, InFlight(problem), shape, fixed, rule, tolerance, budget, None, opening=True)
    except _Unsettled:
        raise problem.unsettled(budget, budget < max_iterations) from None
    return cost


def expected_cost(problem: TimingProblem, moves: int, state: State) -> float:
    """The least expected timing cost of the seat's next ``moves`` moves from the opening of a turn
    (``state.elapsed`` = 0; a press still in flight after the last of them costs nothing): the
    finite-horizon values the iteration starts from."""
    if isinstance(moves, bool) or not isinstance(moves, int) or moves < 0:
        raise ValueError(f"moves must be an integer >= 0, got {moves!r}")
    if state.elapsed != 0:
        raise ValueError(f"expected_cost starts from the opening of a turn (elapsed 0), got elapsed {state.elapsed}")
    problem.check_solvable()
    masks, shape = InFlight(problem), problem.shape
    taken_shape = _taken_shape(problem, shape)
    openings = np.zeros((2, 2, masks.size))
    for _ in range(moves):
        choosers = [_Chooser(s, masks.size, problem.turn_ticks, scale=problem.cost_scale) for s in (shape, taken_shape)]
        openings = _one_move(problem, masks, shape, openings[:, THEIRS], choosers, True).openings
    return float(openings[int(state.opponent_taken_over), state.phase, state.in_flight])


def round_costs(policy: TimingPolicy, moves: int) -> np.ndarray:
    """``[n, phase]``: the expected timing cost of a round's first ``n`` moves (n = 0 .. ``moves``) when
    ``policy``'s stationary decisions play it from its start with nothing in flight (``phase`` ``OURS``: the
    seat starts; ``THEIRS``: the opponent does), the opponent's takeover included: an opponent that misses a
    turn is played by its takeover bot, which draws at once, for the rest of the round (what
    ``cost_per_move`` leaves out). One backward pass per move, on the policy's own tables."""
    problem = policy.problem
    masks, shape = InFlight(problem), policy.shape
    fixed = [(LIVE, shape), (TAKEN, _taken_shape(problem, shape))]
    costs = np.zeros((moves + 1, 2))
    after_draw = np.zeros((2, masks.size))
    for n in range(1, moves + 1):
        choosers = [
            _Chooser(s, masks.size, problem.turn_ticks, policy._classes[c], scale=problem.cost_scale) for c, s in fixed
        ]
        openings = _one_move(problem, masks, shape, after_draw, choosers, True).openings
        costs[n] = openings[LIVE, :, 0]
        after_draw = openings[:, THEIRS]
    return costs


# --- opponents that vary: a pool drawn per round, a bot that reads the table ------------------------------
def nothing_carries_over(problem: TimingProblem) -> bool:
    """Whether every press still in flight as the opponent's turn opens surely lands before the opponent can
    draw (its earliest reaction is at least ``max_delay - 1`` ticks and it always reacts): such a press is a
    pure false start, so the optimal value of a turn opening with presses in flight is their false starts plus
    the value with none (``opening_value``), the same shape whatever the opponent does later."""
    reaction = np.asarray(problem.reaction)
    earliest = int(np.argmax(reaction > 0)) if reaction.sum() > 0 else problem.turn_ticks
    return reaction.sum() >= 1 - 1e-12 and earliest >= problem.max_delay - 1


class PoolPolicy:
    """The Bayes-optimal policy against a bot drawn per round from a pool: until a draw of the bot falls in a tick
    only one member reacts in, the policy of the unidentified turns (``solve_pool``); from then on the identified
    member's optimal policy (``members``). A draw in a tick that several members react in, each with the same
    probability, tells nothing: the belief stays the prior, and the unidentified turns go on."""

    def __init__(
        self,
        members: tuple[TimingPolicy, ...],
        prior: tuple[float, ...],
        mixture: TimingProblem,
        first: _ClassPolicy,
        first_openings: np.ndarray,
        identify: np.ndarray,
    ):
        self.members = members
        self.prior = prior
        self.mixture = mixture
        """The pool's reactions over the draw of the member: the problem of the turns before the identification."""
        self._first = first
        self.first_openings = first_openings
        """``[phase, m]``: the value of the unidentified turns from the opening of a turn, relative like the
        members' once identified (every unidentified move counts in full)."""
        self._identify = identify

    def member_reacting_at(self, tick: int) -> int | None:
        """The member whose reaction window alone holds ``tick`` (the only one that can draw then), or ``None``
        where several can (such a draw tells nothing)."""
        member = int(self._identify[tick])
        return None if member < 0 else member

    @property
    def identifying(self) -> tuple[float, ...]:
        """Per member, the probability that one of its draws names it (falls in a tick only it reacts in)."""
        return tuple(
            float(sum(p for tick, p in enumerate(member.problem.reaction) if self._identify[tick] == index))
            for index, member in enumerate(self.members)
        )

    def press(self, state: State, member: int | None) -> bool:
        """The action in ``state``, ``member`` being the identified member (``None``: not yet)."""
        if member is not None:
            return self.members[member].press(state)
        if state.opponent_taken_over:
            return self.members[0].press(state)  # a taken-over opponent is the takeover bot, whoever it was
        return self._first.press(self.mixture.shape, state.phase, state.elapsed, state.in_flight)

    def price_of_not_knowing(self, phase: int) -> float:
        """The expected extra timing cost of a round, against the clairvoyant that knows the member from the
        start, when the round opens with ``phase`` (``OURS``: the seat starts; ``THEIRS``: the pool bot does).

        Both sides are values from the opening of a turn, but not in the same unit: the members' relative values
        (``opening_value``) have each move's cost per move taken off, and a move ends at the seat's draw, while the
        unidentified turns (``first_openings``) count their moves in full. The clairvoyant's side adds back its cost
        per move for each of the seat's moves made before the identification, in expectation: a member named by a
        draw with probability ``q`` is named after ``(1 - q) / q`` draws that told nothing, and a round the seat
        starts has one move more."""
        known = 0.0
        for share, member, q in zip(self.prior, self.members, self.identifying):
            unnamed_moves = (1 - q) / q + (1.0 if phase == OURS else 0.0)
            known += share * (member.opening_value(phase) + member.cost_per_move * unnamed_moves)
        return float(self.first_openings[phase, 0] - known)


POOL_TOLERANCE = 1e-13
"""The unidentified turns' values are iterated until they move less than this (relative to the cost scale)."""


def solve_pool(
    members: Sequence[TimingProblem], prior: Sequence[float], progress: Progress | None = None
) -> PoolPolicy:
    """The Bayes-optimal timing against a pool: each member's problem solved, then the unidentified turns over the
    pool's mixture of reactions, where the opponent's draw in tick e opens the seat's turn in the problem of the
    member that alone reacts in tick e, or, where several members react in e alike, again in the unidentified turns
    (the draw leaves the belief at the prior: its likelihood is the same under each). Those turns recur, so their
    values are iterated, one move at a time, to their fixed point (each unidentified move ends in the
    identification with a probability of at least the least member's ``PoolPolicy.identifying``). Exact under the
    solver's modelling choices: the decisions of the unidentified turns only move costs within the members'
    relative values, whose constants weigh in with the prior whatever the seat does. Refused: members that differ
    in a tick they both react in (a draw there would leave a belief that is neither the prior nor certain), and a
    member that no draw names."""
    members = tuple(members)
    if len(members) != len(prior) or not members or abs(sum(prior) - 1) > 1e-9 or min(prior) <= 0:
        raise ValueError(f"a pool needs one prior probability > 0 per member, summing to 1, got {list(prior)}")
    first = members[0]
    same = {(m.turn_ticks, m.latency, m.false_start_cost, m.idle_cost, m.takeover_cost) for m in members}
    if len(same) > 1:
        raise ValueError("the members of a pool must share the turn, the latency and the costs; only reactions differ")
    reactions = np.array([m.reaction for m in members])
    reacting = reactions > 0
    shared = reacting.sum(axis=0) > 1
    unequal = shared & (reactions.max(axis=0) - np.where(reacting, reactions, np.inf).min(axis=0) > 1e-12)
    if np.any(unequal | (shared & ~reacting.all(axis=0))):
        raise ValueError(
            "the members react in a shared tick with different probabilities (or not all of them): a draw there "
            "leaves a belief that is neither the prior nor certain, and the Bayes-optimal policy of such a pool is "
            "not solved"
        )
    identify = np.where(shared, -1, np.argmax(reacting, axis=0))
    named = [float(reactions[k][identify == k].sum()) for k in range(len(members))]
    if min(named) <= 0:
        raise ValueError(
            "a member of the pool reacts only in ticks another member reacts in too: no draw names it, and the "
            "Bayes-optimal policy of such a pool is not solved"
        )
    policies = tuple(solve(m, progress=progress) for m in members)
    weighted = np.asarray(prior)[:, None] * reactions
    mixture = TimingProblem(
        first.turn_ticks,
        first.latency,
        tuple(weighted.sum(axis=0)),
        first.false_start_cost,
        first.idle_cost,
        first.takeover_cost,
    )
    masks, shape = InFlight(mixture), mixture.shape
    taken = policies[0].openings[TAKEN, OURS]
    becomes_taken, last = mixture.taken_over_on_last_tick, mixture.turn_ticks - 1
    unnamed = sum(p * policy.openings[LIVE, OURS] for p, policy in zip(prior, policies))  # a start; any would do

    def turns(unnamed_ours: np.ndarray) -> tuple[np.ndarray, np.ndarray, _Chooser]:
        """One move of the unidentified turns, the next own turn's values after a draw that tells nothing given."""
        chooser = _Chooser(shape, masks.size, mixture.turn_ticks, scale=mixture.cost_scale)

        def opens_ours(elapsed: int) -> np.ndarray:
            member = int(identify[elapsed])
            opened = unnamed_ours if member < 0 else policies[member].openings[LIVE, OURS]
            return (1 - becomes_taken) * opened + becomes_taken * taken if elapsed == last else opened

        theirs = _theirs_turn(mixture, masks, shape, mixture.opponent_hazard, opens_ours, chooser)
        return _ours_turn(mixture, masks, shape, theirs, theirs[0], chooser), theirs, chooser

    for _ in range(MAX_ITERATIONS):
        ours, theirs, chooser = turns(unnamed)
        settled = float(np.abs(ours - unnamed).max()) <= POOL_TOLERANCE * max(mixture.cost_scale, np.abs(ours).max())
        unnamed = ours
        if settled:
            break
    else:
        raise ValueError("the pool's unidentified turns did not settle: a member is named too rarely")
    ours, theirs, chooser = turns(unnamed)  # the decisions at the fixed point
    return PoolPolicy(policies, tuple(prior), mixture, chooser.made, np.array([ours, theirs]), identify)
