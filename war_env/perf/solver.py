"""How long the exact timing solver takes, and how much memory, on common configs, on long turns with wide
latencies and on the largest the env accepts: ``python -m war_env.scripts.solver_time`` prints one line per config.

Each line: the config, the opponent bot, the turn in ticks, the tables the solver keeps for the
opponent's turn, its own estimate (``TimingProblem.seconds``), the measured wall time and peak memory
of a solve in a fresh process (so the cache of ``agents.oracle.solved`` and earlier allocations do not
count), its iterations (of at most its ``iteration_budget``) of its states, and the cost per move; or the
one-line refusal for a config above the solver's bound.
"""

from __future__ import annotations

import json
import subprocess
import sys

_FAR_APART = "reward_false_start=-1e-12,reward_idle_tick=-1000000"
"""Weights 1e18 apart: presses cost nothing, so many are in flight and the values take more iterations."""
CONFIGS = (
    ("latency=fixed:ticks=2", "human"),
    ("latency=uniform:low=1,high=4", "human"),
    ("latency=fixed:ticks=10", "human"),
    ("turn_seconds=100,latency=uniform:low=0,high=10", "human"),  # a wide latency on a long turn
    ("turn_seconds=1000,latency=fixed:ticks=10", "human"),  # the longest turn the rules allow
    ("latency=fixed:ticks=16", "human"),
    ("latency=uniform:low=0,high=16", "human"),
    ("latency=fixed:ticks=16", "absent"),
    ("turn_seconds=1000,latency=uniform:low=0,high=12", "human"),
    ("tick_seconds=0.01,turn_seconds=100,latency=fixed:ticks=10", "human"),
    ("tick_seconds=0.01,turn_seconds=100,latency=uniform:low=0,high=10", "human"),
    ("turn_seconds=1000,latency=uniform:low=0,high=16", "human"),
    (f"turn_seconds=1000,{_FAR_APART},latency=uniform:low=0,high=16", "uniform:low=1,high=25"),
    (f"turn_seconds=1000,{_FAR_APART},latency=uniform:low=0,high=16", "uniform:low=1,high=120"),
)

_ONE = r"""
import json, resource, sys, time
from war_env.agents.oracle import timing_problem
from war_env.core.bots import make_bot
from war_env.core.optimum import solve
from war_env.core.rules import WarConfig
from war_env.core.specs import parse_assignments
config = WarConfig.from_kwargs(parse_assignments([sys.argv[1]]))
problem = timing_problem(config, make_bot(sys.argv[2]))
row = {"turn_ticks": config.turn_ticks, "tables": problem.shape.theirs_tables, "estimate": problem.seconds,
       "states": problem.states, "budget": problem.iteration_budget}
start = time.perf_counter()
try:
    policy = solve(problem)
    row.update(seconds=time.perf_counter() - start, cost_per_move=policy.cost_per_move, iterations=policy.iterations)
except ValueError as error:
    row.update(refused=str(error))
row["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(row))
"""


def measure(config: str, bot: str) -> dict:
    """One solve in a fresh process."""
    done = subprocess.run([sys.executable, "-c", _ONE, config, bot], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def line(config: str, bot: str, row: dict) -> str:
    head = (
        f"{config:62s} {bot:8s} {row['turn_ticks']:6d} ticks, {row['tables']:5d} tables, "
        f"estimate {row['estimate']:6.1f} s:"
    )
    if "refused" in row:
        return f"{head} refused ({row['peak_mb']:.0f} MB): {row['refused']}"
    return (
        f"{head} {row['seconds']:6.2f} s, {row['peak_mb']:5.0f} MB peak, {row['iterations']} iterations "
        f"(of at most {row['budget']}) of {row['states']:,} states, cost per move {row['cost_per_move']:.6g}"
    )


def solve_times(quick: bool = False) -> list[dict]:
    """Solve each config of ``CONFIGS`` (the first three when ``quick``) in a fresh process, printing its line."""
    rows = []
    for config, bot in CONFIGS[:3] if quick else CONFIGS:
        row = measure(config, bot)
        print(line(config, bot, row), flush=True)
        rows.append(row)
    return rows
