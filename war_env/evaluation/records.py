"""One played round as a small, frozen, JSON-serialisable record: what the benchmark aggregates.

A ``RoundRecord`` is the round's ``RoundInfo`` (``war_env.core.round_info``: the card outcome and what
the clock did, every field declared there once) plus who played which deal and the agent's return.
``war_env.evaluation.play_round(env, agent, seed)`` plays a round tick by tick and returns its record;
every other way of producing rounds (the fast path, the batched env, a Ray task) must return records equal
to these, field by field, so the benchmark does not care where a record came from.
The JSON form (``to_json`` / ``from_json``) is one line of ``rounds.jsonl.gz``: the field names as keys,
tuples as lists; ``RoundRecord.json_schema()`` is its schema, made from the same field table.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from war_env.core.randomness import Stream, derive_seed
from war_env.core.round_info import COUNT, NAME, NOTE, NUMBER, SECONDS, TICKS, RoundInfo, declared


@dataclass(frozen=True)
class RoundRecord(RoundInfo):
    """One round of ``agent`` (seat 0) against ``opponent`` (seat 1): its ``RoundInfo`` (pairs are
    (agent, opponent)), the deal and the agent's return."""

    round: int = declared(COUNT, "index of the round in its pairing; round i of every pairing has the same seed")
    seed: int = declared(COUNT, "env.reset(seed=seed) of this round")
    agent: str = declared(NAME, "the spec of the agent in seat 0")
    opponent: str = declared(NAME, "the spec of the opponent in seat 1")
    episode_return: float = declared(NUMBER, "the agent's summed reward over the round")
    compute_ticks: tuple[int, ...] = declared(
        TICKS,
        "real time only (war_env.envs.realtime): ticks each decision of the agent missed while it "
        "computed, in the order of its decisions (empty in lock-step)",
        default=(),
    )
    compute_seconds: tuple[float, ...] = declared(
        SECONDS, "real time only: each decision's compute time in seconds of wall time (empty in lock-step)", default=()
    )
    agent_error: str | None = declared(
        NOTE,
        "the first error of the agent's program in this round (an exec: client that broke the protocol, "
        "crashed or went silent; its seat then waited), or null",
        default=None,
    )

    @classmethod
    def of_round(
        cls,
        info: RoundInfo | dict,
        *,
        round: int,
        seed: int,
        agent: str,
        opponent: str,
        episode_return: float,
        reason: str | None = None,
        agent_error: str | None = None,
    ) -> RoundRecord:
        """The record of a round from its ``RoundInfo`` (or ``info["round"]`` dict, whose ``compute_ticks`` and
        ``compute_seconds`` are kept when real time added them); ``reason`` replaces the info's
        (``"truncated"`` for a round cut short)."""
        identity = {
            "round": int(round),
            "seed": int(seed),
            "agent": agent,
            "opponent": opponent,
            "episode_return": float(episode_return),
            "agent_error": agent_error,
        }
        compute = {}
        if not isinstance(info, RoundInfo):
            compute = {name: tuple(info[name]) for name in ("compute_ticks", "compute_seconds") if name in info}
            info = RoundInfo.of(**info)
        values = {name: getattr(info, name) for name in RoundInfo.field_names()}
        if reason is not None:
            values["reason"] = reason
        return cls(**values, **identity, **compute)

    def to_json(self) -> str:
        return json.dumps(self.to_json_dict(), separators=(",", ":"))

    @classmethod
    def from_json(cls, line: str) -> RoundRecord:
        return cls.from_json_dict(json.loads(line))


def agent_seed(round_key: int) -> int:
    """The seed an agent gets for the round with this key (``Stream.AGENT_SEED``), so all randomness of a
    round follows from its seed."""
    return derive_seed(round_key, Stream.AGENT_SEED)
