"""One run at a time in a run folder (``war-bench --out``, ``war-train --run-dir``).

A run holds ``RUN/.lock`` (an OS file lock through the ``filelock`` library) from before it reads or
writes anything in the folder until it ends. A second command on the same folder finds the lock held
and stops at once with ``RunFolderBusy`` instead of appending the same rounds (or checkpoints) twice.
The OS releases the lock when its process ends, however it ends (``kill -9`` included), so a killed
run never leaves a folder locked; the empty ``.lock`` file stays and means nothing by itself.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

LOCK_NAME = ".lock"


class RunFolderBusy(BlockingIOError):
    """Another process is running in the folder (an ``OSError``: the command exits with status 1)."""


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
