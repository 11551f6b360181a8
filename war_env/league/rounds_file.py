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

import dataclasses
import gzip
import hashlib
import json
import math
import os
import random
import tempfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from war_env.core.rewards import return_by_cause
from war_env.core.round_info import END_REASONS, RoundResult, kind_of
from war_env.core.rules import WarConfig
from war_env.core.specs import split_spec
from war_env.evaluation.records import RoundRecord
from war_env.evaluation.summary import RoundColumns
from war_env.league.league import League
from war_env.support.atomic import naming_path

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
    reader = _RecordReader(Path(path))
    records = [record for _, record in reader]
    if repair:
        reader.repair()
    return records


@dataclass
class LeagueRounds:
    """What ``load_rounds`` read: every pairing's rounds as columns, and what it checked and repaired."""

    pairings: dict[tuple[str, str], RoundColumns]
    """(agent, opponent) -> its rounds; round i is the deal of ``league.round_seed(i)``."""
    replayed: list[str] = field(default_factory=list)
    """How each pairing's records were replayed (one line each), when asked to replay."""
    duplicates: int = 0
    """Lines that repeated a record exactly (dropped from the file by a repair, else refused)."""

    def done(self) -> set[tuple[str, str, int]]:
        """The (agent, opponent, round) of every round read."""
        return {
            (agent, opponent, int(index))
            for (agent, opponent), columns in self.pairings.items()
            for index in np.flatnonzero(columns.present)
        }

    def __len__(self) -> int:
        return sum(columns.rounds for columns in self.pairings.values())

    @property
    def complete(self) -> bool:
        return all(columns.complete for columns in self.pairings.values())


def load_rounds(
    path: str | os.PathLike, league: League, repair: bool = False, replay: bool = False, trust_model_file: bool = False
) -> LeagueRounds:
    """The league's rounds, read as a stream (a million rounds fit in a few dozen MB: ``RoundColumns``), each
    record checked against ``league`` (see the module). A line repeating a record exactly is dropped from
    the file with ``repair`` (a resume), else refused. ``replay`` plays records again and compares them
    (``replay_rounds``)."""
    path = Path(path)
    config = league.config
    outcomes = _card_outcomes(league)
    reward_scale = max(abs(getattr(config, name)) for name in WarConfig.field_names() if name.startswith("reward_"))
    rounds = LeagueRounds(
        {
            (agent, opponent): RoundColumns(league.rounds, config.turn_ticks)
            for agent in league.agents
            for opponent in league.opponents
        }
    )
    fingerprints = {pairing: np.zeros(league.rounds, dtype=np.uint64) for pairing in rounds.pairings}
    lines = {pairing: np.zeros(league.rounds, dtype=np.int64) for pairing in rounds.pairings}
    reader = _RecordReader(path)
    for number, record in reader:
        problem = _problem(record, league, config, outcomes, reward_scale)
        if problem is None:
            pairing = (record.agent, record.opponent)
            columns, fingerprint = rounds.pairings[pairing], _fingerprint(record)
            if columns.present[record.round]:
                if fingerprints[pairing][record.round] != fingerprint:
                    problem = (
                        f"a second, different record of round {record.round} of {record.agent} vs {record.opponent}"
                    )
                elif not repair:
                    problem = f"a second copy of round {record.round} of {record.agent} vs {record.opponent}"
                else:
                    reader.drop(number)
                    rounds.duplicates += 1
                    continue
            else:
                columns.add(record.round, record)
                fingerprints[pairing][record.round] = fingerprint
                lines[pairing][record.round] = number
        if problem is not None:
            raise ValueError(f"{path}:{number}: {problem}")
    if repair:
        reader.repair()
    if replay:
        rounds.replayed = replay_rounds(league, rounds, Stored(path, fingerprints, lines), trust_model_file)
    return rounds


# --- replaying records ----------------------------------------------------------------------------------
REPLAY_CHUNK = 4096
REPLAYED_SAMPLE = 8
"""Rounds per pairing of a model agent (``ppo:PATH``, ...) replayed (chosen at random, anew on every read: an
edit cannot know which rounds will be checked); every other pairing is replayed whole."""


