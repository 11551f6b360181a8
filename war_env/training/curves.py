"""``war-curves``: learning curves of one training configuration over several seeds.

Each seed is an ordinary ``war-train`` run (``SEED_DIR`` inside the curve's folder) with a checkpoint every
``every`` steps, all kept. Every checkpoint before the last step and the final model at the last step
are then played on the same held-out paired rounds (round ``k`` is ``env.reset(seed=eval_seed + k)``, the
same deals for every seed and every step, and for ``prompt``), through ``war_env.evaluation.play_rounds``
(a greedy model plays all rounds at once on the batched env). The best model of each run (picked by the
training's own evaluation callback) is measured on the same rounds.

Three quantities per model, each against environment steps:

* ``return_gap``: ``prompt``'s mean return minus the model's (0 = plays like the optimum; per round);
* ``takeover_rate``: the fraction of rounds in which the model's timer ran out and a bot took over;
* ``false_starts_per_100``: the model's draws out of turn per 100 rounds.

Across seeds each is summarised by its interquartile mean with a stratified percentile bootstrap interval
(``war_env.league.stats.iqm_interval``, rliable's method; the package itself is not a dependency: see
docs/training.md). A model "meets the bar" of ``war_env.training.comparison.BAR``; a seed's
``first_optimal_at`` is the first step whose model meets it, ``optimal_from`` the step from which every
later model does (``None``: the final model does not).

The folder: ``settings.json`` (the settings but the seeds, checked again when the folder is run again), the
training config with the checkpoint schedule (``train_config.json``), ``seed-<S>/`` (the war-train run
and its ``curve.json`` once evaluated), and at the end ``curves.json`` and ``curves.png``. A seed is
written the moment it is done, so an interrupted command loses no finished seed: run it again and it
continues (an evaluated seed is read back, a trained one only evaluated, a cut-off training resumed from
its latest checkpoint; a resumed training is not bit-identical to an uninterrupted one). Other seeds
may be added to a folder later; curves.json summarises the seeds of the last command.
"""

from __future__ import annotations

import json
import os
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from war_env.agents import is_exec_spec, make_opponent
from war_env.agents.algorithms import check_algorithm
from war_env.agents.sb3_agent import load_sb3_agent
from war_env.core.rules import WarConfig
from war_env.league.stats import iqm_interval
from war_env.support.atomic import write_atomic
from war_env.support.threads import limit_process_threads, one_thread_environment
from war_env.training.callbacks import checkpoints
from war_env.training.comparison import BAR, BASELINE, HeldOutRounds, compare, held_out_stats
from war_env.training.config import load_config, non_negative_int, positive_int, shipped_config_file
from war_env.training.envs import VEC_ENVS
from war_env.training.run import train

METRICS = {
    "return_gap": "mean return gap to prompt, per round",
    "takeover_rate": "takeover rate (rounds taken over / rounds)",
    "false_starts_per_100": "false starts per 100 rounds",
}
LINEAR_BELOW = {"return_gap": 0.001, "takeover_rate": 0.001, "false_starts_per_100": 0.1}
"""The plots are linear below these values and logarithmic above (the optimum is 0, an untrained model
is 1,000 times worse): one takeover in 1,000 rounds, a gap of 0.001 per round, stay visible."""
SEED_DIR = "seed-{}"
MAX_POINTS = 1_000
"""Most models on one curve (``timesteps / every``): each is a checkpoint file and 1,000s of rounds."""


@dataclass(frozen=True)
class CurveSettings:
    """What a curve folder was made with; running a folder again with other settings is refused."""

    algorithm: str
    config_file: str
    seeds: tuple[int, ...]
    opponent: str
    timesteps: int
    every: int
    rounds: int
    eval_seed: int
    env_args: dict
    vec_env: str

    def as_json(self) -> dict:
        return {**asdict(self), "seeds": list(self.seeds)}


@dataclass
class CurvesResult:
    run_dir: Path
    curves: dict
    """The content of ``curves.json``."""
    png: Path


