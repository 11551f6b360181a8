"""Playing shards in this process or in supervised worker processes, each finished round streamed to the parent.

Workers are *spawned*, never forked: a fork of a parent that has started OpenMP (torch does, when a
model agent is built to check its spec) hangs in OpenMP's barrier. Each worker limits its numeric
libraries to one thread before it imports any of them (``war_env.support.threads``), whatever the user's
shell sets.

Supervision. Each worker has a pipe of its own to the parent: the parent sends it a shard, the worker
sends back each round as it finishes, then ``done``. The parent waits on every pipe and on every
worker's process sentinel at once, so a worker that dies (the out-of-memory killer, ``kill -9``, a crash
in a native library) is noticed the moment it exits. Its shard's rounds that did not arrive are played
again on a new worker: they are seeded, so the records, and the results, are the ones the dead worker
would have sent. A worker the parent has not heard from for ``STALL_SECONDS`` (each worker sends a heartbeat
every ``HEARTBEAT_SECONDS`` from a thread of its own, besides its rounds) is killed and counted as dead: a
stopped process (``kill -STOP``) does not hang the league. A shard whose worker died ``MAX_ATTEMPTS`` times is not
tried again: ``WorkerDied``
says which rounds and how the worker ended, and every finished round is already with the sink.

Why not ``concurrent.futures.ProcessPoolExecutor``: one dead worker breaks the whole pool
(``BrokenProcessPool``) and fails every running task, so every worker would be restarted (each import
of torch and numba costs seconds) and every running shard replayed; the pool does not say which task
the dead worker held, so a shard that kills its worker every time cannot be told from a neighbour
killed by the out-of-memory killer; and streaming rounds needs a channel shared by all workers, which a
worker killed in the middle of a write leaves locked or cut. One pipe per worker has none of these.

An exception raised in a worker (a bad spec, a model that does not load) is not a death: it is raised
in the parent as it is, and the other workers are stopped.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from multiprocessing.connection import wait

from war_env.evaluation.records import RoundRecord
from war_env.league.league import Shard, play_shard
from war_env.support.threads import limit_process_threads, one_thread_environment

MAX_ATTEMPTS = 3
"""Workers that may die on one shard before the league gives up on it."""


class WorkerDied(RuntimeError):
    """A shard's worker died ``MAX_ATTEMPTS`` times; every round that finished reached the sink."""


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity, which containers and ``taskset`` narrow)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


def worker_cap(workers: int, shards: Sequence[Shard], cpus: int | None = None) -> tuple[int, str | None]:
    """The workers worth starting for ``shards``: no more than the shards to play and ``cpus`` (this
    machine's usable CPUs unless given; Ray passes the cluster's). The second value says why fewer than
    ``workers`` (``None`` when not)."""
    cpus = usable_cpus() if cpus is None else cpus
    capped = max(1, min(workers, len(shards), cpus))
    if capped == workers:
        return workers, None
    return capped, f"--workers {workers} capped at {capped}: {len(shards)} shard(s) to play on {cpus} CPU(s)"


# --- the worker process -----------------------------------------------------------------------------
def _serve(connection, parent: int, player: Callable) -> None:
    """A worker: play each shard the parent sends, sending every round as it finishes, until ``None``. A
    parent that is gone (killed with ``kill -9``) ends the worker quietly: no traceback of a broken pipe, from
    this thread or any other."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's: it stops the workers itself
    limit_process_threads()  # already set at spawn; again for libraries that read it late
    threading.excepthook = _quiet_once_orphaned(parent, threading.excepthook)
    lock, playing = threading.Lock(), threading.Event()

    def send(message) -> None:
        with lock:  # the heartbeat thread sends too: one message at a time on the pipe
            connection.send(message)

    threading.Thread(target=_keep_in_touch, args=(parent, send, playing), daemon=True).start()
    try:
        while (shard := connection.recv()) is not None:
            playing.set()
            try:
                player(shard, on_round=lambda record: send(("round", record)))
            except (BrokenPipeError, ConnectionResetError):
                raise
            except Exception as error:  # the parent raises it: a bad spec is not a reason to retry
                _exit_if_orphaned(parent)  # an error of a round whose parent is gone (a pipe it wrote to broke)
                send(("error", _picklable(error)))
                return
            playing.clear()  # an idle worker's pipe is not read: no heartbeats to pile up in it
            send(("done", None))
    except (EOFError, BrokenPipeError, ConnectionResetError):  # the parent is gone: nobody reads a traceback
        os._exit(1)
    except BaseException:
        _exit_if_orphaned(parent)
        raise


def _exit_if_orphaned(parent: int) -> None:
    """End this worker at once, without a word, if its parent is gone (``kill -9``): whatever broke then is
    the parent's death, and nobody reads the traceback."""
    if os.getppid() != parent:
        os._exit(1)


