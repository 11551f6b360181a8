"""``war-bench``: play a league of agents against opponents on paired rounds and write a report.

The league, its statistics and its report are ``war_env.league``; this file parses the arguments.
"""

from __future__ import annotations

import argparse
import os
import sys

from war_env.agents import BASELINES
from war_env.core.probes import PROBES
from war_env.core.specs import parse_assignments
from war_env.league import DEFAULT_OPPONENTS, DEFAULT_ROUNDS, DEFAULT_SEED, DEFAULT_SHARD_ROUNDS, run_league
from war_env.league.ray_backend import ShardsFailed
from war_env.league.suite import DEFAULT_SUITE_ROUNDS, REPORT_FILE, run_suite
from war_env.league.workers import WorkerDied
from war_env.scripts.common import HelpFormatter, run_command, seed

DEFAULT_WORKERS = os.cpu_count() or 1
DESCRIPTION = """\
Play every agent against every opponent on paired rounds (round i is the same deal in every
pairing) and write a report into the run folder: report.md (who is best and why: agents ranked by
the return they lose per round to the oracle, the exact optimum, split into false starts, idle ticks
and takeovers),
results.json, rounds.jsonl.gz and plots. An interrupted run continues with --resume.

examples:
  war-bench                                       # the default league (about a minute on 2 cores)
  war-bench --agents prompt human --opponents human --rounds 500
  war-bench --agents prompt ppo:runs/x/best.zip --env turn_seconds=2 --out runs/bench/mine
  war-bench --agents prompt anticipate --env latency=uniform:low=1,high=4   # docs/latency.md
  war-bench --resume runs/bench/20261202-134500
  war-bench --realtime --tick-seconds 0.01 --workers 1 \\
            --agents prompt "exec:python examples/python_agent.py"    # docs/realtime.md
  war-bench --suite --agents counting ppo:runs/x/final.zip  # a score per capability (probes.md)
  war-bench --suite --resume runs/suite/20261204-040000
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="war-bench", formatter_class=HelpFormatter, description=DESCRIPTION)
    # The league's arguments have no value unless given, so that --resume can refuse them (the league
    # of a resumed run is the one in its folder); their defaults are spelt out in the help instead.
    league = parser.add_argument_group("the league (not with --resume)")
    league.add_argument(
        "--agents",
        nargs="+",
        metavar="SPEC",
        default=argparse.SUPPRESS,
        help="agent specs for seat 0: prompt, eager, random:p=0.2, last_moment, never, human, "
        "anticipate, bot:SPEC, ppo:PATH, ... (docs/benchmark.md); against bots the oracle "
        "(the exact optimum) plays too and regrets are measured against it, else against the "
        f"agent with the best mean return (default: {' '.join(BASELINES)})",
    )
    league.add_argument(
        "--opponents",
        nargs="+",
        metavar="SPEC",
        default=argparse.SUPPRESS,
        help=f"opponent bot specs, or agent specs for an agent in seat 1 (default: {' '.join(DEFAULT_OPPONENTS)})",
    )
    league.add_argument(
        "--rounds",
        type=int,
        metavar="N",
        default=argparse.SUPPRESS,
        help=f"rounds per pairing (default: {DEFAULT_ROUNDS})",
    )
    league.add_argument(
        "--seed",
        type=seed,
        metavar="S",
        default=argparse.SUPPRESS,
        help=f"round i of every pairing uses seed + i (default: {DEFAULT_SEED})",
    )
    league.add_argument(
        "--env",
        action="append",
        metavar="KEY=VALUE[,KEY=VALUE]",
        default=argparse.SUPPRESS,
        help="War-v0 rule, timer, latency or reward arguments, e.g. --env turn_seconds=2,reward_idle_tick=0 "
        "or --env latency=fixed:ticks=2 (a spec value takes the rest of its item) "
        "(default: the default rules)",
    )
    league.add_argument(
        "--out", metavar="DIR", default=argparse.SUPPRESS, help="run folder (default: runs/bench/<date-time>)"
    )
    league.add_argument(
        "--realtime",
        action="store_true",
        default=argparse.SUPPRESS,
        help="play in real time: the clock runs while an agent computes, and each decision's compute "
        "time is recorded and priced (docs/realtime.md); measure with --workers 1 on a quiet machine",
    )
    league.add_argument(
        "--tick-seconds",
        type=float,
        metavar="S",
        default=argparse.SUPPRESS,
        help="with --realtime: wall seconds per tick (default: the rules' tick_seconds, 0.1)",
    )
    suite = parser.add_argument_group("the probe suite (docs/probes.md)")
    suite.add_argument(
        "--suite",
        action="store_true",
        help="play every probe (a league on its env id, with its opponent and yardsticks: oracle, "
        "best simple baselines, the agent lacking the capability) with the --agents given, and "
        "write suite.md, suite.json and suite.png: one score per agent and capability, 0 = the "
        f"best simple baseline, 1 = the oracle (default rounds: {DEFAULT_SUITE_ROUNDS}); "
        "with --resume, continue a suite",
    )
    suite.add_argument(
        "--probes",
        nargs="+",
        metavar="PROBE",
        default=argparse.SUPPRESS,
        help=f"with --suite: the probes to play (default: all, {' '.join(PROBES)}); PROBE@N plays level N of one "
        '(docs/probes.md, "Levels")',
    )
    parser.add_argument(
        "--workers",
        type=int,
        metavar="N",
        default=DEFAULT_WORKERS,
        help=f"worker processes; the results do not depend on it (default: the number of CPUs, here {DEFAULT_WORKERS})",
    )
    parser.add_argument(
        "--resume",
        metavar="RUN",
        default=None,
        help="continue the interrupted run in folder RUN (its league comes from RUN/config.json; "
        "a league or suite with exec: agents needs them restated with --agents/--opponents)",
    )
    parser.add_argument(
        "--shard-rounds",
        type=int,
        metavar="N",
        default=DEFAULT_SHARD_ROUNDS,
        help="rounds handed to a worker at a time",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument(
        "--backend",
        choices=("local", "ray"),
        default="local",
        help="local worker processes, or Ray tasks (--workers = tasks in flight; the distributed extra)",
    )
    parser.add_argument(
        "--address",
        default=None,
        help="with --backend ray: the cluster (auto, HOST:PORT, ray://HOST:10001) (default: a local Ray instance)",
    )
    parser.add_argument(
        "--trust-model-file",
        action="store_true",
        help="let SB3 unpickle the model files of model agents, which runs code from them "
        "(default: weights only); for this session only, never stored in the run folder",
    )
    return parser


def cli(argv: list[str] | None = None) -> int:
    """The ``war-bench`` command; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)

    def call() -> int:
        given = vars(args)
        if args.suite:
            return _suite(given)
        if "probes" in given:
            raise ValueError("--probes goes with --suite")
        env = given.get("env")
        try:
            run = run_league(
                given.get("agents"),
                given.get("opponents"),
                given.get("rounds"),
                given.get("seed"),
                None if env is None else parse_assignments(env, "--env"),
                given.get("out"),
                args.workers,
                args.resume,
                args.shard_rounds,
                progress=not args.quiet,
                backend=args.backend,
                address=args.address,
                trust_model_file=args.trust_model_file,
                realtime=given.get("realtime", False),
                tick_seconds=given.get("tick_seconds"),
            )
        except (ShardsFailed, WorkerDied) as error:
            print(f"war-bench: error: {error}", file=sys.stderr)
            return 1
        speed = f", {run.rounds_per_second:.1f} rounds/s" if run.rounds_per_second else ""
        print(f"played {run.rounds_played} rounds in {run.seconds:.1f} s{speed}")
        print(f"report: {run.run_dir / 'report.md'}")
        return 0

    return run_command(parser, call, extras=("bench",))


def _suite(given: dict) -> int:
    """``war-bench --suite``: the probes' leagues and the suite report."""
    other = [
        f"--{name}"
        for name in ("opponents", "env", "backend", "address")
        if name in given and (name not in ("backend", "address") or given[name] not in ("local", None))
    ]
    if other:
        raise ValueError(f"--suite plays each probe against its own opponent and rules, locally; do not give {other}")
    run = run_suite(
        given.get("agents", ()),
        given.get("probes"),
        given.get("rounds"),
        given.get("seed"),
        given.get("out"),
        given["workers"],
        given["resume"],
        given["shard_rounds"],
        progress=not given["quiet"],
        trust_model_file=given["trust_model_file"],
    )
    print(f"played {run.rounds_played} rounds")
    print(f"suite report: {run.run_dir / REPORT_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(cli())
