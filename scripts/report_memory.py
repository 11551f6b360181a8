"""How much memory the benchmark's report takes as the run grows: ``python -m war_env.scripts.report_memory``
(``war_env.perf.report_memory``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from war_env.perf.report_memory import report_memory
from war_env.scripts.common import HelpFormatter, run_command


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m war_env.scripts.report_memory",
        formatter_class=HelpFormatter,
        description="Play leagues of the given sizes with war-bench, report each again in a fresh process "
        "(war-bench --resume) and print that process's peak resident memory.",
    )
    parser.add_argument(
        "--rounds",
        type=int,
        nargs="+",
        default=[100_000, 1_000_000],
        help="league sizes in rounds (all pairings together)",
    )
    parser.add_argument("--workers", type=int, default=2, help="worker processes that play each league")
    parser.add_argument("--keep", type=Path, default=None, help="play into this folder and keep the runs")
    return parser


def cli(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)

    def call() -> int:
        report_memory(args.rounds, args.workers, args.keep)
        return 0

    return run_command(parser, call, extras=("bench",))


if __name__ == "__main__":
    sys.exit(cli())