@dataclass(frozen=True)
class Stored:
    """What was read of each record, to compare with its replay: its fingerprint and its line in ``path``."""

    path: Path
    fingerprints: dict
    lines: dict


def replay_rounds(league: League, rounds: LeagueRounds, stored: Stored, trust_model_file: bool = False) -> list[str]:
    """Play records again and compare them with what was read: every agent and opponent of the project is
    seeded by the round and deterministic, so a round replays exactly. Every pairing of the project's own
    agents is replayed whole (a reaction-time agent against a bot on the fast path, microseconds a round;
    the others, ``random:p=0.2`` the slowest, tens of milliseconds); a pairing with a model agent or
    opponent in ``REPLAYED_SAMPLE`` rounds drawn at random, since replaying it costs what playing did.
    Every record's card outcome, fields and return were checked on reading. A record that differs from
    its replay is an error naming its file and line and the fields that differ. Returns one line per
    pairing saying what was replayed. Rounds played in real time, and by an ``exec:`` program, are not
    replayed (``_not_replayable``)."""
    from war_env.agents import make_agent, make_opponent

    config, checked = league.config, []
    choose = random.SystemRandom()
    for (agent, opponent), columns in rounds.pairings.items():
        present = np.flatnonzero(columns.present).tolist()
        if not present:
            continue
        unreplayable = _not_replayable(league, agent, opponent)
        if unreplayable is not None:
            checked.append(f"{agent} vs {opponent}: not replayed ({unreplayable})")
            continue
        player = make_opponent(opponent, config=config, trust_model_file=trust_model_file)
        built = make_agent(agent, config=config, opponent=player, trust_model_file=trust_model_file)
        whole = not (_is_model(agent) or _is_model(opponent))
        indices = present if whole else sorted(choose.sample(present, min(REPLAYED_SAMPLE, len(present))))
        for start in range(0, len(indices), REPLAY_CHUNK):  # a chunk of records at a time: memory stays flat
            _compare(
                league,
                built,
                player,
                (agent, opponent),
                indices[start : start + REPLAY_CHUNK],
                stored,
                trust_model_file,
            )
        what = "every round" if whole else f"{len(indices)} of its {len(present)} rounds, at random"
        checked.append(f"{agent} vs {opponent}: {what}")
    return checked


def _compare(
    league: League, built, player, pairing: tuple[str, str], indices: list[int], stored: Stored, trust_model_file: bool
) -> None:
    from war_env.evaluation import play_rounds

    agent, opponent = pairing
    replays = play_rounds(
        built,
        player,
        league.config,
        [league.round_seed(i) for i in indices],
        indices=indices,
        agent_spec=agent,
        opponent_spec=opponent,
        trust_model_file=trust_model_file,
        env_id=league.env_id,
    )
    for index, replay in zip(indices, replays):
        if _fingerprint(replay) != stored.fingerprints[pairing][index]:
            line = int(stored.lines[pairing][index])
            raise ValueError(
                f"{stored.path}:{line}: round {index} of {agent} vs {opponent} is not what the round "
                f"plays: {_differences(_record_at(stored.path, line), replay)}"
            )


def _differences(record: RoundRecord | None, replay: RoundRecord, shown: int = 3) -> str:
    """The fields in which a record differs from its replay, the first ``shown`` of them, each value cut short."""
    if record is None:
        return "the record differs from its replay"
    mine, played = _every_field(record), _every_field(replay)
    differ = [name for name in played if mine[name] != played[name]]
    if not differ:
        return "the record's JSON differs from its replay's, field for field the same"
    parts = [f"{name} {_cut(mine.get(name))} (replayed: {_cut(played[name])})" for name in differ[:shown]]
    more = f" and {len(differ) - shown} more field(s)" if len(differ) > shown else ""
    return "; ".join(parts) + more


