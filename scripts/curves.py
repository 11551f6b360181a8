"""``war-curves``: learning curves of one algorithm over several seeds (``war_env.training.curves``)."""

from __future__ import annotations

import argparse
import sys

from war_env.agents.algorithms import ALGORITHMS
from war_env.core.specs import parse_assignments
from war_env.scripts.common import HelpFormatter, run_command, seed
from war_env.training.curves import CurvesResult, learning_curves

DESCRIPTION = """\
Train one algorithm (its shipped configuration, or --config FILE) once per seed against an opponent,
evaluate each seed's model every --every steps and its final model on the same held-out paired rounds
(round k is env.reset(seed=EVAL_SEED + k) for every seed, every step and for `prompt`), and write
curves.json and curves.png into the run folder: against environment steps, the return gap to `prompt`,
the takeover rate and false starts per 100 rounds, per seed and as the IQM across seeds with a 95%
stratified bootstrap interval (rliable's method).

Each seed is a war-train run in RUN_DIR/seed-S, kept when it is done: run the same command again after
an interruption and it continues where it stopped.

example:
  war-curves --algo ppo --opponent human --seeds 0 1 2 3 4 --run-dir runs/curves-ppo-human
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="war-curves", description=DESCRIPTION, formatter_class=HelpFormatter)
    parser.add_argument("--algo", default="ppo", choices=sorted(ALGORITHMS), metavar="ALGO",
                        help=f"the algorithm: {', '.join(sorted(ALGORITHMS))}")
    parser.add_argument("--config", metavar="FILE", default=None,
                        help="your own configuration file (JSON) (default: the one shipped for ALGO)")
    parser.add_argument("--seeds", type=seed, nargs="+", metavar="S", default=[0, 1, 2, 3, 4],
                        help="training seeds, one run each")
    parser.add_argument("--opponent", metavar="SPEC", default="human", help="opponent bot spec (human, uniform, ...)")
    parser.add_argument("--timesteps", type=int, metavar="N", default=None,
                        help="training budget per seed in env steps (default: the configuration's)")
    parser.add_argument("--every", type=int, metavar="N", default=5_000, help="steps between evaluated models")
    parser.add_argument("--rounds", type=int, metavar="N", default=1_000, help="held-out paired rounds per model")
    parser.add_argument("--eval-seed", type=seed, metavar="S", default=2_000_000,
                        help="held-out round k is env.reset(seed=S + k)")
    parser.add_argument("--env-arg", action="append", metavar="KEY=VALUE", default=None,
                        help="a War-v0 rule, timer or reward argument (repeatable)")
    parser.add_argument("--vec-env", choices=("batched", "dummy", "subproc"), default="batched",
                        help="the training envs, as in war-train")
    parser.add_argument("--workers", type=int, metavar="N", default=1,
                        help="seeds trained at once, each in its own process with one thread")
    parser.add_argument("--runs-root", metavar="DIR", default="runs", help="parent folder of a new run folder")
    parser.add_argument("--run-dir", metavar="DIR", default=None,
                        help="the run folder (default: RUNS_ROOT/curves-<algo>-<opponent>-<time>); "
                             "an existing one is continued")
    return parser


def cli(argv: list[str] | None = None) -> int:
    """The ``war-curves`` command; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)

    def call() -> int:
        result = learning_curves(
            args.algo, config_path=args.config, seeds=args.seeds, opponent=args.opponent, timesteps=args.timesteps,
            every=args.every, rounds=args.rounds, eval_seed=args.eval_seed,
            env_args=parse_assignments(args.env_arg or [], "--env-arg"), run_dir=args.run_dir,
            runs_root=args.runs_root, workers=args.workers, vec_env=args.vec_env,
        )
        print_summary(result)
        return 0

    return run_command(parser, call, extras=("train", "bench"))


def print_summary(result: CurvesResult) -> None:
    curves = result.curves
    print(f"curves: {result.run_dir / 'curves.json'}, {result.png}")
    for kind in ("final", "best"):
        models = curves[kind]
        gap = models["return_gap"]
        interval = "" if gap["low"] is None else f" [{gap['low']:+.4f}, {gap['high']:+.4f}]"
        print(f"{kind} models: {'every one meets' if models['all_meet_bar'] else 'NOT every one meets'} the bar; "
              f"takeovers {models['takeovers_total']} in all, false starts/100 at most "
              f"{models['false_starts_per_100_max']:.2f}, return gap IQM {gap['value']:+.4f}{interval}, "
              f"at most {models['return_gap_max']:+.4f}")


if __name__ == "__main__":
    sys.exit(cli())
