"""How each seat of a batch times its draws: ``ReactionModel`` and the arrays the engine samples from.

A seat that draws by itself (a bot, or an agent whose draws are a reaction model) has a ``ReactionModel``;
a seat pressed from outside (the vector env's learner) has none. ``Timing`` is what the compiled clock
reads: per seat, the reaction CDF, its hash stream, and a bucket table that samples almost every
reaction with one lookup.
"""

from __future__ import annotations

from enum import IntEnum
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from war_env.core.bots import ReactionModel
from war_env.core.rules import WarConfig

BUCKET_BITS = 16
"""The reaction table has one entry per value of the top ``BUCKET_BITS`` bits of a reaction hash."""
UNSURE = -1
"""Table entry of a bucket that a CDF value cuts: its reactions are found by binary search."""
NO_KEY_STREAM = -1


class Seat(IntEnum):
    """Column of ``Timing.seats``, one row per seat."""

    HAS_MODEL = 0
    """1 if the seat draws by itself; 0 if it is pressed from outside"""
    STREAM = 1
    """the stream of the seat's reaction hashes"""
    KEY_STREAM = 2
    """``ReactionModel.key_stream``, ``NO_KEY_STREAM`` for the round key itself"""


class Timing(NamedTuple):
    """Both seats' models as arrays. The compiled entry points take the three arrays (numba reads a
    tuple argument's type on every call) and put them together again inside (``Timing(*arrays)``)."""

    seats: np.ndarray
    """int64 (2, len(Seat))"""
    tables: np.ndarray
    """(2, 2**BUCKET_BITS): ``reaction_table`` of each seat (int16, or int32 for turns of 2**15 ticks and more)"""
    cdfs: np.ndarray
    """float64 (2, turn_ticks)"""


def timing_of(models: tuple[ReactionModel | None, ReactionModel | None], config: WarConfig) -> Timing:
    turn_ticks = config.turn_ticks
    seats = np.zeros((2, len(Seat)), dtype=np.int64)
    tables = np.zeros((2, 1 << BUCKET_BITS), dtype=np.int16 if turn_ticks < np.iinfo(np.int16).max else np.int32)
    cdfs = np.zeros((2, turn_ticks), dtype=np.float64)
    for seat, model in enumerate(models):
        seats[seat, Seat.KEY_STREAM] = NO_KEY_STREAM
        if model is None:
            continue
        if len(model.cdf) != turn_ticks:
            raise ValueError(f"seat {seat}'s reaction model has {len(model.cdf)} ticks, the config's turn {turn_ticks}")
        seats[seat] = (1, model.stream, NO_KEY_STREAM if model.key_stream is None else model.key_stream)
        tables[seat] = reaction_table(tuple(model.cdf))
        cdfs[seat] = model.cdf
    return Timing(seats, tables, cdfs)


@lru_cache(maxsize=64)
def reaction_table(cdf: tuple[float, ...]) -> np.ndarray:
    """For each of the 2**16 buckets of the top hash bits (u in [b, b + 1) / 2**16): the reaction
    tick when no CDF value lies strictly inside the bucket (then every u in it samples the same tick:
    ``bisect_right`` counts the same values), else ``UNSURE``."""
    values = np.asarray(cdf, dtype=np.float64)
    buckets = 1 << BUCKET_BITS
    low = np.arange(buckets, dtype=np.float64) / buckets
    high = np.arange(1, buckets + 1, dtype=np.float64) / buckets
    table = np.searchsorted(values, low, side="right")  # ticks <= turn_ticks
    cut = np.searchsorted(values, high, side="left") > table  # some c with low < c < high
    table[cut] = UNSURE
    table.setflags(write=False)
    return table
