"""How the Ray backend scales: ``python -m war_env.scripts.ray_scaling`` (docs/distributed.md).

``measure`` runs, on a local Ray instance, the league's shards with 1..N workers and no-op tasks, and
reports medians of several runs: the per-task overhead, the throughput per number of workers, the cores
the backend actually got, and what plain processes get from the machine at the same moment.
"""

from __future__ import annotations

import math
import os
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from war_env.evaluation.records import RoundRecord
from war_env.league.league import play_shard
from war_env.league.ray_backend import connect, run_shards_on_ray


@dataclass
class Scaling:
    """What ``measure`` found (every time a median over ``repeats`` runs)."""

    cpus: int
    shard_rounds: int
    rounds: int
    in_process_rounds_per_second: float
    """play_shard in the driver, no Ray: the per-core speed of the game itself."""
    ray_rounds_per_second: dict[int, float]
    """workers -> rounds/s of run_shards_on_ray."""
    ray_cores_busy: dict[int, float]
    """workers -> CPU seconds of the driver and all its Ray processes per wall second: the cores the
    backend actually got (on a loaded machine, fewer than ``workers``)."""
    ray_rounds_per_cpu_second: dict[int, float]
    """workers -> rounds per CPU second spent by the driver and Ray's processes together."""
    task_overhead_seconds: float
    """Round trip of a no-op task with one in flight: submit, schedule, run, ray.wait, ray.get."""
    noop_tasks_per_second: float
    """No-op tasks with ``cpus`` in flight, as the backend keeps them."""
    shard_rounds_for_5_percent: int
    """Smallest shard whose task overhead is below 5% of its playing time."""
    machine_speedup: dict[int, float]
    """workers -> speedup of a pure-Python loop in that many plain processes over one, measured
    between the Ray runs: the most any backend could get from this machine at that moment."""
    driver_records_per_second: float
    """How fast the driver can write records to rounds.jsonl.gz (to_json, compress, flush per record): the
    ceiling of a whole cluster's rounds/s with one driver."""
    runs: dict


def _noop(_):
    return None


def _timed(function) -> float:
    started = time.perf_counter()
    function()
    return time.perf_counter() - started


