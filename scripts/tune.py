"""A hyperparameter sweep with Ray Tune, every trial one ``war-train`` run (``scripts/train.py``).

Each trial calls ``scripts.train.main`` with the algorithm's config file (``configs/<algo>.json``),
the trial's sampled hyperparameters as overrides (validated by the same checks as ``--set``), and
the same seed, opponent, rules and budget for every trial, so trials differ only by their
hyperparameters. Its score is the one ``war-train`` writes into the model card: the mean return of
the best model on ``bench_rounds`` held-out rounds (round k dealt by ``reset(seed=bench_seed + k)``,
the same deals for every trial), next to ``prompt`` on the same deals. Each trial's folder is an
ordinary war-train run folder (models, model card, TensorBoard), loadable as ``ppo:PATH/best.zip``.

The sweep folder (``--out``, default ``runs/tune/<date-time>``) holds ``trials/<trial>/`` (the
war-train runs), ``ray_results/`` (Tune's own records) and ``tune.json``: every trial's
hyperparameters and scores, best first, and the errors of trials that failed.

Search space: a JSON object ``{"name": {"loguniform": [low, high]} | {"uniform": [low, high]} |
{"randint": [low, high]} | {"choice": [v1, v2, ...]}}`` of hyperparameters of the algorithm class
(``--space FILE`` or ``--space '{...}'``); the default is ``DEFAULT_SPACE``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

DEFAULT_SPACE = {"learning_rate": {"loguniform": [3e-4, 3e-3]}, "gamma": {"choice": [0.8, 0.9, 0.95]}}
DISTRIBUTIONS = ("loguniform", "uniform", "randint", "choice")
METRIC = "mean_return"


@dataclass
class TuneRun:
    out: Path
    trials: list[dict]
    """Every finished trial, best first: config, scores, run folder."""
    errors: list[dict]
    """Trials that failed: config and error text."""

    @property
    def best(self) -> dict | None:
        return self.trials[0] if self.trials else None


# --- the search space ------------------------------------------------------------------------------
def check_space(algo: str, space: dict) -> dict:
    """Validate ``space`` before Ray starts: known distributions, sensible bounds, and every value
    they can give (both bounds, every choice) accepted by war-train's hyperparameter checks."""
    from scripts.train import check_algorithm, check_hyperparameters

    algo = check_algorithm(algo)
    if not isinstance(space, dict) or not space:
        raise ValueError(f"a search space must be a non-empty JSON object of hyperparameters, got {space!r}")
    for name, spec in space.items():
        if not isinstance(spec, dict) or len(spec) != 1 or next(iter(spec)) not in DISTRIBUTIONS:
            raise ValueError(f"search space entry {name!r} must be one of {{'<{'|'.join(DISTRIBUTIONS)}>': [...]}}, "
                             f"got {spec!r}")
        (kind, values), = spec.items()
        if not isinstance(values, list) or not values or (kind != "choice" and len(values) != 2):
            raise ValueError(f"{name}: {kind} takes {'a non-empty list' if kind == 'choice' else '[low, high]'}, "
                             f"got {values!r}")
        if kind != "choice" and not values[0] < values[1]:
            raise ValueError(f"{name}: {kind} needs low < high, got {values!r}")
        if kind == "loguniform" and not values[0] > 0:
            raise ValueError(f"{name}: loguniform needs low > 0, got {values!r}")
        if kind == "randint" and not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            raise ValueError(f"{name}: randint takes whole numbers, got {values!r}")
        examples = values if kind != "randint" else [values[0], values[1] - 1]  # randint excludes high
        for value in examples:
            check_hyperparameters(algo, {name: value})
    return space


def to_tune(space: dict) -> dict:
    from ray import tune

    made = {}
    for name, spec in space.items():
        (kind, values), = spec.items()
        made[name] = tune.choice(values) if kind == "choice" else getattr(tune, kind)(*values)
    return made


