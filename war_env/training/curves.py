"""``war-curves``: learning curves of one training configuration over several seeds, in one game.

Each seed is an ordinary training run (``SEED_DIR`` inside the curve's folder) with a checkpoint every
``every`` steps, all kept: a ``war-train`` run of an SB3 algorithm, or of ``fast_ppo`` (the project's PPO over
the batched engine, ``war_env.training.fast_ppo``). Every checkpoint before the last step and the final model
at the last step are then played on the same held-out paired rounds (round ``k`` is
``env.reset(seed=eval_seed + k)``, the same deals for every seed and every step, and for the reference) in the
curve's game (``env_id``: War-v0 or WarLatency-v0 by the rules without one, or a probe), through
``war_env.evaluation.play_rounds`` (a greedy model plays all rounds at once on the batched env). The best model
of an SB3 run (picked by the training's own evaluation callback) is measured on the same rounds.

Three quantities per model, each against environment steps and against training wall seconds:

* the gap to the reference (``Reference``), per round: in War-v0 and WarLatency-v0 ``return_gap``, ``prompt``'s
  mean return minus the model's; on a probe ``regret``, the probe's ``oracle`` (its exact optimum) minus the
  model's, with the probe's best simple baseline's exact regret drawn for scale (0 = plays like the reference);
* ``takeover_rate``: the fraction of rounds in which the model's timer ran out and a bot took over;
* ``false_starts_per_100``: the model's draws out of turn per 100 rounds.

Across seeds each is summarised by its interquartile mean with a stratified percentile bootstrap interval
(``war_env.league.stats.iqm_interval``, rliable's method; the package itself is not a dependency: see
docs/training.md). A model "meets the bar" of ``war_env.training.comparison.BAR`` (with the oracle in
``prompt``'s place on a probe); a seed's ``first_optimal_at`` is the first step whose model meets it,
``optimal_from`` the step from which every later model does (``None``: the final model does not).

A point's wall seconds are its run's training seconds up to that step (``WALL_SECONDS``): fast_ppo records them
at every update; an SB3 run records them per training session only, so a checkpoint's are interpolated in steps
within its session.

The folder: ``settings.json`` (the settings but the seeds, checked again when the folder is run again), the
training config with the checkpoint schedule (``train_config.json``), ``seed-<S>/`` (the training run
and its ``curve.json`` once evaluated), and at the end ``curves.json``, ``curves.png`` and a line per command in
``run.json``'s ``sessions``. The folder is locked while a command works in it. A seed is
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
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from war_env.agents import is_exec_spec, make_opponent
from war_env.agents.algorithms import check_algorithm
from war_env.envs.games import check_env_id, default_opponent, game_config, probe_of
from war_env.evaluation.summary import paired_difference
from war_env.league.stats import bootstrap_mean, iqm_interval
from war_env.support.atomic import write_atomic
from war_env.support.provenance import provenance
from war_env.support.run_folder import (
    LOCK_NAME,
    freeze_settings,
    locked_run_folder,
    record_session,
    refuse_started,
    write_settings,
)
from war_env.support.threads import limit_process_threads, one_thread_environment
from war_env.training.callbacks import checkpoints
from war_env.training.comparison import BAR, BASELINE, HeldOutRounds, compare, held_out_stats
from war_env.training.config import load_config, non_negative_int, positive_int, shipped_config_file
from war_env.training.envs import VEC_ENVS
from war_env.training.probe_verdict import capability_line, verdict
from war_env.training.run import train

SETTINGS_FILE = "settings.json"
"""The curve's settings but its seeds, frozen when the folder is made (``war_env.support.run_folder``)."""
TRAINING_CONFIG_FILE = "train_config.json"
"""The training config with the curve's checkpoint schedule, frozen beside them."""

