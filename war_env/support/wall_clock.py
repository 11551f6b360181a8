"""Clocks for real-time play: the machine's monotonic clock, and a simulated one that tests move by hand.

A clock counts whole nanoseconds (``time.monotonic_ns``), so tick boundaries are exact integers and a
decision that returns exactly on a boundary is never rounded into the tick before it.
"""

from __future__ import annotations

import time
from typing import Protocol

NANOSECONDS = 1_000_000_000


class Clock(Protocol):
    """What real-time play asks of a clock."""

    def now(self) -> int:
        """Nanoseconds since an arbitrary origin; never decreases."""

    def sleep_until(self, deadline: int) -> None:
        """Return once ``now() >= deadline`` (at once when it already is)."""


class WallClock:
    """The machine's monotonic clock. ``time.sleep`` may wake a little late (tens of microseconds on an
    idle machine, more on a loaded one); real-time play charges that to the decision that follows, as
    the machine's own delay. It never spins: the machines this runs on are shared."""

    def now(self) -> int:
        return time.monotonic_ns()

    def sleep_until(self, deadline: int) -> None:
        while (left := deadline - time.monotonic_ns()) > 0:
            time.sleep(left / NANOSECONDS)


class SimulatedClock:
    """A clock that moves only when told: ``advance`` is time spent computing, ``sleep_until`` jumps."""

    def __init__(self, start: int = 0):
        self.time = start

    def now(self) -> int:
        return self.time

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError(f"a clock cannot go back, got advance({seconds})")
        self.time += round(seconds * NANOSECONDS)

    def sleep_until(self, deadline: int) -> None:
        self.time = max(self.time, deadline)


def to_nanoseconds(seconds: float) -> int:
    return round(seconds * NANOSECONDS)
