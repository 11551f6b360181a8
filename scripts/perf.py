"""``war-perf``: how fast War-v0 is, side by side with its peers in one run (``war_env.perf``)."""

from __future__ import annotations

import argparse
import sys

from war_env.perf import measure_all, progress_to_stderr
from war_env.scripts.common import HelpFormatter, run_command


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="war-perf",
        formatter_class=HelpFormatter,
        description="Measure War-v0's speed and memory beside its peers (Gymnasium's CartPole and Blackjack, War-v0 "
        "played tick by tick, SB3's DummyVecEnv) in one run, and print one markdown table of medians and "
        "ratios, then where each speed target stands (docs/results/speed.md explains the figures). A full run takes "
        "minutes: a line on stderr says as each section starts and ends, with the seconds it took.\n\n"
        "example:\n  war-perf --repeats 3 --budget 0.5     # a quicker, noisier table",
    )
    parser.add_argument(
        "--repeats", type=int, metavar="N", default=5, help="repetitions per figure; the median is shown"
    )
    parser.add_argument(
        "--budget",
        type=float,
        metavar="X",
        default=1.0,
        help="work per measurement, 1.0 being about a second; every section scales with it (without "
        "numba the engine's sections do a twentieth of their work)",
    )
    parser.add_argument("--fast-rounds", type=int, metavar="N", default=32768, help="rounds per fast-path batch")
    parser.add_argument(
        "--league-rounds",
        type=int,
        metavar="N",
        default=100,
        help="rounds per pairing of the benchmark league it times, at --budget 1",
    )
    parser.add_argument("--no-league", action="store_true", help="skip the benchmark league")
    parser.add_argument("--no-memory", action="store_true", help="skip the memory figures")
    parser.add_argument("--no-training", action="store_true", help="skip the PPO training figures")
    parser.add_argument(
        "--cold",
        action="store_true",
        help="also time the engine's first calls with an empty numba cache (compiling: minutes)",
    )
    parser.add_argument(
        "--quiet", action="store_true", help="no progress lines on stderr (as each section starts and ends)"
    )
    return parser


def cli(argv: list[str] | None = None) -> int:
    """The ``war-perf`` command; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)

    def call() -> int:
        measure_all(
            repeats=args.repeats,
            budget=args.budget,
            fast_rounds=args.fast_rounds,
            league_rounds=args.league_rounds,
            league=not args.no_league,
            memory=not args.no_memory,
            training=not args.no_training,
            cold=args.cold,
            progress=None if args.quiet else progress_to_stderr(),
        )
        return 0

    return run_command(parser, call, extras=() if args.no_league else ("bench",))


if __name__ == "__main__":
    sys.exit(cli())
