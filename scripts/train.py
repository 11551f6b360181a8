"""Train a Stable-Baselines3 agent (PPO, A2C, DQN or sb3-contrib's MaskablePPO) on War-v0.

A run folder (``runs/<algo>-<opponent>-s<seed>-<time>/`` unless ``--run-dir``) receives:

* ``config.json``: the exact configuration used (algorithm config file after overrides, env
  arguments, opponent, timesteps, seed, n_envs), which ``--resume`` reads back;
* ``checkpoints/ckpt_<timesteps>.zip``: periodic checkpoints, each written atomically;
* ``best.zip`` (best by the evaluation callback on held-out seeds) and ``final.zip``;
* ``eval/evaluations.npz`` (SB3's evaluation log), ``tb/`` (TensorBoard);
* ``model_card.json``: algorithm, env arguments, timesteps, seed, package versions, wall time and the
  evaluation results, including the held-out comparison with the ``prompt`` baseline.

Every model zip also holds ``war_env_model.json`` so that ``agents.sb3_model.load_sb3_agent`` can
rebuild it from the project's code and load the weights only (no unpickling of the file's data).

Seeds: training env ``i`` starts from ``seed + i``; the evaluation callback replays the same
held-out deals at every evaluation (``evaluation.seed`` of the config, re-seeded each time, so two
evaluations differ only by the agent's timing); the final comparison plays round ``k`` with
``env.reset(seed=bench_seed + k)`` for the model and for ``prompt`` alike (paired deals).
"""

from __future__ import annotations

import argparse
import hashlib
import inspect
import json
import math
import os
import platform
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from agents.base import Agent
from agents.sb3_model import (
    ALGORITHMS,
    check_algorithm,
    check_observation_fields,
    check_policy_kwargs,
    load_model,
    load_sb3_agent,
    read_metadata,
    save_model,
    select_observation,
)
from war_env.atomic import write_atomic
from war_env.bots import BOTS
from war_env.env import make_config
from war_env.observation import INDEX, OBSERVATION_FIELDS
from war_env.rules import WarConfig
from war_env.specs import _parse_value

CONFIG_DIR = Path(__file__).resolve().parent.parent / "configs"
CONFIG_VERSION = 1
CONFIG_KEYS = {
    "version": "format version of this file (1)",
    "algorithm": "ppo, a2c, dqn or maskable_ppo",
    "notes": "free text: why these values",
    "timesteps": "default training budget (env steps, summed over envs)",
    "n_envs": "parallel training envs",
    "train_env": "WarConfig reward_* fields used by the training envs only (evaluation uses the game as given)",
    "observation": 'fields the policy sees: "all" (default), "timing" or a list of names from war_env.observation',
    "policy_kwargs": "net_arch and activation_fn (tanh, relu, elu, leaky_relu)",
    "hyperparameters": "keyword arguments of the SB3 algorithm class",
    "evaluation": "every_timesteps, rounds and seed of the evaluation callback",
    "checkpoint_every_timesteps": "timesteps between checkpoints (0: none)",
}
EVALUATION_KEYS = {"every_timesteps", "rounds", "seed"}
RESERVED_HYPERPARAMETERS = {
    "policy", "env", "policy_kwargs", "tensorboard_log", "verbose", "seed", "device", "_init_setup_model",
    "stats_window_size", "monitor_wrapper", "replay_buffer_class", "replay_buffer_kwargs",
    "rollout_buffer_class", "rollout_buffer_kwargs",
}
"""Algorithm arguments the script sets itself (or that take Python objects, not JSON values)."""
POSITIVE = {"learning_rate", "n_steps", "batch_size", "n_epochs", "buffer_size", "train_freq", "target_update_interval"}
UNIT_INTERVAL = {"gamma", "gae_lambda", "tau", "exploration_fraction", "exploration_initial_eps", "exploration_final_eps"}
NON_NEGATIVE = {"ent_coef", "vf_coef", "max_grad_norm", "learning_starts", "gradient_steps", "clip_range"}
BENCHMARK_BASELINE = "prompt"
BAR = {"takeovers": 0, "false_starts_per_100_rounds_below": 1.0, "return_gap_at_most": 0.02}
"""The issue's bar on held-out rounds, against the prompt baseline on the same deals."""


