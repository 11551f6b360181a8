"""``exec:COMMAND``: an agent in any language, a child process that speaks JSON lines on stdin/stdout.

The protocol (version 1; docs/realtime.md has it with examples). One JSON object per line, UTF-8, each
way; the program reads the war-env's lines on its standard input and writes its own on standard output
(flushed after each line); standard error is passed on to ours, up to ``STDERR_BYTES`` per start.

=====================================  ==========================================================
war-env sends                          the program answers
=====================================  ==========================================================
``{"type": "hello", "protocol": 1,     ``{"type": "hello"}`` (may add ``"name"``), within
"observation": {...}, "action": {...},  ``HELLO_SECONDS``
"rules": {...}}``
``{"type": "reset", "seed": S}``       nothing (a round starts; ``S`` seeds the program's randomness)
``{"type": "observation",              ``{"action": 0}`` (wait) or ``{"action": 1}`` (draw), within
"observation": [x0, x1, ...]}``         the agent's ``deadline`` (``DECISION_SECONDS``)
``{"type": "close"}``                  nothing: exit (killed after ``CLOSE_SECONDS``)
=====================================  ==========================================================

An action may be written ``0.0`` or ``1.0`` (some JSON writers, such as jq, put a point in every number).

``observation`` in the hello has ``fields`` (the names of the floats, in order), ``low``, ``high`` and
``shape``; ``action`` has ``n`` (2) and ``meanings``; ``rules`` is the env's ``WarConfig`` field by field.

A program that breaks the protocol cannot hurt the run: a line that is not such JSON, a line longer than
``LINE_BYTES``, an action outside {0, 1}, no answer by the deadline, an exit, more output than the one line
asked for, not reading its input: each ends the program (its process group is killed) with a one-line
error naming the agent and what it sent (``round_error()``, kept in the round's record, and printed once
on stderr); the seat waits for the rest of the round, so the rules handle it (the turn timer takes the
seat over), and the program is started again for the next round. No process of the program outlives its
agent: it runs under a keeper (``exec_keeper.py``, which says what is and is not contained) that
``close()``, garbage collection, the interpreter's exit and, on Linux, the death of the agent's process
(``kill -9`` too) make sweep the program's whole process tree.

``python`` as a command's first word is the interpreter that runs war-env (``program_argv``), so
``exec:python examples/python_agent.py`` needs no ``python`` on PATH.
"""

from __future__ import annotations

import json
import os
import select
import shlex
import shutil
import signal
import subprocess
import sys
import time
import weakref
from collections.abc import Iterable
from pathlib import Path

from war_env.agents.base import Agent
from war_env.core.observation import OBSERVATION_FIELDS, latency_fields
from war_env.core.rules import WarConfig

PROTOCOL = 1
LINE_BYTES = 4096
"""The longest line a program may send (its answers are a dozen bytes)."""
HELLO_SECONDS = 20.0
"""How long a program may take to start and answer the hello (an interpreter's start on a busy machine)."""
DECISION_SECONDS = 2.0
"""The default deadline of one answer. In real time a slow answer is late anyway (its ticks are waits);
the deadline only decides when a program is given up for the round."""
CLOSE_SECONDS = 1.0
STDERR_BYTES = 64 * 1024
"""The program's standard error passed on per start of it (to the terminal, or a worker's stderr); the rest
is read and dropped, with one line that says so."""
KEEPER = Path(__file__).with_name("exec_keeper.py")
"""The program runs under a keeper that contains the processes it starts (exec_keeper.py says how)."""
_PRINTED: set[str] = set()


PYTHON = "python"
"""A command's first word that means the interpreter running war-env (``sys.executable``)."""


def program_argv(argv: list[str]) -> list[str]:
    """The words a program is started with: ``python`` first stands for the interpreter that runs war-env, so
    ``exec:python my_agent.py`` runs in the same environment whether or not a ``python`` is on PATH (many systems
    have only ``python3``); any other program, ``python3`` or a path included, runs as written."""
    return [sys.executable, *argv[1:]] if argv[0] == PYTHON else list(argv)


class ClientError(Exception):
    """What a program did wrong, as the one line that names it."""


