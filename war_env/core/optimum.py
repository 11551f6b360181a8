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

``solve`` runs value iteration over the number of moves left: within a move the elapsed counters only
grow, so each iteration is one backward pass; it stops when the greedy policy and the cost per move
have converged. Two modelling choices, both in the seat's favour of playing on: a takeover is charged
its penalty and play goes on (a seat is never better off handing its seat to the bot to skip the
rest's costs: the stationary criterion has no end); and the end of the round is not modelled (it
depends on the hidden cards; a press still in flight when the round ends costs nothing in the game).
With latency 0 the policy is exactly ``prompt``: press if and only if the seat's turn is open.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np

OURS, THEIRS = 0, 1
MAX_DELAY = 10
"""Largest latency (in ticks) the solver takes: ``2 ** MAX_DELAY`` in-flight sets per phase tick."""


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
        _check_distribution("latency", self.latency, exact=True)
        _check_distribution("reaction", self.reaction, exact=False)
        if len(self.reaction) != self.turn_ticks:
            raise ValueError(f"reaction needs one probability per tick of the turn ({self.turn_ticks}), "
                             f"got {len(self.reaction)}")
        if self.max_delay > MAX_DELAY or self.max_delay >= self.turn_ticks:
            raise ValueError(f"the largest latency ({self.max_delay} ticks) must be below {MAX_DELAY + 1} and below "
                             f"the turn's {self.turn_ticks} ticks (a press sent as the turn opens must land in it)")
        for name in ("false_start_cost", "idle_cost", "takeover_cost"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value >= 0):
                raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")

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
        r = np.asarray(self.reaction, dtype=float)
        missing = max(0.0, 1.0 - r.sum())
        still_waiting = r[::-1].cumsum()[::-1] + missing  # P(R >= k)
        hazard = np.where(still_waiting > 0, r / np.where(still_waiting > 0, still_waiting, 1), 1.0)
        hazard[-1] = 1.0
        return hazard

    @cached_property
    def taken_over_on_last_tick(self) -> float:
        """P(the opponent is taken over | it has not drawn before its turn's last tick)."""
        r = np.asarray(self.reaction, dtype=float)
        missing = max(0.0, 1.0 - r.sum())
        waiting = r[-1] + missing
        return missing / waiting if waiting > 0 else 0.0


@dataclass(frozen=True)
class State:
    """What the seat knows at the end of a tick (see the module docstring)."""

    phase: int
    elapsed: int
    opponent_taken_over: bool = False
    in_flight: int = 0


class TimingPolicy:
    """The solved problem: ``press(state)``, the optimal ``cost_per_move`` and the relative values."""

    def __init__(self, problem: TimingProblem, press: np.ndarray, relative_value: np.ndarray, cost_per_move: float,
                 iterations: int):
        self.problem = problem
        self._press = press
        self.relative_value = relative_value
        """``[phase, elapsed, taken, in_flight]``: expected cost from the state, minus the cost per move for
        each move (defined up to a constant)."""
        self.cost_per_move = cost_per_move
        self.iterations = iterations

    def press(self, state: State) -> bool:
        return bool(self._press[state.phase, state.elapsed, int(state.opponent_taken_over), state.in_flight])

    def table(self) -> np.ndarray:
        """The whole policy, ``[phase, elapsed, taken, in_flight]`` -> press (bool)."""
        return self._press.copy()


def _check_distribution(name: str, probabilities, exact: bool) -> None:
    values = np.asarray(probabilities, dtype=float)
    if values.ndim != 1 or values.size == 0 or not np.all(np.isfinite(values)) or np.any(values < 0):
        raise ValueError(f"{name} must be a non-empty sequence of probabilities, got {probabilities!r}")
    total = values.sum()
    if total > 1 + 1e-9 or (exact and abs(total - 1) > 1e-9):
        raise ValueError(f"{name} probabilities must sum to {'1' if exact else 'at most 1'}, got {total}")


