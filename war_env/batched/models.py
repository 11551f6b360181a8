"""The seats' reaction models as the arrays the compiled clock samples from.

A seat that draws by itself (a bot, or an agent whose draws are a reaction model: ``core.bots.ReactionModel``)
has, per seat, its reaction CDF (``cdfs``) and a bucket table (``tables``) that samples almost every reaction
with one lookup; a seat pressed from outside (the vector env's learner) has none (``params.has_model``).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from war_env.core.bots import ReactionModel
from war_env.core.rules import WarConfig

BUCKET_BITS = 12
"""The reaction table has one entry per value of the top ``BUCKET_BITS`` bits of a reaction hash: 8 kB of int16,
small enough to stay in the first-level cache (a step at N = 4096 samples several hundred reactions at random
buckets), large enough that few buckets are cut by one of a turn's CDF values."""
UNSURE = -1
"""Table entry of a bucket that a CDF value cuts: its reactions are found by binary search."""


def reaction_tables(
    models: tuple[ReactionModel | None, ReactionModel | None], config: WarConfig
) -> tuple[np.ndarray, np.ndarray]:
    """Both seats' ``(tables, cdfs)``, one row per CDF of the seat's model (``ReactionModel.cdfs``: one, or
    a pool's members, a table reader's contexts; the engine picks the row, ``state.ROUND``'s ``choice``): ``tables``
    (2, k, 2**BUCKET_BITS), ``reaction_table`` of each (int16, or int32 for turns of 2**15 ticks and more);
    ``cdfs`` float64 (2, k, turn_ticks), k the most CDFs of a seat. Zeros for a seat without a model."""
    turn_ticks = config.turn_ticks
    rows = max((len(model.cdfs) for model in models if model is not None), default=1)
    tables = np.zeros((2, rows, 1 << BUCKET_BITS), dtype=np.int16 if turn_ticks < np.iinfo(np.int16).max else np.int32)
    cdfs = np.zeros((2, rows, turn_ticks), dtype=np.float64)
    for seat, model in enumerate(models):
        if model is None:
            continue
        for row, cdf in enumerate(model.cdfs):
            if len(cdf) != turn_ticks:
                raise ValueError(f"seat {seat}'s reaction model has {len(cdf)} ticks, the config's turn {turn_ticks}")
            tables[seat, row] = reaction_table(tuple(cdf))
            cdfs[seat, row] = cdf
    return tables, cdfs


@lru_cache(maxsize=64)
def reaction_table(cdf: tuple[float, ...]) -> np.ndarray:
    """For each of the 2**BUCKET_BITS buckets of the top hash bits (u in [b, b + 1) / 2**BUCKET_BITS): the reaction
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