class ExecAgent(Agent):
    """Seat player run by the program ``command`` (a command line, split like a shell's words, without a shell)."""

    name = "exec"

    def __init__(
        self,
        command: str,
        *,
        config: WarConfig | None = None,
        deadline: float = DECISION_SECONDS,
        hello_deadline: float = HELLO_SECONDS,
    ):
        self.command = command
        self.config = config if config is not None else WarConfig()
        self.deadline, self.hello_deadline = deadline, hello_deadline
        try:
            self.argv = shlex.split(command)
        except ValueError as error:
            raise ValueError(f"agent spec {self.spec()!r}: the command cannot be split into words: {error}") from None
        if not self.argv:
            raise ValueError("agent spec 'exec:' needs a command after 'exec:', e.g. 'exec:python my_agent.py'")
        self.argv = program_argv(self.argv)
        self.process: subprocess.Popen | None = None
        self.error: str | None = None
        self._buffer = bytearray()
        try:
            self._start()
        except ClientError as error:
            self.close()
            raise ValueError(str(error)) from None

    def spec(self) -> str:
        return f"exec:{self.command}"

    # --- the Agent interface ---------------------------------------------------------------------------
    def reset(self, seed: int | None = None) -> None:
        self.error = None
        self._guarded(lambda: self._restart_if_stopped() or self._send({"type": "reset", "seed": seed}))

    def act(self, observation) -> int:
        if self.process is None:  # given up for this round: the seat waits
            return 0
        message = {"type": "observation", "observation": [float(x) for x in observation]}
        action = self._guarded(lambda: self._decision(message))
        return 0 if action is None else action

    def round_error(self) -> str | None:
        return self.error

    def close(self) -> None:
        if self.process is not None:
            try:
                self._write_line({"type": "close"}, time.monotonic() + CLOSE_SECONDS)
                self.process.wait(timeout=CLOSE_SECONDS)
            except (ClientError, subprocess.TimeoutExpired):
                pass
            self._stop()

    # --- the program ---------------------------------------------------------------------------------
    def _start(self) -> None:
        if shutil.which(self.argv[0]) is None:
            raise ClientError(f"agent {self.spec()!r}: cannot start {self.argv[0]!r}: no such executable program")
        keeper = [sys.executable, "-I", str(KEEPER), str(os.getpid()), str(STDERR_BYTES), "--", *self.argv]
        try:
            self.process = subprocess.Popen(
                keeper, stdin=subprocess.PIPE, stdout=subprocess.PIPE, start_new_session=True
            )
        except OSError as error:
            raise ClientError(f"agent {self.spec()!r}: cannot start {self.argv[0]!r}: {error.strerror}") from None
        self._buffer = bytearray()
        for stream in (self.process.stdin, self.process.stdout):
            os.set_blocking(stream.fileno(), False)
        self._finalizer = weakref.finalize(self, _end_tree, self.process)
        deadline = time.monotonic() + self.hello_deadline
        self._write_line(self._hello(), deadline)
        answer = self._read_answer(deadline, "the hello")
        if not isinstance(answer, dict) or answer.get("type") != "hello":
            raise self._fault('answered the hello without {"type": "hello"}', answer)

    def _hello(self) -> dict:
        fields = latency_fields(self.config) if self.config.has_latency else OBSERVATION_FIELDS
        rules = {name: getattr(self.config, name) for name in sorted(WarConfig.field_names())}
        return {
            "type": "hello",
            "protocol": PROTOCOL,
            "observation": {"fields": list(fields), "shape": [len(fields)], "low": 0.0, "high": 1.0},
            "action": {"n": 2, "meanings": ["wait", "draw"]},
            "rules": rules,
        }

    def _restart_if_stopped(self) -> None:
        if self.process is None:
            self._start()

    def _send(self, message: dict) -> None:
        self._write_line(message, time.monotonic() + self.deadline)

    def _decision(self, message: dict) -> int:
        deadline = time.monotonic() + self.deadline
        self._check_nothing_more()
        self._write_line(message, deadline)
        answer = self._read_answer(deadline, "an observation")
        action = answer.get("action") if isinstance(answer, dict) else None
        if type(action) not in (int, float) or action not in (0, 1):  # bool is not int's type: true is refused
            raise self._fault('answered without an action 0 or 1 ({"action": 0} or {"action": 1})', answer)
        return int(action)  # 1.0 is 1: some JSON writers (jq, JSON.NET) spell every number with a point

    def _guarded(self, call):
        """``call()``, or on the program's fault: its error kept and printed once, the program stopped."""
        try:
            return call()
        except ClientError as error:
            self.error = self.error or str(error)
            if str(error) not in _PRINTED:
                _PRINTED.add(str(error))
                print(f"war-env: {error} (its seat waits for the rest of the round)", file=sys.stderr)
            self._stop()
            return None

    def _stop(self) -> None:
        if self.process is not None:
            _end_tree(self.process)
            self._finalizer.detach()
            self.process = None

    # --- lines, with deadlines ----------------------------------------------------------------------------
    def _write_line(self, message: dict, deadline: float) -> None:
        data = memoryview((json.dumps(message, separators=(",", ":")) + "\n").encode())
        fd = self.process.stdin.fileno()
        while data:
            if not select.select([], [fd], [], max(0.0, deadline - time.monotonic()))[1]:
                raise self._fault(
                    f"stopped reading its input (a {message['type']} line waited {self.deadline:g} s to be written)"
                )
            try:
                data = data[os.write(fd, data) :]
            except BrokenPipeError:
                raise self._fault(f"closed its input ({self._how_it_ended()})") from None

    def _read_answer(self, deadline: float, what: str):
        line = self._read_line(deadline, what)
        self._check_nothing_more()
        try:
            return json.loads(line)
        except ValueError:
            raise self._fault("sent a line that is not JSON", line) from None

    def _check_nothing_more(self) -> None:
        """Output beyond the line asked for, whenever it came (right after an answer, or before the next
        question), is a flood."""
        if not self._buffer and _readable(self.process.stdout.fileno(), 0):
            self._fill()
        if self._buffer:
            raise self._fault("sent more than the one line asked for", bytes(self._buffer[:80]))

    def _read_line(self, deadline: float, what: str) -> bytes:
        while (end := self._buffer.find(b"\n")) < 0:
            if len(self._buffer) > LINE_BYTES:
                raise self._fault(f"sent a line longer than {LINE_BYTES} bytes", bytes(self._buffer[:80]))
            left = deadline - time.monotonic()
            if left <= 0 or not _readable(self.process.stdout.fileno(), left):
                raise self._fault(f"did not answer {what} by its deadline", bytes(self._buffer[:80]) or None)
            if not self._fill():
                raise self._fault(f"ended its output ({self._how_it_ended()})", bytes(self._buffer[:80]) or None)
        line = bytes(self._buffer[:end])
        del self._buffer[: end + 1]
        if len(line) > LINE_BYTES:
            raise self._fault(f"sent a line longer than {LINE_BYTES} bytes", line[:80])
        return line

    def _fill(self) -> bool:
        """Read what the program wrote (up to a line's worth more than a line); False at its end of output."""
        try:
            data = os.read(self.process.stdout.fileno(), LINE_BYTES + 1)
        except BlockingIOError:
            return True
        self._buffer += data
        return bool(data)

    def _fault(self, problem: str, sent=...) -> ClientError:
        shown = "" if sent is ... else f"; it sent {_short(sent)}"
        return ClientError(f"agent {self.spec()!r} {problem}{shown}")

    def _how_it_ended(self) -> str:
        try:
            code = self.process.wait(timeout=0.2)
        except subprocess.TimeoutExpired:
            return "it is still running"
        return f"killed by {signal.Signals(-code).name}" if code < 0 else f"it exited with status {code}"