FAST_PPO = "fast_ppo"
"""The project's own PPO over the batched engine (``war_env.training.fast_ppo``); every other algorithm is SB3's."""
ROUND_METRICS = {
    "takeover_rate": "takeover rate (rounds taken over / rounds)",
    "false_starts_per_100": "false starts per 100 rounds",
}
"""The metrics of every game; the gap to the reference (``Reference``) comes first."""
LINEAR_BELOW = {"return_gap": 0.001, "regret": 0.001, "takeover_rate": 0.001, "false_starts_per_100": 0.1}
"""The plots are linear below these values and logarithmic above (the optimum is 0, an untrained model
is 1,000 times worse): one takeover in 1,000 rounds, a gap of 0.001 per round, stay visible."""
WALL_SECONDS = {
    FAST_PPO: "training wall seconds up to the step, as fast_ppo's progress.jsonl records them at every update",
    "sb3": "training wall seconds up to the step, interpolated in steps within its training session (an SB3 run "
    "records the wall seconds of each session, from_timesteps to to_timesteps, in its model card)",
}
SEED_DIR = "seed-{}"
MAX_POINTS = 1_000
"""Most models on one curve (``timesteps / every``): each is a checkpoint file and 1,000s of rounds."""


@dataclass(frozen=True)
class Reference:
    """What a model's return is measured against, on the same held-out deals: ``prompt`` in War-v0 and
    WarLatency-v0, the probe's own optimum (the ``oracle``) on a probe."""

    agent: str
    metric: str
    """The name of the gap (the reference's mean return minus the model's, per round) in curves.json."""
    label: str

    @property
    def metrics(self) -> dict[str, str]:
        return {self.metric: self.label, **ROUND_METRICS}


def reference_of(env_id: str | None) -> Reference:
    if probe_of(env_id) is None:
        return Reference(BASELINE, "return_gap", "mean return gap to prompt, per round")
    return Reference("oracle", "regret", "regret to the oracle, per round")


METRICS = reference_of(None).metrics
"""The metrics of War-v0 and WarLatency-v0."""


@dataclass(frozen=True)
class CurveSettings:
    """What a curve folder was made with; running a folder again with other settings is refused."""

    algorithm: str
    config_file: str
    """The SB3 configuration file ('' for fast_ppo, whose settings are ``overrides`` of its defaults)."""
    overrides: dict
    seeds: tuple[int, ...]
    env_id: str | None
    opponent: str
    timesteps: int
    every: int
    rounds: int
    eval_seed: int
    env_args: dict
    vec_env: str

    @property
    def reference(self) -> Reference:
        return reference_of(self.env_id)

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
    overrides: dict | None = None,
    seeds=(0, 1, 2, 3, 4),
    env_id: str | None = None,
    opponent: str | None = None,
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
    """Train ``algo`` once per seed on ``env_id``'s game, evaluate every ``every`` steps, write curves.json and
    curves.png. ``opponent``: by default a probe's own, else ``human``."""
    settings = check_settings(
        algo, config_path, overrides, seeds, env_id, opponent, timesteps, every, rounds, eval_seed, env_args, vec_env
    )
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a whole number >= 1, got {workers!r}")
    if run_dir is None:
        game = settings.env_id or settings.opponent.split(":")[0]
        run_dir = Path(runs_root) / f"curves-{settings.algorithm}-{game}-{time.strftime('%Y%m%d-%H%M%S')}"
    with locked_run_folder(run_dir, "war-curves"):
        return _curves(Path(run_dir), settings, workers, log)


def _curves(run_dir: Path, settings: CurveSettings, workers: int, log) -> CurvesResult:
    started_at, started = datetime.now(timezone.utc).isoformat(timespec="seconds"), time.perf_counter()
    _start_folder(run_dir, settings)
    reference = held_out_stats(
        settings.reference.agent,
        settings.opponent,
        settings.env_args,
        settings.rounds,
        settings.eval_seed,
        env_id=settings.env_id,
    )
    gap = settings.reference.metric
    results = {}
    for seed, seed_curve in _run_seeds(run_dir, settings, reference, workers):
        results[seed] = seed_curve
        final = seed_curve["final"]
        if "regret_interval" in final:  # a probe
            judged = "is below the probe's line" if final["bar_passed"] else "is NOT below the probe's line"
        else:
            judged = "meets the bar" if final["bar_passed"] else "does NOT meet the bar"
        log(
            f"seed {seed}: final model {judged} "
            f"(takeovers {final['takeovers']}, false starts/100 {final['false_starts_per_100']:.2f}, "
            f"{gap} {final[gap]:+.4f}); first optimal at {seed_curve['first_optimal_at']}, "
            f"optimal from {seed_curve['optimal_from']}; {seed_curve['train_wall_seconds']} s training"
        )
    curves = summarise(settings, reference, [results[seed] for seed in settings.seeds])
    write_atomic(run_dir / "curves.json", json.dumps(curves, indent=2))
    session = {
        "started_at": started_at,
        "seeds": list(settings.seeds),
        "workers": workers,
        "seconds": round(time.perf_counter() - started, 1),
    }
    record_session(run_dir, session, provenance=provenance())
    png = run_dir / "curves.png"
    plot_curves(curves, png)
    return CurvesResult(run_dir, curves, png)