# --- the configuration file ----------------------------------------------------------------------
@dataclass(frozen=True)
class TrainConfig:
    """One algorithm's training configuration, validated (see ``configs/*.json``)."""

    algorithm: str
    timesteps: int
    n_envs: int
    train_env: dict
    policy_kwargs: dict
    hyperparameters: dict
    evaluation: dict
    checkpoint_every_timesteps: int
    observation: tuple = OBSERVATION_FIELDS
    notes: str = ""
    version: int = CONFIG_VERSION

    def as_json(self) -> dict:
        return asdict(self)


def default_config_path(algo: str) -> Path:
    return CONFIG_DIR / f"{check_algorithm(algo)}.json"


def load_config(path: str | os.PathLike, overrides: dict | None = None) -> TrainConfig:
    """Read and validate a config file; ``overrides`` replaces hyperparameters (``--set k=v``)."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"config file {str(path)!r} does not exist")
    try:
        raw = json.loads(path.read_text())
    except json.JSONDecodeError as error:
        raise ValueError(f"config file {str(path)!r} is not valid JSON: {error}") from None
    if overrides:
        raw = {**raw, "hyperparameters": {**raw.get("hyperparameters", {}), **overrides}}
    try:
        return parse_config(raw)
    except (ValueError, TypeError) as error:
        raise ValueError(f"config file {str(path)!r}: {error}") from None


def parse_config(raw: dict) -> TrainConfig:
    """Validate a config given as a dict: unknown keys and bad values raise ``ValueError``."""
    if not isinstance(raw, dict):
        raise ValueError(f"a config must be a JSON object, got {type(raw).__name__}")
    unknown = set(raw) - set(CONFIG_KEYS)
    if unknown:
        raise ValueError(f"unknown key(s) {sorted(unknown)}; known: {sorted(CONFIG_KEYS)}")
    missing = {"version", "algorithm", "hyperparameters"} - set(raw)
    if missing:
        raise ValueError(f"missing key(s) {sorted(missing)}")
    if raw["version"] != CONFIG_VERSION:
        raise ValueError(f"version must be {CONFIG_VERSION}, got {raw['version']!r}")
    algo = check_algorithm(raw["algorithm"])
    evaluation = {"every_timesteps": 10_000, "rounds": 20, "seed": 1_000_000, **raw.get("evaluation", {})}
    config = TrainConfig(
        algorithm=algo,
        timesteps=_positive_int("timesteps", raw.get("timesteps", 100_000)),
        n_envs=_positive_int("n_envs", raw.get("n_envs", 1)),
        train_env=check_train_env(raw.get("train_env", {})),
        policy_kwargs=check_policy_kwargs(algo, raw.get("policy_kwargs", {})),
        hyperparameters=check_hyperparameters(algo, raw["hyperparameters"]),
        evaluation=check_evaluation(evaluation),
        checkpoint_every_timesteps=_non_negative_int(
            "checkpoint_every_timesteps", raw.get("checkpoint_every_timesteps", 10_000)
        ),
        observation=check_observation_fields(raw.get("observation", "all")),
        notes=str(raw.get("notes", "")),
    )
    return config


def check_hyperparameters(algo: str, hyperparameters: dict) -> dict:
    """Keys must be arguments of the algorithm class; values must match the type of its default."""
    if not isinstance(hyperparameters, dict):
        raise ValueError(f"hyperparameters must be a JSON object, got {hyperparameters!r}")
    from agents.sb3_model import algorithm_class

    signature = inspect.signature(algorithm_class(algo).__init__).parameters
    allowed = {name: p.default for name, p in signature.items() if name != "self"}
    for name in RESERVED_HYPERPARAMETERS:
        allowed.pop(name, None)
    unknown = set(hyperparameters) - set(allowed)
    if unknown:
        raise ValueError(f"unknown {algo} hyperparameter(s) {sorted(unknown)}; known: {sorted(allowed)}")
    for name, value in hyperparameters.items():
        _check_hyperparameter(algo, name, value, allowed[name])
    return dict(hyperparameters)


def _check_hyperparameter(algo: str, name: str, value, default) -> None:
    """The value's JSON type must fit the default's type; known ranges are checked too."""

    def bad(expected: str):
        return ValueError(f"{algo} hyperparameter {name} must be {expected}, got {value!r}")

    is_number = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise bad("true or false")
        return
    if name == "train_freq" and isinstance(value, list):
        if len(value) != 2 or not isinstance(value[0], int) or value[0] < 1 or value[1] not in ("step", "episode"):
            raise bad('a positive integer or [n, "step" | "episode"]')
        return
    if isinstance(default, int):
        if isinstance(value, bool) or not isinstance(value, int):
            raise bad("an integer")
    elif isinstance(default, float) or default is None:
        if not is_number and not (default is None and value is None):
            raise bad("a finite number" + (" or null" if default is None else ""))
    elif isinstance(default, str):
        if not isinstance(value, str):
            raise bad("a string")
    else:
        raise ValueError(f"{algo} hyperparameter {name} takes a Python object and cannot be set from a config file")
    if value is None:
        return
    if name in POSITIVE and not value > 0:
        raise bad("> 0")
    if name in UNIT_INTERVAL and not 0 <= value <= 1:
        raise bad("in [0, 1]")
    if name in NON_NEGATIVE and not value >= 0:
        raise bad(">= 0")


def check_train_env(train_env: dict) -> dict:
    if not isinstance(train_env, dict):
        raise ValueError(f"train_env must be a JSON object of reward_* fields, got {train_env!r}")
    rewards = {name for name in WarConfig.field_names() if name.startswith("reward_")}
    unknown = set(train_env) - rewards
    if unknown:
        raise ValueError(
            f"train_env takes only reward fields (training-time reward weights), got {sorted(unknown)}; "
            f"known: {sorted(rewards)}. Rules and timers go on the command line (--env-arg)"
        )
    WarConfig(**train_env)  # the values are checked by the one config object
    return dict(train_env)


def check_evaluation(evaluation: dict) -> dict:
    if not isinstance(evaluation, dict):
        raise ValueError(f"evaluation must be a JSON object, got {evaluation!r}")
    unknown = set(evaluation) - EVALUATION_KEYS
    if unknown:
        raise ValueError(f"unknown evaluation key(s) {sorted(unknown)}; known: {sorted(EVALUATION_KEYS)}")
    return {
        "every_timesteps": _non_negative_int("evaluation.every_timesteps", evaluation["every_timesteps"]),
        "rounds": _positive_int("evaluation.rounds", evaluation["rounds"]),
        "seed": _non_negative_int("evaluation.seed", evaluation["seed"]),
    }


def _positive_int(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return value


def _non_negative_int(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} must be an integer >= 0, got {value!r}")
    return value


def parse_assignments(pairs: list[str] | None, what: str) -> dict:
    """``["gamma=0.9", "pickup=shuffled"]`` -> ``{"gamma": 0.9, "pickup": "shuffled"}``."""
    result = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"bad {what} {pair!r}: expected KEY=VALUE")
        result[key.strip()] = _parse_value(value.strip())
    return result


# --- environments and opponents ------------------------------------------------------------------
def make_opponent(spec: str, trust_model_file: bool = False, env_args: dict | None = None):
    """A bot spec stays a string (the env builds the bot); a model spec ``ppo:PATH`` (also a2c, dqn,
    maskable_ppo) becomes an agent loaded weights-only; other agent specs go to
    ``agents.make_agent`` (the scripted baselines), with the rules of ``env_args`` for the agents
    that count ticks."""
    if not isinstance(spec, str):
        return spec
    name, _, rest = spec.partition(":")
    name = name.strip().lower()
    if name in BOTS:
        return spec
    if name.replace("-", "_") in ALGORITHMS:
        return load_sb3_agent(name, rest, trust_model_file=trust_model_file)
    from agents import make_agent

    return make_agent(spec, config=make_config(None, dict(env_args or {})))


class _WarEnvFactory:
    """Picklable env constructor (SubprocVecEnv sends it to a worker process)."""

    def __init__(self, env_args: dict, opponent: str, trust_model_file: bool, observation=OBSERVATION_FIELDS):
        self.env_args, self.opponent, self.trust_model_file = env_args, opponent, trust_model_file
        self.observation = tuple(observation)

    def __call__(self):
        import gymnasium as gym

        import war_env  # noqa: F401

        opponent = make_opponent(self.opponent, self.trust_model_file, self.env_args)
        return select_observation(gym.make("War-v0", opponent=opponent, **self.env_args), self.observation)


def make_vec(env_args: dict, opponent: str, n_envs: int, seed: int, vec_env: str = "dummy", trust_model_file=False,
             observation=OBSERVATION_FIELDS):
    """SB3's ``make_vec_env`` over War-v0 (Monitor-wrapped, env ``i`` seeded ``seed + i``); the policy
    sees the ``observation`` fields."""
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    if vec_env not in ("dummy", "subproc"):
        raise ValueError(f"vec_env must be 'dummy' or 'subproc', got {vec_env!r}")
    factory = _WarEnvFactory(env_args, opponent, trust_model_file, observation)
    cls = SubprocVecEnv if vec_env == "subproc" else DummyVecEnv
    return make_vec_env(factory, n_envs=n_envs, seed=seed, vec_env_cls=cls)


# --- callbacks ----------------------------------------------------------------------------------
def _callbacks(model_meta: dict, run_dir: Path, config: TrainConfig, eval_env, n_envs: int, best_so_far: float):
    from stable_baselines3.common.callbacks import BaseCallback, CallbackList, EvalCallback

    if config.algorithm == "maskable_ppo":  # evaluates with the env's action_masks(), as it trains
        from sb3_contrib.common.maskable.callbacks import MaskableEvalCallback as EvalCallback

    class SaveAtomically(BaseCallback):
        """Checkpoints every ``every`` timesteps (or the best model when called by EvalCallback)."""

        def __init__(self, every: int = 0, best: bool = False):
            super().__init__()
            self.every, self.best, self.next_at = every, best, None

        def _on_step(self) -> bool:
            if self.best:
                save_model(self.model, run_dir / "best.zip", **model_meta)
                record = {"mean_reward": float(self.parent.best_mean_reward), "timesteps": self.num_timesteps}
                write_atomic(run_dir / "best.json", json.dumps(record))
                return True
            if self.next_at is None:
                self.next_at = (self.num_timesteps // self.every + 1) * self.every
            if self.num_timesteps >= self.next_at:
                self.next_at += self.every
                save_model(self.model, run_dir / "checkpoints" / f"ckpt_{self.num_timesteps}.zip", **model_meta)
            return True

    class RoundInfoLogger(BaseCallback):
        """TensorBoard: takeover rate, false starts and reaction ticks of the finished training rounds."""

        def _on_step(self) -> bool:
            for info in self.locals["infos"]:
                round_info = info.get("round")
                if round_info:
                    self.logger.record_mean("rollout/takeover_rate", float(round_info["takeover"][0]))
                    self.logger.record_mean("rollout/false_starts_per_round", float(round_info["false_starts"][0]))
                    reactions = round_info["reaction_ticks"][0]
                    if reactions:
                        self.logger.record_mean("rollout/mean_reaction_ticks", float(np.mean(reactions)))
            return True

    class HeldOutEval(EvalCallback):
        """EvalCallback that replays the same held-out deals at every evaluation."""

        def _on_step(self) -> bool:
            if self.eval_freq > 0 and self.n_calls % self.eval_freq == 0:
                self.eval_env.seed(config.evaluation["seed"])
            return super()._on_step()

    callbacks = [RoundInfoLogger()]
    if config.checkpoint_every_timesteps:
        callbacks.append(SaveAtomically(every=config.checkpoint_every_timesteps))
    if config.evaluation["every_timesteps"]:
        evaluation = HeldOutEval(
            eval_env,
            n_eval_episodes=config.evaluation["rounds"],
            eval_freq=max(1, config.evaluation["every_timesteps"] // n_envs),
            log_path=str(run_dir / "eval"),
            best_model_save_path=None,
            callback_on_new_best=SaveAtomically(best=True),
            deterministic=True,
            verbose=0,
        )
        evaluation.best_mean_reward = best_so_far
        callbacks.append(evaluation)
    return CallbackList(callbacks)


# --- evaluation on paired held-out deals ---------------------------------------------------------
@dataclass
class RoundStats:
    """One agent over ``rounds`` held-out rounds (round k = ``env.reset(seed=seed + k)``)."""

    agent: str
    opponent: str
    rounds: int
    seed: int
    mean_return: float
    takeovers: int
    false_starts: int
    wins: int
    mean_reaction_ticks: float | None
    """Mean ticks from the opening of the agent's turn to its own draws (None: it never drew)."""
    returns: list[float] = field(repr=False, default_factory=list)

    @property
    def false_starts_per_100(self) -> float:
        return 100.0 * self.false_starts / self.rounds

    def summary(self) -> dict:
        out = asdict(self)
        out.pop("returns")
        out["false_starts_per_100_rounds"] = self.false_starts_per_100
        return out


