"""Playing shards in this process or in worker processes, each finished round streamed to the parent.

Workers are *spawned*, never forked: a fork of a parent that has started OpenMP (torch does, when a
model agent is built to check its spec) hangs in OpenMP's barrier. Each worker limits its numeric
libraries to one thread before it imports any of them (``war_env.support.threads``), whatever the user's
shell sets.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from queue import Empty

from war_env.evaluation.records import RoundRecord
from war_env.league.league import Shard, play_shard
from war_env.support.threads import limit_process_threads, one_thread_environment

_worker_queue = None


def _init_worker(queue, parent: int) -> None:
    global _worker_queue
    import signal
    import threading

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's: it stops the workers itself
    limit_process_threads()  # already set at spawn; again for libraries that read it late
    _worker_queue = queue
    threading.Thread(target=_exit_when_orphaned, args=(parent,), daemon=True).start()


def _exit_when_orphaned(parent: int) -> None:
    """A killed parent reads no more rounds: stop within half a second, even in the middle of a long
    shard (building an oracle, loading the compiled engine), not only after the next finished round.
    ``os._exit`` skips the queue's exit handler, which would wait forever for the queue's lock if another
    worker died holding it."""
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)


def _send_round(record: RoundRecord) -> None:
    _worker_queue.put(record)


def _play_shard_in_worker(shard: Shard) -> int:
    """Stream each finished round to the parent at once, so a killed run loses none."""
    return len(play_shard(shard, on_round=_send_round))


def run_shards(shards: Sequence[Shard], workers: int, sink: Callable[[RoundRecord], None]) -> None:
    """Play every shard, calling ``sink`` once per finished round (in the parent process)."""
    if workers == 1:
        for shard in shards:
            play_shard(shard, on_round=sink)
        return
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    expected = sum(len(shard.rounds) for shard in shards)
    with one_thread_environment():
        pool = context.Pool(workers, initializer=_init_worker, initargs=(queue, os.getpid()))
    try:
        result = pool.map_async(_play_shard_in_worker, shards, chunksize=1)
        received = 0
        while received < expected:
            try:
                record = queue.get(timeout=0.2)
            except Empty:
                if result.ready() and not result.successful():
                    result.get()  # raises the worker's exception here
                continue
            sink(record)
            received += 1
        result.get()
        pool.close()
    finally:
        pool.terminate()  # on success the workers are idle; on an error or Ctrl-C they stop mid-round
        pool.join()