def check_settings(
    algo, config_path, overrides, seeds, env_id, opponent, timesteps, every, rounds, eval_seed, env_args, vec_env
) -> CurveSettings:
    """Every argument checked (the opponent and the training config built once) before anything is written
    or trained."""
    env_id = None if env_id is None else check_env_id(env_id)
    overrides = dict(overrides or {})
    if algo == FAST_PPO:
        config_file, budget = _check_fast_config(config_path, overrides), None
    else:
        algo = check_algorithm(algo)
        config_file = str(Path(config_path) if config_path else shipped_config_file(algo))
        config = load_config(config_file)
        if config.algorithm != algo:
            raise ValueError(f"config file {config_file!r} is for {config.algorithm!r}, not {algo!r}")
        budget = config.timesteps
    if timesteps is None and budget is None:
        raise ValueError(f"--algo {FAST_PPO} needs a training budget (--timesteps N)")
    seeds = tuple(seeds)
    if not seeds or any(isinstance(seed, bool) or not isinstance(seed, int) or seed < 0 for seed in seeds):
        raise ValueError(f"seeds must be one or more whole numbers >= 0, got {list(seeds)}")
    if len(set(seeds)) != len(seeds):
        raise ValueError(f"seeds must not repeat, got {list(seeds)}")
    env_args = dict(env_args or {})
    opponent = _check_probe_game(env_id, opponent, env_args)
    make_opponent(opponent, config=game_config(env_id, env_args))
    timesteps = positive_int("timesteps", timesteps if timesteps is not None else budget)
    every = positive_int("every", every)
    if every > timesteps:
        raise ValueError(f"every ({every:,}) must not exceed the training budget ({timesteps:,} steps)")
    if timesteps // every > MAX_POINTS:
        raise ValueError(f"timesteps / every gives {timesteps // every:,} models per curve; at most {MAX_POINTS:,}")
    if vec_env not in VEC_ENVS:
        raise ValueError(f"vec_env must be one of {', '.join(VEC_ENVS)}, got {vec_env!r}")
    return CurveSettings(
        algo,
        config_file,
        overrides,
        seeds,
        env_id,
        opponent,
        timesteps,
        every,
        positive_int("rounds", rounds),
        non_negative_int("eval_seed", eval_seed),
        env_args,
        vec_env,
    )


def _check_fast_config(config_path, overrides: dict) -> str:
    from war_env.training.fast_ppo import FastPPOConfig

    if config_path:
        raise ValueError(f"--algo {FAST_PPO} takes no --config FILE (its settings are --set KEY=VALUE)")
    if "checkpoint_every" in overrides:
        raise ValueError("checkpoint_every is the curve's --every")
    FastPPOConfig.with_overrides(overrides)
    return ""


def _check_probe_game(env_id: str | None, opponent: str | None, env_args: dict) -> str:
    """The opponent (by default the game's own); a probe is played as it is defined, since its oracle is the
    exact optimum of its own rules against its own opponent."""
    own = default_opponent(env_id)
    if probe_of(env_id) is None:
        return opponent or own
    if opponent not in (None, own):
        raise ValueError(f"{env_id} is played against its own opponent ({own}); its oracle is the optimum against it")
    if env_args:
        raise ValueError(f"{env_id} is played with its own rules (no --env-arg); its oracle is their optimum")
    return own


