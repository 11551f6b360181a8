"""How ``war-perf`` takes a figure: the medians of repeated runs, in turns with the peer's, wall and CPU time.

A run is a function that does some work and returns how much (steps, rounds, battles). Measured in turns
(War, peer, War, peer, ...), a change of load on a shared machine falls on both; the process's own CPU
seconds are steadier than wall time on a busy machine.
"""

from __future__ import annotations

import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone

import gymnasium as gym
import numpy as np


@dataclass
class Timing:
    """Median wall and CPU seconds of repeated runs of one measurement, and the work it did."""

    work: float
    wall: float
    cpu: float

    @property
    def rate(self) -> float:
        return self.work / self.wall

    @property
    def cpu_rate(self) -> float:
        return self.work / self.cpu


def measure(run: Callable[[], float], repeats: int) -> Timing:
    """``run()`` does some work and returns how much (steps, rounds, ...); the medians of ``repeats``."""
    return measure_side_by_side([run], repeats)[0]


def measure_side_by_side(runs: list[Callable[[], float]], repeats: int) -> list[Timing]:
    """Several measurements taken in turns (a, b, a, b, ...), so that a change of load on a shared
    machine falls on all of them alike; the medians of ``repeats`` each."""
    walls = [[] for _ in runs]
    cpus = [[] for _ in runs]
    work = [0.0] * len(runs)
    for _ in range(repeats):
        for i, run in enumerate(runs):
            wall, cpu = time.perf_counter(), time.process_time()
            work[i] = run()
            walls[i].append(time.perf_counter() - wall)
            cpus[i].append(time.process_time() - cpu)
    return [Timing(w, statistics.median(wa), statistics.median(c)) for w, wa, c in zip(work, walls, cpus)]


def machine_info() -> dict:
    model = platform.processor()
    try:
        with open("/proc/cpuinfo") as info:
            model = next((line.split(":", 1)[1].strip() for line in info if line.startswith("model name")), model)
    except OSError:
        pass
    return {
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu": model,
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "gymnasium": gym.__version__,
        "numba": _version("numba"),
        "load_before": os.getloadavg(),
    }


def _version(module: str) -> str:
    try:
        from importlib.metadata import version

        return version(module)
    except Exception:  # not installed
        return "not installed"


def progress_to_stderr() -> Callable[[str], None]:
    """A ``progress`` for ``measure_all`` that prints a line to stderr as each section starts and ends, each with
    the seconds since it was made (the table goes to stdout, so ``war-perf > table.md`` still shows them)."""
    started = time.perf_counter()

    def say(message: str) -> None:
        print(f"war-perf: {time.perf_counter() - started:.0f} s, {message}", file=sys.stderr, flush=True)

    return say
