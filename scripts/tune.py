"""``war-tune``: a hyperparameter sweep with Ray Tune over war-train runs (``war_env.training.tune``)."""

from __future__ import annotations

import argparse
import json
import sys

from war_env.agents.algorithms import ALGORITHMS
from war_env.core.specs import parse_assignments
from war_env.scripts.common import HelpFormatter, run_command, seed
from war_env.training.tune import DEFAULT_SPACE, METRIC, read_space, tune_sweep

DESCRIPTION = """\
A hyperparameter sweep with Ray Tune: every trial is one war-train run with sampled hyperparameters
(the same seed, opponent, rules and budget for all), scored by the mean return of its best model on
held-out paired rounds. The sweep folder holds trials/ (ordinary war-train run folders),
ray_results/ and tune.json (every trial, best first).

search space: a JSON object {"name": {"loguniform": [low, high]} | {"uniform": [low, high]} |
{"randint": [low, high]} | {"choice": [v1, v2, ...]}} of hyperparameters of the algorithm.

example:
  war-tune --algo ppo --samples 4 --timesteps 20000
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="war-tune", description=DESCRIPTION, formatter_class=HelpFormatter)
    parser.add_argument(
        "--algo",
        default="ppo",
        choices=sorted(ALGORITHMS),
        metavar="ALGO",
        help=f"the algorithm: {', '.join(sorted(ALGORITHMS))}",
    )
    parser.add_argument(
        "--space",
        metavar="JSON_OR_FILE",
        default=None,
        help=f"the search space, a JSON file or JSON (default: {json.dumps(DEFAULT_SPACE)})",
    )
    parser.add_argument("--samples", type=int, metavar="N", default=8, help="trials")
    parser.add_argument("--timesteps", type=int, metavar="N", default=30_000, help="training budget of each trial")
    parser.add_argument(
        "--config",
        metavar="FILE",
        default=None,
        help="a war-train configuration file (default: the one shipped for ALGO)",
    )
    parser.add_argument(
        "--n-envs", type=int, metavar="N", default=None, help="parallel training envs (default: the config's)"
    )
    parser.add_argument(
        "--seed", type=seed, metavar="S", default=0, help="training seed of every trial, and of the sampler"
    )
    parser.add_argument("--opponent", metavar="SPEC", default="human", help="opponent bot or agent spec")
    parser.add_argument(
        "--env-arg",
        action="append",
        metavar="KEY=VALUE",
        default=None,
        help="a War-v0 rule, timer or reward argument (repeatable)",
    )
    parser.add_argument("--bench-rounds", type=int, metavar="N", default=300, help="held-out rounds that score a trial")
    parser.add_argument(
        "--bench-seed", type=seed, metavar="S", default=2_000_000, help="round k of the scoring uses seed S + k"
    )
    parser.add_argument("--out", metavar="DIR", default=None, help="the sweep folder (default: runs/tune/<date-time>)")
    parser.add_argument(
        "--address",
        default=None,
        help="the Ray cluster (auto, HOST:PORT, ray://HOST:10001) (default: a local Ray instance)",
    )
    parser.add_argument(
        "--max-concurrent",
        type=int,
        metavar="N",
        default=None,
        help="trials at once (default: as many as the CPUs allow)",
    )
    return parser


def cli(argv: list[str] | None = None) -> int:
    """The ``war-tune`` command; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    return run_command(parser, lambda: _sweep(args), extras=("train", "distributed"))


def _sweep(args) -> int:
    run = tune_sweep(
        args.algo,
        None if args.space is None else read_space(args.space),
        args.samples,
        args.timesteps,
        config_path=args.config,
        n_envs=args.n_envs,
        seed=args.seed,
        opponent=args.opponent,
        env_args=parse_assignments(args.env_arg or [], "--env-arg"),
        bench_rounds=args.bench_rounds,
        bench_seed=args.bench_seed,
        out=args.out,
        address=args.address,
        max_concurrent=args.max_concurrent,
    )
    print(f"sweep folder: {run.out} (tune.json)")
    for trial in run.trials:
        config = ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in trial["config"].items())
        print(
            f"  {trial[METRIC]:+.4f} mean return ({trial['return_minus_prompt']:+.4f} vs prompt, "
            f"{trial['takeovers']} takeovers)  {config}  {trial['run_dir']}"
        )
    for error in run.errors:
        print(f"  FAILED {error['config']}: {error['error'].strip().splitlines()[-1]}")
    if run.errors or not run.trials:
        print(
            f"war-tune: error: {len(run.errors)} of {len(run.errors) + len(run.trials)} trial(s) failed",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(cli())
