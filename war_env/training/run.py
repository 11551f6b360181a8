"""A ``war-train`` run: train PPO, A2C, DQN (stable-baselines3), MaskablePPO or RecurrentPPO (sb3-contrib) on
War-v0, or on another game of ``war_env.envs.games`` (``env_id``: a probe's, docs/probes.md), the policy seeing
one observation or the last ``frame_stack`` ones.

A run folder (``runs/<algo>-<opponent>-s<seed>-<time>/`` unless given) receives:

* ``config.json``: the exact configuration used (algorithm config file after overrides, env
  arguments, opponent, timesteps, seed, n_envs), which a resume reads back;
* ``checkpoints/ckpt_<timesteps>.zip``: periodic checkpoints, each written atomically (the latest
  ``keep_checkpoints`` of the config are kept);
* ``best.zip`` (best by the evaluation callback on held-out seeds) and ``final.zip``;
* ``eval/evaluations.npz`` (SB3's evaluation log, continued by a resume), ``tb/`` (TensorBoard);
* ``model_card.json``: algorithm, env arguments, timesteps, seed, provenance, wall time and the
  evaluation results, including the held-out comparisons of ``best.zip`` (``benchmark``) and
  ``final.zip`` (``benchmark_final``) with the ``prompt`` baseline, and one entry per training session
  (the first and each resume), as the folder's record of its sessions, ``run.json``, keeps them.

A folder is locked while a run uses it (``war_env.support.run_folder``). Everything is validated before the
folder is made; a folder whose run failed before it saved anything (no checkpoint, model, evaluation
or model card) is started again by the same command. ``--resume`` continues from the latest
checkpoint that loads, and says which ones it skipped (a checkpoint cut short by a crash).

Every model zip also holds ``war_env_model.json`` so that ``war_env.agents.sb3_agent.load_sb3_agent``
can rebuild it from the project's code and load the weights only (no unpickling of the file's data).

Seeds: training env ``i`` starts from ``seed + i``; the evaluation callback replays the same
held-out deals at every evaluation (``evaluation.seed`` of the config, re-seeded each time, so two
evaluations differ only by the agent's timing); the final comparison plays round ``k`` with
``env.reset(seed=bench_seed + k)`` for both models and for ``prompt`` alike (paired deals).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from war_env.agents import check_commands_restated, is_exec_spec, make_opponent
from war_env.agents.algorithms import build_model, check_algorithm
from war_env.agents.model_files import check_frame_stack, load_model, save_model
from war_env.agents.sb3_agent import load_sb3_agent
from war_env.envs.games import check_env_id, default_opponent, game_config
from war_env.support.atomic import write_atomic
from war_env.support.provenance import provenance
from war_env.support.run_folder import (
    SESSIONS_FILE,
    RunFolderConflict,
    check_same_settings,
    locked_run_folder,
    read_settings,
    record_session,
    refuse_started,
    write_settings,
)
from war_env.support.threads import single_threaded_torch
from war_env.training.callbacks import EVALUATIONS, checkpoints, make_callbacks
from war_env.training.comparison import BASELINE, compare, held_out_stats
from war_env.training.config import (
    TrainConfig,
    check_n_envs,
    load_config,
    non_negative_int,
    parse_config,
    positive_int,
    shipped_config_file,
)
from war_env.training.envs import VEC_ENVS, make_vec, policy_fields

RESULTS = ("checkpoints", "best.zip", "final.zip", EVALUATIONS, "model_card.json")
"""What a run leaves once it has trained: a folder holding none of them can be started again."""


@dataclass
class TrainResult:
    run_dir: Path
    algorithm: str
    timesteps: int
    final_model: Path
    best_model: Path
    model_card: dict


def train(
    algo: str = "ppo",
    *,
    config_path: str | os.PathLike | None = None,
    overrides: dict | None = None,
    timesteps: int | None = None,
    n_envs: int | None = None,
    seed: int = 0,
    opponent: str | None = None,
    env_args: dict | None = None,
    env_id: str | None = None,
    frame_stack: int = 1,
    runs_root: str | os.PathLike = "runs",
    run_dir: str | os.PathLike | None = None,
    resume: str | os.PathLike | None = None,
    bench_rounds: int = 500,
    bench_seed: int = 2_000_000,
    vec_env: str = "batched",
    progress_bar: bool = False,
    trust_model_file: bool = False,
    verbose: int = 0,
) -> TrainResult:
    """Train (or resume), save final/best models and the model card; returns where they are. ``opponent``:
    by default the probe's own for a probe's ``env_id``, else ``human``."""
    single_threaded_torch()  # tiny MLPs: one thread is the fastest, and the machines are shared
    non_negative_int("bench_rounds", bench_rounds)  # used after training: checked before it
    non_negative_int("bench_seed", bench_seed)
    if resume is not None:
        plan = _resume_plan(resume, timesteps, opponent)
    else:
        plan = _new_plan(
            algo,
            config_path,
            overrides,
            timesteps,
            n_envs,
            seed,
            opponent,
            env_args,
            runs_root,
            run_dir,
            vec_env,
            trust_model_file,
            env_id,
            frame_stack,
        )
    with locked_run_folder(plan.run_dir, "war-train"):
        if resume is None:
            _start_folder(plan)
        elif plan.checkpoint is None:
            plan.checkpoint, plan.skipped = _latest_checkpoint(plan.run_dir, plan.config.algorithm)
        return _run(plan, bench_rounds, bench_seed, progress_bar, trust_model_file, verbose)


@dataclass
class _Plan:
    run_dir: Path
    config: TrainConfig
    settings: dict
    checkpoint: Path | None = None
    skipped: list[str] = field(default_factory=list)
    """Checkpoints a resume passed over, with why (a file cut short by a crash)."""


def _new_plan(
    algo,
    config_path,
    overrides,
    timesteps,
    n_envs,
    seed,
    opponent,
    env_args,
    runs_root,
    run_dir,
    vec_env,
    trust_model_file=False,
    env_id=None,
    frame_stack=1,
):
    """Everything checked (the opponent built once), nothing written: see ``_start_folder``."""
    if env_id is not None:
        check_env_id(env_id)
    opponent = default_opponent(env_id) if opponent is None else opponent
    frame_stack = check_frame_stack(frame_stack)
    algo = check_algorithm(algo)
    config_path = Path(config_path) if config_path else shipped_config_file(algo)
    config = load_config(config_path, overrides)
    if config.algorithm != algo:
        raise ValueError(f"config file {str(config_path)!r} is for {config.algorithm!r}, not {algo!r}")
    env_args = dict(env_args or {})
    rules = game_config(env_id, env_args)  # unknown keys and bad values fail here, before anything is created
    if not isinstance(opponent, str):
        raise ValueError(f"opponent must be a spec string, got {opponent!r}")
    make_opponent(opponent, config=rules, trust_model_file=trust_model_file)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be an integer >= 0, got {seed!r}")
    if vec_env not in VEC_ENVS:
        raise ValueError(f"vec_env must be one of {', '.join(VEC_ENVS)}, got {vec_env!r}")
    settings = {
        "algorithm": algo,
        "config_file": str(config_path),
        "config_sha256": hashlib.sha256(config_path.read_bytes()).hexdigest(),
        "timesteps": positive_int("timesteps", timesteps if timesteps is not None else config.timesteps),
        "n_envs": check_n_envs(n_envs if n_envs is not None else config.n_envs),
        "seed": seed,
        "opponent": opponent,
        "env_args": env_args,
        "env_id": env_id,
        "frame_stack": frame_stack,
        "vec_env": vec_env,
    }
    if run_dir is None:
        name = f"{algo}-{opponent.split(':')[0]}-s{seed}-{time.strftime('%Y%m%d-%H%M%S')}"
        run_dir = Path(runs_root) / name
    return _Plan(Path(run_dir), config, settings)


def _start_folder(plan: _Plan) -> None:
    """Write the run's config.json, unless the folder holds a run that has trained (see ``RESULTS``)."""
    run_dir = plan.run_dir
    if (run_dir / "config.json").exists() and any((run_dir / name).exists() for name in RESULTS):
        refuse_started(run_dir, "a run", f"continue it with war-train --resume {run_dir}, or pick another --run-dir")
    write_settings(run_dir / "config.json", {"settings": plan.settings, "config": plan.config.as_json()})


