"""``war-train``: train a Stable-Baselines3 agent on War-v0 (the training itself is ``war_env.training``)."""

from __future__ import annotations

import argparse
import sys

from war_env.agents.algorithms import ALGORITHMS
from war_env.core.probes import PROBES
from war_env.core.specs import parse_assignments
from war_env.scripts.common import HelpFormatter, run_command, seed
from war_env.training.run import TrainResult, train

FAST = "fast_ppo"
"""``--algo fast_ppo``: the project's own PPO over the batched engine (``war_env.training.fast_ppo``)."""
FAST_DEFAULT_TIMESTEPS = 1_000_000
FAST_IGNORES = {"config": None, "n_envs": None, "vec_env": "batched", "trust_model_file": False}
"""Options of the SB3 runs that fast_ppo has no use for (its settings are --set KEY=VALUE; its env is always the
batched engine's), with their defaults: given otherwise, they are refused rather than silently ignored."""

DESCRIPTION = """\
Train PPO, A2C, DQN (stable-baselines3), MaskablePPO or RecurrentPPO (sb3-contrib), or fast_ppo (the project's
PPO over the batched engine: MLP, --frame-stack K, or an LSTM with --set lstm_hidden_size=64) on War-v0, or on a
probe's game (--env-id WarMemory-v1, docs/probes.md), against an opponent, then compare the best and the final model
with the `prompt` baseline on held-out paired rounds
(PASSED only when both meet the bar).

The run folder receives config.json (the exact configuration, which --resume reads back),
checkpoints/, best.zip and final.zip (load them as ALGO:PATH, e.g. in war-bench), eval/ and tb/
(TensorBoard) and model_card.json (versions, wall time, evaluations, the comparison).

examples:
  war-train --algo ppo --opponent human --run-dir runs/ppo-human
  war-train --algo recurrent_ppo --env-id WarMemory-v1 --timesteps 20000
  war-train --algo ppo --frame-stack 4 --env-id WarMemory-v1 --timesteps 20000
  war-train --algo fast_ppo --env-id WarMemory-v1 --set lstm_hidden_size=64 --timesteps 10000000
  war-train --algo fast_ppo --set checkpoint_every=1000000 --run-dir runs/fast   # then, if cut off:
  war-train --algo fast_ppo --resume runs/fast
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="war-train", description=DESCRIPTION, formatter_class=HelpFormatter)
    parser.add_argument(
        "--algo",
        default="ppo",
        choices=[*sorted(ALGORITHMS), FAST],
        metavar="ALGO",
        help=f"the algorithm: {', '.join(sorted(ALGORITHMS))} (SB3), or {FAST} (the batched "
        "engine's own PPO, docs/training.md: its settings are --set KEY=VALUE of "
        "war_env.training.fast_ppo.FastPPOConfig)",
    )
    parser.add_argument(
        "--config",
        metavar="FILE",
        default=None,
        help="your own configuration file (JSON) (default: the one shipped for ALGO)",
    )
    parser.add_argument(
        "--set",
        action="append",
        metavar="KEY=VALUE",
        default=None,
        help="override a hyperparameter of the configuration, e.g. --set gamma=0.95 (repeatable)",
    )
    parser.add_argument(
        "--timesteps",
        type=int,
        metavar="N",
        default=None,
        help="training budget in env steps (default: the configuration's)",
    )
    parser.add_argument(
        "--n-envs", type=int, metavar="N", default=None, help="parallel training envs (default: the configuration's)"
    )
    parser.add_argument(
        "--vec-env",
        choices=("batched", "dummy", "subproc"),
        default="batched",
        help="batched: all envs stepped together by the compiled engine (bot opponents; the fast "
        "extra); dummy: SB3's DummyVecEnv over War-v0 envs; subproc: one process per env",
    )
    parser.add_argument("--seed", type=seed, metavar="S", default=0, help="training env i is seeded S + i")
    parser.add_argument(
        "--opponent",
        metavar="SPEC",
        default=None,
        help="opponent bot spec (instant, fixed:ticks=5, uniform:low=1,high=10, human, absent), "
        "an agent spec, or a saved model ALGO:PATH (default: a probe's own, else human)",
    )
    parser.add_argument(
        "--env-id",
        metavar="ID",
        default=None,
        help=f"the game: War-v0, WarLatency-v0 or a probe's ({', '.join(probe.env_id for probe in PROBES.values())}) "
        "(default: War-v0, or WarLatency-v0 with a latency)",
    )
    parser.add_argument(
        "--frame-stack",
        type=int,
        metavar="K",
        default=1,
        help="the policy sees its last K observations at once (SB3's VecFrameStack; the model file "
        "remembers K, so ALGO:PATH plays it the same way)",
    )
    parser.add_argument(
        "--env-arg",
        action="append",
        metavar="KEY=VALUE",
        default=None,
        help="a War-v0 rule, timer or reward argument, e.g. --env-arg turn_seconds=2 (repeatable)",
    )
    parser.add_argument("--runs-root", metavar="DIR", default="runs", help="parent folder of new run folders")
    parser.add_argument(
        "--run-dir",
        metavar="DIR",
        default=None,
        help="the run folder (default: RUNS_ROOT/<algo>-<opponent>-s<seed>-<time>)",
    )
    parser.add_argument(
        "--resume",
        metavar="RUN_OR_ZIP",
        default=None,
        help="continue a run: its folder (latest checkpoint) or a checkpoint zip; the rest of the "
        "configuration comes from its config.json",
    )
    parser.add_argument(
        "--bench-rounds",
        type=int,
        metavar="N",
        default=500,
        help="held-out rounds of the final comparison with prompt (0: skip it)",
    )
    parser.add_argument(
        "--bench-seed", type=seed, metavar="S", default=2_000_000, help="round k of the comparison uses seed S + k"
    )
    parser.add_argument(
        "--require-bar",
        action="store_true",
        help="exit with status 1 when the best or the final model misses the bar (for scripts and CI; "
        "the run folder is kept either way)",
    )
    parser.add_argument("--no-progress-bar", action="store_true", help="no progress bar")
    parser.add_argument(
        "--trust-model-file",
        action="store_true",
        help="let SB3 unpickle an opponent's model file in full, which runs code from it (default: weights only)",
    )
    parser.add_argument("--verbose", type=int, choices=(0, 1, 2), default=0, help="SB3's verbosity")
    return parser


def cli(argv: list[str] | None = None) -> int:
    """The ``war-train`` command; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)

    def call() -> int:
        if args.require_bar and args.bench_rounds == 0:
            raise ValueError("--require-bar needs the held-out comparison that judges the bar (--bench-rounds > 0)")
        if args.algo == FAST:
            return fast(args)
        result = train(
            args.algo,
            config_path=args.config,
            overrides=parse_assignments(args.set or [], "--set"),
            timesteps=args.timesteps,
            n_envs=args.n_envs,
            seed=args.seed,
            opponent=args.opponent,
            env_args=parse_assignments(args.env_arg or [], "--env-arg"),
            env_id=args.env_id,
            frame_stack=args.frame_stack,
            runs_root=args.runs_root,
            run_dir=args.run_dir,
            resume=args.resume,
            bench_rounds=args.bench_rounds,
            bench_seed=args.bench_seed,
            vec_env=args.vec_env,
            progress_bar=not args.no_progress_bar,
            trust_model_file=args.trust_model_file,
            verbose=args.verbose,
        )
        passed = print_summary(result)
        judged = probe_summary(args, result)
        passed = passed if judged is None else judged
        if args.require_bar and not passed:
            print(
                f"{parser.prog}: error: the bar was not reached (--require-bar); the run is in {result.run_dir}",
                file=sys.stderr,
            )
            return 1
        return 0

    return run_command(parser, call, extras=("train",))