def play_rounds(agent: Agent, opponent: str, env_args: dict, rounds: int, seed: int, batch: int = 32,
                trust_model_file: bool = False) -> RoundStats:
    """Play ``rounds`` rounds, round k dealt by ``reset(seed=seed + k)``, ``batch`` envs in step so a
    model decides for all of them in one forward pass."""
    import gymnasium as gym

    import war_env  # noqa: F401

    envs = [gym.make("War-v0", opponent=make_opponent(opponent, trust_model_file, env_args), **env_args)
            for _ in range(min(batch, rounds))]
    observations = np.zeros((len(envs), len(INDEX)), np.float32)
    slot_round, slot_return = [-1] * len(envs), [0.0] * len(envs)
    returns, infos, next_round = [0.0] * rounds, [None] * rounds, 0
    starts = np.zeros(len(envs), bool)
    for slot, env in enumerate(envs):
        observations[slot], _ = env.reset(seed=seed + next_round)
        slot_round[slot], next_round, starts[slot] = next_round, next_round + 1, True
    agent.reset(seed=seed)
    while any(index >= 0 for index in slot_round):
        actions, _ = agent.predict(observations, episode_start=starts, deterministic=True)
        starts[:] = False
        for slot, env in enumerate(envs):
            if slot_round[slot] < 0:
                continue
            observations[slot], reward, terminated, truncated, info = env.step(int(actions[slot]))
            slot_return[slot] += reward
            if terminated or truncated:
                returns[slot_round[slot]], infos[slot_round[slot]] = slot_return[slot], info["round"]
                slot_return[slot] = 0.0
                if next_round < rounds:
                    observations[slot], _ = env.reset(seed=seed + next_round)
                    slot_round[slot], next_round, starts[slot] = next_round, next_round + 1, True
                else:
                    slot_round[slot] = -1
    reactions = [tick for info in infos for tick in info["reaction_ticks"][0]]
    return RoundStats(
        agent=agent.spec(),
        opponent=opponent,
        rounds=rounds,
        seed=seed,
        mean_return=float(np.mean(returns)),
        takeovers=sum(bool(info["takeover"][0]) for info in infos),
        false_starts=sum(int(info["false_starts"][0]) for info in infos),
        wins=sum(info["winner"] == 0 for info in infos),
        mean_reaction_ticks=float(np.mean(reactions)) if reactions else None,
        returns=[float(r) for r in returns],
    )


