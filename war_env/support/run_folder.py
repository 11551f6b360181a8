"""A run folder: one run at a time, its settings frozen when it starts, a record of its sessions.

Every command that writes a run into a folder and can continue it (``war-bench``, ``war-bench --suite``,
``war-train``, ``war-curves``, the learners' table) keeps it the same way:

* **The lock.** A run holds ``RUN/.lock`` (an OS file lock through the ``filelock`` library) from before it
  reads or writes anything in the folder until it ends. A second command on the same folder finds the lock
  held and stops at once with ``RunFolderBusy`` instead of appending the same rounds (or checkpoints) twice.
  The OS releases the lock when its process ends, however it ends (``kill -9`` included), so a killed run
  never leaves a folder locked; the empty ``.lock`` file stays and means nothing by itself.
* **Frozen settings.** The settings a run starts with are written once, atomically, to a JSON file of the
  folder (``freeze_settings``). Running the folder again with other settings is refused with
  ``RunFolderConflict``, whose one-line message names the first setting that differs. A resumed run reads
  them back (``read_settings``).
* **Sessions.** Each session that works in the folder appends what it did to ``RUN/run.json``'s ``sessions``
  (``record_session``): a later session, a report-only one included, adds to that record and never
  replaces it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from war_env.support.atomic import write_atomic

LOCK_NAME = ".lock"
SESSIONS_FILE = "run.json"
"""The record of a folder's sessions: ``{"sessions": [...], ...}`` (a command may keep more keys beside them)."""
SHOWN_CHARACTERS = 60
"""The longest value a conflict's message quotes (a long list is cut, so the message stays one short line)."""


class RunFolderBusy(BlockingIOError):
    """Another process is running in the folder (an ``OSError``: the command exits with status 1)."""


class RunFolderConflict(ValueError):
    """The command would not continue the run its folder holds: other settings than the frozen ones, or a new
    run where one was started (a ``ValueError``: the command exits with its usage error)."""


@contextmanager
def locked_run_folder(run_dir: str | Path, command: str) -> Iterator[Path]:
    """Create ``run_dir`` if needed and hold its lock for the block; ``command`` names who holds it."""
    from filelock import FileLock, Timeout

    run_dir = Path(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    lock = FileLock(run_dir / LOCK_NAME, timeout=0)
    try:
        lock.acquire()
    except Timeout:
        raise RunFolderBusy(
            f"{run_dir} is in use by another {command} (it holds {run_dir / LOCK_NAME}); wait for it "
            "to end, or choose another folder"
        ) from None
    try:
        yield run_dir
    finally:
        lock.release()


def freeze_settings(run_dir: str | Path, name: str, settings: dict, advice: str, ignore: Sequence[str] = ()) -> dict:
    """Write ``settings`` to ``run_dir/name`` when the folder has none; when it has, they must be the same
    (``check_same_settings``, ``ignore`` aside) and the recorded ones are returned."""
    path = Path(run_dir) / name
    if not path.exists():
        write_settings(path, settings)
        return settings
    recorded = read_settings(run_dir, name)
    check_same_settings(path, recorded, settings, advice, ignore)
    return recorded


def write_settings(path: str | Path, settings: dict) -> None:
    """Write a run's settings atomically (a crash leaves the old file or the new one, never a part)."""
    write_atomic(path, json.dumps(settings, indent=2) + "\n")


def read_settings(run_dir: str | Path, name: str, what: str = "run") -> dict:
    """The settings frozen in ``run_dir/name``. A folder without them, or a file that is not a JSON object, is an
    error naming the file; ``what`` names the kind of run in that message."""
    run_dir = Path(run_dir)
    path = run_dir / name
    if not path.is_file():
        raise FileNotFoundError(f"{run_dir} is not a {what} folder (no {name})")
    try:
        settings = json.loads(path.read_text())
    except ValueError as error:  # JSONDecodeError is a ValueError
        raise RunFolderConflict(f"{path} is not a {what}'s settings: {error}") from None
    if not isinstance(settings, dict):
        raise RunFolderConflict(f"{path} is not a {what}'s settings: a JSON {type(settings).__name__}, not an object")
    return settings


def check_same_settings(path: str | Path, recorded: dict, given: dict, advice: str, ignore: Sequence[str] = ()) -> None:
    """Refuse ``given`` when a setting differs from ``recorded`` (the file ``path``'s), naming the first that
    does (in key order, nested keys with dots); top-level keys in ``ignore`` are not compared."""
    difference = first_difference(
        {key: value for key, value in recorded.items() if key not in ignore},
        {key: value for key, value in given.items() if key not in ignore},
    )
    if difference is not None:
        key, before, now = difference
        raise RunFolderConflict(f"{path} was started with {key}={_shown(before)}, not {_shown(now)}: {advice}")


MISSING = "(not set)"


def first_difference(recorded: dict, given: dict, prefix: str = "") -> tuple[str, object, object] | None:
    """The first key (sorted, nested keys joined by dots) whose values differ, with both values (``MISSING``
    where a side lacks the key); ``None`` when the two are the same."""
    for key in sorted(set(recorded) | set(given), key=str):
        before, now = recorded.get(key, MISSING), given.get(key, MISSING)
        if isinstance(before, dict) and isinstance(now, dict):
            inner = first_difference(before, now, f"{prefix}{key}.")
            if inner is not None:
                return inner
        elif before != now:
            return f"{prefix}{key}", before, now
    return None


def _shown(value: object) -> str:
    text = value if value is MISSING else json.dumps(value)
    return text if len(text) <= SHOWN_CHARACTERS else text[: SHOWN_CHARACTERS - 3] + "..."


def refuse_started(run_dir: str | Path, what: str, advice: str) -> None:
    """A new run in a folder that holds one (``what``): refused, never overwritten."""
    raise RunFolderConflict(f"{run_dir} already holds {what}: {advice}")


def read_sessions(run_dir: str | Path, name: str = SESSIONS_FILE) -> dict:
    """The folder's record of its sessions (``{"sessions": []}`` before its first)."""
    path = Path(run_dir) / name
    if not path.exists():
        return {"sessions": []}
    record = read_settings(run_dir, name, what="run record")
    if not isinstance(record.get("sessions", []), list):
        raise RunFolderConflict(f"{path}: sessions is not a list")
    return {"sessions": [], **record}


def record_session(run_dir: str | Path, session: dict | None, name: str = SESSIONS_FILE, **fields) -> dict:
    """Append ``session`` to the folder's record of sessions (``None``: this session did nothing to record),
    set ``fields`` beside them, and write it atomically; returns the record."""
    record = {**read_sessions(run_dir, name), **fields}
    if session is not None:
        record["sessions"] = [*record["sessions"], session]
    write_atomic(Path(run_dir) / name, json.dumps(record, indent=2) + "\n")
    return record
