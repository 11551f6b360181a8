"""How much memory the benchmark's report takes as the run grows: ``python -m war_env.scripts.report_memory``.

The report streams the rounds file into per-pairing numpy columns (``war_env.evaluation.summary``), so its
memory grows by a few numbers per round, never by a record object per round. This plays a league of the given
sizes with ``war-bench`` (one child process each, not measured), then reports each finished run again with
``war-bench --resume`` in a fresh child process (load with replay, summary, bootstrap, plots, report) and
prints that child's peak resident memory, taken from ``wait4`` (the kernel's figure for that process).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

AGENTS = ("prompt", "eager", "press_once")
"""With ``oracle`` (added by the league: every opponent is a bot) four agents, all on the fast path."""
OPPONENTS = ("human", "instant")
LIMIT_BYTES = 1 << 30
"""The bound this checks: a 1M-round league reports within 1 GB."""


def _bench(*arguments: str) -> list[str]:
    return [sys.executable, "-c", "from war_env.scripts.benchmark import cli; cli()", *arguments]


def play(run_dir: Path, rounds_per_pairing: int, workers: int) -> float:
    """Play the league into ``run_dir``; its wall time in seconds."""
    started = time.perf_counter()
    subprocess.run(
        _bench(
            "--agents",
            *AGENTS,
            "--opponents",
            *OPPONENTS,
            "--rounds",
            str(rounds_per_pairing),
            "--workers",
            str(workers),
            "--out",
            str(run_dir),
            "--quiet",
        ),
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return time.perf_counter() - started


def report_peak(run_dir: Path) -> tuple[int, float]:
    """Peak resident bytes and wall seconds of ``war-bench --resume`` on a finished run (it plays nothing)."""
    for name in ("results.json", "report.md"):
        (run_dir / name).unlink(missing_ok=True)
    started = time.perf_counter()
    child = subprocess.Popen(_bench("--resume", str(run_dir), "--quiet"), stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise RuntimeError(f"war-bench --resume {run_dir} exited with {child.returncode}")
    if not (run_dir / "report.md").is_file():
        raise RuntimeError(f"war-bench --resume {run_dir} wrote no report.md")
    return usage.ru_maxrss * 1024, time.perf_counter() - started  # ru_maxrss is in KiB on Linux


def report_memory(rounds: list[int], workers: int = 2, keep: Path | None = None) -> None:
    """Play a league of each size in ``rounds`` (all pairings together) with ``workers`` processes into
    ``keep`` (default a temporary folder), report it again in a fresh process, and print a line per size."""
    if not rounds or min(rounds) < 1 or workers < 1:
        raise ValueError(f"--rounds must be sizes >= 1 and --workers >= 1, got {rounds} and {workers}")
    pairings = (len(AGENTS) + 1) * len(OPPONENTS)
    with tempfile.TemporaryDirectory(prefix="war-report-memory-") as scratch:
        folder = keep or Path(scratch)
        print(f"{'rounds':>10} {'play s':>8} {'report s':>9} {'report peak MB':>15} {'bytes/round':>12}  under 1 GB")
        for total in rounds:
            per_pairing = max(1, total // pairings)
            run_dir = folder / f"league-{per_pairing * pairings}"
            played = play(run_dir, per_pairing, workers)
            peak, seconds = report_peak(run_dir)
            print(
                f"{per_pairing * pairings:>10,} {played:>8.1f} {seconds:>9.1f} {peak / 2**20:>15.0f} "
                f"{peak / (per_pairing * pairings):>12.0f}  {'yes' if peak < LIMIT_BYTES else 'NO'}",
                flush=True,
            )