def learning_curves(
    algo: str = "ppo",
    *,
    config_path: str | os.PathLike | None = None,
    seeds=(0, 1, 2, 3, 4),
    opponent: str = "human",
    timesteps: int | None = None,
    every: int = 5_000,
    rounds: int = 1_000,
    eval_seed: int = 2_000_000,
    env_args: dict | None = None,
    run_dir: str | os.PathLike | None = None,
    runs_root: str | os.PathLike = "runs",
    workers: int = 1,
    vec_env: str = "batched",
    log=print,
) -> CurvesResult:
    """Train ``algo`` once per seed, evaluate every ``every`` steps, write curves.json and curves.png."""
    settings = check_settings(algo, config_path, seeds, opponent, timesteps, every, rounds, eval_seed, env_args,
                              vec_env)
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a whole number >= 1, got {workers!r}")
    if run_dir is None:
        name = f"curves-{settings.algorithm}-{opponent.split(':')[0]}-{time.strftime('%Y%m%d-%H%M%S')}"
        run_dir = Path(runs_root) / name
    run_dir = Path(run_dir)
    _start_folder(run_dir, settings)
    prompt = held_out_stats(BASELINE, settings.opponent, settings.env_args, settings.rounds, settings.eval_seed)
    results = {}
    for seed, seed_curve in _run_seeds(run_dir, settings, prompt, workers):
        results[seed] = seed_curve
        final = seed_curve["final"]
        log(f"seed {seed}: final model {'meets' if final['bar_passed'] else 'does NOT meet'} the bar "
            f"(takeovers {final['takeovers']}, false starts/100 {final['false_starts_per_100']:.2f}, "
            f"gap {final['return_gap']:+.4f}); first optimal at {seed_curve['first_optimal_at']}, "
            f"optimal from {seed_curve['optimal_from']}; {seed_curve['train_wall_seconds']} s training")
    curves = summarise(settings, prompt, [results[seed] for seed in settings.seeds])
    write_atomic(run_dir / "curves.json", json.dumps(curves, indent=2))
    png = run_dir / "curves.png"
    plot_curves(curves, png)
    return CurvesResult(run_dir, curves, png)


def check_settings(algo, config_path, seeds, opponent, timesteps, every, rounds, eval_seed, env_args,
                   vec_env) -> CurveSettings:
    """Every argument checked (the opponent built once) before anything is written or trained."""
    algo = check_algorithm(algo)
    config_file = Path(config_path) if config_path else shipped_config_file(algo)
    config = load_config(config_file)
    if config.algorithm != algo:
        raise ValueError(f"config file {str(config_file)!r} is for {config.algorithm!r}, not {algo!r}")
    seeds = tuple(seeds)
    if not seeds or any(isinstance(seed, bool) or not isinstance(seed, int) or seed < 0 for seed in seeds):
        raise ValueError(f"seeds must be one or more whole numbers >= 0, got {list(seeds)}")
    if len(set(seeds)) != len(seeds):
        raise ValueError(f"seeds must not repeat, got {list(seeds)}")
    env_args = dict(env_args or {})
    make_opponent(opponent, config=WarConfig.from_kwargs(env_args))
    timesteps = positive_int("timesteps", timesteps if timesteps is not None else config.timesteps)
    every = positive_int("every", every)
    if every > timesteps:
        raise ValueError(f"every ({every:,}) must not exceed the training budget ({timesteps:,} steps)")
    if timesteps // every > MAX_POINTS:
        raise ValueError(f"timesteps / every gives {timesteps // every:,} models per curve; at most {MAX_POINTS:,}")
    if vec_env not in VEC_ENVS:
        raise ValueError(f"vec_env must be one of {', '.join(VEC_ENVS)}, got {vec_env!r}")
    return CurveSettings(algo, str(config_file), seeds, opponent, timesteps, every, positive_int("rounds", rounds),
                         non_negative_int("eval_seed", eval_seed), env_args, vec_env)


def _start_folder(run_dir: Path, settings: CurveSettings) -> None:
    """A new folder gets the settings and the training config; a folder made before must have the same
    settings and the same training config (running it again continues it). The config is compared by
    content, not by its path: the shipped config of another checkout or venv is the same config."""
    recorded = run_dir / "settings.json"
    now = {key: value for key, value in settings.as_json().items() if key not in ("seeds", "config_file")}
    training_config = _training_config(settings)
    if recorded.exists():
        before = json.loads(recorded.read_text())
        changed = sorted(key for key in now if before.get(key) != now[key])
        if json.loads((run_dir / "train_config.json").read_text()) != training_config:
            changed.append("the training config's content")
        if changed:
            raise FileExistsError(f"curve folder {str(run_dir)!r} was made with other settings ({', '.join(changed)}); "
                                  "pick another --run-dir")
        return
    if run_dir.exists() and any(run_dir.iterdir()):
        raise FileExistsError(f"{str(run_dir)!r} is not empty and holds no war-curves run; pick another --run-dir")
    write_atomic(run_dir / "train_config.json", json.dumps(training_config, indent=2))
    write_atomic(recorded, json.dumps({**now, "config_file": settings.config_file}, indent=2))


def _training_config(settings: CurveSettings) -> dict:
    raw = json.loads(Path(settings.config_file).read_text())
    raw["checkpoint_every_timesteps"] = settings.every
    raw["keep_checkpoints"] = MAX_POINTS  # every checkpoint is a point of the curve
    return raw