def _every_field(record: RoundRecord) -> dict:
    """Every field in its JSON form, the optional ones at their default too (``to_json_dict`` leaves those out, and
    a forged ``agent_error`` or ``compute_ticks`` differs from a replay that has none)."""
    return {item.name: kind_of(item).to_json(getattr(record, item.name)) for item in dataclasses.fields(record)}


def _cut(value, width: int = 40) -> str:
    text = json.dumps(value)
    return text if len(text) <= width else text[: width - 3] + "..."


def _record_at(path: Path, line: int) -> RoundRecord | None:
    """The record on ``line`` of the rounds file (read again: only when a replay differs)."""
    for number, record in _RecordReader(path):
        if number == line:
            return record
    return None


def _is_model(spec: str) -> bool:
    from war_env.agents import MODEL_ALGOS

    return split_spec(spec)[0] in MODEL_ALGOS


def _not_replayable(league: League, agent: str, opponent: str) -> str | None:
    """Why a pairing's rounds cannot be checked by playing them again, or ``None``."""
    from war_env.agents import is_exec_spec

    if league.realtime is not None:
        return "played in real time: its timing was the machine's"
    if is_exec_spec(agent) or is_exec_spec(opponent):
        return "an exec: program: not the project's, and not started again without the command line"
    return None


def _fingerprint(record: RoundRecord) -> np.uint64:
    """64 bits of a hash of the record's canonical JSON: two records are equal if (and, but for a chance of
    2**-64, only if) their fingerprints are."""
    return np.uint64(int.from_bytes(hashlib.blake2b(record.to_json().encode(), digest_size=8).digest(), "little"))


# --- reading ----------------------------------------------------------------------------------------
class _RecordReader:
    """The records of a rounds file, numbered by line, decompressed member by member and chunk by chunk (the
    file is never held whole). After the last one: ``ended`` (the last gzip member had its end) and ``cut``
    (what followed the last whole record: a line a crash cut). ``repair`` rewrites the file without the cut
    part and without the lines ``drop`` names."""

    CHUNK = 1 << 20

    def __init__(self, path: Path):
        self.path = path
        self.ended = True
        self.cut = b""
        self.whole = 0
        self._dropped: set[int] = set()

    def __iter__(self) -> Iterator[tuple[int, RoundRecord]]:
        lines = self._lines()
        number, line = 0, next(lines, None)
        while line is not None:
            following = next(lines, None)
            number += 1
            try:
                record = RoundRecord.from_json(line.decode("utf-8"))
            except (UnicodeDecodeError, ValueError, RecursionError) as error:  # JSONDecodeError is a ValueError
                if isinstance(error, RecursionError):
                    error = "JSON nested deeper than Python parses"
                if following is not None or not _looks_cut(line):
                    raise ValueError(f"{self.path}:{number} is not a round record: {error}") from None
                self.cut = line  # the crash's cut line, with a newline after it
                return
            self.whole = number
            yield number, record
            line = following

    def drop(self, number: int) -> None:
        self._dropped.add(number)

    def repair(self) -> None:
        """Rewrite the file with its whole records only, if a crash left more or lines were dropped."""
        if not (self.cut or not self.ended or self._dropped):
            return
        with naming_path(self.path):
            handle, temporary = tempfile.mkstemp(dir=self.path.parent, prefix=f".{self.path.name}.", suffix=".tmp")
            try:
                with os.fdopen(handle, "wb") as file, gzip.GzipFile(fileobj=file, mode="wb", mtime=0) as out:
                    for number, line in enumerate(_RecordReader(self.path)._lines(), start=1):
                        if number > self.whole:
                            break
                        if number not in self._dropped:
                            out.write(line + b"\n")
                os.replace(temporary, self.path)
            except BaseException:
                Path(temporary).unlink(missing_ok=True)
                raise

    def _lines(self) -> Iterator[bytes]:
        """Every line of the decompressed members (without its newline); what follows the last newline is
        left in ``cut`` (a crash's cut line without its newline). Bytes that are not gzip at all are an error
        naming the offset."""
        if not self.path.exists():
            return
        rest = b""
        with naming_path(self.path), open(self.path, "rb") as file:
            for text in self._decompressed(file):
                lines = (rest + text).split(b"\n")
                rest = lines.pop()
                yield from lines
        self.cut = rest

    def _decompressed(self, file) -> Iterator[bytes]:
        """The decompressed text of the file's gzip members, one after the other; sets ``ended``: whether the
        last member had its end (a killed writer leaves one without)."""
        stream, data, started = zlib.decompressobj(wbits=31), b"", False
        member_at = fed = 0  # where the current member starts in the file; bytes given to the streams
        while True:
            if not data:
                data = file.read(self.CHUNK)
                if not data:
                    self.ended = not started
                    return
            try:
                yield stream.decompress(data)
            except zlib.error as error:
                raise ValueError(
                    f"{self.path} is not a whole gzip file (damaged at or after byte {member_at}): {error}"
                ) from None
            if stream.eof:  # the member ended: the next one starts in what is left
                member_at = fed = fed + len(data) - len(stream.unused_data)
                data, stream, started = stream.unused_data, zlib.decompressobj(wbits=31), False
            else:
                fed += len(data)
                data, started = b"", True


