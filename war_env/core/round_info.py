"""A round's result, declared once: every field with its kind and one line of meaning.

Three nested records, each adding to the one before:

* ``RoundResult``: the card outcome (winner, reason, battles, wars, points, cards). The cards never depend
  on timing, so every pairing of a benchmark has the same card outcome for the same deal;
* ``RoundInfo``: plus what the clock did (takeovers, false starts, reaction ticks, steps, ticks): the
  ``info["round"]`` of every env (``RoundInfo.as_dict``);
* ``war_env.evaluation.records.RoundRecord``: plus who played which deal and the return (one benchmark line).

Everything else is derived from the field table: the dict of ``info["round"]`` (``as_dict``), the JSON
form and its checks and schema (``from_json_dict``, ``json_schema``), the numpy dtype of many rounds
(``info_dtype``: ``RoundTable``, the batched engine's results and the vector env's per-field arrays). A
field's *kind* (``Kind``) says how its value looks in each of these forms.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache, cached_property

import numpy as np

# Why a round ended.
ALL_CARDS = "all_cards"
POINTS = "points"
BATTLE_LIMIT = "battle_limit"
WAR_SHORTAGE = "war_shortage"
END_REASONS = (ALL_CARDS, POINTS, BATTLE_LIMIT, WAR_SHORTAGE)
"""Why a round ends by the rules."""
TRUNCATED = "truncated"
"""The reason of a record whose round was cut short by a step limit (``TimeLimit``), not by the rules."""
REASONS = (*END_REASONS, TRUNCATED)
NO_WINNER = -1
"""How arrays say that a round was a draw (Python values say ``None``)."""


# --- kinds of values -------------------------------------------------------------------------------
def _whole(value) -> bool:
    return type(value) is int and value >= 0


@dataclass(frozen=True)
class Kind:
    """How a field's value looks in Python, in JSON (its check and schema) and in a numpy table."""

    name: str
    python: Callable[[object], object]
    """Any accepted value (numpy scalars, lists) -> the Python value a record holds."""
    check: Callable[[object], bool]
    """Whether a JSON value (after ``json.loads``) is a valid value of this kind."""
    schema: dict
    expected: str
    """What a JSON value must be, for error messages."""
    dtype: tuple | None
    """The numpy field of this kind in ``info_dtype`` (None: not in the table, e.g. lists of ticks)."""

    def to_json(self, value):
        """The JSON form of a Python value (tuples become lists)."""
        if isinstance(value, tuple):
            return [self.to_json(item) if isinstance(item, tuple) else item for item in value]
        return value


def _pair_of(check: Callable[[object], bool]) -> Callable[[object], bool]:
    return lambda value: isinstance(value, list) and len(value) == 2 and all(check(item) for item in value)


def _tick_list(value) -> bool:
    """``_whole`` for every item, in C loops: a record holds about 200 ticks, and the report reads millions."""
    return isinstance(value, list) and set(map(type, value)) <= {int} and min(value, default=0) >= 0


_WHOLE = {"type": "integer", "minimum": 0}
WINNER = Kind(
    "winner",
    lambda value: None if value is None or value == NO_WINNER else int(value),
    lambda value: value is None or (type(value) is int and value in (0, 1)),
    {"enum": [0, 1, None]},
    "0, 1 or null",
    ("<i8",),
)
REASON = Kind(
    "reason", str, lambda value: value in REASONS, {"enum": list(REASONS)}, f"one of {list(REASONS)}", ("<i8",)
)
COUNT = Kind("count", int, _whole, _WHOLE, "a whole number >= 0", ("<i8",))
COUNTS = Kind(
    "counts",
    lambda value: (int(value[0]), int(value[1])),
    _pair_of(_whole),
    {"type": "array", "items": _WHOLE, "minItems": 2, "maxItems": 2},
    "a pair of whole numbers >= 0",
    ("<i8", (2,)),
)
FLAGS = Kind(
    "flags",
    lambda value: (bool(value[0]), bool(value[1])),
    _pair_of(lambda value: isinstance(value, bool)),
    {"type": "array", "items": {"type": "boolean"}, "minItems": 2, "maxItems": 2},
    "a pair of true/false",
    ("<i8", (2,)),
)
TICK_LISTS = Kind(
    "tick lists",
    lambda value: (tuple(map(int, value[0])), tuple(map(int, value[1]))),
    _pair_of(_tick_list),
    {"type": "array", "items": {"type": "array", "items": _WHOLE}, "minItems": 2, "maxItems": 2},
    "a pair of lists of whole numbers >= 0",
    None,
)
NAME = Kind("name", str, lambda value: isinstance(value, str), {"type": "string"}, "a string", None)
NUMBER = Kind(
    "number",
    float,
    lambda value: type(value) in (int, float) and np.isfinite(value),
    {"type": "number"},
    "a finite number",
    None,
)
TICKS = Kind(
    "ticks",
    lambda value: tuple(int(tick) for tick in value),
    _tick_list,
    {"type": "array", "items": _WHOLE},
    "a list of whole numbers >= 0",
    None,
)
SECONDS = Kind(
    "seconds",
    lambda value: tuple(float(second) for second in value),
    lambda value: (
        isinstance(value, list)
        and all(type(item) in (int, float) and np.isfinite(item) and item >= 0 for item in value)
    ),
    {"type": "array", "items": {"type": "number", "minimum": 0}},
    "a list of finite numbers >= 0",
    None,
)
NOTE = Kind(
    "note",
    lambda value: None if value is None else str(value),
    lambda value: value is None or isinstance(value, str),
    {"type": ["string", "null"]},
    "a string or null",
    None,
)

