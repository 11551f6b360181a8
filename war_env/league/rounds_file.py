"""``rounds.jsonl.gz``: every played round of a run, one ``RoundRecord`` per line of gzip-compressed JSON.

Writing (``RoundsWriter``): a session appends one gzip member to the file and flushes it after every
record (``Z_SYNC_FLUSH``), so what is on disk decompresses up to the last finished round even when
the process is killed before the member's end is written. Compressed, the default league's 38,400
records take 2.2 MB instead of 17 MB.

Reading (``read_rounds``, ``load_rounds``): the members are decompressed one after the other; a
member without its end (a killed session) and a last line cut in the middle (with or without a
newline after it) are what a crash leaves, and are dropped. With ``repair`` (a resume) the file is
rewritten without them first, so the next session appends after whole records. Anything else that
does not read is an error naming the file and the line (as ``zcat FILE | sed -n LINEp`` shows it).

``load_rounds`` also checks every record against the league: it belongs to one of its pairings
with the right seed, every field has its type and range, the card outcome (winner, reason, battles,
wars, points, cards) is what the deal of its seed gives (replayed, all rounds at once, by
``war_env.evaluation.fastpath.play_cards``: the cards never depend on timing), and the return is the sum of
the round's rewards that its own fields imply. An edited or foreign record is refused, naming it.
"""

from __future__ import annotations

import gzip
import math
import os
import zlib
from pathlib import Path

from war_env.core.rewards import return_by_cause
from war_env.core.round_info import END_REASONS, RoundResult
from war_env.core.rules import WarConfig
from war_env.evaluation.records import RoundRecord
from war_env.league.league import League
from war_env.support.atomic import naming_path, write_atomic

ROUNDS_FILE = "rounds.jsonl.gz"


