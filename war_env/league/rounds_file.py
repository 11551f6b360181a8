"""``rounds.jsonl``: one ``RoundRecord`` per line, appended and flushed as rounds finish."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from war_env.league.league import League
from war_env.records import RoundRecord

def read_rounds(path: Path, repair: bool = False) -> list[RoundRecord]:
    """The records of ``rounds.jsonl``. A last line cut off by a crash (no newline at its end) is
    ignored, and with ``repair`` removed from the file, so appending continues on a clean line."""
    if not path.exists():
        return []
    data = path.read_bytes()
    complete = data[: data.rfind(b"\n") + 1]
    if repair and len(complete) < len(data):
        with open(path, "r+b") as handle:
            handle.truncate(len(complete))
    records = []
    for number, line in enumerate(complete.decode().splitlines(), start=1):
        try:
            records.append(RoundRecord.from_json(line))
        except (ValueError, TypeError) as error:
            raise ValueError(f"{path}:{number} is not a round record: {error}") from None
    return records


def index_records(records: Iterable[RoundRecord], league: League) -> dict[tuple[str, str, int], RoundRecord]:
    """Records by (agent, opponent, round); refuses records that do not belong to the league."""
    indexed: dict[tuple[str, str, int], RoundRecord] = {}
    for record in records:
        key = (record.agent, record.opponent, record.round)
        if (record.agent not in league.agents or record.opponent not in league.opponents
                or not 0 <= record.round < league.rounds or record.seed != league.round_seed(record.round)):
            raise ValueError(f"round record {key} (seed {record.seed}) does not belong to this league")
        if key in indexed and indexed[key] != record:
            raise ValueError(f"two different records for round {key} in rounds.jsonl")
        indexed[key] = record
    return indexed
