"""``war-selfplay``: train one SB3 policy for both seats of War by self-play (``war_env.training.selfplay``)."""

from __future__ import annotations

import argparse
import sys

from war_env.core.rules import WarConfig
from war_env.scripts.common import HelpFormatter, run_command, seed
from war_env.training.selfplay import SELF_PLAY_ALGORITHMS, self_play


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="war-selfplay",
        formatter_class=HelpFormatter,
        description="Train one SB3 policy for both seats of War by self-play: the learner plays seat 0, a frozen "
        "copy of itself seat 1, refreshed every N steps. Every copy is kept in the run folder as "
        "opponent_NNN.zip, and the final model plays its first and last copy and prompt in the "
        "two-seat env (selfplay.json).\n\n"
        "example:\n  war-selfplay --timesteps 300000 --refresh-every 30000 --run-dir runs/selfplay/mine",
    )
    parser.add_argument("--timesteps", type=int, metavar="N", default=200_000, help="learner steps in total")
    parser.add_argument(
        "--refresh-every",
        type=int,
        metavar="N",
        default=20_000,
        help="learner steps between opponent refreshes, rounded up to the algorithm's rollout "
        "(n_steps x n_envs): the policy changes only between rollouts",
    )
    parser.add_argument("--algo", default="ppo", choices=SELF_PLAY_ALGORITHMS, help="an on-policy algorithm")
    parser.add_argument(
        "--config",
        metavar="FILE",
        default=None,
        help="a war-train configuration file (default: the one shipped for ALGO)",
    )
    parser.add_argument("--seed", type=seed, metavar="S", default=0, help="seed of the training envs and the model")
    parser.add_argument(
        "--n-envs", type=int, metavar="N", default=None, help="parallel training envs (default: the config's)"
    )
    parser.add_argument(
        "--run-dir", metavar="DIR", default=None, help="the run folder (default: runs/selfplay/ALGO-seedS-TIME)"
    )
    parser.add_argument("--eval-deals", type=int, metavar="N", default=50, help="deals of each evaluation match")
    parser.add_argument(
        "--turn-seconds", type=float, metavar="SECONDS", default=None, help="the turn timer (default: the rules' 3 s)"
    )
    return parser


def cli(argv: list[str] | None = None) -> int:
    """The ``war-selfplay`` command; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)

    def call() -> int:
        config = WarConfig(turn_seconds=args.turn_seconds) if args.turn_seconds is not None else WarConfig()
        result = self_play(
            args.timesteps,
            args.refresh_every,
            args.algo,
            args.seed,
            args.n_envs,
            args.run_dir,
            args.eval_deals,
            config,
            train_config=args.config,
        )
        print(
            f"run: {result.run_dir}  model: {result.model_path}  timesteps: {result.timesteps}  "
            f"refreshes: {result.refreshes}  seconds: {result.seconds:.0f}"
        )
        for label, match in result.evaluation.items():
            for name, summary in match["agents"].items():
                print(f"vs {label:<28} {name:<28} " + "  ".join(f"{k}={_fmt(v)}" for k, v in summary.items()))
        return 0

    return run_command(parser, call, extras=("train",))


def _fmt(value) -> str:
    return f"{value:.3f}" if isinstance(value, float) else str(value)


if __name__ == "__main__":
    sys.exit(cli())