# --- one seed ----------------------------------------------------------------------------------------
def _run_seeds(run_dir: Path, settings: CurveSettings, prompt: HeldOutRounds, workers: int):
    """(seed, its curve) as each seed finishes; in ``workers`` spawned processes when more than one."""
    if workers == 1 or len(settings.seeds) == 1:
        for seed in settings.seeds:
            yield seed, seed_curve(run_dir, settings, seed, prompt)
        return
    import multiprocessing

    with one_thread_environment():  # the workers start with one thread for torch, numba and BLAS
        pool = ProcessPoolExecutor(min(workers, len(settings.seeds)), mp_context=multiprocessing.get_context("spawn"),
                                   initializer=limit_process_threads)
    try:
        futures = {pool.submit(seed_curve, run_dir, settings, seed, prompt): seed for seed in settings.seeds}
        for future in as_completed(futures):
            yield futures[future], future.result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def seed_curve(run_dir: Path, settings: CurveSettings, seed: int, prompt: HeldOutRounds) -> dict:
    """Train seed ``seed`` (or continue it) and evaluate its models; its curve is written to its folder."""
    folder = run_dir / SEED_DIR.format(seed)
    done = folder / "curve.json"
    if done.exists():
        return json.loads(done.read_text())
    if not (folder / "model_card.json").exists():
        common = {"bench_rounds": 0, "timesteps": settings.timesteps}
        if checkpoints(folder):  # a training cut off: continue it (an exec: opponent restated: ours, from the command line)
            restated = {"opponent": settings.opponent} if is_exec_spec(settings.opponent) else {}
            train(resume=folder, **restated, **common)
        else:
            train(settings.algorithm, config_path=run_dir / "train_config.json", seed=seed, opponent=settings.opponent,
                  env_args=settings.env_args, run_dir=folder, vec_env=settings.vec_env, **common)
    started = time.perf_counter()
    card = json.loads((folder / "model_card.json").read_text())
    points = [(steps, path) for steps, path in sorted(checkpoints(folder)) if steps < card["timesteps"]]
    points.append((card["timesteps"], folder / "final.zip"))
    curve = {"steps": [], **{metric: [] for metric in METRICS}, "bar_passed": []}
    for steps, path in points:
        measured = evaluate_model(settings, path, prompt)  # the last one: final.zip
        curve["steps"].append(steps)
        for key in (*METRICS, "bar_passed"):
            curve[key].append(measured[key])
    best_record = folder / "best.json"  # absent when no evaluation ran: war-train saved the final model as best.zip
    best_at = json.loads(best_record.read_text())["timesteps"] if best_record.exists() else card["timesteps"]
    result = {
        "seed": seed,
        "curve": curve,
        "final": measured,
        "best": {**evaluate_model(settings, folder / "best.zip", prompt), "timesteps": best_at},
        **steps_to_optimum(curve["steps"], curve["bar_passed"]),
        "train_wall_seconds": round(sum(s["train_wall_seconds"] for s in card["sessions"]), 1),
        "eval_wall_seconds": round(time.perf_counter() - started, 1),
    }
    write_atomic(done, json.dumps(result, indent=2))
    return result


def steps_to_optimum(steps: list[int], passed: list[bool]) -> dict:
    """``first_optimal_at``: the first step whose model meets the bar; ``optimal_from``: the first step
    from which every later model does (``None`` for both when none, or the last one, does not)."""
    first = next((step for step, ok in zip(steps, passed) if ok), None)
    last_failure = max((k for k, ok in enumerate(passed) if not ok), default=-1)
    return {"first_optimal_at": first, "optimal_from": steps[last_failure + 1] if last_failure + 1 < len(steps) else None}


def evaluate_model(settings: CurveSettings, path: Path, prompt: HeldOutRounds) -> dict:
    """One model on the curve's held-out rounds, against ``prompt`` on the same deals."""
    agent = load_sb3_agent(settings.algorithm, str(path))
    stats = held_out_stats(agent, settings.opponent, settings.env_args, settings.rounds, settings.eval_seed)
    comparison = compare(stats, prompt)
    return {
        "return_gap": 0.0 - comparison["mean_return_difference"],  # 0.0 - x: no "-0.0000" for a gap of 0
        "return_gap_stderr": comparison["mean_return_difference_stderr"],
        "takeovers": stats.takeovers,
        "takeover_rate": stats.takeovers / stats.rounds,
        "false_starts_per_100": stats.false_starts_per_100,
        "mean_reaction_ticks": stats.mean_reaction_ticks,
        "bar_passed": comparison["bar"]["passed"],
    }


