"""The one summary of played rounds: every number the league, training's comparisons, learning curves
and self-play read from ``RoundRecord``s, kept as numpy columns, a few dozen bytes per round.

``RoundColumns`` holds the rounds of one agent (seat 0) against one opponent, indexed by round; it is
filled record by record (``add``), so a league of a million rounds is summarised while its rounds file
is read, without holding the records (each a few kilobytes as Python objects). What the agent's play
cost is split by cause with ``core.rewards.return_by_cause``, the one definition of the rewards.

Every rate a report, a comparison or a self-play match gives is a method here (``takeovers``,
``takeover_rate``, ``false_starts_per_round``, ...), over one pairing or over several at once
(``RoundColumns.pooled``), and every paired gap between two agents on the same deals is ``paired_difference``
(by cause: ``paired_difference_by_cause``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from war_env.core.rewards import CAUSES, return_by_cause
from war_env.core.round_info import NO_WINNER, REASONS, RoundResult
from war_env.core.rules import WarConfig
from war_env.evaluation.records import RoundRecord


@dataclass(frozen=True)
class Column:
    """One number (or one per seat) kept per round: its dtype, its width (``None``: one; 2: one per seat), the value
    of a round not yet added, and how a record gives it (``read(record, turn_ticks)``)."""

    dtype: type
    read: Callable[[RoundRecord, int], object]
    width: int | None = None
    empty: int = 0


COLUMNS = {
    "returns": Column(np.float64, lambda record, _: record.episode_return),
    "winner": Column(np.int8, lambda record, _: NO_WINNER if record.winner is None else record.winner, empty=NO_WINNER),
    "reason": Column(np.int8, lambda record, _: REASONS.index(record.reason)),
    "battles": Column(np.int64, lambda record, _: record.battles),
    "wars": Column(np.int64, lambda record, _: record.wars),
    "points": Column(np.int64, lambda record, _: record.points, width=2),
    "cards": Column(np.int8, lambda record, _: record.cards, width=2),
    "takeover": Column(bool, lambda record, _: record.takeover, width=2),
    "false_starts": Column(np.int64, lambda record, _: record.false_starts[0]),
    "idle_ticks": Column(np.int64, lambda record, turn_ticks: record.idle_ticks(0, turn_ticks)),
    "ticks": Column(np.int64, lambda record, _: record.ticks),
    "reaction_sum": Column(np.int64, lambda record, _: sum(record.reaction_ticks[0])),
    "reaction_count": Column(np.int64, lambda record, _: len(record.reaction_ticks[0])),
}
"""The columns of ``RoundColumns``, declared once: ``__init__``, ``add`` and ``pooled`` iterate this table. The
agent is seat 0; ``takeover``, ``points`` and ``cards`` are per seat."""


class RoundColumns:
    """``rounds`` rounds of one agent in seat 0, as columns indexed by round (``add`` fills round i): ``present``
    (the round was added) and every column of ``COLUMNS`` (the card outcome, the agent's return, its false starts
    and idle ticks, both seats' takeovers, the round's ticks, and the agent's reaction ticks as a sum and a count),
    with their distribution over all rounds in ``reaction_histogram``, one bin per tick of a turn."""

    present: np.ndarray
    returns: np.ndarray  # the columns of COLUMNS, annotated for readers and type checkers
    winner: np.ndarray
    reason: np.ndarray
    battles: np.ndarray
    wars: np.ndarray
    points: np.ndarray
    cards: np.ndarray
    takeover: np.ndarray
    false_starts: np.ndarray
    idle_ticks: np.ndarray
    ticks: np.ndarray
    reaction_sum: np.ndarray
    reaction_count: np.ndarray
    reaction_histogram: np.ndarray

    def __init__(self, rounds: int, turn_ticks: int):
        self.turn_ticks = turn_ticks
        self.present = np.zeros(rounds, dtype=bool)
        for name, column in COLUMNS.items():
            shape = rounds if column.width is None else (rounds, column.width)
            setattr(self, name, np.full(shape, column.empty, dtype=column.dtype))
        self.reaction_histogram = np.zeros(turn_ticks, dtype=np.int64)

    @classmethod
    def of_records(cls, records: Iterable[RoundRecord], config: WarConfig) -> RoundColumns:
        """The columns of ``records``, round i being the i-th record."""
        records = list(records)
        columns = cls(len(records), config.turn_ticks)
        for index, record in enumerate(records):
            columns.add(index, record)
        return columns

    @classmethod
    def pooled(cls, parts: Sequence[RoundColumns]) -> RoundColumns:
        """The rounds of several pairings as one set of columns (an agent against all its opponents), so that a
        rate over all of them counts every round once: ``pooled(parts).takeover_rate()``."""
        if not parts:
            raise ValueError("pooling needs at least one pairing's rounds")
        pooled = cls(0, parts[0].turn_ticks)
        for name in ["present", *COLUMNS]:
            setattr(pooled, name, np.concatenate([getattr(part, name) for part in parts]))
        pooled.reaction_histogram = sum(part.reaction_histogram for part in parts)
        return pooled

    def add(self, index: int, record: RoundRecord) -> None:
        """Record ``record`` as round ``index``."""
        self.present[index] = True
        for name, column in COLUMNS.items():
            getattr(self, name)[index] = column.read(record, self.turn_ticks)
        np.add.at(self.reaction_histogram, np.asarray(record.reaction_ticks[0], dtype=np.int64), 1)

    # --- what every reader asks --------------------------------------------------------------------
    @property
    def rounds(self) -> int:
        return int(self.present.sum())

    @property
    def complete(self) -> bool:
        return bool(self.present.all())

    def count(self, outcome: str) -> int:
        """Rounds the agent ``"won"``, ``"lost"`` or ``"drew"``."""
        return int((self.winner == {"won": 0, "lost": 1, "drew": NO_WINNER}[outcome]).sum())

    @property
    def mean_return(self) -> float:
        return float(self.returns.mean())

    def takeovers(self, seat: int = 0) -> int:
        """Rounds in which ``seat``'s timer ran out and the takeover bot played it (once a round at most)."""
        return int(self.takeover[:, seat].sum())

    def takeover_rate(self, seat: int = 0) -> float:
        """The share of the rounds in which ``seat`` was taken over."""
        return self.takeovers(seat) / self.rounds

    @property
    def false_starts_per_round(self) -> float:
        """The agent's false starts (draws pressed out of its turn) per round."""
        return int(self.false_starts.sum()) / self.rounds

    @property
    def idle_ticks_per_round(self) -> float:
        """The agent's idle ticks (ticks of its open turn without a draw) per round."""
        return int(self.idle_ticks.sum()) / self.rounds

    @property
    def mean_reaction_ticks(self) -> float | None:
        """Mean ticks from the opening of the agent's turn to its own draws; None: it never drew."""
        draws = self.reaction_count.sum()
        return float(self.reaction_sum.sum() / draws) if draws else None

    @property
    def median_reaction_ticks(self) -> float | None:
        return reaction_quantile(self.reaction_histogram, 0.5)

    def return_by_cause(self, config: WarConfig) -> dict[str, np.ndarray]:
        """Every round's return split by cause (``rewards.return_by_cause``), one array per cause."""
        winners = np.where(self.winner == NO_WINNER, -1, self.winner)
        return return_by_cause(config, winners, self.false_starts, self.idle_ticks, self.takeover[:, 0])

    def card_outcomes(self) -> np.ndarray:
        """Every round's card outcome (``RoundResult``'s fields) as one row of numbers: equal rows, equal cards."""
        return np.column_stack([self.winner, self.reason, self.battles, self.wars, self.points, self.cards])

    def card_outcome(self, index: int) -> RoundResult:
        return RoundResult(
            None if self.winner[index] == NO_WINNER else int(self.winner[index]),
            REASONS[self.reason[index]],
            int(self.battles[index]),
            int(self.wars[index]),
            tuple(self.points[index].tolist()),
            tuple(self.cards[index].tolist()),
        )

    def nbytes(self) -> int:
        return sum(value.nbytes for value in vars(self).values() if isinstance(value, np.ndarray))


def paired_difference(first: RoundColumns, second: RoundColumns) -> np.ndarray:
    """Round by round, ``first``'s return minus ``second``'s on the same deals (round i of both dealt by the same
    seed): the paired gap behind every regret (the reference first), comparison and match."""
    _check_paired(first, second)
    with np.errstate(over="ignore", invalid="ignore"):  # infinite returns (an infinite weight) give nan, silently
        return first.returns - second.returns


def paired_difference_by_cause(first: RoundColumns, second: RoundColumns, config: WarConfig) -> dict[str, np.ndarray]:
    """``paired_difference`` split by cause (``RoundColumns.return_by_cause``): the parts add up to it."""
    _check_paired(first, second)
    mine, theirs = first.return_by_cause(config), second.return_by_cause(config)
    with np.errstate(over="ignore", invalid="ignore"):
        return {cause: mine[cause] - theirs[cause] for cause in CAUSES}


def _check_paired(first: RoundColumns, second: RoundColumns) -> None:
    if len(first.returns) != len(second.returns) or not np.array_equal(first.present, second.present):
        raise ValueError(
            f"a paired difference needs the same rounds on both sides, got {first.rounds} of "
            f"{len(first.returns)} and {second.rounds} of {len(second.returns)}"
        )


def reaction_quantile(histogram: np.ndarray, q: float) -> float | None:
    """The ``q`` quantile of the draws counted in ``histogram`` (one bin per tick), as ``np.percentile`` of
    the draws themselves (linear between the two order statistics); None without draws."""
    n = int(histogram.sum())
    if n == 0:
        return None
    position = q * (n - 1)
    below, above = order_statistics(histogram, [int(np.floor(position)), int(np.ceil(position))])
    return float(below + (position - np.floor(position)) * (above - below))


def order_statistics(histogram: np.ndarray, ranks) -> np.ndarray:
    """The values at 0-based ``ranks`` of the sorted draws counted in ``histogram``."""
    return np.searchsorted(np.cumsum(histogram), np.asarray(ranks), side="right")


__all__ = [
    "CAUSES",
    "RoundColumns",
    "order_statistics",
    "paired_difference",
    "paired_difference_by_cause",
    "reaction_quantile",
]
