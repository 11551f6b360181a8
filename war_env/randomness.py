"""Counter-based randomness for everything that happens inside a round.

At reset the env's RNG (``self.np_random``) draws the deal, the starter and one 64-bit *round key*.
Every random choice during the round (a bot's reaction time for its n-th move, the order of a
shuffled pot) is then a pure function of ``(round_key, stream, counter)``: a SplitMix64 hash, the
generator behind Java's ``SplittableRandom``. Two consequences the project relies on:

* the outcome of a round never depends on when the players drew, so deals can be paired across
  agents in the benchmark and a round's result can be computed without playing its ticks;
* the numpy-batched env computes exactly the same numbers for thousands of games at once
  (``hash_uniform_array`` is proven equal to ``hash_uniform`` by the tests).
"""

from __future__ import annotations

from bisect import bisect_right

import numpy as np

MASK64 = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15
_MUL1 = 0xBF58476D1CE4E5B9
_MUL2 = 0x94D049BB133111EB

# Streams: independent families of counters under one round key.
STREAM_REACTION = (1, 2)
"""Per seat: the reaction time of that seat's bot on its n-th move of the round."""
STREAM_PICKUP = 3
"""The sort keys of a shuffled pot: counter = trick number * 4096 + position in the pot."""
STREAM_LATENCY = (4, 5)
"""Per seat: the delay of that seat's k-th press of the round (``war_env.latency``; counter = k, counting
presses, not ticks). Drawn only when the latency is random: a fixed delay needs no hash."""
# Other streams in use: 7 (a policy opponent's seed, env), 8 (the agent's seed, records), 17 and 18
# (the scripted agents' own randomness, agents/scripted.py).


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


def draw_round_key(rng: np.random.Generator) -> int:
    """The one draw from the env's RNG that seeds everything random inside a round."""
    return int(rng.integers(0, 1 << 63, dtype=np.int64))