# --- across seeds ------------------------------------------------------------------------------------
def summarise(settings: CurveSettings, prompt: HeldOutRounds, seed_results: list[dict]) -> dict:
    """curves.json: per step and metric the per-seed values, their IQM and its interval; the final and
    the best models; steps to the optimum and wall times."""
    steps = seed_results[0]["curve"]["steps"]
    if any(result["curve"]["steps"] != steps for result in seed_results):
        raise ValueError("the seeds' curves were evaluated at different steps; evaluate them in one curve folder")
    metrics = {}
    for metric, label in METRICS.items():
        per_seed = np.array([result["curve"][metric] for result in seed_results])  # seeds x steps
        estimates = [iqm_interval(per_seed[:, k]) for k in range(len(steps))]
        metrics[metric] = {
            "label": label,
            "per_seed": {str(result["seed"]): result["curve"][metric] for result in seed_results},
            "iqm": [entry["value"] for entry in estimates],
            "low": [entry["low"] for entry in estimates],
            "high": [entry["high"] for entry in estimates],
        }

    def models(kind: str) -> dict:
        values = [result[kind] for result in seed_results]
        return {
            "all_meet_bar": all(value["bar_passed"] for value in values),
            **{metric: iqm_interval([value[metric] for value in values]) for metric in METRICS},
            "takeovers_total": sum(value["takeovers"] for value in values),
            "takeovers_max": max(value["takeovers"] for value in values),
            "false_starts_per_100_max": max(value["false_starts_per_100"] for value in values),
            "return_gap_max": max(value["return_gap"] for value in values),
        }

    return {
        "settings": settings.as_json(),
        "bar": BAR,
        "baseline": prompt.summary(),
        "interval": "IQM across seeds (scipy.stats.trim_mean(x, 0.25)), 95% stratified percentile bootstrap "
                    "over seeds (war_env.league.stats.iqm_interval, rliable's method)",
        "steps": steps,
        "metrics": metrics,
        "final": models("final"),
        "best": models("best"),
        "seeds": {str(result["seed"]): {key: result[key] for key in
                                        ("final", "best", "first_optimal_at", "optimal_from", "train_wall_seconds",
                                         "eval_wall_seconds")} for result in seed_results},
    }


def plot_curves(curves: dict, path: Path) -> None:
    """Three panels against environment steps: each seed thin, the IQM bold with its interval shaded."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from war_env.league.plots import save_figure

    settings, steps = curves["settings"], np.array(curves["steps"])
    figure, axes = plt.subplots(1, 3, figsize=(13, 3.8), sharex=True)
    for axis, (metric, data) in zip(axes, curves["metrics"].items()):
        for seed, values in data["per_seed"].items():
            axis.plot(steps, values, lw=0.8, alpha=0.45, marker=".", ms=3, label=f"seed {seed}")
        low = np.array([np.nan if v is None else v for v in data["low"]], dtype=float)
        high = np.array([np.nan if v is None else v for v in data["high"]], dtype=float)
        axis.fill_between(steps, low, high, color="black", alpha=0.15, lw=0, label="95% interval (IQM)")
        axis.plot(steps, data["iqm"], color="black", lw=2, label="IQM across seeds")
        axis.set_title(data["label"], fontsize=10)
        axis.set_xlabel("environment steps")
        axis.set_yscale("symlog", linthresh=LINEAR_BELOW[metric])
        axis.grid(alpha=0.3)
    bar = curves["bar"]
    axes[0].axhline(bar["return_gap_at_most"], color="tab:red", lw=0.8, ls="--", label="bar")
    axes[2].axhline(bar["false_starts_per_100_rounds_below"], color="tab:red", lw=0.8, ls="--")
    for axis, (metric, data) in zip(axes, curves["metrics"].items()):  # 0 at the bottom, room for the bar above
        values = np.ravel(list(data["per_seed"].values()))
        axis.set_ylim(min(0.0, values.min()) - 0.3 * LINEAR_BELOW[metric], 1.5 * max(values.max(), 10 * LINEAR_BELOW[metric]))
    handles, labels = axes[0].get_legend_handles_labels()
    axes[2].legend(handles, labels, fontsize=7, loc="center right")  # that panel is mostly empty once learned
    axes[0].set_xlim(left=0)
    final = curves["final"]
    verdict = "every final model meets the bar" if final["all_meet_bar"] else "NOT every final model meets the bar"
    figure.suptitle(f"{settings['algorithm']} vs {settings['opponent']}, {settings['timesteps']:,} steps: "
                    f"{len(settings['seeds'])} seeds, "
                    f"{settings['rounds']:,} held-out paired rounds per point (seed {settings['eval_seed']}); "
                    f"{verdict}", fontsize=10)
    figure.tight_layout()
    save_figure(figure, path)
    plt.close(figure)
