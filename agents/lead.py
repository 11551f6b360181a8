"""``lead``: the best fixed lead, the simple baseline of anticipation that a reviewer writes second.

Its rule: during the opponent's turn, send one press exactly ``ticks`` ticks into it (if the opponent has
not drawn by then and nothing of the seat's is in flight); on its own turn, press whenever nothing is in
flight. ``ticks`` is computed, not tuned: the one of least exact cost per move against the opponent's
reactions (over its members or contexts, ``Bot.marginal_reactions``) and the latency, ``lead_cost``
for every tick of the opponent's turn and for no lead at all (then it is ``press_once``). Once the opponent
has been taken over (its takeover bot draws the tick its turn opens) the lead is recomputed for that bot:
0 or none. Built like the ``oracle``, per config and opponent bot, and reads the same latency observation;
``lead:ticks=K`` fixes the lead.

Why its cost has a closed form: it never has more than one press in flight, and that press either lands in
the opponent's turn (a false start, and the seat presses again as its own turn opens) or draws in its own,
so every move starts with nothing in flight and costs the same in expectation.
"""

from __future__ import annotations

import numpy as np

from war_env.agents.base import Agent
from war_env.agents.oracle import BuiltForOpponent
from war_env.core.best_response import problem_with
from war_env.core.bots import Bot
from war_env.core.optimum import OURS, TimingProblem
from war_env.core.rules import WarConfig


def lead_cost(problem: TimingProblem, ticks: int | None) -> float:
    """The expected cost per move of leading by ``ticks`` (``None``: no lead, press as the turn opens) while
    the opponent plays: a move whose opponent drew before tick ``ticks`` waits for the latency; else the lead
    press lands in tick ``ticks + d``: a false start if the opponent had not drawn before it (the seat's press
    acts first within a tick; then it presses again as its turn opens), else a draw after the idle ticks
    since its turn opened."""
    fs, idle = problem.false_start_cost, problem.idle_cost
    reaction = np.array(problem.reaction)
    reaction[-1] += max(0.0, 1.0 - reaction.sum())  # a miss: the takeover bot draws on the last tick
    delays = np.arange(len(problem.latency))
    latency = np.asarray(problem.latency)
    waiting = idle * float(latency @ delays)
    if ticks is None:
        return waiting
    r = np.arange(problem.turn_ticks)[:, None]
    lands = ticks + delays[None, :]
    per_delay = np.where(lands <= r, fs + waiting, idle * (lands - r - 1))
    led = per_delay @ latency
    return float(np.where(r[:, 0] >= ticks, led, waiting) @ reaction)


def best_lead(problem: TimingProblem) -> int | None:
    """The lead of least ``lead_cost`` (no lead on a tie), among the leads whose press may land after the
    opponent's earliest draw and before it surely drew (every other lead is a sure false start or never sent)."""
    best, least = None, lead_cost(problem, None)
    reaction = np.asarray(problem.reaction)
    earliest = int(np.argmax(reaction > 0)) if reaction.sum() > 0 else problem.turn_ticks - 1
    latest = int(np.argmax(problem.opponent_hazard >= 1.0))
    for ticks in range(max(0, earliest - problem.max_delay), latest + 1):
        cost = lead_cost(problem, ticks)
        if cost < least - 1e-15:
            best, least = ticks, cost
    return best


class Lead(BuiltForOpponent):
    """One press ``ticks`` ticks into the opponent's turn, computed per opponent and latency (see the module)."""

    name = "lead"

    def __init__(
        self, ticks: int | None = None, *, config: WarConfig | None = None, opponent: str | Bot | Agent | None = None
    ):
        super().__init__(config=config, opponent=opponent)
        if ticks is not None and (
            isinstance(ticks, bool) or not isinstance(ticks, int) or not 0 <= ticks < self.config.turn_ticks
        ):
            raise ValueError(
                f"lead ticks must be a whole number of ticks from 0 to {self.config.turn_ticks - 1}, got {ticks!r}"
            )
        self.fixed = ticks
        self.problem = problem_with(self.config, self.opponent.marginal_reactions(self.config))
        self.ticks = best_lead(self.problem) if ticks is None else ticks
        taken_over = problem_with(self.config, (1.0,) + (0.0,) * (self.config.turn_ticks - 1))
        self.ticks_once_taken_over = best_lead(taken_over)

    def act(self, observation) -> int:
        state = self.state_of(observation)
        if state is None or state.in_flight:
            return 0
        if state.phase == OURS:
            return 1
        ticks = self.ticks_once_taken_over if state.opponent_taken_over else self.ticks
        return int(state.elapsed == ticks)

    def spec(self) -> str:
        return self.name if self.fixed is None else f"lead:ticks={self.fixed}"
