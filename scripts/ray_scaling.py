"""Measure the Ray backend on a local Ray instance: ``python -m war_env.scripts.ray_scaling``."""

from __future__ import annotations

import argparse
import json

from war_env.perf.ray_scaling import Scaling, measure


def _rounded(value):
    if isinstance(value, float):
        return round(value, 5)
    if isinstance(value, dict):
        return {key: _rounded(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_rounded(item) for item in value]
    return value


def cli(argv: list[str] | None = None) -> Scaling:
    parser = argparse.ArgumentParser(
        prog="python -m war_env.scripts.ray_scaling",
        description="Measure the Ray backend on a local instance: rounds/s with 1..N workers and the per-task "
        "overhead (medians of several runs).",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--agent", default="prompt")
    parser.add_argument("--opponent", default="human")
    parser.add_argument("--rounds", type=int, default=400, help="rounds per timed run")
    parser.add_argument("--shard-rounds", type=int, default=20)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    result = measure(args.agent, args.opponent, args.rounds, args.shard_rounds, args.workers, args.repeats)
    print(
        f"local Ray instance with {result.cpus} CPUs; {result.rounds} rounds of {args.agent} vs {args.opponent}, "
        f"shards of {result.shard_rounds}; medians of {args.repeats} runs"
    )
    print(f"  in process, no Ray:      {result.in_process_rounds_per_second:8.1f} rounds/s")
    base = result.ray_rounds_per_second[min(result.ray_rounds_per_second)]
    for w, rate in result.ray_rounds_per_second.items():
        print(
            f"  ray, {w} worker(s):        {rate:8.1f} rounds/s  (x{rate / base:.2f}); "
            f"{result.ray_cores_busy[w]:.2f} cores busy, "
            f"{result.ray_rounds_per_cpu_second[w]:.1f} rounds per CPU second"
        )
    for w, speedup in result.machine_speedup.items():
        print(f"  plain processes, {w}:     x{speedup:.2f} (pure-Python loop: what this machine allowed)")
    print(f"  no-op task round trip:   {result.task_overhead_seconds * 1e3:8.2f} ms (one in flight)")
    print(f"  no-op tasks, {result.cpus} in flight: {result.noop_tasks_per_second:8.1f} tasks/s")
    print(f"  shard size for task overhead < 5%: >= {result.shard_rounds_for_5_percent} rounds")
    print(f"  driver writing rounds.jsonl.gz: {result.driver_records_per_second:8.0f} records/s")
    print("  runs: " + json.dumps(_rounded(result.runs)))
    return result


if __name__ == "__main__":
    cli()
