"""``counting``: the oracle's policy played from War-v0's 16 fields, its state counted instead of read.

The memory probe (``WarMemory-v1``) leaves the opponent's turn clock and the seat's presses in flight out
of the observation. They are not lost to an agent with memory: whose turn is open is ``can_draw``, the
ticks the opponent's turn has been open are counted from the end of the seat's own turn, and with a fixed
latency every press lands exactly ``d`` ticks after it was sent, so the presses in flight are the seat's
own presses of the last ``d`` ticks. This agent counts them and plays the ``oracle``'s policy: the optimum
of the memory probe is the optimum of the game (``tests/test_probes.py`` plays both on paired rounds and
finds identical records). A random latency is refused: a press that lands as a false start in the
opponent's turn leaves no trace in the observation, so the presses in flight could not be counted.
"""

from __future__ import annotations

from war_env.agents.base import Agent
from war_env.agents.oracle import Oracle
from war_env.core.bots import Bot
from war_env.core.observation import INDEX
from war_env.core.optimum import OURS, THEIRS, State
from war_env.core.rules import WarConfig

_CAN_DRAW, _TIMER_LEFT = INDEX["can_draw"], INDEX["timer_left"]
_OPPONENT_TAKEN_OVER = INDEX["opponent_taken_over"]


class Counting(Oracle):
    """The ``oracle``'s policy, its state counted from War-v0's fields and its own presses (see the module)."""

    name = "counting"
    observes_latency = False
    """Reads War-v0's 16 fields only: it plays from WarMemory-v1's observation or any that begins with them."""

    def __init__(self, *, config: WarConfig | None = None, opponent: str | Bot | Agent | None = None):
        super().__init__(config=config, opponent=opponent)
        if sum(p > 0 for p in self.config.latency_probabilities) > 1:
            raise ValueError(
                f"the counting agent needs a fixed latency to count its presses in flight, got "
                f"{self.config.latency!r} (a press that lands as a false start is not observed)"
            )
        self._sent: list[int] = []
        self._theirs: int | None = None

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._sent, self._theirs = [], None

    def act(self, observation) -> int:
        press = int(self.timing.press(self.state_of(observation), observation))
        self._sent.append(press)
        return press

    def state_of(self, observation) -> State:
        ticks = self.config.turn_ticks
        if observation[_CAN_DRAW] > 0.5:
            self._theirs = None
            phase, elapsed = OURS, ticks - round(float(observation[_TIMER_LEFT]) * ticks)
        else:  # the opponent's turn opens the tick after the seat's own turn closes (and at tick 1 if it starts)
            self._theirs = 0 if self._theirs is None else self._theirs + 1
            phase, elapsed = THEIRS, self._theirs
        recent = self._sent[::-1][: self.config.max_delay]  # ages 0, 1, ...: a press of age < d is still in flight
        in_flight = sum(press << age for age, press in enumerate(recent))
        return State(phase, elapsed, bool(observation[_OPPONENT_TAKEN_OVER] > 0.5), in_flight)
