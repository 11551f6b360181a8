"""``randomness.hash64`` compiled for uint64 scalars: the very ``mix64_array`` of ``randomness``."""

from __future__ import annotations

import numba
import numpy as np

from war_env.core.randomness import mix64_array

_mix64 = numba.njit(cache=True, inline="always")(mix64_array)
_STREAM_SHIFT = np.uint64(48)
_UNIFORM_SHIFT = np.uint64(11)
_UNIFORM_SCALE = 1.0 / (1 << 53)


@numba.njit(cache=True, inline="always")
def hash64(key, stream, counter):
    """``randomness.hash64(key, stream, counter)`` on uint64 (wrap-around arithmetic)."""
    return _mix64(key ^ _mix64((np.uint64(stream) << _STREAM_SHIFT) ^ np.uint64(counter)))


@numba.njit(cache=True, inline="always")
def uniform(bits):
    """``randomness.hash_uniform`` from the hash bits: 53 of them, scaled into [0, 1)."""
    return np.float64(bits >> _UNIFORM_SHIFT) * _UNIFORM_SCALE