def baseline_agent(spec: str = BENCHMARK_BASELINE) -> Agent:
    from agents import make_agent

    return make_agent(spec)


def compare_with_baseline(agent: Agent, opponent: str, env_args: dict, rounds: int, seed: int,
                          trust_model_file: bool = False) -> dict:
    """The agent and ``prompt`` on the same held-out deals, and the issue's bar."""
    model_stats = play_rounds(agent, opponent, env_args, rounds, seed, trust_model_file=trust_model_file)
    prompt_stats = play_rounds(baseline_agent(), opponent, env_args, rounds, seed, trust_model_file=trust_model_file)
    gap = np.asarray(model_stats.returns) - np.asarray(prompt_stats.returns)
    passed = (
        model_stats.takeovers == BAR["takeovers"]
        and model_stats.false_starts_per_100 < BAR["false_starts_per_100_rounds_below"]
        and -gap.mean() <= BAR["return_gap_at_most"]
    )
    return {
        "rounds": rounds,
        "seed": seed,
        "opponent": opponent,
        "pairing": "round k of both agents is env.reset(seed=seed + k): same deal, starter and bot reactions",
        "model": model_stats.summary(),
        "baseline": prompt_stats.summary(),
        "mean_return_difference": float(gap.mean()),
        "mean_return_difference_stderr": float(gap.std(ddof=1) / math.sqrt(rounds)) if rounds > 1 else None,
        "bar": {**BAR, "passed": bool(passed)},
    }


