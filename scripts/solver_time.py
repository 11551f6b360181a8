"""How long the exact timing solver takes, and how much memory: ``python -m war_env.scripts.solver_time [--quick]``
(``war_env.perf.solver``)."""

from __future__ import annotations

import argparse
import sys

from war_env.perf.solver import solve_times
from war_env.scripts.common import HelpFormatter, run_command


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m war_env.scripts.solver_time",
        formatter_class=HelpFormatter,
        description="Solve each of a list of latency configs in a fresh process and print one line per config: "
        "its tables, the solver's estimate, the wall time, the peak memory and the cost per move, or the "
        "solver's refusal.",
    )
    parser.add_argument("--quick", action="store_true", help="only the first three configs")
    return parser


def cli(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)

    def call() -> int:
        solve_times(args.quick)
        return 0

    return run_command(parser, call)


if __name__ == "__main__":
    sys.exit(cli())