def is_exec_spec(spec) -> bool:
    """Whether ``spec`` is an ``exec:COMMAND`` agent spec (one that runs a program)."""
    return isinstance(spec, str) and spec.strip().partition(":")[0].strip().lower() == "exec"


def check_commands_restated(
    stored: Iterable[str], given: Iterable[str], source: str, option: str, command: str
) -> None:
    """The one rule for every reader of a run folder: a spec read from a file (``stored``, from ``source``) starts
    a program only when this command line names it too (``given``, the specs of ``option``). A folder may come from
    someone else, and an ``exec:`` spec runs its command; so on a resume ``option`` may only restate the folder's
    ``exec:`` specs, and every one of them must be restated. ``command`` is how to restate them (for the error)."""
    programs = sorted({spec for spec in stored if is_exec_spec(spec)})
    given = set(given)
    other = sorted(given - set(programs))
    if other:
        raise ValueError(
            f"{source} is continued as written there; {option} on a resume only restates its exec: "
            f"specs, and {other} is not one of them"
        )
    missing = [spec for spec in programs if spec not in given]
    if missing:
        raise ValueError(
            f"{source} has exec: specs that run commands: {missing}; a run folder never starts a program "
            f"by itself: restate them to run them ({command} {option} "
            + " ".join(shlex.quote(spec) for spec in programs)
            + ")"
        )


def _short(sent) -> str:
    if isinstance(sent, (bytes, bytearray)):
        text = bytes(sent[:80]).decode("utf-8", "replace")
        return repr(text + ("..." if len(sent) > 80 else ""))
    return repr(json.dumps(sent)[:80]) if sent is not None else "nothing"


def _readable(fd: int, timeout: float) -> bool:
    return bool(select.select([fd], [], [], timeout)[0])


def _end_tree(process: subprocess.Popen) -> None:
    """End the program and everything it started: its keeper sweeps the tree on SIGTERM; should the keeper
    not end within ``CLOSE_SECONDS``, its process group is killed. The keeper is reaped."""
    for stream in (process.stdin, process.stdout):
        try:
            stream.close()
        except OSError:
            pass
    try:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=CLOSE_SECONDS)
        return
    except subprocess.TimeoutExpired:
        pass
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    process.wait()
