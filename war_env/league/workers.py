"""Playing shards in this process or in worker processes, each finished round streamed to the parent.

Workers are *spawned*, never forked: a fork of a parent that has started OpenMP (torch does, when a
model agent is built to check its spec) hangs in OpenMP's barrier. Each worker limits its numeric
libraries to one thread before it imports any of them (``war_env.threads``), whatever the user's
shell sets.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from queue import Empty

from war_env.league.league import Shard, play_shard
from war_env.records import RoundRecord
from war_env.threads import limit_process_threads, one_thread_environment

_worker_queue = None
_worker_parent = None


def _init_worker(queue, parent: int) -> None:
    global _worker_queue, _worker_parent
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's: it stops the workers itself
    limit_process_threads()  # already set at spawn; again for libraries that read it late
    _worker_queue, _worker_parent = queue, parent


def _send_round(record: RoundRecord) -> None:
    if os.getppid() != _worker_parent:  # the parent was killed: nobody will read this round
        os._exit(1)
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
