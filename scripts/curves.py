"""``war-curves``: learning curves of one algorithm over several seeds (``war_env.training.curves``)."""

from __future__ import annotations

import argparse
import sys

from war_env.agents.algorithms import ALGORITHMS
from war_env.core.specs import parse_assignments
from war_env.scripts.common import HelpFormatter, run_command, seed
from war_env.training.curves import FAST_PPO, CurvesResult, learning_curves

DESCRIPTION = """\
Train one algorithm once per seed on one game (War-v0 or WarLatency-v0 as the rules choose, or --env-id ENV_ID,
e.g. a probe), evaluate each seed's model every --every steps and its final model on the same held-out paired
rounds (round k is env.reset(seed=EVAL_SEED + k) for every seed, every step and for the reference), and write
curves.json and curves.png into the run folder: the gap to the reference per round (in War-v0 and
WarLatency-v0 the return gap to `prompt`; on a probe the regret to its `oracle`, its exact optimum), the
takeover rate and false starts per 100 rounds, per seed and as the IQM across seeds with a 95% stratified
bootstrap interval (rliable's method), against environment steps and against training wall seconds.

The algorithm is an SB3 one (its shipped configuration, or --config FILE) or fast_ppo, the project's PPO over
the batched engine (its settings: --set KEY=VALUE, e.g. --set frame_stack=4 or --set lstm_hidden_size=64).
Each seed is a war-train run in RUN_DIR/seed-S, kept when it is done: run the same command again after
an interruption and it continues where it stopped.

examples:
  war-curves --algo ppo --opponent human --seeds 0 1 2 3 4 --run-dir runs/curves-ppo-human
  war-curves --algo fast_ppo --env-id WarMemory-v1 --set lstm_hidden_size=64 --timesteps 2000000
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="war-curves", description=DESCRIPTION, formatter_class=HelpFormatter)
    algorithms = sorted([*ALGORITHMS, FAST_PPO])
    parser.add_argument(
        "--algo", default="ppo", choices=algorithms, metavar="ALGO", help=f"the algorithm: {', '.join(algorithms)}"
    )
    parser.add_argument(
        "--config",
        metavar="FILE",
        default=None,
        help="your own configuration file (JSON) of an SB3 algorithm (default: the one shipped for ALGO)",
    )
    parser.add_argument(
        "--set",
        action="append",
        metavar="KEY=VALUE",
        default=None,
        help="override a hyperparameter of the configuration, e.g. --set gamma=0.95 (repeatable; "
        "fast_ppo's: war_env.training.fast_ppo.FastPPOConfig)",
    )
    parser.add_argument(
        "--env-id",
        metavar="ENV_ID",
        default=None,
        help="the game to train and evaluate in (default: War-v0, or WarLatency-v0 with a latency)",
    )
    parser.add_argument(
        "--seeds", type=seed, nargs="+", metavar="S", default=[0, 1, 2, 3, 4], help="training seeds, one run each"
    )
    parser.add_argument(
        "--opponent",
        metavar="SPEC",
        default=None,
        help="opponent bot spec (human, uniform, ...; default: a probe's own, else human)",
    )
    parser.add_argument(
        "--timesteps",
        type=int,
        metavar="N",
        default=None,
        help="training budget per seed in env steps (default: the configuration's)",
    )
    parser.add_argument("--every", type=int, metavar="N", default=5_000, help="steps between evaluated models")
    parser.add_argument("--rounds", type=int, metavar="N", default=1_000, help="held-out paired rounds per model")
    parser.add_argument(
        "--eval-seed", type=seed, metavar="S", default=2_000_000, help="held-out round k is env.reset(seed=S + k)"
    )
    parser.add_argument(
        "--env-arg",
        action="append",
        metavar="KEY=VALUE",
        default=None,
        help="a War-v0 rule, timer or reward argument (repeatable; not on a probe)",
    )
    parser.add_argument(
        "--vec-env",
        choices=("batched", "dummy", "subproc"),
        default="batched",
        help="the training envs of an SB3 algorithm, as in war-train",
    )
    parser.add_argument(
        "--workers",
        type=int,
        metavar="N",
        default=1,
        help="seeds trained at once, each in its own process with one thread",
    )
    parser.add_argument("--runs-root", metavar="DIR", default="runs", help="parent folder of a new run folder")
    parser.add_argument(
        "--run-dir",
        metavar="DIR",
        default=None,
        help="the run folder (default: RUNS_ROOT/curves-<algo>-<env id or opponent>-<time>); "
        "an existing one is continued",
    )
    return parser


def cli(argv: list[str] | None = None) -> int:
    """The ``war-curves`` command; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)

    def call() -> int:
        result = learning_curves(
            args.algo,
            config_path=args.config,
            overrides=parse_assignments(args.set or [], "--set"),
            seeds=args.seeds,
            env_id=args.env_id,
            opponent=args.opponent,
            timesteps=args.timesteps,
            every=args.every,
            rounds=args.rounds,
            eval_seed=args.eval_seed,
            env_args=parse_assignments(args.env_arg or [], "--env-arg"),
            run_dir=args.run_dir,
            runs_root=args.runs_root,
            workers=args.workers,
            vec_env=args.vec_env,
        )
        print_summary(result)
        return 0

    return run_command(parser, call, extras=("train", "bench"))


def print_summary(result: CurvesResult) -> None:
    curves = result.curves
    gap_name = curves["reference"]["metric"]
    print(f"curves: {result.run_dir / 'curves.json'}, {result.png}")
    for kind in ("final", "best"):
        models = curves.get(kind)
        if models is None:  # fast_ppo keeps no best model
            continue
        gap = models[gap_name]
        interval = "" if gap["low"] is None else f" [{gap['low']:+.4f}, {gap['high']:+.4f}]"
        print(
            f"{kind} models: {'every one meets' if models['all_meet_bar'] else 'NOT every one meets'} the bar; "
            f"takeovers {models['takeovers_total']} in all, false starts/100 at most "
            f"{models['false_starts_per_100_max']:.2f}, {gap_name} IQM {gap['value']:+.4f}{interval}, "
            f"at most {models[gap_name + '_max']:+.4f}"
        )
    seconds = curves["wall_seconds"]["mean"]
    print(f"training wall seconds (mean over seeds) at the last step: {seconds[-1]:.1f}")


if __name__ == "__main__":
    sys.exit(cli())