# --- the run ------------------------------------------------------------------------------------
@dataclass
class TrainResult:
    run_dir: Path
    algorithm: str
    timesteps: int
    final_model: Path
    best_model: Path
    model_card: dict


def main(
    algo: str = "ppo",
    *,
    config_path: str | os.PathLike | None = None,
    overrides: dict | None = None,
    timesteps: int | None = None,
    n_envs: int | None = None,
    seed: int = 0,
    opponent: str = "human",
    env_args: dict | None = None,
    runs_root: str | os.PathLike = "runs",
    run_dir: str | os.PathLike | None = None,
    resume: str | os.PathLike | None = None,
    bench_rounds: int = 500,
    bench_seed: int = 2_000_000,
    vec_env: str = "dummy",
    progress_bar: bool = False,
    trust_model_file: bool = False,
    verbose: int = 0,
) -> TrainResult:
    """Train (or resume), save final/best models and the model card; returns where they are."""
    import torch

    torch.set_num_threads(1)  # the machines are shared; one thread is also the fastest for these nets
    if resume is not None:
        plan = _resume_plan(resume, timesteps)
    else:
        plan = _new_plan(algo, config_path, overrides, timesteps, n_envs, seed, opponent, env_args, runs_root, run_dir,
                         vec_env)
    return _run(plan, bench_rounds, bench_seed, progress_bar, trust_model_file, verbose)