class RoundsWriter:
    """Appends records to a rounds file as one new gzip member, each record flushed to the OS at once."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        with naming_path(self.path):
            self._file = open(self.path, "ab")
            self._gzip = gzip.GzipFile(filename="", fileobj=self._file, mode="ab", mtime=0)

    def write(self, record: RoundRecord) -> None:
        with naming_path(self.path):
            self._gzip.write(record.to_json().encode() + b"\n")
            self._gzip.flush()  # Z_SYNC_FLUSH: decompressible up to here whatever happens next

    def close(self) -> None:
        """End the member (its trailer) and put the file on disk."""
        with naming_path(self.path):
            self._gzip.close()
            self._file.flush()
            os.fsync(self._file.fileno())
            self._file.close()

    def __enter__(self) -> RoundsWriter:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def read_rounds(path: str | os.PathLike, repair: bool = False) -> list[RoundRecord]:
    """The records of a rounds file, in file order; ``repair`` drops what a crash left (see the module)."""
    return [record for _, record in _numbered_records(Path(path), repair)]


def load_rounds(path: str | os.PathLike, league: League, repair: bool = False) -> dict[tuple[str, str, int], RoundRecord]:
    """The records by (agent, opponent, round), each checked against ``league`` (see the module)."""
    path = Path(path)
    numbered = _numbered_records(path, repair)
    config = league.config
    outcomes = _card_outcomes(league)
    reward_scale = max(abs(getattr(config, name)) for name in WarConfig.field_names() if name.startswith("reward_"))
    indexed: dict[tuple[str, str, int], RoundRecord] = {}
    for number, record in numbered:
        problem = _problem(record, league, config, outcomes, reward_scale)
        key = (record.agent, record.opponent, record.round)
        if problem is None and key in indexed and indexed[key] != record:
            problem = f"a second, different record of round {record.round} of {record.agent} vs {record.opponent}"
        if problem is not None:
            raise ValueError(f"{path}:{number}: {problem}")
        indexed[key] = record
    return indexed


# --- reading ----------------------------------------------------------------------------------------
def _numbered_records(path: Path, repair: bool) -> list[tuple[int, RoundRecord]]:
    if not path.exists():
        return []
    with naming_path(path):
        data = path.read_bytes()
    text, ended = _decompress(path, data)
    lines = text.split(b"\n")
    cut = lines.pop()  # after the last newline: b"" when the file ends with a whole line
    records = []
    for number, line in enumerate(lines, start=1):
        try:
            records.append((number, RoundRecord.from_json(line.decode("utf-8"))))
        except (UnicodeDecodeError, ValueError, RecursionError) as error:  # JSONDecodeError is a ValueError
            if isinstance(error, RecursionError):
                error = "JSON nested deeper than Python parses"
            if number < len(lines) or not _looks_cut(line):
                raise ValueError(f"{path}:{number} is not a round record: {error}") from None
            cut = line  # the crash's cut line, with a newline after it
    if repair and (cut or not ended):
        kept = b"".join(line + b"\n" for line in lines[: len(records)])
        write_atomic(path, gzip.compress(kept, mtime=0))
    return records


def _looks_cut(line: bytes) -> bool:
    """A line a crash cut short: the start of a JSON object that never closes."""
    return line.startswith(b"{") and not line.rstrip().endswith(b"}")


def _decompress(path: Path, data: bytes) -> tuple[bytes, bool]:
    """The text of concatenated gzip members, and whether the last one ended. Input that stops early
    is what a killed writer leaves; bytes that are not gzip at all are an error naming the offset."""
    pieces, offset = [], 0
    while offset < len(data):
        stream = zlib.decompressobj(wbits=31)  # gzip framing
        try:
            pieces.append(stream.decompress(data[offset:]))
        except zlib.error as error:
            raise ValueError(f"{path} is not a whole gzip file (damaged at or after byte {offset}): {error}") from None
        if not stream.eof:
            return b"".join(pieces), False
        offset = len(data) - len(stream.unused_data)
    return b"".join(pieces), True


# --- checking against the league ---------------------------------------------------------------------
def _problem(record: RoundRecord, league: League, config: WarConfig, outcomes: dict[int, RoundResult],
             reward_scale: float) -> str | None:
    """What is wrong with ``record`` in ``league`` (None: nothing). A return may differ from the one its
    fields give by the rounding of a sum of one reward per tick (``reward_scale``: the largest weight)."""
    if record.agent not in league.agents or record.opponent not in league.opponents:
        return f"the pairing {record.agent} vs {record.opponent} is not in this league"
    if not 0 <= record.round < league.rounds or record.seed != league.round_seed(record.round):
        return (f"round {record.round} with seed {record.seed} is not in this league "
                f"(rounds 0..{league.rounds - 1}, seed {league.seed} + round)")
    if record.reason not in END_REASONS:
        return f"reason {record.reason!r}: a benchmark round ends with one of {list(END_REASONS)}"
    card = record.card_outcome()
    if card != outcomes[record.round]:
        return f"the cards of round {record.round} (seed {record.seed}) give {outcomes[record.round]}, the record says {card}"
    if max(record.reaction_ticks[0], default=0) >= config.turn_ticks:
        return f"a reaction of {max(record.reaction_ticks[0])} ticks in a turn of {config.turn_ticks}"
    if record.steps > record.ticks or (record.steps != record.ticks and not record.takeover[0]):
        return f"{record.steps} steps in {record.ticks} ticks without a takeover of the agent"
    expected = _return(record, config)
    if not math.isclose(record.episode_return, expected, rel_tol=1e-9, abs_tol=1e-9 * reward_scale * (record.ticks + 1)):
        return f"episode_return {record.episode_return!r}, but the record's own fields give {expected!r}"
    return None


def _return(record: RoundRecord, config: WarConfig) -> float:
    """The agent's return from its record: the outcome, its false starts, its idle ticks (each draw's
    reaction, and a whole turn before a takeover) and the takeover."""
    parts = return_by_cause(config, record.winner, record.false_starts[0], record.idle_ticks(0, config.turn_ticks),
                            record.takeover[0])
    return sum(parts.values())


def _card_outcomes(league: League) -> dict[int, RoundResult]:
    """Round index -> the card outcome of the deal of its seed."""
    from war_env.evaluation.fastpath import deals_from_seeds, play_cards

    seeds = [league.round_seed(i) for i in range(league.rounds)]
    cards = play_cards(league.config, *deals_from_seeds(seeds))
    return {i: cards.info(i).card_outcome() for i in range(league.rounds)}