def _quiet_once_orphaned(parent: int, hook: Callable) -> Callable:
    """``threading.excepthook`` for a worker: an exception in any of its threads (an agent's, the heartbeat's)
    after the parent died ends the worker quietly; before, it is reported as usual."""

    def quiet(args) -> None:
        _exit_if_orphaned(parent)
        hook(args)

    return quiet


def _picklable(error: Exception) -> Exception:
    import pickle

    try:
        pickle.loads(pickle.dumps(error))
        return error
    except Exception:
        return RuntimeError("".join(traceback.format_exception(error)).strip())


HEARTBEAT_SECONDS = 0.5
STALL_SECONDS = 60.0
"""A busy worker from which the parent hears nothing (no round, no heartbeat) for this long is treated as
dead (killed, and its shard's unfinished rounds played again): a stopped process (``kill -STOP``), or one
hung with the interpreter's lock held. A worker that computes (an oracle's solve, a model's load) still
beats every ``HEARTBEAT_SECONDS`` from a thread of its own, unless a native call holds the interpreter's
lock that long. A worker not heard from since it started (importing its libraries, seconds to a minute on
a loaded machine) has ``STARTING_STALLS`` times as long."""
STARTING_STALLS = 5


def _keep_in_touch(parent: int, send: Callable, playing: threading.Event) -> None:
    """Tell the parent this worker is alive, every ``HEARTBEAT_SECONDS`` while it plays a shard; and a killed
    parent reads no more rounds: stop within half a second, even in the middle of a long shard (building an
    oracle, loading the compiled engine), not only at the next send."""
    while os.getppid() == parent:
        try:
            if playing.is_set():
                send(("alive", None))
        except OSError:
            break
        time.sleep(HEARTBEAT_SECONDS)
    os._exit(1)


# --- the parent -------------------------------------------------------------------------------------
@dataclass
class _Task:
    """A shard and how often a worker died on it."""

    shard: Shard
    attempts: int = 0


@dataclass
class _Worker:
    process: object
    connection: object
    task: _Task | None = None
    received: set = field(default_factory=set)
    """Round indices of ``task`` already handed to the sink."""
    heard: float = 0.0
    """When the parent last heard from it (``time.monotonic()``): a message, or the task given."""
    stalled: bool = False
    """Killed by the parent for sending nothing for ``stall_seconds``."""
    beating: bool = False
    """Heard from at least once (its libraries are imported)."""