def _looks_cut(line: bytes) -> bool:
    """A line a crash cut short: the start of a JSON object that never closes."""
    return line.startswith(b"{") and not line.rstrip().endswith(b"}")


# --- checking against the league ---------------------------------------------------------------------
def _problem(
    record: RoundRecord, league: League, config: WarConfig, outcomes: dict[int, RoundResult], reward_scale: float
) -> str | None:
    """What is wrong with ``record`` in ``league`` (None: nothing). A return may differ from the one its
    fields give by the rounding of a sum of one reward per tick (``reward_scale``: the largest weight)."""
    if record.agent not in league.agents or record.opponent not in league.opponents:
        return f"the pairing {record.agent} vs {record.opponent} is not in this league"
    if not 0 <= record.round < league.rounds or record.seed != league.round_seed(record.round):
        return (
            f"round {record.round} with seed {record.seed} is not in this league "
            f"(rounds 0..{league.rounds - 1}, seed {league.seed} + round)"
        )
    if record.reason not in END_REASONS:
        return f"reason {record.reason!r}: a benchmark round ends with one of {list(END_REASONS)}"
    card = record.card_outcome()
    if card != outcomes[record.round]:
        return (
            f"the cards of round {record.round} (seed {record.seed}) give {outcomes[record.round]}, "
            f"the record says {card}"
        )
    if max(record.reaction_ticks[0], default=0) >= config.turn_ticks:
        return f"a reaction of {max(record.reaction_ticks[0])} ticks in a turn of {config.turn_ticks}"
    if record.steps > record.ticks or (record.steps != record.ticks and not record.takeover[0]):
        return f"{record.steps} steps in {record.ticks} ticks without a takeover of the agent"
    expected = _return(record, config)
    if not math.isclose(
        record.episode_return, expected, rel_tol=1e-9, abs_tol=1e-9 * reward_scale * (record.ticks + 1)
    ):
        return f"episode_return {record.episode_return!r}, but the record's own fields give {expected!r}"
    return None


def _return(record: RoundRecord, config: WarConfig) -> float:
    """The agent's return from its record: the outcome, its false starts, its idle ticks (each draw's
    reaction, and a whole turn before a takeover) and the takeover."""
    parts = return_by_cause(
        config, record.winner, record.false_starts[0], record.idle_ticks(0, config.turn_ticks), record.takeover[0]
    )
    return sum(parts.values())


def _card_outcomes(league: League) -> dict[int, RoundResult]:
    """Round index -> the card outcome of the deal of its seed."""
    from war_env.evaluation.fastpath import deals_from_seeds, play_cards

    seeds = [league.round_seed(i) for i in range(league.rounds)]
    cards = play_cards(league.config, *deals_from_seeds(seeds))
    return {i: cards.info(i).card_outcome() for i in range(league.rounds)}
