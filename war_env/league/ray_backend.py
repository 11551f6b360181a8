"""The benchmark's shards as Ray tasks: ``war-bench --backend ray [--address ADDRESS]``.

The league is cut into the same shards as on the local backend (``war_env.league.make_shards``)
and every shard is played by the same pure function (``war_env.league.play_shard``) inside a
Ray task, so the records, and therefore ``results.json``, do not depend on the backend, the number
of workers or the order in which shards finish. The driver keeps at most ``workers`` tasks in
flight, waits for whichever finishes first (``ray.wait``) and hands its records to the benchmark's
sink at once, which appends them to ``rounds.jsonl.gz`` and flushes: a killed driver or a lost worker
loses at most the shards still running, and ``--resume`` plays only what is missing.

Ray does the retrying: a task that raises, or whose worker dies, is run again up to
``max_retries`` times (``retry_exceptions=True``). A shard that still fails is not dropped: the
other shards finish, the failures are written to ``failed_shards.json`` in the run folder and
``ShardsFailed`` is raised (``war-bench`` exits with status 1), so no report is written from
incomplete data.

Ray is imported inside the functions of this module only: ``import war_env.league`` and the
local backend never import it.

How fast it is (per-task overhead, scaling with workers) is measured by ``war_env.perf.ray_scaling``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from urllib.parse import urlsplit

from war_env.evaluation.records import RoundRecord
from war_env.league.league import Shard, play_shard
from war_env.support.atomic import write_atomic

DEFAULT_MAX_RETRIES = 3
FAILED_SHARDS_FILE = "failed_shards.json"


@dataclass(frozen=True)
class ShardFailure:
    """A shard that failed on every attempt Ray made."""

    agent: str
    opponent: str
    rounds: tuple[int, ...]
    """Round indices of the shard (all missing from rounds.jsonl.gz)."""
    attempts: int
    error: str
    """The last attempt's error, as Ray reports it (exception type, message, remote traceback)."""


class ShardsFailed(RuntimeError):
    """Some shards failed on every attempt; every other shard finished and was written."""

    def __init__(self, failures: Sequence[ShardFailure], report: Path | None):
        self.failures = tuple(failures)
        self.report = report
        rounds = sum(len(failure.rounds) for failure in self.failures)
        first = self.failures[0]
        where = f"; details in {report}" if report is not None else ""
        super().__init__(
            f"{len(self.failures)} shard(s) ({rounds} rounds) failed after {first.attempts} attempt(s) each{where}. "
            f"First: {first.agent} vs {first.opponent}, rounds {first.rounds[0]}..{first.rounds[-1]}: "
            f"{first.error.strip().splitlines()[-1] if first.error.strip() else 'no message'}. Every other round "
            f"is in rounds.jsonl.gz; fix the cause and continue with --resume."
        )


# --- the cluster ----------------------------------------------------------------------------------
def connect(address: str | None = None, workers: int | None = None) -> int:
    """Join the Ray cluster at ``address`` (``auto``, ``HOST:PORT``, ``ray://HOST:10001``) or, without
    an address, start a local instance with one CPU per core of this machine and no dashboard. If Ray
    is already initialised in this process, that instance is used as it is.

    Returns the number of tasks to keep in flight: ``workers``, or every CPU of the cluster when
    ``workers`` is None. A local instance stays up until the process exits (Ray shuts it down then).
    """
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise ValueError(f"workers must be a whole number >= 1 or None (every CPU of the cluster), got {workers!r}")
    check_reachable(address)
    import ray

    if not ray.is_initialized():
        if address is None:
            # "local": a new instance even if RAY_ADDRESS or a `ray start` cluster on this machine exists
            ray.init(address="local", num_cpus=os.cpu_count(), include_dashboard=False, logging_level="WARNING")
        else:
            ray.init(address=address)  # ray:// (Ray Client) takes fewer init arguments
    return workers if workers is not None else max(1, int(ray.cluster_resources().get("CPU", 1)))


CONNECT_SECONDS = 5.0
"""How long an address may take to accept a connection before ``connect`` gives up on it."""


