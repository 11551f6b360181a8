"""The keeper of one ``exec:`` program: it starts the program, and no process the program starts outlives it.

Run by ``ExecAgent`` as ``python -I exec_keeper.py PARENT_PID STDERR_BYTES -- COMMAND...`` (by path, with the
standard library only, so it starts in milliseconds). The program's standard input and output are the
agent's pipes (the keeper closes its own copies, so the agent sees the program's end of output); its
standard error goes through the keeper, which passes on the first ``STDERR_BYTES`` and drops the rest.

Why a keeper: a process group is not a container. A program's child may call ``setsid`` (a group of its
own, which ``killpg`` misses), and when the process that started the program is killed with ``kill -9``
no clean-up code of it runs, so its grandchildren lived on. The keeper is, on Linux:

- a *child subreaper* (``PR_SET_CHILD_SUBREAPER``): a descendant whose parent dies is re-parented to the
  keeper, not to pid 1, so every process the program starts stays in the keeper's tree whatever its
  session or group;
- told by the kernel when the agent's process dies (``PR_SET_PDEATHSIG`` = SIGTERM), ``kill -9`` too;
- the one that sweeps: when the program ends, or the keeper gets SIGTERM (from the agent's ``close()``
  or from the kernel), it kills every descendant (found in ``/proc`` by parent pid) with SIGKILL and
  reaps them, again and again until it has no child left, then exits with the program's own status.

What it does not contain (docs/realtime.md says it too): a process that leaves the tree by asking
another process to start it (a daemon over a socket: ``systemd-run``, ``at``, ``docker run``), a
process started with ``CLONE_PARENT`` by the program itself (a sibling of the keeper), a keeper killed
with SIGKILL by someone else (its program is then killed by the kernel, ``PR_SET_PDEATHSIG``, but not
that program's children), and the program's use of CPU, memory, disk and network, which nothing here
limits. Off Linux (no subreaper, no ``/proc``) the sweep is the keeper's process group only.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36


def main(argv: list[str]) -> int:
    parent, stderr_bytes, command = int(argv[0]), int(argv[1]), argv[3:]
    prctl = _prctl()
    if prctl is not None:
        prctl(_PR_SET_CHILD_SUBREAPER, 1)
        prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != parent:  # the agent's process died before the kernel was told to warn us
        return 1
    signal.signal(signal.SIGTERM, lambda *_: _end(1))
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the league's: it stops its agents itself
    try:
        program = subprocess.Popen(command, stderr=subprocess.PIPE, preexec_fn=lambda: _die_with_keeper(prctl))
    except OSError as error:
        os.write(2, f"war-env: cannot start {command[0]!r}: {error.strerror}\n".encode())
        return 127
    _close_own_copies_of_the_pipes()
    threading.Thread(target=_pass_on_capped, args=(program.stderr, stderr_bytes), daemon=True).start()
    status = program.wait()
    _end(status)


def _close_own_copies_of_the_pipes() -> None:
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)


def _pass_on_capped(stream, limit: int) -> None:
    """Copy the program's stderr to ours up to ``limit`` bytes; read and drop the rest (a program blocked on
    a full pipe would miss its deadlines for a reason not its own)."""
    passed = dropped = 0
    while chunk := stream.read1(65536):
        keep = chunk[: max(0, limit - passed)]
        if keep:
            os.write(2, keep)
            passed += len(keep)
        if len(keep) < len(chunk):
            if not dropped:
                os.write(
                    2,
                    f"\nwar-env: the rest of this program's stderr is dropped (it is capped at {limit} "
                    f"bytes per start)\n".encode(),
                )
            dropped += len(chunk) - len(keep)


def _end(status: int) -> None:
    """Kill every process left in the tree, then exit as the program did (its status, or its signal)."""
    _sweep()
    if status < 0:
        signal.signal(-status, signal.SIG_DFL)
        os.kill(os.getpid(), -status)
    os._exit(status if status >= 0 else 1)


def _sweep() -> None:
    """SIGKILL every descendant and reap, until no child is left: orphans come to the keeper (a subreaper)
    as their parents die, so a process forked between two scans is found by the next one."""
    if not os.path.isdir("/proc/self"):  # off Linux: the group, the keeper included
        os.killpg(os.getpgrp(), signal.SIGKILL)
    while True:
        for pid in _descendants(os.getpid()):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            reaped, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if not reaped:
            time.sleep(0.005)


def _descendants(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat", "rb") as stat:
                    parent = int(stat.read().rpartition(b")")[2].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(name))
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), ()):
            found.append(child)
            todo.append(child)
    return found


def _prctl():
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


def _die_with_keeper(prctl) -> None:
    if prctl is not None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
