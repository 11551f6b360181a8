"""The learners' table on the probe suite: ``python -m war_env.scripts.learners --out FOLDER`` trains every learner
on every probe and scores the final models (``war_env.experiments.learners``; experiments/README.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from war_env.core.probes import PROBES, probe_named
from war_env.experiments.learners import LEARNERS, TableRefused, merge, rerender, run_table
from war_env.scripts.common import HelpFormatter, run_command


def probe_argument(name: str) -> str:
    """A probe's name, or ``NAME@N`` for the probe at its level ``N`` (``probe_named``); else argparse's usage error."""
    try:
        probe_named(name)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return name


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m war_env.scripts.learners",
        formatter_class=HelpFormatter,
        description="Train the learners on every probe and score their final models. Three modes: the table "
        "(train what is missing, then score), --merge (one table from other tables' learners.json) and "
        "--rerender (the markdown and charts again from learners.json).",
    )
    parser.add_argument(
        "--out",
        required=True,
        type=Path,
        help="the folder (runs/, configs/, suites/, learners.json, learners.md, learners.png, curves.png)",
    )
    parser.add_argument("--timesteps", type=int, default=20_000, help="training steps per run (20000)")
    parser.add_argument(
        "--budget",
        action="append",
        default=[],
        metavar="LEARNER[@PROBE]=STEPS",
        help="another budget for one learner, or for one learner on one probe (repeat it for several)",
    )
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1], help="training seeds (0 1)")
    parser.add_argument("--learners", nargs="+", choices=list(LEARNERS), default=list(LEARNERS))
    parser.add_argument(
        "--probes",
        nargs="+",
        type=probe_argument,
        default=list(PROBES),
        metavar="PROBE[@LEVEL]",
        help=f"the probes ({' '.join(PROBES)}), one at a level as NAME@N (memory@1) (all, at their default levels)",
    )
    parser.add_argument("--rounds", type=int, default=100, help="suite rounds per model (100)")
    parser.add_argument("--workers", type=int, default=1, help="suite worker processes (1)")
    parser.add_argument("--jobs", type=int, default=1, help="training runs at once, each in its own process (1)")
    parser.add_argument(
        "--fast-set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a FastPPOConfig setting for every fast learner, as war-train's --set (repeat it for "
        "several; e.g. eval_every=1048576); a learner's own settings (its learning rate, ...) are refused "
        "in a table that has that learner",
    )
    parser.add_argument(
        "--actions",
        choices=("greedy", "sampled"),
        default="greedy",
        help="how the fast learners' models play in the suite: their greedy actions (greedy), or drawn "
        "from their policy as in training (sampled; learners-sampled.*); the SB3 models play "
        "greedily either way",
    )
    parser.add_argument(
        "--continue-from",
        type=Path,
        nargs="+",
        default=[],
        metavar="FOLDER",
        help="other tables' folders whose runs this table goes on from (a run from the first folder "
        "that holds it): a run at its budget is copied, a fast run short of it copied and trained "
        "on from its last checkpoint",
    )
    parser.add_argument(
        "--train-only",
        action="store_true",
        help="train the runs missing and stop (runs of other probes may train in another process)",
    )
    parser.add_argument(
        "--merge",
        type=Path,
        nargs="+",
        default=[],
        metavar="FOLDER",
        help="train and play nothing: one table in --out from other tables' learners.json, each "
        "learner's figures on each probe from the first folder that has them",
    )
    parser.add_argument(
        "--rerender",
        action="store_true",
        help="train and play nothing: draw the markdown and charts again from the folder's "
        "learners.json (learners-sampled.json with --actions sampled)",
    )
    return parser


def main(argv: list[str] | None = None) -> dict:
    """Run the mode the arguments ask for and return its table; a refusal is the parser's one-line error."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.rerender:
            return rerender(args.out, args.actions)
        if args.merge:
            return merge(args.merge, args.out, args.actions)
        return run_table(
            args.out,
            timesteps=args.timesteps,
            budget=args.budget,
            seeds=args.seeds,
            learners=args.learners,
            probes=args.probes,
            rounds=args.rounds,
            workers=args.workers,
            jobs=args.jobs,
            fast_set=args.fast_set,
            actions=args.actions,
            continue_from=args.continue_from,
            train_only=args.train_only,
        )
    except TableRefused as error:
        parser.error(str(error))


def cli(argv: list[str] | None = None) -> int:
    def call() -> int:
        main(argv)
        return 0

    return run_command(build_parser(), call)


if __name__ == "__main__":
    sys.exit(cli())
