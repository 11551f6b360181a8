"""Where a vector-env step's time goes: ``python -m war_env.scripts.step_profile [--num-envs N] [--ratios]``
(``war_env.perf.step_profile``)."""

from __future__ import annotations

import argparse
import sys

from war_env.perf.step_profile import profile_report
from war_env.scripts.common import HelpFormatter, run_command


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m war_env.scripts.step_profile",
        formatter_class=HelpFormatter,
        description="Time the pieces of one WarVectorEnv.step (CPU time, the least of 7 blocks), CartPole's "
        "vector step beside them. Needs numba (the fast extra).",
    )
    parser.add_argument("--num-envs", type=int, default=4096, help="sub-envs")
    parser.add_argument("--steps", type=int, default=200, help="steps per timed block (7 blocks, the least kept)")
    parser.add_argument(
        "--ratios",
        action="store_true",
        help="also War over CartPole with war-perf's loop, with and without info['round']",
    )
    return parser


def cli(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)

    def call() -> int:
        profile_report(args.num_envs, args.steps, args.ratios)
        return 0

    return run_command(parser, call)


if __name__ == "__main__":
    sys.exit(cli())
