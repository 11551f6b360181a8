"""What ``info["round"]`` says about a round that ended, written once for every front end.

``round_info(...)`` is the one dict form (Python types: ``winner`` 0, 1 or ``None`` for a draw, pairs
as tuples, each seat's reaction ticks as a list); War-v0 and the two-seat env make it from the scalar
reference (``describe_round``), the batched engine from ``RoundStats``, its per-round arrays of many
rounds (the vector env's ``info["round"]`` and the fast path's results are built from those).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from war_env.core.clock import TimedRound
from war_env.core.engine import END_REASONS

ROUND_INFO_KEYS = ("winner", "reason", "battles", "wars", "points", "cards", "takeover", "false_starts",
                   "reaction_ticks", "steps", "ticks")
NO_WINNER = -1
"""How arrays say that a round was a draw (the dict says ``None``)."""


def round_info(*, winner, reason, battles, wars, points, cards, takeover, false_starts, reaction_ticks, steps,
               ticks) -> dict:
    """The ``info["round"]`` dict: ``winner`` the seat that won (``None`` or ``NO_WINNER``: a draw),
    ``reason`` why the round ended (``None`` while it runs), ``battles``, ``wars`` (ties, each war step
    counted), ``points``, ``cards`` (pile sizes), ``takeover``, ``false_starts`` (pairs by seat),
    ``reaction_ticks`` (each seat's own draws, ticks after its turn opened), ``steps`` (env steps)
    and ``ticks`` (game ticks, a played-out rest included)."""
    return {
        "winner": None if winner is None or winner == NO_WINNER else int(winner),
        "reason": reason,
        "battles": int(battles),
        "wars": int(wars),
        "points": (int(points[0]), int(points[1])),
        "cards": (int(cards[0]), int(cards[1])),
        "takeover": (bool(takeover[0]), bool(takeover[1])),
        "false_starts": (int(false_starts[0]), int(false_starts[1])),
        "reaction_ticks": ([int(tick) for tick in reaction_ticks[0]], [int(tick) for tick in reaction_ticks[1]]),
        "steps": int(steps),
        "ticks": int(ticks),
    }


def describe_round(timed: TimedRound, steps: int) -> dict:
    """The ``info["round"]`` dict of a (ended or running) round of the scalar reference; ``steps`` is
    the env steps taken."""
    game = timed.game
    result = game.result
    return round_info(
        winner=result.winner if result else None, reason=result.reason if result else None, battles=game.battles,
        wars=game.wars, points=game.points, cards=(len(game.piles[0]), len(game.piles[1])),
        takeover=timed.taken_over, false_starts=timed.false_starts, reaction_ticks=timed.reaction_ticks,
        steps=steps, ticks=timed.tick_count,
    )


TABLE_COLUMNS = {"winner": 0, "reason": 1, "battles": 2, "wars": 3, "points": slice(4, 6), "cards": slice(6, 8),
                 "takeover": slice(8, 10), "false_starts": slice(10, 12), "steps": 12, "ticks": 13}
"""Where each number of ``info["round"]`` is in a row of ``RoundStats.table`` (pairs: two columns, by seat)."""
TABLE_WIDTH = 14


@dataclass(frozen=True)
class RoundStats:
    """Rounds that ended, as arrays: every number of ``info["round"]`` in one int64 row per round
    (``table``, columns ``TABLE_COLUMNS``; ``winner`` is ``NO_WINNER`` for a draw, ``reason`` an index
    into ``engine.END_REASONS``), and the seats' reaction ticks packed: round i's own reactions of a
    seat are ``reaction_counts[i, seat]`` long, after those of the rounds before it."""

    table: np.ndarray
    reaction_ticks: tuple[np.ndarray, np.ndarray]
    reaction_counts: np.ndarray

    def __len__(self) -> int:
        return len(self.table)

    def __getattr__(self, name: str) -> np.ndarray:
        """``stats.winner``, ``stats.points``, ...: the ``column`` of that name."""
        if name in TABLE_COLUMNS:
            return self.column(name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def column(self, name: str) -> np.ndarray:
        """``table``'s column(s) of ``name``: shape ``(k,)``, or ``(k, 2)`` for a pair (``takeover`` as bool)."""
        values = self.table[:, TABLE_COLUMNS[name]]
        return values.astype(bool) if name == "takeover" else values

    @cached_property
    def _reaction_starts(self) -> np.ndarray:
        return np.cumsum(self.reaction_counts, axis=0) - self.reaction_counts

    def reactions_of(self, seat: int, i: int) -> np.ndarray:
        start = self._reaction_starts[i, seat]
        return self.reaction_ticks[seat][start:start + self.reaction_counts[i, seat]]

    def reaction_lists(self) -> list[tuple[list[int], list[int]]]:
        """Every round's reaction ticks as the pair of lists of ``info["round"]["reaction_ticks"]``."""
        ends = np.cumsum(self.reaction_counts, axis=0).T.tolist()
        seats = [[ticks[start:end].tolist() for start, end in zip([0, *bounds[:-1]], bounds)]
                 for ticks, bounds in zip(self.reaction_ticks, ends)]
        return list(zip(*seats))

    def info(self, i: int) -> dict:
        """Round ``i`` as the single env's ``info["round"]``."""
        row = self.table[i]
        numbers = {name: row[where] for name, where in TABLE_COLUMNS.items()}
        numbers["reason"] = END_REASONS[numbers["reason"]]
        return round_info(**numbers, reaction_ticks=(self.reactions_of(0, i), self.reactions_of(1, i)))

    @classmethod
    def of_infos(cls, infos: list[dict]) -> RoundStats:
        """The stats of rounds given as ``info["round"]`` dicts (the scalar reference's)."""
        table = np.zeros((len(infos), TABLE_WIDTH), dtype=np.int64)
        for row, info in zip(table, infos):
            for name, where in TABLE_COLUMNS.items():
                row[where] = info[name] if name not in ("winner", "reason") else 0
            row[TABLE_COLUMNS["winner"]] = NO_WINNER if info["winner"] is None else info["winner"]
            row[TABLE_COLUMNS["reason"]] = END_REASONS.index(info["reason"])
        reactions = tuple(np.array([tick for info in infos for tick in info["reaction_ticks"][seat]], dtype=np.int64)
                          for seat in (0, 1))
        counts = np.array([[len(info["reaction_ticks"][seat]) for seat in (0, 1)] for info in infos], dtype=np.int64)
        return cls(table, reactions, counts.reshape(len(infos), 2))