@dataclass
class _Plan:
    run_dir: Path
    config: TrainConfig
    settings: dict
    checkpoint: Path | None = None


def _new_plan(algo, config_path, overrides, timesteps, n_envs, seed, opponent, env_args, runs_root, run_dir, vec_env):
    algo = check_algorithm(algo)
    config_path = Path(config_path) if config_path else default_config_path(algo)
    config = load_config(config_path, overrides)
    if config.algorithm != algo:
        raise ValueError(f"config file {str(config_path)!r} is for {config.algorithm!r}, not {algo!r}")
    env_args = dict(env_args or {})
    make_config(None, env_args)  # unknown keys and bad values fail here, before anything is created
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be an integer >= 0, got {seed!r}")
    settings = {
        "algorithm": algo,
        "config_file": str(config_path),
        "config_sha256": hashlib.sha256(config_path.read_bytes()).hexdigest(),
        "timesteps": _positive_int("timesteps", timesteps if timesteps is not None else config.timesteps),
        "n_envs": _positive_int("n_envs", n_envs if n_envs is not None else config.n_envs),
        "seed": seed,
        "opponent": opponent,
        "env_args": env_args,
        "vec_env": vec_env,
    }
    if run_dir is None:
        name = f"{algo}-{opponent.split(':')[0]}-s{seed}-{time.strftime('%Y%m%d-%H%M%S')}"
        run_dir = Path(runs_root) / name
    run_dir = Path(run_dir)
    if (run_dir / "config.json").exists():
        raise FileExistsError(f"run folder {str(run_dir)!r} already holds a run; use --resume {run_dir} to continue it")
    run_dir.mkdir(parents=True, exist_ok=True)
    exact = {"settings": settings, "config": config.as_json()}
    write_atomic(run_dir / "config.json", json.dumps(exact, indent=2))
    return _Plan(run_dir, config, settings)


def _resume_plan(resume, timesteps):
    """``resume`` is a checkpoint zip (its run folder is two levels up) or a run folder (its latest
    checkpoint). ``timesteps`` may raise the total budget; everything else comes from config.json."""
    resume = Path(resume)
    if resume.is_dir():
        run_dir = resume
        checkpoints = sorted((run_dir / "checkpoints").glob("ckpt_*.zip"), key=lambda p: int(p.stem.split("_")[1]))
        if not checkpoints:
            raise FileNotFoundError(f"run folder {str(run_dir)!r} has no checkpoints/ckpt_*.zip to resume from")
        checkpoint = checkpoints[-1]
    elif resume.is_file():
        checkpoint, run_dir = resume, resume.parent.parent
    else:
        raise FileNotFoundError(f"--resume {str(resume)!r}: no such checkpoint file or run folder")
    config_file = run_dir / "config.json"
    if not config_file.is_file():
        raise FileNotFoundError(f"cannot resume: {str(config_file)!r} (the run's exact config) is missing")
    recorded = json.loads(config_file.read_text())
    config = parse_config(recorded["config"])
    settings = dict(recorded["settings"])
    if timesteps is not None:
        settings["timesteps"] = _positive_int("timesteps", timesteps)
    return _Plan(run_dir, config, settings, checkpoint)


