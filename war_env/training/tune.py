"""A hyperparameter sweep with Ray Tune, every trial one ``war-train`` run (``war_env.training.run``).

Each trial calls ``war_env.training.run.train`` with the algorithm's config file (the shipped one unless given),
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

import json
import math
import os
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from war_env.agents import make_opponent
from war_env.agents.algorithms import check_algorithm
from war_env.core.rules import WarConfig
from war_env.league.ray_backend import check_reachable, connect
from war_env.support.atomic import write_atomic
from war_env.training.config import check_hyperparameters, check_n_envs, load_config, shipped_config_file
from war_env.training.run import train

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
    algo = check_algorithm(algo)
    if not isinstance(space, dict) or not space:
        raise ValueError(f"a search space must be a non-empty JSON object of hyperparameters, got {space!r}")
    for name, spec in space.items():
        if not isinstance(spec, dict) or len(spec) != 1 or next(iter(spec)) not in DISTRIBUTIONS:
            raise ValueError(
                f"search space entry {name!r} must be one of {{'<{'|'.join(DISTRIBUTIONS)}>': [...]}}, got {spec!r}"
            )
        ((kind, values),) = spec.items()
        if not isinstance(values, list) or not values or (kind != "choice" and len(values) != 2):
            raise ValueError(
                f"{name}: {kind} takes {'a non-empty list' if kind == 'choice' else '[low, high]'}, got {values!r}"
            )
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
        ((kind, values),) = spec.items()
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
def trial_folder(trial_id: str) -> str:
    """``trial_000`` for Tune's trial id ``ab039_00000`` (its sweep's random prefix, then the trial's index):
    the folder of a trial's war-train run, named by its place in the sweep, not by the trainable's name."""
    index = trial_id.rsplit("_", 1)[-1]
    if not index.isdigit():
        raise ValueError(f"a Tune trial id ends in the trial's index, got {trial_id!r}")
    return f"trial_{int(index):03d}"


def _trial(config: dict, settings: dict) -> None:
    """A Tune function trainable: one war-train run with ``config`` as hyperparameter overrides."""
    from ray import tune

    run_dir = Path(settings["out"]) / "trials" / trial_folder(tune.get_context().get_trial_id())
    result = train(
        settings["algo"],
        config_path=settings["config_path"],
        overrides=dict(config),
        timesteps=settings["timesteps"],
        n_envs=settings["n_envs"],
        seed=settings["seed"],
        opponent=settings["opponent"],
        env_args=dict(settings["env_args"]),
        run_dir=run_dir,
        bench_rounds=settings["bench_rounds"],
        bench_seed=settings["bench_seed"],
    )
    bench = result.model_card["benchmark"]
    tune.report(
        {
            METRIC: bench["model"]["mean_return"],
            "prompt_mean_return": bench["baseline"]["mean_return"],
            "return_minus_prompt": bench["mean_return_difference"],
            "takeovers": bench["model"]["takeovers"],
            "false_starts_per_100_rounds": bench["model"]["false_starts_per_100_rounds"],
            "bar_passed": bench["bar"]["passed"],
            "timesteps": result.timesteps,
            "run_dir": str(result.run_dir),
        }
    )


# --- the sweep ---------------------------------------------------------------------------------------
def tune_sweep(
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
    space = check_space(algo, DEFAULT_SPACE if space is None else space)
    config_path = Path(config_path) if config_path else Path(str(shipped_config_file(algo)))
    if load_config(config_path).algorithm != algo:
        raise ValueError(f"config file {str(config_path)!r} is not for {algo!r}")
    make_opponent(opponent, config=WarConfig.from_kwargs(env_args or {}))
    counts = (
        ("samples", samples),
        ("timesteps", timesteps),
        ("bench_rounds", bench_rounds),
        ("max_concurrent", 1 if max_concurrent is None else max_concurrent),
    )
    for name, value in counts:
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a whole number >= 1, got {value!r}")
    if n_envs is not None:
        check_n_envs(n_envs)
    check_reachable(address)
    out = Path(out) if out is not None else Path("runs") / "tune" / datetime.now().strftime("%Y%m%d-%H%M%S")
    out = out.resolve()  # trials run in other processes and folders
    if (out / "tune.json").exists():
        raise ValueError(f"{out} already holds a sweep; choose another --out")
    out.mkdir(parents=True, exist_ok=True)
    settings = {
        "algo": algo,
        "config_path": str(config_path.resolve()),
        "timesteps": timesteps,
        "n_envs": n_envs,
        "seed": seed,
        "opponent": opponent,
        "env_args": dict(env_args or {}),
        "bench_rounds": bench_rounds,
        "bench_seed": bench_seed,
        "out": str(out),
    }

    from ray import tune
    from ray.tune.search import BasicVariantGenerator

    connect(address)
    tuner = tune.Tuner(
        tune.with_resources(tune.with_parameters(_trial, settings=settings), {"cpu": 1}),
        param_space=to_tune(space),
        tune_config=tune.TuneConfig(
            metric=METRIC,
            mode="max",
            num_samples=samples,
            max_concurrent_trials=max_concurrent,
            search_alg=BasicVariantGenerator(random_state=seed),
        ),
        run_config=tune.RunConfig(name="sweep", storage_path=str(out / "ray_results"), verbose=0),
    )
    grid = tuner.fit()
    trials, errors = [], []
    for result in grid:
        if result.error is not None:
            errors.append({"config": result.config, "error": str(result.error)})
        elif result.metrics and METRIC in result.metrics:
            keep = (
                "return_minus_prompt",
                "prompt_mean_return",
                "takeovers",
                "false_starts_per_100_rounds",
                "bar_passed",
                "timesteps",
                "run_dir",
            )
            trials.append(
                {"config": result.config, METRIC: result.metrics[METRIC], **{key: result.metrics[key] for key in keep}}
            )
    trials.sort(key=lambda trial: -trial[METRIC] if math.isfinite(trial[METRIC]) else math.inf)
    summary = {
        "settings": settings,
        "space": space,
        "metric": f"{METRIC} (held-out rounds, higher is better)",
        "trials": trials,
        "errors": errors,
    }
    write_atomic(out / "tune.json", json.dumps(summary, indent=2) + "\n")
    return TuneRun(out, trials, errors)