def fast(args) -> int:
    """``--algo fast_ppo``: train, print the run folder, steps/s and the comparison with prompt."""
    from war_env.training.fast_ppo import ProgressPrinter, run_fast_ppo
    from war_env.training.probe_verdict import describe

    given = [f"--{name.replace('_', '-')}" for name, default in FAST_IGNORES.items() if getattr(args, name) != default]
    if given:
        raise ValueError(f"--algo {FAST} does not take {', '.join(given)} (its settings are --set KEY=VALUE)")
    if args.resume:  # the folder's settings: only the budget, the comparison and a restated opponent may be given
        fixed = {"set": None, "env_id": None, "env_arg": None, "seed": 0, "frame_stack": 1, "run_dir": None}
        given = [f"--{name.replace('_', '-')}" for name, default in fixed.items() if getattr(args, name) != default]
        if given:
            raise ValueError(f"--resume continues the run as its config.json says; it does not take {', '.join(given)}")
        run = run_fast_ppo(
            args.resume,
            args.timesteps,
            opponent=args.opponent,
            bench_rounds=args.bench_rounds,
            bench_seed=args.bench_seed,
            resume=True,
            log=ProgressPrinter(args.timesteps),
        )
    else:
        run = run_fast_ppo(
            args.run_dir or _fast_run_dir(args),
            args.timesteps or FAST_DEFAULT_TIMESTEPS,
            overrides=parse_assignments(args.set or [], "--set"),
            env_id=args.env_id,
            opponent=args.opponent,
            env_args=parse_assignments(args.env_arg or [], "--env-arg"),
            seed=args.seed,
            frame_stack=args.frame_stack,
            bench_rounds=args.bench_rounds,
            bench_seed=args.bench_seed,
            log=ProgressPrinter(args.timesteps or FAST_DEFAULT_TIMESTEPS),
        )
    card = run.model_card
    print(
        f"run folder: {run.run_dir}  ({card['timesteps']} timesteps, {card['train_wall_seconds']:.1f} s training, "
        f"{card['steps_per_second']:,} steps/s)"
    )
    print(f"model: {run.model}   (load it as {card['model']['load']})")
    for warning in card.get("warnings", []):
        print(f"warning: {warning}")
    verdicts = card.get("probe_verdict")
    if verdicts:  # a probe: each model judged by the probe's own line, as the learners' table counts
        for name, judged in verdicts.items():
            print(f"  {judged['model_file']:<10} {judged['rounds']} held-out rounds: {describe(judged)}")
        passed = verdicts["final"]["passed"]
        if args.require_bar and not passed:
            print(
                f"war-train: error: the final model does not show the capability (--require-bar); the run is in "
                f"{run.run_dir}",
                file=sys.stderr,
            )
            return 1
        return 0
    bench = card.get("benchmark_final")
    if bench is None:
        return 0
    for name, stats in (("final.zip", bench["model"]), ("prompt", bench["baseline"])):
        print(
            f"  {name:<10} mean return {stats['mean_return']:+.4f}  takeovers {stats['takeovers']}"
            f"  false starts/100 {stats['false_starts_per_100_rounds']:.2f}"
        )
    passed = bench["bar"]["passed"]
    print(
        f"  held-out comparison, {bench['rounds']} rounds vs {bench['opponent']}: difference to prompt "
        f"{bench['mean_return_difference']:+.4f}; bar {'PASSED' if passed else 'NOT reached'}"
    )
    if args.require_bar and not passed:
        print(
            f"war-train: error: the bar was not reached (--require-bar); the run is in {run.run_dir}", file=sys.stderr
        )
        return 1
    return 0