def _start_folder(run_dir: Path, settings: CurveSettings) -> None:
    """A new folder gets the settings and the training config; a folder made before must have the same
    settings and the same training config (running it again continues it). The config is compared by
    content, not by its path: the shipped config of another checkout or venv is the same config."""
    now = {**settings.as_json(), "config_file": settings.config_file}
    training_config = _training_config(settings)
    advice = "pick another --run-dir"
    if (run_dir / SETTINGS_FILE).exists():
        freeze_settings(run_dir, SETTINGS_FILE, now, advice, ignore=("seeds", "config_file"))
        freeze_settings(run_dir, TRAINING_CONFIG_FILE, training_config, advice)
        return
    if any(path.name != LOCK_NAME for path in run_dir.iterdir()):
        refuse_started(run_dir, "files but no war-curves run", advice)
    write_settings(run_dir / TRAINING_CONFIG_FILE, training_config)
    write_settings(run_dir / SETTINGS_FILE, {key: value for key, value in now.items() if key != "seeds"})


def _training_config(settings: CurveSettings) -> dict:
    """The training config with the curve's checkpoint schedule: for SB3 the config file's content (the
    overrides are given to ``train`` beside it), for fast_ppo its whole config."""
    if settings.algorithm == FAST_PPO:
        from war_env.training.fast_ppo import FastPPOConfig

        return FastPPOConfig.with_overrides({**settings.overrides, "checkpoint_every": settings.every}).as_json()
    raw = json.loads(Path(settings.config_file).read_text())
    raw["checkpoint_every_timesteps"] = settings.every
    raw["keep_checkpoints"] = MAX_POINTS  # every checkpoint is a point of the curve
    return raw


# --- one seed ----------------------------------------------------------------------------------------
def _run_seeds(run_dir: Path, settings: CurveSettings, reference: HeldOutRounds, workers: int):
    """(seed, its curve) as each seed finishes; in ``workers`` spawned processes when more than one."""
    if workers == 1 or len(settings.seeds) == 1:
        for seed in settings.seeds:
            yield seed, seed_curve(run_dir, settings, seed, reference)
        return
    import multiprocessing

    with one_thread_environment():  # the workers start with one thread for torch, numba and BLAS
        pool = ProcessPoolExecutor(
            min(workers, len(settings.seeds)),
            mp_context=multiprocessing.get_context("spawn"),
            initializer=limit_process_threads,
        )
    try:
        futures = {pool.submit(seed_curve, run_dir, settings, seed, reference): seed for seed in settings.seeds}
        for future in as_completed(futures):
            yield futures[future], future.result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def seed_curve(run_dir: Path, settings: CurveSettings, seed: int, reference: HeldOutRounds) -> dict:
    """Train seed ``seed`` (or continue it) and evaluate its models; its curve is written to its folder."""
    folder = run_dir / SEED_DIR.format(seed)
    done = folder / "curve.json"
    if done.exists():
        return json.loads(done.read_text())
    if not (folder / "model_card.json").exists():
        (_train_fast if settings.algorithm == FAST_PPO else _train_sb3)(run_dir, settings, seed, folder)
    started = time.perf_counter()
    card = json.loads((folder / "model_card.json").read_text())
    points = [(steps, path) for steps, path in sorted(_checkpoints(settings, folder)) if steps < card["timesteps"]]
    points.append((card["timesteps"], folder / "final.zip"))
    seconds = _wall_seconds(settings, folder, card)
    curve = {"steps": [], "wall_seconds": [], **{metric: [] for metric in settings.reference.metrics}, "bar_passed": []}
    for steps, path in points:
        measured = evaluate_model(settings, path, reference)  # the last one: final.zip
        curve["steps"].append(steps)
        curve["wall_seconds"].append(seconds(steps))
        for key in (*settings.reference.metrics, "bar_passed"):
            curve[key].append(measured[key])
    result = {
        "seed": seed,
        "curve": curve,
        "final": measured,
        "best": _best_model(settings, folder, card, reference),
        **steps_to_optimum(curve["steps"], curve["bar_passed"]),
        "train_wall_seconds": seconds(card["timesteps"]),
        "eval_wall_seconds": round(time.perf_counter() - started, 1),
    }
    write_atomic(done, json.dumps(result, indent=2))
    return result


def _train_sb3(run_dir: Path, settings: CurveSettings, seed: int, folder: Path) -> None:
    common = {"bench_rounds": 0, "timesteps": settings.timesteps}
    if checkpoints(folder):  # a training cut off: continue it (an exec: opponent restated: ours, from the command line)
        restated = {"opponent": settings.opponent} if is_exec_spec(settings.opponent) else {}
        train(resume=folder, **restated, **common)
    else:
        train(
            settings.algorithm,
            config_path=run_dir / TRAINING_CONFIG_FILE,
            overrides=settings.overrides,
            seed=seed,
            opponent=settings.opponent,
            env_args=settings.env_args,
            env_id=settings.env_id,
            run_dir=folder,
            vec_env=settings.vec_env,
            **common,
        )