# --- the transitions of the in-flight presses ---------------------------------------------------------
@dataclass(frozen=True)
class _Landings:
    """For every in-flight set and action: the outcomes as flat arrays (source set, probability,
    presses landing, in-flight set afterwards)."""

    source: np.ndarray
    probability: np.ndarray
    landed: np.ndarray
    after: np.ndarray


def _landings(problem: TimingProblem, press: bool) -> _Landings:
    width = max(problem.max_delay, 1)
    hazard = problem.landing_hazard
    new_lands = problem.latency[0]
    rows = []
    for mask in range(1 << width):
        outcomes = {(0, 0): 1.0}  # (landed, surviving ages as a mask of the next tick) -> probability
        ages = [age for age in range(width) if mask >> age & 1]
        for age in ages:
            step = {}
            for (landed, after), p in outcomes.items():
                if hazard[age] > 0:
                    key = (landed + 1, after)
                    step[key] = step.get(key, 0.0) + p * hazard[age]
                if hazard[age] < 1:
                    key = (landed, after | 1 << (age + 1))
                    step[key] = step.get(key, 0.0) + p * (1 - hazard[age])
            outcomes = step
        if press:
            step = {}
            for (landed, after), p in outcomes.items():
                if new_lands > 0:
                    step[(landed + 1, after)] = step.get((landed + 1, after), 0.0) + p * new_lands
                if new_lands < 1:
                    key = (landed, after | 1)
                    step[key] = step.get(key, 0.0) + p * (1 - new_lands)
            outcomes = step
        for (landed, after), p in outcomes.items():
            if p > 0:
                if after >> width:
                    raise AssertionError("a press outlived the largest latency")  # the hazard is 1 there
                rows.append((mask, p, landed, after))
    source, probability, landed, after = (np.array(column) for column in zip(*rows))
    return _Landings(source.astype(np.int64), probability.astype(float), landed.astype(np.int64),
                     after.astype(np.int64))


# --- value iteration over the moves left ---------------------------------------------------------------
def solve(problem: TimingProblem, tolerance: float = 1e-10, max_iterations: int = 20_000,
          stable_iterations: int = 50) -> TimingPolicy:
    """The optimal stationary policy, by value iteration over the number of moves left: it stops when the
    greedy policy has not changed for ``stable_iterations`` and the relative values (within each class:
    opponent playing, opponent taken over) have settled to ``tolerance``. Then ``cost_per_move`` is the
    policy's long-run cost per move while the opponent plays (its own takeover switched off), found by
    the same iteration with the policy fixed."""
    masks = 1 << max(problem.max_delay, 1)
    both = _both_landings(problem, masks)
    policy, value, iterations = _iterate(problem, both, masks, None, True, tolerance, max_iterations, stable_iterations)
    _, evaluated, more = _iterate(problem, both, masks, policy, False, tolerance, max_iterations, 0)
    gain = float(_step(problem, both, evaluated, masks, policy, False)[0][THEIRS, 0, 0, 0]
                 - evaluated[THEIRS, 0, 0, 0])
    return TimingPolicy(problem, policy, value, gain, iterations + more)


def expected_cost(problem: TimingProblem, moves: int, state: State) -> float:
    """The least expected timing cost of the seat's next ``moves`` moves from ``state`` (a press still in
    flight after the last of them costs nothing): the finite-horizon values the iteration starts from."""
    if isinstance(moves, bool) or not isinstance(moves, int) or moves < 0:
        raise ValueError(f"moves must be an integer >= 0, got {moves!r}")
    masks = 1 << max(problem.max_delay, 1)
    both = _both_landings(problem, masks)
    value = np.zeros((2, problem.turn_ticks, 2, masks))
    for _ in range(moves):
        value, _policy = _step(problem, both, value, masks, None, True)
    return float(value[state.phase, state.elapsed, int(state.opponent_taken_over), state.in_flight])