def _resume_plan(resume, timesteps, opponent):
    """``resume`` is a checkpoint zip (its run folder is two levels up) or a run folder (its latest
    checkpoint that loads, chosen under the folder's lock). ``timesteps`` may raise the total budget;
    everything else comes from config.json. ``opponent`` may only restate the run's own (an ``exec:`` one must be:
    a run folder never starts a program by itself)."""
    resume = Path(resume)
    if resume.is_dir():
        run_dir, checkpoint = resume, None
    elif resume.is_file():
        checkpoint, run_dir = resume, resume.parent.parent
    else:
        raise FileNotFoundError(f"--resume {str(resume)!r}: no such checkpoint file or run folder")
    config_file = run_dir / "config.json"
    recorded = read_settings(run_dir, "config.json", what="war-train run")
    try:
        config = parse_config(recorded["config"])
        settings = dict(recorded["settings"])
    except (ValueError, KeyError, TypeError) as error:
        raise RunFolderConflict(
            f"cannot resume: {config_file} is not a war-train config: {type(error).__name__}: {error}"
        ) from None
    stored = settings.get("opponent")
    if opponent is not None:
        check_same_settings(
            config_file, {"opponent": stored}, {"opponent": opponent}, "--opponent on --resume only restates it"
        )
    check_commands_restated(
        [stored],
        [opponent] if is_exec_spec(opponent) else [],
        str(config_file),
        "--opponent",
        f"war-train --resume {resume}",
    )
    if timesteps is not None:
        settings["timesteps"] = positive_int("timesteps", timesteps)
    if checkpoint is not None:
        load_model(config.algorithm, checkpoint)  # a checkpoint named on the command line must load
    return _Plan(run_dir, config, settings, checkpoint)