def _train_fast(run_dir: Path, settings: CurveSettings, seed: int, folder: Path) -> None:
    from war_env.training.fast_ppo import SETTINGS_FILE, run_fast_ppo

    if (folder / SETTINGS_FILE).exists():  # a training cut off: continue it (an exec: opponent restated, as for SB3)
        restated = settings.opponent if is_exec_spec(settings.opponent) else None
        run_fast_ppo(folder, settings.timesteps, opponent=restated, bench_rounds=0, resume=True)
    else:
        config = json.loads((run_dir / TRAINING_CONFIG_FILE).read_text())
        run_fast_ppo(
            folder,
            settings.timesteps,
            overrides=config,
            env_id=settings.env_id,
            opponent=settings.opponent,
            env_args=settings.env_args,
            seed=seed,
            bench_rounds=0,
        )


def _checkpoints(settings: CurveSettings, folder: Path) -> list[tuple[int, Path]]:
    if settings.algorithm != FAST_PPO:
        return checkpoints(folder)
    from war_env.training.fast_ppo import checkpoint_files

    return checkpoint_files(folder)


def _wall_seconds(settings: CurveSettings, folder: Path, card: dict):
    """``seconds(steps)``: the run's training wall seconds up to ``steps`` (``WALL_SECONDS`` says how)."""
    if settings.algorithm == FAST_PPO:
        progress = (json.loads(line) for line in (folder / "progress.jsonl").read_text().splitlines() if line)
        at = {entry["steps"]: entry["seconds"] for entry in progress}
        return lambda steps: round(at[steps], 2)
    sessions = card["sessions"]

    def seconds(steps: int) -> float:
        spent = 0.0
        for session in sessions:
            start, end, wall = session["from_timesteps"], session["to_timesteps"], session["train_wall_seconds"]
            if steps <= end:
                return round(spent + wall * (steps - start) / max(end - start, 1), 2)
            spent += wall
        return round(spent, 2)

    return seconds


def _best_model(settings: CurveSettings, folder: Path, card: dict, reference: HeldOutRounds) -> dict | None:
    """An SB3 run's best model (``None`` for fast_ppo, which keeps none)."""
    if settings.algorithm == FAST_PPO:
        return None
    best_record = folder / "best.json"  # absent when no evaluation ran: war-train saved the final model as best.zip
    best_at = json.loads(best_record.read_text())["timesteps"] if best_record.exists() else card["timesteps"]
    return {**evaluate_model(settings, folder / "best.zip", reference), "timesteps": best_at}


def steps_to_optimum(steps: list[int], passed: list[bool]) -> dict:
    """``first_optimal_at``: the first step whose model meets the bar; ``optimal_from``: the first step
    from which every later model does (``None`` for both when none, or the last one, does not)."""
    first = next((step for step, ok in zip(steps, passed) if ok), None)
    last_failure = max((k for k, ok in enumerate(passed) if not ok), default=-1)
    return {
        "first_optimal_at": first,
        "optimal_from": steps[last_failure + 1] if last_failure + 1 < len(steps) else None,
    }


def evaluate_model(settings: CurveSettings, path: Path, reference: HeldOutRounds) -> dict:
    """One model on the curve's held-out rounds, against the reference on the same deals."""
    if settings.algorithm == FAST_PPO:
        from war_env.agents.fast_model import load_fast_agent

        agent = load_fast_agent(path)
    else:
        from war_env.agents.sb3_agent import load_sb3_agent

        agent = load_sb3_agent(settings.algorithm, str(path))
    stats = held_out_stats(
        agent, settings.opponent, settings.env_args, settings.rounds, settings.eval_seed, env_id=settings.env_id
    )
    comparison = compare(stats, reference)
    evaluated = {
        settings.reference.metric: 0.0 - comparison["mean_return_difference"],  # 0.0 - x: no "-0.0000" for 0
        f"{settings.reference.metric}_stderr": comparison["mean_return_difference_stderr"],
        "takeovers": stats.takeovers,
        "takeover_rate": stats.takeovers / stats.rounds,
        "false_starts_per_100": stats.false_starts_per_100,
        "mean_reaction_ticks": stats.mean_reaction_ticks,
        "bar_passed": comparison["bar"]["passed"],
    }
    probe = probe_of(settings.env_id)
    if probe is not None:  # a probe's model is judged by the probe's line, not by prompt's bar
        judged = verdict(probe.name, bootstrap_mean(paired_difference(reference.played, stats.played)))
        evaluated.update(regret_interval=judged["regret"], bar_passed=judged["passed"])
    return evaluated