def _both_landings(problem: TimingProblem, masks: int) -> _Landings:
    """The outcomes of waiting and of pressing in one set of arrays: ``source`` = action * masks + set."""
    wait, press = _landings(problem, False), _landings(problem, True)
    return _Landings(np.concatenate([wait.source, press.source + masks]),
                     np.concatenate([wait.probability, press.probability]),
                     np.concatenate([wait.landed, press.landed]), np.concatenate([wait.after, press.after]))


def _iterate(problem, both, masks, fixed, opponent_takeover, tolerance, max_iterations, stable_iterations):
    T = problem.turn_ticks
    value = np.zeros((2, T, 2, masks))  # V_0: no move left
    policy, previous, unchanged = None, None, 0
    for iteration in range(1, max_iterations + 1):
        value, new_policy = _step(problem, both, value, masks, fixed, opponent_takeover)
        value -= value[THEIRS, 0, :, 0][None, None, :, None]  # relative to one state of each class
        unchanged = unchanged + 1 if policy is not None and np.array_equal(policy, new_policy) else 0
        policy = new_policy
        settled = previous is not None and float(np.abs(value - previous).max()) <= tolerance
        if settled and unchanged >= stable_iterations:
            return policy, value, iteration
        previous = value
    raise RuntimeError(f"the timing problem did not converge in {max_iterations} iterations")


def _step(problem: TimingProblem, both: _Landings, next_move: np.ndarray, masks: int, fixed: np.ndarray | None,
          opponent_takeover: bool):
    """V_n from V_{n-1}: ``next_move[THEIRS, 0, taken, in_flight]`` is the value right after the seat's draw.
    ``both`` holds the outcomes of waiting and pressing together (``source`` = action * masks + set);
    ``fixed`` plays a given policy instead of the best action; without ``opponent_takeover`` the
    opponent's last tick is a draw that leaves it playing."""
    T = problem.turn_ticks
    value = np.zeros((2, T, 2, masks))
    press = np.zeros((2, T, 2, masks), dtype=bool)
    fs, idle, takeover = problem.false_start_cost, problem.idle_cost, problem.takeover_cost
    drew = both.landed >= 1
    extra_false_starts = np.maximum(both.landed - 1, 0) * fs
    taken = np.arange(2)[:, None]

    def choose(phase: int, elapsed: int, cost: np.ndarray) -> None:
        expected = np.stack([np.bincount(both.source, weights=both.probability * row, minlength=2 * masks)
                             for row in cost]).reshape(2, 2, masks)  # (taken, action, set)
        pressing = fixed[phase, elapsed] if fixed is not None else expected[:, 1] < expected[:, 0] - 1e-15
        press[phase, elapsed] = pressing
        value[phase, elapsed] = np.where(pressing, expected[:, 1], expected[:, 0])

    after_draw = next_move[THEIRS, 0][:, both.after]          # (taken, outcome)
    restart = next_move[THEIRS, 0, :, 0][:, None]              # a taken-over seat's presses do nothing
    for elapsed in range(T - 1, -1, -1):  # OURS: within a move the ticks only move forward
        go_on = takeover + restart if elapsed == T - 1 else value[OURS, elapsed + 1][:, both.after]
        choose(OURS, elapsed, np.where(drew, extra_false_starts + after_draw, idle + go_on))
    for elapsed in range(T - 1, -1, -1):  # THEIRS; a taken-over opponent draws at once and stays taken over
        draws = np.where(taken == 1, 1.0, problem.opponent_hazard[elapsed])
        becomes_taken = problem.taken_over_on_last_tick if (elapsed == T - 1 and opponent_takeover) else 0.0
        opens_ours = value[OURS, 0][:, both.after]
        opens_ours = np.vstack([(1 - becomes_taken) * opens_ours[0] + becomes_taken * opens_ours[1], opens_ours[1]])
        wait_more = value[THEIRS, elapsed + 1][:, both.after] if elapsed + 1 < T else 0.0
        choose(THEIRS, elapsed, both.landed * fs + draws * opens_ours + (1 - draws) * wait_more)
    return value, press