def _latest_checkpoint(run_dir: Path, algo: str) -> tuple[Path, list[str]]:
    """The newest checkpoint that loads, and the newer ones skipped (each said on stderr)."""
    skipped = []
    for _, path in checkpoints(run_dir):
        try:
            load_model(algo, path)
        except ValueError as error:
            skipped.append(f"{path}: {error}")
            print(f"war-train: skipping checkpoint {path}, it does not load: {error}", file=sys.stderr)
            continue
        if skipped:
            print(f"war-train: resuming from the previous checkpoint, {path}", file=sys.stderr)
        return path, skipped
    if skipped:
        raise ValueError(f"run folder {str(run_dir)!r}: no checkpoint loads ({len(skipped)} tried); see above")
    raise FileNotFoundError(
        f"run folder {str(run_dir)!r} has no checkpoints/ckpt_<timesteps>.zip to resume from; "
        "a run that saved nothing yet is started again by its first command"
    )


def _run(plan: _Plan, bench_rounds, bench_seed, progress_bar, trust_model_file, verbose) -> TrainResult:
    config, settings, run_dir = plan.config, plan.settings, plan.run_dir
    algo, target = settings["algorithm"], settings["timesteps"]
    train_args = {**settings["env_args"], **config.train_env}
    fields = _policy_fields(plan)
    game, stack = settings.get("env_id"), settings.get("frame_stack", 1)
    model = load_model(algo, plan.checkpoint) if plan.checkpoint is not None else None
    done = int(model.num_timesteps) if model is not None else 0
    env = make_vec(
        train_args,
        settings["opponent"],
        settings["n_envs"],
        settings["seed"] + done,
        settings["vec_env"],
        trust_model_file,
        fields,
        game,
        stack,
    )
    eval_kind = "batched" if settings["vec_env"] == "batched" else "dummy"  # SB3 wants both of one kind
    eval_env = make_vec(
        settings["env_args"],
        settings["opponent"],
        1,
        config.evaluation["seed"],
        eval_kind,
        trust_model_file,
        fields,
        game,
        stack,
    )
    model = _model_for(plan, env, verbose, model)
    model_meta = {
        "algo": algo,
        "policy_kwargs": config.policy_kwargs,
        "observation": list(fields),
        "frame_stack": stack,
        "env_id": game,
        "opponent": settings["opponent"],
        "env_args": settings["env_args"],
        "seed": settings["seed"],
    }
    callbacks = make_callbacks(model_meta, run_dir, config, eval_env, settings["n_envs"], _best_so_far(run_dir), done)
    started_at = int(model.num_timesteps)
    started = time.perf_counter()
    if target > model.num_timesteps:
        model.learn(
            total_timesteps=target - model.num_timesteps,
            callback=callbacks,
            progress_bar=progress_bar,
            reset_num_timesteps=plan.checkpoint is None,
            tb_log_name=algo,
        )
    train_seconds = time.perf_counter() - started
    env.close()
    eval_env.close()
    final = save_model(model, run_dir / "final.zip", **model_meta)
    best = run_dir / "best.zip"
    if not best.exists():  # no evaluation ran (evaluation.every_timesteps = 0 or a tiny budget)
        save_model(model, best, **model_meta)
    session = {
        "resumed_from": str(plan.checkpoint) if plan.checkpoint else None,
        "skipped_checkpoints": plan.skipped,
        "from_timesteps": started_at,
        "to_timesteps": int(model.num_timesteps),
        "train_wall_seconds": round(train_seconds, 1),
    }
    card = _model_card(plan, model, best, train_seconds, bench_rounds, bench_seed, trust_model_file, session)
    write_atomic(run_dir / "model_card.json", json.dumps(card, indent=2))
    return TrainResult(run_dir, algo, int(model.num_timesteps), final, best, card)


