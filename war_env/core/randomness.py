"""Counter-based randomness for everything that happens inside a round.

At reset the env's RNG (``self.np_random``) draws the deal, the starter and one 64-bit *round key*.
Every random choice during the round (a bot's reaction time for its n-th move, the order of a
shuffled pot) is then a pure function of ``(round_key, stream, counter)``: a SplitMix64 hash, the
generator behind Java's ``SplittableRandom``. Two consequences the project relies on:

* the outcome of a round never depends on when the players drew, so deals can be paired across
  agents in the benchmark and a round's result can be computed without playing its ticks;
* the batched engine (``war_env.batched``) computes exactly the same numbers for thousands of rounds at
  once: numba compiles this module's own ``mix64_array`` into its hash (``batched/hashing.py``, proven equal
  to ``hash64`` by ``tests/test_batched.py``). ``hash64_array`` and ``hash_uniform_array`` are the same
  hashes over numpy arrays, for numpy code outside the engine (the engine does not call them; the tests
  prove them equal to the scalar ones).
"""

from __future__ import annotations

from bisect import bisect_right
from enum import IntEnum

import numpy as np

MASK64 = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15
_MUL1 = 0xBF58476D1CE4E5B9
_MUL2 = 0x94D049BB133111EB


class Stream(IntEnum):
    """Every random stream of the project: ``hash64(key, stream, counter)``, with ``key`` a round key, or an
    agent's seed where a line says so. One table, so no two uses can share a stream by accident."""

    REACTION_SEAT_0 = 1
    """Seat 0's bot: the reaction time of its n-th move of the round (counter = n)."""
    REACTION_SEAT_1 = 2
    """Seat 1's bot, likewise."""
    PICKUP = 3
    """The sort keys of a shuffled pot: counter = trick number * ``engine.POT_POSITIONS`` + position."""
    LATENCY_SEAT_0 = 4
    """The delay of seat 0's k-th press of the round (``war_env.core.latency``; counter = k, counting presses,
    not ticks). Drawn only when the latency is random: a fixed delay needs no hash."""
    LATENCY_SEAT_1 = 5
    """Seat 1's presses, likewise."""
    OPPONENT_POOL = 9
    """The member a ``pool`` bot plays a round as (``war_env.core.bots.Pool``; counter = its seat)."""
    POLICY_SEED = 7
    """The seed of a policy playing a seat (``derive_seed``): counter 0 for seat 1 (War-v0's opponent
    policy), 1 for seat 0 (the two-seat env's ``player_0``)."""
    AGENT_SEED = 8
    """The seed the benchmark gives the agent in seat 0 for the round (``derive_seed``, counter 0)."""
    AGENT_PRESS = 17
    """Under an agent's seed: the ``random`` agent's press on its n-th tick of the round."""
    AGENT_REACTION = 18
    """Under an agent's seed: a reaction-model agent's reaction on its n-th turn of the round."""


STREAM_REACTION = (Stream.REACTION_SEAT_0, Stream.REACTION_SEAT_1)
"""By seat: the reaction stream of that seat's bot."""
STREAM_LATENCY = (Stream.LATENCY_SEAT_0, Stream.LATENCY_SEAT_1)
"""By seat: the delay stream of that seat's presses."""
SEED_SHIFT = 33
"""A derived seed is the top 31 bits of its hash: a non-negative int32, which every library takes."""


def mix64(x: int) -> int:
    """SplitMix64 finaliser on Python ints (bijective on 64-bit words)."""
    x = (x + _GOLDEN) & MASK64
    x = ((x ^ (x >> 30)) * _MUL1) & MASK64
    x = ((x ^ (x >> 27)) * _MUL2) & MASK64
    return x ^ (x >> 31)


def hash64(round_key: int, stream: int, counter: int) -> int:
    return mix64(round_key ^ mix64((stream << 48) ^ counter))


def hash_uniform(round_key: int, stream: int, counter: int) -> float:
    """A uniform float in [0, 1) with 53 random bits."""
    return (hash64(round_key, stream, counter) >> 11) * (1.0 / (1 << 53))


def mix64_array(x: np.ndarray) -> np.ndarray:
    """``mix64`` on uint64 arrays (wrap-around arithmetic). Written in numpy scalar types only, so that
    numba compiles this very function for uint64 scalars: the batched engine's hash (``war_env.batched``)."""
    x = x + np.uint64(_GOLDEN)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(_MUL1)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(_MUL2)
    return x ^ (x >> np.uint64(31))


def hash64_array(round_key: np.ndarray, stream, counter: np.ndarray) -> np.ndarray:
    """``hash64`` element-wise on uint64 arrays (wrap-around arithmetic, as in the scalar version)."""
    stream_bits = np.asarray(stream, dtype=np.uint64) << np.uint64(48)
    with np.errstate(over="ignore"):
        inner = mix64_array(stream_bits ^ np.asarray(counter, dtype=np.uint64))
        return mix64_array(np.asarray(round_key, dtype=np.uint64) ^ inner)


def hash_uniform_array(round_key: np.ndarray, stream, counter: np.ndarray) -> np.ndarray:
    bits = hash64_array(round_key, stream, counter) >> np.uint64(11)
    return bits.astype(np.float64) * (1.0 / (1 << 53))


def cumulative(probabilities) -> tuple[float, ...]:
    """P(tick <= t) for each t, capped at 1 (a float sum may overshoot it)."""
    total, cdf = 0.0, []
    for p in probabilities:
        total += p
        cdf.append(min(total, 1.0))
    return tuple(cdf)


def sample_tick(cdf: tuple[float, ...], uniform: float) -> int:
    """The tick a uniform number in [0, 1) falls on under ``cdf`` (inverse-CDF sampling): bots' reaction
    ticks and presses' delays are drawn this way; ``len(cdf)`` when ``uniform`` is beyond its last value."""
    return bisect_right(cdf, uniform)


def derive_seed(key: int, stream: Stream, counter: int = 0) -> int:
    """A seed for something that plays under ``key`` (a policy, an agent): 31 bits of its hash on ``stream``."""
    return hash64(key, stream, counter) >> SEED_SHIFT


def draw_round_key(rng: np.random.Generator) -> int:
    """The one draw from the env's RNG that seeds everything random inside a round."""
    return int(rng.integers(0, 1 << 63, dtype=np.int64))
