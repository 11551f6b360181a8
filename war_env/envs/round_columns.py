"""``info["round"]`` of the vector env in Gymnasium's vector-info convention, written only where rounds ended.

The convention gives each field a full-size array, blank where no round ended. At N = 4096 a handful of
rounds end per step, and writing every blank row of every field again on each step cost as much as the
engine's whole step. So a set of columns is kept and used again: once nothing outside holds any of its
arrays (their reference counts are back to the set's own), the rows it wrote last are blanked and the new
rows written. An info a caller keeps, or a column of it, or a view of a column, is never written again: its
set is held, and the step takes another set or makes a new one.
"""

from __future__ import annotations

import sys

import numpy as np

from war_env.core.round_info import NO_WINNER, REASONS, info_dtype

KEPT = 3
"""Sets of columns kept for use again. A loop that keeps the last info while it steps holds one; the third
covers a caller that keeps two."""


def _blank_record() -> np.ndarray:
    """One record where no round ended, as int64 words (``info_dtype`` is int64 words, packed)."""
    record = np.zeros(1, dtype=info_dtype())
    record["winner"] = NO_WINNER
    return record.view(np.int64)


_BLANK_WORDS = _blank_record()


class RoundColumns:
    """The ``info["round"]`` dicts of one vector env of ``num_envs`` sub-envs."""

    def __init__(self, num_envs: int):
        self.num_envs = num_envs
        self._sets: list[_ColumnSet] = []

    def of(self, ended: np.ndarray, engine) -> dict[str, np.ndarray]:
        """``info["round"]`` (without its ``_field`` masks) of the rounds ``ended`` (sub-env indices, in
        order), as the vector env's ``engine`` writes them (its ``write_rounds``): ``info_dtype``'s fields
        (``reason`` as its string, ``takeover`` as bools) and ``reaction_ticks`` (a pair of int64 arrays), each
        blank where no round ended (``winner`` ``NO_WINNER``, objects ``None``, the rest 0)."""
        columns = next((columns for columns in self._sets if columns.unheld()), None)
        if columns is not None:
            self._sets.remove(columns)
        elif len(self._sets) < KEPT:
            columns = _ColumnSet(self.num_envs)
        else:
            return _ColumnSet(self.num_envs).write(ended, engine)
        self._sets.append(columns)  # last: the caller's last info holds it, so it is tried last next time
        return columns.write(ended, engine)


class _ColumnSet:
    """One full-size array per field. The numbers are columns of one record array, seen also as a matrix of
    int64 words, so the engine blanks the last rows and writes the new ones in one call."""

    def __init__(self, num_envs: int):
        self.words = np.tile(_BLANK_WORDS, (num_envs, 1))
        self.records = self.words.view(info_dtype()).reshape(num_envs)
        self.columns = {name: self.records[name] for name in info_dtype().names}
        self.columns["reason"] = np.empty(num_envs, dtype=object)  # REASONS' strings, not the record's index
        self.columns["takeover"] = np.zeros((num_envs, 2), dtype=bool)  # bools, not the record's 0 and 1
        self.columns["reaction_ticks"] = np.empty(num_envs, dtype=object)  # made of None
        self.reason_codes = self.records["reason"]
        self.written = np.empty(0, dtype=np.int64)
        # the columns of numbers and every view of one have the words as their base: counting it counts them all
        self._counted = (self.words, *self.columns.values())
        self._own_references = self._references()

    def _references(self) -> tuple[int, ...]:
        return tuple(map(sys.getrefcount, self._counted))

    def unheld(self) -> bool:
        """Whether nothing but this set holds its arrays (so writing them changes nothing a caller kept)."""
        return self._references() == self._own_references

    def write(self, ended: np.ndarray, engine) -> dict[str, np.ndarray]:
        written, self.written = self.written, ended
        reason, takeover, reaction_ticks = (self.columns[name] for name in ("reason", "takeover", "reaction_ticks"))
        pairs = engine.write_rounds(ended, self.words, takeover, _BLANK_WORDS, written)
        reason[written] = reaction_ticks[written] = None
        for game, code, pair in zip(ended.tolist(), self.reason_codes[ended].tolist(), pairs):
            reason[game] = REASONS[code]
            reaction_ticks[game] = pair
        return dict(self.columns)