def _policy_fields(plan: _Plan) -> tuple[str, ...]:
    game = plan.settings.get("env_id")
    return policy_fields(plan.config.observation, game_config(game, plan.settings["env_args"]), game)


def _model_for(plan: _Plan, env, verbose: int, checkpoint=None):
    """A new model for the training envs; with the weights (and optimizer state) of ``checkpoint``, the
    checkpoint's model, loaded like any model file (weights only)."""
    config = plan.config
    tensorboard = str(plan.run_dir / "tb") if _has_tensorboard() else None
    model = build_model(
        config.algorithm,
        env,
        config.policy_kwargs,
        config.hyperparameters,
        seed=plan.settings["seed"],
        tensorboard_log=tensorboard,
        verbose=verbose,
    )
    if checkpoint is not None:
        model.set_parameters(checkpoint.get_parameters(), exact_match=True, device="cpu")
        model.num_timesteps = checkpoint.num_timesteps
    return model


def _has_tensorboard() -> bool:
    try:
        import tensorboard  # noqa: F401
    except ImportError:
        return False
    return True


def _best_so_far(run_dir: Path) -> float:
    record = run_dir / "best.json"
    return float(json.loads(record.read_text())["mean_reward"]) if record.exists() else -math.inf


def _model_card(
    plan: _Plan, model, best: Path, train_seconds, bench_rounds, bench_seed, trust_model_file, session: dict
) -> dict:
    settings, config = plan.settings, plan.config
    sessions = _record_session(plan.run_dir, session)
    card = {
        "model": {"final": "final.zip", "best": "best.zip", "load": f"{settings['algorithm']}:{best}"},
        "algorithm": settings["algorithm"],
        "opponent": settings["opponent"],
        "env_args": settings["env_args"],
        "env_id": settings.get("env_id"),
        "frame_stack": settings.get("frame_stack", 1),
        "war_config": asdict(game_config(settings.get("env_id"), settings["env_args"])),
        "train_env_rewards": config.train_env,
        "timesteps": int(model.num_timesteps),
        "timesteps_requested": settings["timesteps"],
        "n_envs": settings["n_envs"],
        "seed": settings["seed"],
        "config_file": settings["config_file"],
        "hyperparameters": config.hyperparameters,
        "policy_kwargs": config.policy_kwargs,
        "observation_fields": list(_policy_fields(plan)),
        "resumed_from": str(plan.checkpoint) if plan.checkpoint else None,
        "train_wall_seconds": round(train_seconds, 1),
        "sessions": sessions,
        "provenance": provenance(),
        "evaluation_callback": _evaluation_history(plan.run_dir),
    }
    if bench_rounds:  # the best model and the final one: a user may take either, so both must meet the bar
        started = time.perf_counter()
        opponent, env_args = settings["opponent"], settings["env_args"]
        game = settings.get("env_id")
        prompt = held_out_stats(BASELINE, opponent, env_args, bench_rounds, bench_seed, trust_model_file, game)
        for key, model_file in (("benchmark", best), ("benchmark_final", plan.run_dir / "final.zip")):
            agent = load_sb3_agent(settings["algorithm"], str(model_file))
            card[key] = compare(
                held_out_stats(agent, opponent, env_args, bench_rounds, bench_seed, trust_model_file, game), prompt
            )
            card[key]["model_file"] = model_file.name
        card["benchmark"]["wall_seconds"] = round(time.perf_counter() - started, 1)
    return card


def _record_session(run_dir: Path, session: dict) -> list[dict]:
    """Append the session to the folder's record (``run.json``); a folder trained before it kept one has its
    earlier sessions in its model card, taken into the record first."""
    if not (run_dir / SESSIONS_FILE).exists() and (run_dir / "model_card.json").exists():
        earlier = json.loads((run_dir / "model_card.json").read_text()).get("sessions", [])
        record_session(run_dir, None, sessions=earlier)
    return record_session(run_dir, session, provenance=provenance())["sessions"]


def _evaluation_history(run_dir: Path) -> dict | None:
    log = run_dir / EVALUATIONS
    if not log.exists():
        return None
    data = np.load(log)
    best = json.loads((run_dir / "best.json").read_text()) if (run_dir / "best.json").exists() else None
    return {
        "timesteps": data["timesteps"].tolist(),
        "mean_reward": data["results"].mean(axis=1).round(4).tolist(),
        "best": best,
        "note": "mean return on the same held-out deals at every evaluation (evaluation.seed)",
    }