def read_space(text_or_path: str) -> dict:
    """``--space``: a JSON file, or the JSON itself."""
    path = Path(text_or_path)
    text = path.read_text() if path.is_file() else text_or_path
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"--space {text_or_path!r} is neither a JSON file nor JSON: {error}") from None


# --- one trial -------------------------------------------------------------------------------------
def _trial(config: dict, settings: dict) -> None:
    """A Tune function trainable: one war-train run with ``config`` as hyperparameter overrides."""
    from ray import tune

    from scripts.train import main as train

    run_dir = Path(settings["out"]) / "trials" / tune.get_context().get_trial_name()
    result = train(settings["algo"], config_path=settings["config_path"], overrides=dict(config),
                   timesteps=settings["timesteps"], n_envs=settings["n_envs"], seed=settings["seed"],
                   opponent=settings["opponent"], env_args=dict(settings["env_args"]), run_dir=run_dir,
                   bench_rounds=settings["bench_rounds"], bench_seed=settings["bench_seed"])
    bench = result.model_card["benchmark"]
    tune.report({
        METRIC: bench["model"]["mean_return"],
        "prompt_mean_return": bench["baseline"]["mean_return"],
        "return_minus_prompt": bench["mean_return_difference"],
        "takeovers": bench["model"]["takeovers"],
        "false_starts_per_100_rounds": bench["model"]["false_starts_per_100_rounds"],
        "bar_passed": bench["bar"]["passed"],
        "timesteps": result.timesteps,
        "run_dir": str(result.run_dir),
    })