_REQUIRED = dataclasses.MISSING


def declared(kind: Kind, meaning: str, default=_REQUIRED):
    """A field of one of these records: its kind and what it means. A field with a ``default`` is optional
    in the JSON form: left out when it has its default (records that never set it keep their old form)."""
    return field(default=default, metadata={"kind": kind, "meaning": meaning})


def kind_of(item: dataclasses.Field) -> Kind:
    return item.metadata["kind"]


def is_optional(item: dataclasses.Field) -> bool:
    return item.default is not _REQUIRED


# --- the records -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class RoundResult:
    """How the card game of a round ended (the same whatever the timing)."""

    winner: int | None = declared(WINNER, "the seat that won the round; None: a draw")
    reason: str = declared(
        REASON, "why it ended: all_cards, points, battle_limit or war_shortage (truncated: cut short by a step limit)"
    )
    battles: int = declared(COUNT, "battles played (a war and its war steps count once)")
    wars: int = declared(COUNT, "ties, each war step counted")
    points: tuple[int, int] = declared(COUNTS, "tricks won, by seat")
    cards: tuple[int, int] = declared(
        COUNTS, "cards in each seat's pile at the end (a double shortage leaves the pot on the table)"
    )

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        return _names_of(cls)

    @classmethod
    def of(cls, **values):
        """The record of these values (keyword per field), each made the Python value of its kind (numpy
        scalars, -1 for no winner and lists are accepted)."""
        return cls(
            **{
                item.name: kind_of(item).python(values[item.name])
                for item in _fields_of(cls)
                if item.name in values or not is_optional(item)
            }
        )

    def card_outcome(self) -> RoundResult:
        """The card-game part of this record (equal for every pairing of the same deal)."""
        return RoundResult(*(getattr(self, name) for name in RoundResult.field_names()))

    def as_dict(self) -> dict:
        """Field by field, values as they are (faster than ``dataclasses.asdict``, which deep-copies)."""
        return {name: getattr(self, name) for name in self.field_names()}

    def to_json_dict(self) -> dict:
        """The JSON form: field by field, tuples as lists; an optional field only when it is not its default."""
        return {
            item.name: kind_of(item).to_json(getattr(self, item.name))
            for item in _fields_of(type(self))
            if not is_optional(item) or getattr(self, item.name) != item.default
        }

    @classmethod
    def from_json_dict(cls, data) -> RoundResult:
        """The record of a JSON object; every field's kind is checked (a ``ValueError`` names the field)."""
        names = set(cls.field_names())
        required = {item.name for item in _fields_of(cls) if not is_optional(item)}
        if not isinstance(data, dict) or not required <= set(data) <= names:
            got = sorted(data) if isinstance(data, dict) else type(data).__name__
            optional = f" (and may have {sorted(names - required)})" if names - required else ""
            raise ValueError(f"a {cls.__name__} needs exactly the keys {sorted(required)}{optional}, got {got}")
        for item in _fields_of(cls):
            if item.name in data and not kind_of(item).check(data[item.name]):
                raise ValueError(f"{item.name} must be {kind_of(item).expected}, got {_short(data[item.name])}")
        return cls.of(**data)

    @classmethod
    def json_schema(cls) -> dict:
        """The JSON schema of the JSON form, made from the field table (a field's meaning is its description)."""
        return {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": cls.__name__,
            "description": (cls.__doc__ or "").split("\n")[0],
            "type": "object",
            "required": [item.name for item in _fields_of(cls) if not is_optional(item)],
            "additionalProperties": False,
            "properties": {
                item.name: {**kind_of(item).schema, "description": item.metadata["meaning"]} for item in _fields_of(cls)
            },
        }


@dataclass(frozen=True)
class RoundInfo(RoundResult):
    """A round as ``info["round"]`` reports it: its card outcome and what the clock did."""

    takeover: tuple[bool, bool] = declared(FLAGS, "whether the seat was taken over by the takeover bot")
    false_starts: tuple[int, int] = declared(COUNTS, "draws the seat pressed while its turn was not open")
    reaction_ticks: tuple[tuple[int, ...], tuple[int, ...]] = declared(
        TICK_LISTS, "each seat's own draws: ticks after its turn opened (the takeover bot's draws are not listed)"
    )
    steps: int = declared(COUNT, "env steps taken by seat 0 (with a takeover, up to it)")
    ticks: int = declared(COUNT, "game ticks of the round, a played-out rest after a takeover included")

    def as_dict(self) -> dict:
        """``info["round"]``: the fields as a dict, each seat's reaction ticks as a list."""
        values = super().as_dict()
        values["reaction_ticks"] = (list(self.reaction_ticks[0]), list(self.reaction_ticks[1]))
        return values

    def idle_ticks(self, seat: int, turn_ticks: int) -> int:
        """Ticks in which the seat's own turn was open and it did not draw: ``r`` before each of its own
        draws at reaction ``r``, and the whole turn it let run out (the takeover bot then draws at once,
        so no later tick of the round is idle)."""
        return sum(self.reaction_ticks[seat]) + (turn_ticks if self.takeover[seat] else 0)


