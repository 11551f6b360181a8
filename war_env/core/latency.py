"""Action latency: how many ticks a seat's press takes to land, as a distribution written as a spec.

| spec | delays |
|---|---|
| ``fixed:ticks=3`` | always 3 ticks (``fixed:ticks=0``, the default, is War-v0's game: a press acts at once) |
| ``uniform:low=1,high=4`` | 1, 2, 3 or 4 ticks, each with probability 1/4 |

A rule holds a spec in its canonical spelling (``canonical_latency``: ``"Fixed: ticks = 02"`` is
``"fixed:ticks=2"``), so one latency has one spelling in every run folder and configuration hash.

A press sent in tick t acts in tick t + d exactly as an undelayed press acts today (``war_env.core.clock``).
The delay of a seat's k-th press of a round is ``sample_delay(cdf, hash_uniform(round_key,
STREAM_LATENCY[seat], k))`` (``war_env.core.randomness``), so it never depends on anything but the round key
and the press count. The largest delay is bounded by ``MAX_LATENCY`` (the in-flight presses a seat
observes stay few) and, checked by ``WarConfig``, must be below the turn's ticks: a press sent as a turn
opens must be able to land within it.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from functools import lru_cache

from war_env.core.randomness import cumulative, sample_tick
from war_env.core.specs import build_from_spec

MAX_LATENCY = 16
"""Largest delay a latency spec may give, in ticks."""
NO_LATENCY = "fixed:ticks=0"


@dataclass(frozen=True)
class FixedLatency:
    """Every press lands ``ticks`` ticks after it was sent (no default: ``fixed`` alone says nothing)."""

    ticks: int

    def __post_init__(self):
        _check_ticks("fixed", "ticks", self.ticks)

    def probabilities(self) -> tuple[float, ...]:
        return (0.0,) * self.ticks + (1.0,)


@dataclass(frozen=True)
class UniformLatency:
    """Each press lands after ``low .. high`` ticks (both included), uniformly."""

    low: int = 1
    high: int = 4

    def __post_init__(self):
        _check_ticks("uniform", "low", self.low)
        _check_ticks("uniform", "high", self.high)
        if self.high < self.low:
            raise ValueError(f"uniform latency needs low <= high, got low={self.low}, high={self.high}")

    def probabilities(self) -> tuple[float, ...]:
        share = 1.0 / (self.high - self.low + 1)
        return tuple(share if d >= self.low else 0.0 for d in range(self.high + 1))


LATENCIES = {"fixed": FixedLatency, "uniform": UniformLatency}


@lru_cache(maxsize=64)
def _latency(spec: str) -> FixedLatency | UniformLatency:
    if not isinstance(spec, str):
        raise ValueError(f"latency must be a spec string like 'fixed:ticks=2' or 'uniform:low=1,high=4', got {spec!r}")
    return build_from_spec(spec, LATENCIES, "latency")


def latency_probabilities(spec: str) -> tuple[float, ...]:
    """``"uniform:low=1,high=2"`` -> ``(0.0, 0.5, 0.5)``: P(delay = d) for d = 0 .. the largest delay."""
    return _latency(spec).probabilities()


def canonical_latency(spec: str) -> str:
    """``"Uniform: high=4, low=1"`` -> ``"uniform:low=1,high=4"``: the name and every parameter, in order."""
    latency = _latency(spec)
    name = next(name for name, kind in LATENCIES.items() if isinstance(latency, kind))
    return f"{name}:" + ",".join(f"{field.name}={getattr(latency, field.name)}" for field in fields(latency))


@lru_cache(maxsize=64)
def latency_cdf(spec: str) -> tuple[float, ...]:
    cdf = list(cumulative(latency_probabilities(spec)))
    cdf[-1] = 1.0  # the largest delay is certain to be reached
    return tuple(cdf)


def sample_delay(cdf: tuple[float, ...], uniform: float) -> int:
    """The delay of one press from its uniform number in [0, 1)."""
    return sample_tick(cdf, uniform)


def _check_ticks(kind: str, field: str, value) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_LATENCY:
        raise ValueError(
            f"{kind} latency {field} must be a whole number of ticks from 0 to {MAX_LATENCY}, got {value!r}"
        )