def _run(plan: _Plan, bench_rounds, bench_seed, progress_bar, trust_model_file, verbose) -> TrainResult:
    config, settings, run_dir = plan.config, plan.settings, plan.run_dir
    algo, target = settings["algorithm"], settings["timesteps"]
    train_args = {**settings["env_args"], **config.train_env}
    done = 0
    if plan.checkpoint is not None:
        done = int((read_metadata(plan.checkpoint) or {}).get("num_timesteps", 0))
    env = make_vec(train_args, settings["opponent"], settings["n_envs"], settings["seed"] + done,
                   settings["vec_env"], trust_model_file, config.observation)
    eval_env = make_vec(settings["env_args"], settings["opponent"], 1, config.evaluation["seed"], "dummy",
                        trust_model_file, config.observation)
    model = _model_for(plan, env, verbose)
    model_meta = {"algo": algo, "policy_kwargs": config.policy_kwargs, "observation": list(config.observation),
                  "opponent": settings["opponent"], "env_args": settings["env_args"], "seed": settings["seed"]}
    callbacks = _callbacks(model_meta, run_dir, config, eval_env, settings["n_envs"], _best_so_far(run_dir))
    started = time.perf_counter()
    if target > model.num_timesteps:
        model.learn(total_timesteps=target - model.num_timesteps, callback=callbacks, progress_bar=progress_bar,
                    reset_num_timesteps=plan.checkpoint is None, tb_log_name=algo)
    train_seconds = time.perf_counter() - started
    env.close()
    eval_env.close()
    final = save_model(model, run_dir / "final.zip", **model_meta)
    best = run_dir / "best.zip"
    if not best.exists():  # no evaluation ran (evaluation.every_timesteps = 0 or a tiny budget)
        save_model(model, best, **model_meta)
    card = _model_card(plan, model, best, train_seconds, bench_rounds, bench_seed, trust_model_file)
    write_atomic(run_dir / "model_card.json", json.dumps(card, indent=2))
    return TrainResult(run_dir, algo, int(model.num_timesteps), final, best, card)


def _model_for(plan: _Plan, env, verbose: int):
    from agents.sb3_model import build_model

    config = plan.config
    tensorboard = str(plan.run_dir / "tb") if _has_tensorboard() else None
    model = build_model(
        config.algorithm, env, config.policy_kwargs, config.hyperparameters,
        seed=plan.settings["seed"], tensorboard_log=tensorboard, verbose=verbose,
    )
    if plan.checkpoint is not None:
        # The checkpoint is loaded like any model file: weights (and optimizer state) only.
        loaded = load_model(config.algorithm, plan.checkpoint)
        model.set_parameters(loaded.get_parameters(), exact_match=True, device="cpu")
        model.num_timesteps = loaded.num_timesteps
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


def _model_card(plan: _Plan, model, best: Path, train_seconds, bench_rounds, bench_seed, trust_model_file) -> dict:
    settings, config = plan.settings, plan.config
    card = {
        "model": {"final": "final.zip", "best": "best.zip", "load": f"{settings['algorithm']}:{best}"},
        "algorithm": settings["algorithm"],
        "opponent": settings["opponent"],
        "env_args": settings["env_args"],
        "war_config": asdict(make_config(None, dict(settings["env_args"]))),
        "train_env_rewards": config.train_env,
        "timesteps": int(model.num_timesteps),
        "timesteps_requested": settings["timesteps"],
        "n_envs": settings["n_envs"],
        "seed": settings["seed"],
        "config_file": settings["config_file"],
        "hyperparameters": config.hyperparameters,
        "policy_kwargs": config.policy_kwargs,
        "observation_fields": list(config.observation),
        "resumed_from": str(plan.checkpoint) if plan.checkpoint else None,
        "train_wall_seconds": round(train_seconds, 1),
        "versions": package_versions(),
        "evaluation_callback": _evaluation_history(plan.run_dir),
    }
    if bench_rounds:
        started = time.perf_counter()
        agent = load_sb3_agent(settings["algorithm"], str(best))
        card["benchmark"] = compare_with_baseline(agent, settings["opponent"], settings["env_args"], bench_rounds,
                                                  bench_seed, trust_model_file)
        card["benchmark"]["wall_seconds"] = round(time.perf_counter() - started, 1)
    return card


def _evaluation_history(run_dir: Path) -> dict | None:
    log = run_dir / "eval" / "evaluations.npz"
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