# --- the sweep ---------------------------------------------------------------------------------------
def main(
    algo: str = "ppo",
    space: dict | None = None,
    samples: int = 8,
    timesteps: int = 30_000,
    *,
    config_path: str | os.PathLike | None = None,
    n_envs: int | None = None,
    seed: int = 0,
    opponent: str = "human",
    env_args: dict | None = None,
    bench_rounds: int = 300,
    bench_seed: int = 2_000_000,
    out: str | os.PathLike | None = None,
    address: str | None = None,
    max_concurrent: int | None = None,
) -> TuneRun:
    """Sample ``samples`` hyperparameter sets from ``space``, train each with war-train as a Tune
    trial (1 CPU each, on the Ray cluster at ``address`` or a local instance) and rank them."""
    from scripts.train import default_config_path, load_config
    from war_env.env import make_config

    space = check_space(algo, DEFAULT_SPACE if space is None else space)
    config_path = Path(config_path) if config_path else default_config_path(algo)
    if load_config(config_path).algorithm != algo:
        raise ValueError(f"config file {str(config_path)!r} is not for {algo!r}")
    make_config(None, dict(env_args or {}))
    for name, value in (("samples", samples), ("timesteps", timesteps), ("bench_rounds", bench_rounds)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a whole number >= 1, got {value!r}")
    out = Path(out) if out is not None else Path("runs") / "tune" / datetime.now().strftime("%Y%m%d-%H%M%S")
    out = out.resolve()  # trials run in other processes and folders
    if (out / "tune.json").exists():
        raise ValueError(f"{out} already holds a sweep; choose another --out")
    out.mkdir(parents=True, exist_ok=True)
    settings = {"algo": algo, "config_path": str(config_path.resolve()), "timesteps": timesteps, "n_envs": n_envs,
                "seed": seed, "opponent": opponent, "env_args": dict(env_args or {}), "bench_rounds": bench_rounds,
                "bench_seed": bench_seed, "out": str(out)}

    from ray import tune
    from ray.tune.search import BasicVariantGenerator

    from scripts.ray_backend import connect

    connect(address)
    tuner = tune.Tuner(
        tune.with_resources(tune.with_parameters(_trial, settings=settings), {"cpu": 1}),
        param_space=to_tune(space),
        tune_config=tune.TuneConfig(metric=METRIC, mode="max", num_samples=samples,
                                    max_concurrent_trials=max_concurrent,
                                    search_alg=BasicVariantGenerator(random_state=seed)),
        run_config=tune.RunConfig(name="sweep", storage_path=str(out / "ray_results"), verbose=0),
    )
    grid = tuner.fit()
    trials, errors = [], []
    for result in grid:
        if result.error is not None:
            errors.append({"config": result.config, "error": str(result.error)})
        elif result.metrics and METRIC in result.metrics:
            keep = ("return_minus_prompt", "prompt_mean_return", "takeovers", "false_starts_per_100_rounds",
                    "bar_passed", "timesteps", "run_dir")
            trials.append({"config": result.config, METRIC: result.metrics[METRIC],
                           **{key: result.metrics[key] for key in keep}})
    trials.sort(key=lambda trial: -trial[METRIC] if math.isfinite(trial[METRIC]) else math.inf)
    summary = {"settings": settings, "space": space, "metric": f"{METRIC} (held-out rounds, higher is better)",
               "trials": trials, "errors": errors}
    from war_env.atomic import write_atomic

    write_atomic(out / "tune.json", json.dumps(summary, indent=2) + "\n")
    return TuneRun(out, trials, errors)


def cli(argv: list[str] | None = None) -> int:
    """The ``war-tune`` command; returns the exit status for ``sys.exit`` (``main`` returns the run)."""
    parser = argparse.ArgumentParser(prog="war-tune", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--algo", default="ppo", help="ppo, a2c, dqn or maskable_ppo (default ppo)")
    parser.add_argument("--space", default=None, help=f"search space, a JSON file or JSON (default {json.dumps(DEFAULT_SPACE)})")
    parser.add_argument("--samples", type=int, default=8, help="trials (default 8)")
    parser.add_argument("--timesteps", type=int, default=30_000, help="training budget of each trial (default 30000)")
    parser.add_argument("--config", default=None, help="war-train config file (default configs/<algo>.json)")
    parser.add_argument("--n-envs", type=int, default=None)
    parser.add_argument("--seed", type=int, default=0, help="training seed of every trial, and of the sampler")
    parser.add_argument("--opponent", default="human")
    parser.add_argument("--env-arg", action="append", metavar="KEY=VALUE", help="a WarConfig field (repeatable)")
    parser.add_argument("--bench-rounds", type=int, default=300, help="held-out rounds that score a trial (default 300)")
    parser.add_argument("--bench-seed", type=int, default=2_000_000)
    parser.add_argument("--out", default=None, help="sweep folder (default runs/tune/<date-time>)")
    parser.add_argument("--address", default=None, help="Ray cluster (auto, HOST:PORT, ray://HOST:10001); "
                                                        "default: a local Ray instance")
    parser.add_argument("--max-concurrent", type=int, default=None, help="trials at once (default: as CPUs allow)")
    args = parser.parse_args(argv)
    from scripts.train import parse_assignments

    try:
        run = main(args.algo, None if args.space is None else read_space(args.space), args.samples, args.timesteps,
                   config_path=args.config, n_envs=args.n_envs, seed=args.seed, opponent=args.opponent,
                   env_args=parse_assignments(args.env_arg, "--env-arg"), bench_rounds=args.bench_rounds,
                   bench_seed=args.bench_seed, out=args.out, address=args.address, max_concurrent=args.max_concurrent)
    except (ValueError, TypeError, FileNotFoundError) as error:
        parser.error(str(error))
    print(f"sweep folder: {run.out} (tune.json)")
    for trial in run.trials:
        config = ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in trial["config"].items())
        print(f"  {trial[METRIC]:+.4f} mean return ({trial['return_minus_prompt']:+.4f} vs prompt, "
              f"{trial['takeovers']} takeovers)  {config}  {trial['run_dir']}")
    for error in run.errors:
        print(f"  FAILED {error['config']}: {error['error'].strip().splitlines()[-1]}")
    if run.errors or not run.trials:
        raise SystemExit(f"war-tune: {len(run.errors)} of {len(run.errors) + len(run.trials)} trial(s) failed")
    return 0


if __name__ == "__main__":
    sys.exit(cli())