def probe_summary(args, result: TrainResult) -> bool | None:
    """On a probe played as defined (its own opponent and rules), the best and the final model judged by the
    probe's line on the held-out rounds, printed; whether the final model is below it (``None``: not a probe)."""
    from war_env.agents.sb3_agent import load_sb3_agent
    from war_env.envs.games import default_opponent
    from war_env.training.probe_verdict import describe, held_out_verdict, probe_name

    env_id = result.model_card.get("env_id", args.env_id)
    if probe_name(env_id) is None or args.bench_rounds == 0 or args.env_arg:
        return None
    if args.opponent not in (None, default_opponent(env_id)):
        return None
    print(f"  on the {probe_name(env_id)} probe, judged by its own line (prompt's bar does not apply to a probe):")
    verdicts = {}
    for name, path in (("best", result.best_model), ("final", result.final_model)):
        agent = load_sb3_agent(result.algorithm, str(path), trust_model_file=args.trust_model_file)
        verdicts[name] = held_out_verdict(agent, env_id, args.bench_rounds, args.bench_seed)
        print(f"  {name:<6} {describe(verdicts[name])}")
    return verdicts["final"]["passed"]


def _fast_run_dir(args) -> str:
    import time

    opponent = (args.opponent or args.env_id or "human").split(":")[0]
    return f"{args.runs_root}/{FAST}-{opponent}-s{args.seed}-{time.strftime('%Y%m%d-%H%M%S')}"


def _ticks(value) -> str:
    return "-" if value is None else f"{value:.2f} ticks"


def print_summary(result: TrainResult) -> bool | None:
    """Print the run's summary; return whether both models met the bar (``None``: no comparison was run)."""
    card = result.model_card
    print(f"run folder: {result.run_dir}  ({result.timesteps} timesteps, {card['train_wall_seconds']:.1f} s training)")
    print(f"best model: {result.best_model}   (load it as {card['model']['load']})")
    bench, final = card.get("benchmark"), card.get("benchmark_final")
    if not bench:
        return None
    print(f"held-out comparison, {bench['rounds']} rounds vs {bench['opponent']} (seed {bench['seed']}):")
    rows = [
        (f"best  {bench['model']['agent']}", bench["model"]),
        ("final.zip", final["model"]),
        ("prompt", bench["baseline"]),
    ]
    for name, stats in rows:
        print(
            f"  {name:<46} mean return {stats['mean_return']:+.4f}  takeovers {stats['takeovers']}"
            f"  false starts/100 {stats['false_starts_per_100_rounds']:.2f}"
            f"  mean reaction {_ticks(stats['mean_reaction_ticks'])}"
        )
    bar = bench["bar"]
    stderr = bench["mean_return_difference_stderr"]  # None for one round: a spread needs two
    print(
        f"  difference to prompt: best {bench['mean_return_difference']:+.4f}"
        f" (stderr {'undefined for one round' if stderr is None else f'{stderr:.4f}'}),"
        f" final {final['mean_return_difference']:+.4f}"
    )
    verdicts = {
        name: "PASSED" if comparison["bar"]["passed"] else "NOT reached"
        for name, comparison in (("best", bench), ("final", final))
    }
    passed = bench["bar"]["passed"] and final["bar"]["passed"]
    verdict = "PASSED" if passed else "NOT reached"
    print(
        f"  bar ({bar['takeovers']} takeovers, < {bar['false_starts_per_100_rounds_below']} false start/100,"
        f" gap <= {bar['return_gap_at_most']}) for the best and the final model: {verdict}"
        f" (best {verdicts['best']}, final {verdicts['final']})"
    )
    return passed


if __name__ == "__main__":
    sys.exit(cli())