# --- across seeds ------------------------------------------------------------------------------------
def summarise(settings: CurveSettings, reference: HeldOutRounds, seed_results: list[dict]) -> dict:
    """curves.json: per step and metric the per-seed values, their IQM and its interval; each point's wall
    seconds per seed; the final and (SB3) the best models; steps to the optimum and wall times."""
    steps = seed_results[0]["curve"]["steps"]
    if any(result["curve"]["steps"] != steps for result in seed_results):
        raise ValueError("the seeds' curves were evaluated at different steps; evaluate them in one curve folder")
    metrics = {}
    for metric, label in settings.reference.metrics.items():
        per_seed = np.array([result["curve"][metric] for result in seed_results])  # seeds x steps
        estimates = [iqm_interval(per_seed[:, k]) for k in range(len(steps))]
        metrics[metric] = {
            "label": label,
            "per_seed": {str(result["seed"]): result["curve"][metric] for result in seed_results},
            "iqm": [entry["value"] for entry in estimates],
            "low": [entry["low"] for entry in estimates],
            "high": [entry["high"] for entry in estimates],
        }
    gap = settings.reference.metric

    def models(kind: str) -> dict:
        values = [result[kind] for result in seed_results]
        return {
            "all_meet_bar": all(value["bar_passed"] for value in values),
            **{metric: iqm_interval([value[metric] for value in values]) for metric in settings.reference.metrics},
            "takeovers_total": sum(value["takeovers"] for value in values),
            "takeovers_max": max(value["takeovers"] for value in values),
            "false_starts_per_100_max": max(value["false_starts_per_100"] for value in values),
            f"{gap}_max": max(value[gap] for value in values),
        }

    kinds = ["final"] + (["best"] if all(result["best"] is not None for result in seed_results) else [])
    return {
        "settings": settings.as_json(),
        "env_id": settings.env_id,
        "reference": _reference_summary(settings),
        "bar": BAR
        if probe_of(settings.env_id) is None
        else {"capability_line": capability_line(probe_of(settings.env_id).name)},
        "baseline": reference.summary(),
        "interval": "IQM across seeds (scipy.stats.trim_mean(x, 0.25)), 95% stratified percentile bootstrap "
        "over seeds (war_env.league.stats.iqm_interval, rliable's method)",
        "steps": steps,
        "wall_seconds": {
            "meaning": WALL_SECONDS[FAST_PPO if settings.algorithm == FAST_PPO else "sb3"],
            "per_seed": {str(result["seed"]): result["curve"]["wall_seconds"] for result in seed_results},
            "mean": [float(np.mean(column)) for column in zip(*(r["curve"]["wall_seconds"] for r in seed_results))],
        },
        "metrics": metrics,
        **{kind: models(kind) for kind in kinds},
        "seeds": {
            str(result["seed"]): {
                key: result[key]
                for key in (
                    "final",
                    "best",
                    "first_optimal_at",
                    "optimal_from",
                    "train_wall_seconds",
                    "eval_wall_seconds",
                )
            }
            for result in seed_results
        },
    }


def _reference_summary(settings: CurveSettings) -> dict:
    """The reference, and on a probe its best simple baseline with its exact regret (the scale of a curve: a
    model above it has learnt less than the simplest rule)."""
    summary = {"agent": settings.reference.agent, "metric": settings.reference.metric}
    probe = probe_of(settings.env_id)
    if probe is not None:
        from war_env.evaluation.probe_gaps import exact_gaps

        gaps = exact_gaps(probe)
        summary.update(best_simple_baseline=gaps.best_simple, best_simple_regret_exact=gaps.gap(gaps.best_simple))
        summary["capability_line"] = capability_line(probe.name)
    return summary