class _Supervisor:
    """Keeps up to ``size`` workers busy with ``tasks``; see the module."""

    def __init__(
        self, size: int, sink: Callable[[RoundRecord], None], player: Callable, stall_seconds: float = STALL_SECONDS
    ):
        import multiprocessing

        self.context = multiprocessing.get_context("spawn")
        self.size, self.sink, self.player, self.stall_seconds = size, sink, player, stall_seconds
        self.workers: list[_Worker] = []
        self.waiting: deque[_Task] = deque()

    def run(self, shards: Sequence[Shard]) -> None:
        self.waiting.extend(_Task(shard) for shard in shards)
        while self.waiting or self._busy():
            self._hand_out()
            ready = set(
                wait(
                    [w.connection for w in self._busy()] + [w.process.sentinel for w in self.workers],
                    timeout=self.stall_seconds / 4,
                )
            )
            for worker in list(self.workers):
                if worker.connection in ready:
                    self._read(worker)
                if worker.process.sentinel in ready:
                    self._bury(worker)
            self._kill_stalled()

    def _kill_stalled(self) -> None:
        """A busy worker not heard from for ``stall_seconds`` is killed; its sentinel then buries it."""
        now = time.monotonic()
        for worker in self._busy():
            allowed = self.stall_seconds * (1 if worker.beating else STARTING_STALLS)
            if not worker.stalled and now - worker.heard > allowed:
                worker.stalled = True
                worker.process.kill()  # SIGKILL: a stopped process ends too

    def _busy(self) -> list[_Worker]:
        return [worker for worker in self.workers if worker.task is not None]

    def _hand_out(self) -> None:
        """Give every idle worker a shard, starting workers (up to ``size``) while shards wait."""
        for worker in self.workers:
            if worker.task is None and self.waiting:
                self._give(worker, self.waiting.popleft())
        while self.waiting and len(self.workers) < self.size:
            self._give(self._start(), self.waiting.popleft())

    def _start(self) -> _Worker:
        ours, theirs = self.context.Pipe()
        with one_thread_environment():
            process = self.context.Process(target=_serve, args=(theirs, os.getpid(), self.player), daemon=True)
            process.start()
        theirs.close()  # only the worker holds its end: its death is an end of file here
        worker = _Worker(process, ours)
        self.workers.append(worker)
        return worker

    def _give(self, worker: _Worker, task: _Task) -> None:
        worker.task, worker.received, worker.heard = task, set(), time.monotonic()
        _send(worker.connection, task.shard)  # to a dead worker: its sentinel says so next, the task goes back

    def _read(self, worker: _Worker) -> None:
        """Every message the worker's pipe holds; a cut one (the worker died writing it) is ignored."""
        while (message := _receive(worker.connection)) is not None:
            kind, payload = message
            worker.heard, worker.beating = time.monotonic(), True
            if kind == "alive":
                continue
            if kind == "error":
                raise payload
            if kind == "done":
                worker.task = None
            else:
                self.sink(payload)
                worker.received.add(payload.round)

    def _bury(self, worker: _Worker) -> None:
        """A worker exited: keep what it sent, and put the rounds it did not send back in line."""
        self._read(worker)
        worker.process.join()
        worker.connection.close()
        self.workers.remove(worker)
        task = worker.task
        if task is None:
            return
        left = tuple(pair for pair in task.shard.rounds if pair[0] not in worker.received)
        if not left:
            return
        attempts = task.attempts + 1
        silent = self.stall_seconds * (1 if worker.beating else STARTING_STALLS)
        how = (
            f"sent nothing for {silent:g} s (stopped, or hung) and was killed"
            if worker.stalled
            else _how_it_ended(worker.process)
        )
        if attempts >= MAX_ATTEMPTS:
            raise WorkerDied(
                f"a worker died {attempts} times playing {task.shard.agent} vs {task.shard.opponent}, "
                f"rounds {left[0][0]}..{left[-1][0]} (the last {how}); every round that finished was kept"
            )
        print(
            f"war-env: a worker {how}; its {len(left)} unfinished round(s) are played again on a new worker",
            file=sys.stderr,
        )
        self.waiting.appendleft(_Task(replace(task.shard, rounds=left), attempts))

    def stop(self, finished: bool) -> None:
        """Finished, the workers are idle and leave when told; otherwise (an error, Ctrl-C) they are
        terminated in the middle of their rounds."""
        for worker in self.workers:
            if finished:
                _send(worker.connection, None)
                worker.process.join(timeout=5)
            if worker.process.is_alive():
                worker.process.kill()  # SIGKILL: a stopped worker would never act on SIGTERM
                worker.process.join()
            worker.connection.close()
        self.workers.clear()


def _receive(connection) -> tuple | None:
    """The next message waiting in the pipe, or ``None``: nothing waits, the pipe is closed, or the
    message was cut (its worker died writing it)."""
    try:
        return connection.recv() if connection.poll() else None
    except (EOFError, OSError):
        return None


def _send(connection, message) -> None:
    try:
        connection.send(message)
    except OSError:  # the worker is dead: its sentinel tells the supervisor
        pass


def _how_it_ended(process) -> str:
    code = process.exitcode
    if code is not None and code < 0:
        return f"was killed by {signal.Signals(-code).name}"
    return f"exited with status {code}"


def run_shards(
    shards: Sequence[Shard],
    workers: int,
    sink: Callable[[RoundRecord], None],
    player: Callable = play_shard,
    stall_seconds: float = STALL_SECONDS,
) -> None:
    """Play every shard, calling ``sink`` once per finished round (in the parent process).

    ``player(shard, on_round=...)`` plays one shard (``play_shard``; tests pass one whose worker dies on
    purpose); with more than one worker it must be importable in a spawned process. A worker not heard
    from for ``stall_seconds`` is treated as dead (``STALL_SECONDS``)."""
    if workers == 1:
        for shard in shards:
            player(shard, on_round=sink)
        return
    supervisor = _Supervisor(workers, sink, player, stall_seconds)
    finished = False
    try:
        supervisor.run(shards)
        finished = True
    finally:
        supervisor.stop(finished)
