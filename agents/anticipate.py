"""``anticipate``: a rule of thumb for latency, a fixed lead chosen by a one-line argument instead of computed.

Its rule: during the opponent's turn, send one press timed to land on the tick the seat's own turn would
open if the opponent drew at its reaction quantile ``level`` (``lead`` = the latency's median delay); on
its own turn, press whenever no press is in flight. The level weighs the two costs the way a one-line
argument does: a press sent ``lead`` ticks ahead saves up to ``lead`` idle ticks when the opponent has drawn
and costs a false start when it has not, so it breaks even when it is a false start a share ``q`` of the time
with ``(1 - q) * lead * idle = q * false_start``: ``level = 1 - q = false_start / (false_start + lead * idle)``
(0.980 with the default rewards and a lead of 2: against a spread-out opponent it rarely presses ahead;
against a predictable one it lands every press on the opening tick). The level is above 0 whenever a false
start costs anything, so the press never lands before the opponent can have drawn (the simpler form
``level = 1 - lead * idle / false_start`` falls to 0 when ``lead`` idle ticks cost more than a false start, as
in the probes, and then sends a sure false start every move).

With a fixed latency and an opponent that is never taken over, this is ``lead:ticks=K`` with ``K =
press_tick``: one fixed lead, picked by the argument, where ``lead`` picks the best one of the same family
(``agents.lead``), so it never beats ``lead``. It never sends a second press ahead in one of the opponent's
turns (if the opponent is slower, that press is a false start and the seat waits to see its turn open), and
without latency it is exactly ``prompt`` (no press ahead: a press with delay 0 would act at once, while the
turn is closed). Unlike the ``oracle`` it ignores how the chance of a draw changes over the opponent's turn
and what the presses in flight could do for the next turn. Built like the ``oracle``, for a config and the
pairing's opponent bot (``make_agent("anticipate", config=..., opponent="human")``), and it reads the same
latency observation.
"""

from __future__ import annotations

from war_env.agents.base import Agent
from war_env.agents.oracle import BuiltForOpponent
from war_env.core.bots import Bot
from war_env.core.optimum import OURS
from war_env.core.rules import WarConfig


def quantile_tick(probabilities, level: float, last: int) -> int:
    """The smallest tick by which the chance reaches ``level``; ``last`` when it never does (an opponent
    is then taken over, and the takeover bot draws on its turn's last tick)."""
    total = 0.0
    for tick, p in enumerate(probabilities):
        total += p
        if total >= level - 1e-12:
            return tick
    return last


class Anticipate(BuiltForOpponent):
    """Presses ``lead`` ticks before the opponent's draw at its quantile ``level``, once per opponent turn;
    on its own turn whenever nothing is in flight."""

    name = "anticipate"

    def __init__(self, *, config: WarConfig | None = None, opponent: str | Bot | Agent | None = None):
        super().__init__(config=config, opponent=opponent)
        config = self.config
        self.lead = quantile_tick(config.latency_probabilities, 0.5, config.max_delay)
        false_start, idle = -config.reward_false_start, -config.reward_idle_tick
        self.level = false_start / (false_start + self.lead * idle) if false_start > 0 else 0.0
        reactions = self.opponent.marginal_reactions(config)
        self.opponent_draw = quantile_tick(reactions, self.level, config.turn_ticks - 1)
        self._pressed_ahead = False

    @property
    def press_tick(self) -> int | None:
        """The tick of the opponent's turn its press ahead is sent in (``None``: no latency, no press ahead)."""
        return None if self.lead == 0 else max(0, self.opponent_draw + 1 - self.lead)

    def reset(self, seed: int | None = None) -> None:
        self._pressed_ahead = False

    def act(self, observation) -> int:
        state = self.state_of(observation)
        if state is None:
            return 0
        if state.phase == OURS:
            return int(state.in_flight == 0)
        if state.elapsed == 0:  # a new turn of the opponent
            self._pressed_ahead = False
        draw = 0 if state.opponent_taken_over else self.opponent_draw  # the takeover bot draws at once
        if self.lead == 0 or self._pressed_ahead or state.elapsed + self.lead < draw + 1:
            return 0
        self._pressed_ahead = True
        return 1
