"""One played round as a small, frozen, JSON-serialisable record: what the benchmark aggregates.

``war_env.evaluation.play_round(env, agent, seed)`` plays a round tick by tick through a War-v0 env
and returns its ``RoundRecord``. Any other way of producing rounds (the batched fast path, a Ray task)
must return records equal to these, field by field, so the benchmark does not care where a record
came from.
The JSON form (``to_json`` / ``from_json``) is one line of ``rounds.jsonl``; its keys are the field
names, tuples become lists.
"""

from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass

from war_env.core.engine import END_REASONS
from war_env.core.randomness import Stream, derive_seed


@dataclass(frozen=True)
class RoundRecord:
    """One round of ``agent`` (seat 0) against ``opponent`` (seat 1). Pairs are (agent, opponent)."""

    round: int
    """Index of the round in its pairing; round i of every pairing is played with the same seed."""
    seed: int
    """``env.reset(seed=seed)`` of this round."""
    agent: str
    opponent: str
    winner: int | None
    """0 = the agent, 1 = the opponent, None = a draw."""
    reason: str
    battles: int
    wars: int
    points: tuple[int, int]
    cards: tuple[int, int]
    takeover: tuple[bool, bool]
    false_starts: tuple[int, int]
    reaction_ticks: tuple[int, ...]
    """The agent's own draws: ticks after its turn opened (takeover draws are not listed)."""
    steps: int
    """Env steps the agent took."""
    ticks: int
    """Game ticks of the round, including a played-out rest after a takeover."""
    episode_return: float
    """The agent's summed reward over the round."""

    @classmethod
    def of_round(cls, info: dict, *, round: int, seed: int, agent: str, opponent: str, episode_return: float,
                 reason: str | None = None) -> RoundRecord:
        """The record of a round from its ``info["round"]`` dict (``war_env.core.round_info``); ``reason``
        replaces the info's (``"truncated"`` for a round cut short)."""
        return cls(
            round=round, seed=seed, agent=agent, opponent=opponent, winner=info["winner"],
            reason=info["reason"] if reason is None else reason, battles=info["battles"], wars=info["wars"],
            points=tuple(info["points"]), cards=tuple(info["cards"]), takeover=tuple(info["takeover"]),
            false_starts=tuple(info["false_starts"]), reaction_ticks=tuple(info["reaction_ticks"][0]),
            steps=info["steps"], ticks=info["ticks"], episode_return=episode_return,
        )

    def to_dict(self) -> dict:
        # Field by field rather than dataclasses.asdict, whose deep copy made writing records the
        # bottleneck of a parallel benchmark run (about 10x slower).
        return {name: list(value) if isinstance(value, tuple) else value
                for name in _FIELD_NAMES for value in (getattr(self, name),)}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), separators=(",", ":"))

    @classmethod
    def from_dict(cls, data: dict) -> RoundRecord:
        """The record of a JSON object; every field's type and range is checked (a ``ValueError`` names it)."""
        if not isinstance(data, dict) or set(data) != set(_FIELD_NAMES):
            got = sorted(data) if isinstance(data, dict) else type(data).__name__
            raise ValueError(f"a round record needs exactly the keys {sorted(_FIELD_NAMES)}, got {got}")
        for name, (fits, expected) in _FIELD_CHECKS.items():
            if not fits(data[name]):
                raise ValueError(f"{name} must be {expected}, got {_short(data[name])}")
        return cls(**{key: tuple(value) if isinstance(value, list) else value for key, value in data.items()})

    @classmethod
    def from_json(cls, line: str) -> RoundRecord:
        return cls.from_dict(json.loads(line))


_FIELD_NAMES = tuple(field.name for field in dataclasses.fields(RoundRecord))
REASONS = (*END_REASONS, "truncated")


def _count(value) -> bool:
    return type(value) is int and value >= 0


def _pair(fits):
    return lambda value: isinstance(value, list) and len(value) == 2 and all(fits(item) for item in value)


_FIELD_CHECKS = {
    **{name: (_count, "a whole number >= 0") for name in ("round", "seed", "battles", "wars", "steps", "ticks")},
    "agent": (lambda value: isinstance(value, str), "a spec string"),
    "opponent": (lambda value: isinstance(value, str), "a spec string"),
    "winner": (lambda value: value is None or (type(value) is int and value in (0, 1)), "0, 1 or null"),
    "reason": (lambda value: value in REASONS, f"one of {list(REASONS)}"),
    "points": (_pair(_count), "a pair of whole numbers >= 0"),
    "cards": (_pair(_count), "a pair of whole numbers >= 0"),
    "takeover": (_pair(lambda value: isinstance(value, bool)), "a pair of true/false"),
    "false_starts": (_pair(_count), "a pair of whole numbers >= 0"),
    "reaction_ticks": (lambda value: isinstance(value, list) and set(map(type, value)) <= {int}
                       and min(value, default=0) >= 0, "a list of whole numbers >= 0"),  # (thousands per round: fast)
    "episode_return": (lambda value: type(value) in (int, float) and math.isfinite(value), "a finite number"),
}
"""What each field of the JSON form must hold: (test, what it expects)."""


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def agent_seed(round_key: int) -> int:
    """The seed an agent gets for the round with this key (``Stream.AGENT_SEED``), so all randomness of a
    round follows from its seed."""
    return derive_seed(round_key, Stream.AGENT_SEED)