def plot_curves(curves: dict, path: Path) -> None:
    """Each metric against environment steps (top row) and against training wall seconds (bottom row): each
    seed thin, the IQM bold with its interval shaded (at the seeds' mean wall seconds on the bottom row)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from war_env.league.plots import save_figure

    settings, metrics = curves["settings"], curves["metrics"]
    wall = curves["wall_seconds"]
    rows = [
        ("environment steps", {seed: curves["steps"] for seed in wall["per_seed"]}, curves["steps"]),
        ("training wall seconds", wall["per_seed"], wall["mean"]),
    ]
    figure, axes = plt.subplots(2, len(metrics), figsize=(13, 7.2), sharex="row")
    for row, (label, x_per_seed, x_iqm) in zip(axes, rows):
        for axis, (metric, data) in zip(row, metrics.items()):
            _draw_metric(axis, metric, data, x_per_seed, np.array(x_iqm, dtype=float), curves)
            axis.set_xlabel(label)
        row[0].set_xlim(left=0)
    handles, labels = axes[0][0].get_legend_handles_labels()
    figure.legend(
        handles, labels, fontsize=7, loc="lower center", ncol=len(labels)
    )  # below the panels: hides no series
    line = curves["reference"].get("capability_line")
    passed = curves["final"]["all_meet_bar"]
    if line is None:
        verdict = "every final model meets the bar" if passed else "NOT every final model meets the bar"
    else:
        verdict = f"{'every' if passed else 'NOT every'} final model below the line ({line['yardstick']})"
    game = f" on {curves['env_id']}" if curves.get("env_id") else ""
    figure.suptitle(
        f"{settings['algorithm']}{game} vs {settings['opponent']}, {settings['timesteps']:,} steps:\n"
        f"{len(settings['seeds'])} seeds, "
        f"{settings['rounds']:,} held-out paired rounds per point (seed {settings['eval_seed']}); "
        f"{verdict}",
        fontsize=10,
    )
    figure.tight_layout(rect=(0, 0.04, 1, 1))  # room for the legend
    save_figure(figure, path)
    plt.close(figure)


def _draw_metric(axis, metric: str, data: dict, x_per_seed: dict, x_iqm: np.ndarray, curves: dict) -> None:
    """One panel: the seeds, the IQM and its interval, the bar (and a probe's best simple baseline), 0 at the
    bottom with room for the lines above."""
    for seed, values in data["per_seed"].items():
        axis.plot(x_per_seed[seed], values, lw=0.8, alpha=0.45, marker=".", ms=3, label=f"seed {seed}")
    low = np.array([np.nan if v is None else v for v in data["low"]], dtype=float)
    high = np.array([np.nan if v is None else v for v in data["high"]], dtype=float)
    axis.fill_between(x_iqm, low, high, color="black", alpha=0.15, lw=0, label="95% interval (IQM)")
    axis.plot(x_iqm, data["iqm"], color="black", lw=2, label="IQM across seeds")
    axis.set_title(data["label"], fontsize=10)
    axis.set_yscale("symlog", linthresh=LINEAR_BELOW[metric])
    axis.grid(alpha=0.3)
    line = curves["reference"].get("capability_line")
    if line is None:
        lines = {"false_starts_per_100": curves["bar"]["false_starts_per_100_rounds_below"]}
        lines[curves["reference"]["metric"]] = curves["bar"]["return_gap_at_most"]
    else:  # a probe: the line of lacking the capability
        lines = {"regret": line["regret"]}
    top = lines.get(metric, 0.0)
    if metric in lines:
        label = "bar" if line is None else f"line: {line['yardstick']}"
        axis.axhline(lines[metric], color="tab:red", lw=0.8, ls="--", label=label)
    simple = curves["reference"].get("best_simple_regret_exact")
    if metric == "regret" and simple is not None:
        axis.axhline(
            simple,
            color="tab:blue",
            lw=0.8,
            ls=":",
            label=f"{curves['reference']['best_simple_baseline']} (best simple baseline, exact)",
        )
        top = max(top, simple)
    values = np.ravel(list(data["per_seed"].values()))
    axis.set_ylim(
        min(0.0, values.min()) - 0.3 * LINEAR_BELOW[metric], 1.5 * max(values.max(), top, 10 * LINEAR_BELOW[metric])
    )