def measure(
    agent: str = "prompt",
    opponent: str = "human",
    rounds: int = 400,
    shard_rounds: int = 20,
    workers: Sequence[int] = (1, 2),
    repeats: int = 3,
    noop_tasks: int = 300,
) -> Scaling:
    """Medians over ``repeats`` of: the in-process speed, the Ray backend's speed with each number of
    workers (tasks in flight), and the per-task overhead of Ray (no-op tasks, one and ``cpus`` in flight)."""
    import ray

    from war_env.league.league import League, make_shards

    connect(None)
    cpus = int(ray.cluster_resources().get("CPU", 1))
    shards = make_shards(League((agent,), (opponent,), rounds, 0), set(), shard_rounds)
    runs: dict = {
        "in_process": [],
        "ray": {w: [] for w in workers},
        "ray_cpu_seconds": {w: [] for w in workers},
        "ray_wall_seconds": {w: [] for w in workers},
        "noop_one_in_flight": [],
        "noop_cpus_in_flight": [],
        "driver_records": [],
        "burn_seconds": {w: [] for w in workers},
    }
    records = [record for shard in shards for record in play_shard(shard)]
    noop = ray.remote(num_cpus=1)(_noop)
    ray.get([noop.remote(i) for i in range(2 * cpus)])  # warm the worker processes
    run_shards_on_ray(shards[:cpus], cpus, lambda record: None)  # and their imports
    for _ in range(repeats):
        runs["in_process"].append(rounds / _timed(lambda: [play_shard(s) for s in shards]))
        for w in workers:
            cpu = _cpu_seconds_of_this_process_tree()
            wall = _timed(lambda: run_shards_on_ray(shards, w, lambda record: None))
            runs["ray_cpu_seconds"][w].append(_cpu_seconds_of_this_process_tree() - cpu)
            runs["ray_wall_seconds"][w].append(wall)
            runs["ray"][w].append(rounds / wall)
        runs["noop_one_in_flight"].append(
            _timed(lambda: [ray.get(noop.remote(i)) for i in range(noop_tasks)]) / noop_tasks
        )

        def flood():
            running = [noop.remote(i) for i in range(cpus)]
            for i in range(noop_tasks - cpus):
                (done,), running = ray.wait(running, num_returns=1)
                ray.get(done)
                running.append(noop.remote(i))
            ray.get(running)

        runs["noop_cpus_in_flight"].append(noop_tasks / _timed(flood))
        runs["driver_records"].append(len(records) / _timed(lambda: _write_like_the_benchmark(records)))
        for w in workers:
            runs["burn_seconds"][w].append(_burn_in_processes(w))
    in_process = statistics.median(runs["in_process"])
    overhead = statistics.median(runs["noop_one_in_flight"])
    seconds_per_round = 1 / in_process
    return Scaling(
        cpus=cpus,
        shard_rounds=shard_rounds,
        rounds=rounds,
        in_process_rounds_per_second=in_process,
        ray_rounds_per_second={w: statistics.median(v) for w, v in runs["ray"].items()},
        ray_cores_busy={
            w: statistics.median(c / t for c, t in zip(runs["ray_cpu_seconds"][w], runs["ray_wall_seconds"][w]))
            for w in workers
        },
        ray_rounds_per_cpu_second={
            w: statistics.median(rounds / c for c in runs["ray_cpu_seconds"][w]) for w in workers
        },
        task_overhead_seconds=overhead,
        noop_tasks_per_second=statistics.median(runs["noop_cpus_in_flight"]),
        shard_rounds_for_5_percent=max(1, math.ceil(overhead / (0.05 * seconds_per_round))),
        driver_records_per_second=statistics.median(runs["driver_records"]),
        machine_speedup={
            w: statistics.median(
                w * one / many for one, many in zip(runs["burn_seconds"][min(workers)], runs["burn_seconds"][w])
            )
            / min(workers)
            for w in workers
        },
        runs=runs,
    )


def _burn(n: int) -> int:
    total = 0
    for i in range(n):
        total += i * i
    return total


def _burn_in_processes(processes: int, n: int = 10_000_000) -> float:
    """Wall seconds for ``processes`` plain processes to run the same loop each (pool start excluded)."""
    import multiprocessing

    with multiprocessing.get_context("spawn").Pool(processes) as pool:
        pool.map(_burn, [1] * processes)  # started and warm
        return _timed(lambda: pool.map(_burn, [n] * processes))


def _cpu_seconds_of_this_process_tree() -> float:
    """User + system CPU seconds of this process and all its descendants (a local Ray instance's
    GCS, raylet and workers are), read from /proc (Linux)."""
    ticks = os.sysconf("SC_CLK_TCK")
    parents, times = {}, {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # the process ended meanwhile
            continue
        pid = int(stat.parent.name)
        parents[pid], times[pid] = int(fields[1]), (int(fields[11]) + int(fields[12])) / ticks
    tree, frontier = {os.getpid()}, [os.getpid()]
    while frontier:
        parent = frontier.pop()
        children = [pid for pid, ppid in parents.items() if ppid == parent and pid not in tree]
        tree.update(children)
        frontier.extend(children)
    return sum(times.get(pid, 0.0) for pid in tree)


def _write_like_the_benchmark(records: Sequence[RoundRecord]) -> None:
    """The benchmark's sink (``war_env.league.run._play``) without the progress bar."""
    import tempfile

    from war_env.league.rounds_file import RoundsWriter

    with tempfile.TemporaryDirectory() as folder, RoundsWriter(Path(folder) / "rounds.jsonl.gz") as log:
        for record in records:
            log.write(record)
