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

from war_env.core.round_info import NO_WINNER, REASONS, RoundTable, info_dtype

KEPT = 3
"""Sets of columns kept for use again. A loop that keeps the last info while it steps holds one; the third
covers a caller that keeps two."""

_REASONS = np.array(REASONS, dtype=object)


def _blank_record() -> np.ndarray:
    record = np.zeros((), dtype=info_dtype())
    record["winner"] = NO_WINNER
    return record


class RoundColumns:
    """The ``info["round"]`` dicts of one vector env of ``num_envs`` sub-envs."""

    def __init__(self, num_envs: int):
        self.num_envs = num_envs
        self._sets: list[_ColumnSet] = []

    def of(self, ended: np.ndarray, table: RoundTable) -> dict[str, np.ndarray]:
        """``info["round"]`` (without its ``_field`` masks) of the rounds ``ended`` (sub-env indices, in
        order), whose numbers are ``table``'s rows: ``info_dtype``'s fields (``reason`` as its string,
        ``takeover`` as bools) and ``reaction_ticks`` (a pair of lists), each blank where no round ended
        (``winner`` ``NO_WINNER``, objects ``None``, the rest 0)."""
        columns = next((columns for columns in self._sets if columns.unheld()), None)
        if columns is None:
            columns = _ColumnSet(self.num_envs)
            if len(self._sets) < KEPT:
                self._sets.append(columns)
        return columns.write(ended, table)


class _ColumnSet:
    """One full-size array per field. The numbers are columns of one record array, so blanking the last rows
    and writing the new ones is one copy each."""

    def __init__(self, num_envs: int):
        self.records = np.full(num_envs, _blank_record())
        self.columns = {name: self.records[name] for name in info_dtype().names}
        self.columns["reason"] = np.empty(num_envs, dtype=object)  # REASONS' strings, not the record's index
        self.columns["takeover"] = np.zeros((num_envs, 2), dtype=bool)  # bools, not the record's 0 and 1
        self.columns["reaction_ticks"] = np.empty(num_envs, dtype=object)  # made of None
        self.written = np.empty(0, dtype=np.int64)
        self._own_references = self._references()

    def _references(self) -> tuple[int, ...]:
        # a view of a column has the record array as its base: counting it counts the views of every column
        return tuple(sys.getrefcount(array) for array in (self.records, *self.columns.values()))

    def unheld(self) -> bool:
        """Whether nothing but this set holds its arrays (so writing them changes nothing a caller kept)."""
        return self._references() == self._own_references

    def write(self, ended: np.ndarray, table: RoundTable) -> dict[str, np.ndarray]:
        self.records[self.written] = _blank_record()
        self.records[ended] = table.rows
        reason, takeover, reaction_ticks = (self.columns[name] for name in ("reason", "takeover", "reaction_ticks"))
        reason[self.written] = reaction_ticks[self.written] = None
        takeover[self.written] = False
        reason[ended] = _REASONS[table.column("reason")]
        takeover[ended] = table.column("takeover")
        for game, pair in zip(ended.tolist(), table.reaction_lists()):  # one pair of lists per round
            reaction_ticks[game] = pair
        self.written = ended
        return dict(self.columns)