def package_versions() -> dict:
    from importlib.metadata import PackageNotFoundError, version

    versions = {"python": platform.python_version()}
    for package in ("war-env", "stable-baselines3", "sb3-contrib", "torch", "gymnasium", "numpy"):
        try:
            versions[package] = version(package)
        except PackageNotFoundError:
            versions[package] = None
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5,
                                cwd=Path(__file__).resolve().parent.parent)
        versions["git_commit"] = commit.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        versions["git_commit"] = None
    return versions


# --- command line ---------------------------------------------------------------------------------
def cli(argv: list[str] | None = None) -> int:
    """The ``war-train`` command; returns the exit status (0) for ``sys.exit``, the console-script
    wrapper calls ``sys.exit(cli())``."""
    parser = argparse.ArgumentParser(prog="war-train", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--algo", default="ppo", help=f"one of {', '.join(sorted(ALGORITHMS))} (default ppo)")
    parser.add_argument("--config", help="hyperparameter file (default configs/<algo>.json)")
    parser.add_argument("--set", action="append", metavar="KEY=VALUE", help="override a hyperparameter, e.g. gamma=0.95")
    parser.add_argument("--timesteps", type=int, help="training budget (default: the config's)")
    parser.add_argument("--n-envs", type=int, help="parallel training envs (default: the config's)")
    parser.add_argument("--vec-env", choices=("dummy", "subproc"), default="dummy",
                        help="dummy (one process, the default: War-v0 is cheap) or subproc (one process per env)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--opponent", default="human",
                        help="bot spec (instant, fixed:ticks=5, uniform:low=1,high=10, human, absent), an agent spec, "
                             "or a saved model ALGO:PATH for self-play")
    parser.add_argument("--env-arg", action="append", metavar="KEY=VALUE",
                        help="a WarConfig field for War-v0, e.g. turn_seconds=2 (repeatable)")
    parser.add_argument("--runs-root", default="runs", help="parent of new run folders (default runs/)")
    parser.add_argument("--run-dir", help="exact run folder (default runs/<algo>-<opponent>-s<seed>-<time>)")
    parser.add_argument("--resume", help="checkpoint zip or run folder to continue (config from its config.json)")
    parser.add_argument("--bench-rounds", type=int, default=500,
                        help="held-out rounds for the final comparison with prompt (0: skip; default 500)")
    parser.add_argument("--bench-seed", type=int, default=2_000_000)
    parser.add_argument("--no-progress-bar", action="store_true")
    parser.add_argument("--trust-model-file", action="store_true",
                        help="let SB3 unpickle an opponent model file in full (runs code from it; default: weights only)")
    parser.add_argument("--verbose", type=int, default=0)
    args = parser.parse_args(argv)
    result = main(
        args.algo,
        config_path=args.config,
        overrides=parse_assignments(args.set, "--set"),
        timesteps=args.timesteps,
        n_envs=args.n_envs,
        seed=args.seed,
        opponent=args.opponent,
        env_args=parse_assignments(args.env_arg, "--env-arg"),
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
    _print_summary(result)
    return 0


def _ticks(value) -> str:
    return "-" if value is None else f"{value:.2f} ticks"


def _print_summary(result: TrainResult) -> None:
    card = result.model_card
    print(f"run folder: {result.run_dir}  ({result.timesteps} timesteps, {card['train_wall_seconds']} s training)")
    print(f"best model: {result.best_model}   (load it as {card['model']['load']})")
    bench = card.get("benchmark")
    if bench:
        model, base = bench["model"], bench["baseline"]
        print(f"held-out comparison, {bench['rounds']} rounds vs {bench['opponent']} (seed {bench['seed']}):")
        for stats in (model, base):
            print(f"  {stats['agent']:<40} mean return {stats['mean_return']:+.4f}  takeovers {stats['takeovers']}"
                  f"  false starts/100 {stats['false_starts_per_100_rounds']:.2f}"
                  f"  mean reaction {_ticks(stats['mean_reaction_ticks'])}")
        verdict = "PASSED" if bench["bar"]["passed"] else "NOT reached"
        print(f"  difference {bench['mean_return_difference']:+.4f} (stderr {bench['mean_return_difference_stderr']});"
              f" bar (0 takeovers, < 1 false start/100, gap <= 0.02): {verdict}")


if __name__ == "__main__":
    sys.exit(cli())