@cache
def _fields_of(cls: type) -> tuple[dataclasses.Field, ...]:
    """``dataclasses.fields``, once per class (records are made and read by the million)."""
    return dataclasses.fields(cls)


@cache
def _names_of(cls: type) -> tuple[str, ...]:
    return tuple(item.name for item in _fields_of(cls))


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


# --- many rounds as arrays --------------------------------------------------------------------------
@cache
def table_fields() -> tuple[dataclasses.Field, ...]:
    """The fields of ``RoundInfo`` that a numpy table holds (every one but the lists of reaction ticks)."""
    return tuple(item for item in dataclasses.fields(RoundInfo) if kind_of(item).dtype is not None)


@cache
def info_dtype() -> np.dtype:
    """One round's numbers as a numpy record, a field per ``table_fields()`` entry of the same name: winner
    ``NO_WINNER`` for a draw, reason an index into ``REASONS``, flags 0 or 1, pairs as two values by seat.
    Every number is an int64, packed: a table of k rounds is also a (k, width) int64 matrix."""
    return np.dtype([(item.name, *kind_of(item).dtype) for item in table_fields()])


@dataclass(frozen=True)
class RoundTable:
    """Rounds that ended, as arrays: ``rows`` (one ``info_dtype`` record per round) and the seats' reaction
    ticks packed: round i's own reactions of a seat are ``reaction_counts[i, seat]`` long, after those of
    the rounds before it. The batched engine's results; ``info(i)`` is round i's ``RoundInfo``."""

    rows: np.ndarray
    reaction_ticks: tuple[np.ndarray, np.ndarray]
    reaction_counts: np.ndarray

    def __len__(self) -> int:
        return len(self.rows)

    def column(self, name: str) -> np.ndarray:
        """The numbers of field ``name``: shape ``(k,)``, or ``(k, 2)`` for a pair."""
        return self.rows[name]

    def __getattr__(self, name: str) -> np.ndarray:
        """``table.winner``, ``table.points``, ...: the ``column`` of that name."""
        if name != "rows" and name in self.rows.dtype.names:
            return self.rows[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    @cached_property
    def _reaction_starts(self) -> np.ndarray:
        return np.cumsum(self.reaction_counts, axis=0) - self.reaction_counts

    def reactions_of(self, seat: int, i: int) -> np.ndarray:
        start = self._reaction_starts[i, seat]
        return self.reaction_ticks[seat][start : start + self.reaction_counts[i, seat]]

    def reaction_pairs(self) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Every round's reaction ticks as the pair of int64 arrays of ``info["round"]["reaction_ticks"]``: views of
        one array per seat (lists, one per round, were a quarter of the vector env's info at N = 4096)."""
        ends = np.cumsum(self.reaction_counts, axis=0).T.tolist()
        seats = [
            [ticks[start:end] for start, end in zip([0, *bounds[:-1]], bounds)]
            for ticks, bounds in zip((ticks.astype(np.int64, copy=False) for ticks in self.reaction_ticks), ends)
        ]
        return zip(*seats)

    def info(self, i: int) -> RoundInfo:
        row = self.rows[i]
        values = {item.name: row[item.name] for item in table_fields()}
        values["reason"] = REASONS[values["reason"]]
        return RoundInfo.of(**values, reaction_ticks=(self.reactions_of(0, i), self.reactions_of(1, i)))

    def infos(self) -> list[RoundInfo]:
        return [self.info(i) for i in range(len(self))]

    @classmethod
    def of_infos(cls, infos: list[RoundInfo]) -> RoundTable:
        """The table of rounds given as ``RoundInfo``s (the scalar reference's)."""
        rows = np.zeros(len(infos), dtype=info_dtype())
        for row, info in zip(rows, infos):
            for item in table_fields():
                row[item.name] = getattr(info, item.name) if item.name not in ("winner", "reason") else 0
            row["winner"] = NO_WINNER if info.winner is None else info.winner
            row["reason"] = REASONS.index(info.reason)
        reactions = tuple(
            np.array([tick for info in infos for tick in info.reaction_ticks[seat]], dtype=np.int64) for seat in (0, 1)
        )
        counts = np.array([[len(info.reaction_ticks[seat]) for seat in (0, 1)] for info in infos], dtype=np.int64)
        return cls(rows, reactions, counts.reshape(len(infos), 2))