def check_reachable(address: str | None) -> None:
    """Fail within ``CONNECT_SECONDS`` unless a gRPC server (what a Ray head and a Ray Client server
    are) answers at ``address`` (``HOST:PORT`` or ``ray://HOST:PORT``): Ray itself retries an address
    where none answers for minutes. ``None`` (a local instance) and ``auto`` (Ray finds the cluster on
    this machine or says at once that there is none) pass."""
    if address is None or address == "auto":
        return
    if not isinstance(address, str) or not address.strip():
        raise ValueError(f"address must be 'auto', 'HOST:PORT' or 'ray://HOST:PORT', got {address!r}")
    parts = urlsplit(address if "://" in address else f"//{address}")
    try:
        host, port = parts.hostname, parts.port
    except ValueError:  # a port that is not a number
        host = port = None
    if not host or port is None or parts.scheme not in ("", "ray"):
        raise ValueError(f"address must be 'auto', 'HOST:PORT' or 'ray://HOST:PORT', got {address!r}")
    import grpc

    channel = grpc.insecure_channel(f"{host}:{port}")
    try:
        grpc.channel_ready_future(channel).result(timeout=CONNECT_SECONDS)
    except grpc.FutureTimeoutError:
        raise ConnectionError(
            f"no Ray cluster answers at {address} (nothing there took a gRPC connection within {CONNECT_SECONDS:g} s)"
        ) from None
    finally:
        channel.close()


SHARD_PLAYER: Callable[[Shard], list[RoundRecord]] = play_shard
"""What ``war-bench --backend ray`` runs in each task (tests swap in a player that fails on purpose)."""


def run_on_ray(
    shards: Sequence[Shard],
    workers: int,
    sink: Callable[[RoundRecord], None],
    run_dir: Path | None,
    address: str | None = None,
    on_cap: Callable[[tuple[int, str | None]], int] = lambda cap: cap[0],
) -> int:
    """The benchmark's hook (``war_env.league.run._play``): connect only if there is something to play.
    Tasks in flight are capped by the shards and the cluster's CPUs (``on_cap`` says so); returns them."""
    if not shards:
        return workers
    import ray

    from war_env.league.workers import worker_cap

    workers = connect(address, workers)
    workers = on_cap(worker_cap(workers, shards, cpus=max(1, int(ray.cluster_resources().get("CPU", 1)))))
    run_shards_on_ray(shards, workers, sink, run_dir, player=SHARD_PLAYER)
    return workers


def _play_in_task(player: Callable[[Shard], list[RoundRecord]], shard: Shard) -> list[RoundRecord]:
    return player(shard)


# --- running shards -------------------------------------------------------------------------------
def run_shards_on_ray(
    shards: Sequence[Shard],
    workers: int,
    sink: Callable[[RoundRecord], None],
    run_dir: Path | None = None,
    *,
    max_retries: int = DEFAULT_MAX_RETRIES,
    player: Callable[[Shard], list[RoundRecord]] = play_shard,
) -> int:
    """Play every shard as a Ray task (Ray must be initialised: see ``connect``), calling ``sink``
    once per round in the driver as each shard finishes, in any order; returns the rounds delivered.

    ``player`` plays one shard (``play_shard``; tests pass one that fails on purpose); it must be
    importable or picklable on the workers. A shard failing ``max_retries + 1`` times is written to
    ``run_dir/failed_shards.json`` and ``ShardsFailed`` is raised after all other shards finished.
    On an interruption (Ctrl-C, an error in ``sink``) the running tasks are cancelled.
    """
    import ray
    from ray.exceptions import RayError

    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a whole number >= 1, got {workers!r}")
    if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
        raise ValueError(f"max_retries must be a whole number >= 0, got {max_retries!r}")
    if not ray.is_initialized():
        raise RuntimeError("Ray is not initialised: call scripts.ray_backend.connect(address) first")
    report = None if run_dir is None else Path(run_dir) / FAILED_SHARDS_FILE
    if report is not None:
        report.unlink(missing_ok=True)  # the file describes the latest session only

    task = ray.remote(num_cpus=1, max_retries=max_retries, retry_exceptions=True)(_play_in_task)
    player_ref = ray.put(player)
    waiting = list(reversed(shards))
    running: dict = {}
    failures: list[ShardFailure] = []
    delivered = 0
    try:
        while waiting or running:
            while waiting and len(running) < workers:
                shard = waiting.pop()
                running[task.remote(player_ref, shard)] = shard
            (done,), _ = ray.wait(list(running), num_returns=1)
            shard = running.pop(done)
            try:
                records = ray.get(done)
            except RayError as error:  # every retry used up (a raised exception or a lost worker)
                failures.append(
                    ShardFailure(
                        shard.agent, shard.opponent, tuple(i for i, _ in shard.rounds), max_retries + 1, str(error)
                    )
                )
                continue
            for record in records:
                sink(record)
            delivered += len(records)
    except BaseException:
        for ref in running:
            ray.cancel(ref, force=True)
        raise
    if failures:
        if report is not None:
            write_atomic(report, json.dumps({"failed_shards": [asdict(f) for f in failures]}, indent=2) + "\n")
        raise ShardsFailed(failures, report)
    return delivered
