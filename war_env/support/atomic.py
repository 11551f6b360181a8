"""Files that a reader (or a crash) never sees half-written: write a temporary file, then rename. And
errors of the file system (a read-only folder, a full disk) that name the file the user knows."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def naming_path(path: str | os.PathLike) -> Iterator[None]:
    """Within the block, an ``OSError`` names ``path``: a write to an open file that fails for a full
    disk names no file, and a failing temporary file names one the user never asked for."""
    try:
        yield
    except OSError as error:
        if error.errno is None:
            raise type(error)(f"{path}: {error}") from None
        raise type(error)(error.errno, error.strerror, str(path)) from None


def write_atomic(path: str | os.PathLike, data: str | bytes) -> None:
    """Write ``data`` to a temporary file next to ``path``, flush it to disk, then rename it over
    ``path``: readers see the old file or the new one, never a part of one."""
    path = Path(path)
    payload = data.encode() if isinstance(data, str) else data
    with naming_path(path):
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as file:
                file.write(payload)
                file.flush()
                os.fsync(file.fileno())
            os.chmod(temporary, 0o666 & ~_umask())  # mkstemp makes 0600 files; these are ordinary files
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
