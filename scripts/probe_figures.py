"""The probes' capability gaps, exact and on paired rounds, or their ladders of simple rules:
``python -m war_env.scripts.probe_figures [--rounds N] [--ladder] [--levels]`` (docs/probes.md; both flags: each
level's ladder). The tables are
``war_env.league.probe_figures``'."""

from __future__ import annotations

import argparse
import sys

from war_env.core.probes import PROBES
from war_env.evaluation.probe_levels import all_levels, levels_table
from war_env.league.probe_figures import Row, ladder_table, measure_probes, table
from war_env.scripts.common import HelpFormatter, run_command


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m war_env.scripts.probe_figures",
        formatter_class=HelpFormatter,
        description="The probes' capability gaps, exact and on paired rounds.",
    )
    parser.add_argument("--rounds", type=int, default=200, help="paired rounds per agent and probe (200)")
    parser.add_argument("--seed", type=int, default=0, help="the first round's seed (0)")
    parser.add_argument(
        "--probes", nargs="+", metavar="NAME", choices=sorted(PROBES), default=list(PROBES), help="the probes (all)"
    )
    parser.add_argument(
        "--ladder", action="store_true", help="print the ladder of simple rules only (exact, no rounds)"
    )
    parser.add_argument(
        "--levels",
        action="store_true",
        help="print each level's exact figures only (the probes with levels among those named; no rounds); with "
        "--ladder, each level's ladder",
    )
    return parser


def main(argv: list[str] | None = None) -> list[Row]:
    """Print the table (or with ``--ladder`` the ladders, with ``--levels`` the levels' figures, with both each
    level's ladder) and return its rows (none for the ladders and the levels)."""
    args = build_parser().parse_args(argv)
    if args.levels and args.ladder:
        leveled = [name for name in args.probes if PROBES[name].levels]
        print(ladder_table([f"{name}@{n}" for name in leveled for n in range(1, len(PROBES[name].levels) + 1)]))
        return []
    if args.levels:
        print(levels_table(all_levels([name for name in args.probes if PROBES[name].levels])))
        return []
    if args.ladder:
        print(ladder_table(args.probes))
        return []
    rows = measure_probes(args.probes, args.rounds, args.seed)
    print(table(rows))
    return rows


def cli(argv: list[str] | None = None) -> int:
    """``main`` with the project's usage errors (a round count below 2) as the parser's one-line error."""

    def call() -> int:
        main(argv)
        return 0

    return run_command(build_parser(), call)


if __name__ == "__main__":
    sys.exit(cli())
