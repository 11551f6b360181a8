"""``war-train``'s configuration files: what they may hold, and their validation.

A config file is JSON (the shipped ones are ``war_env/data/configs/<algo>.json``): the algorithm, its
SB3 hyperparameters, the network, the training-time reward weights, the evaluation schedule. Every
key and value is checked before anything is created; a mistake is a ``ValueError`` naming the file
and the key.
"""

from __future__ import annotations

import inspect
import json
import math
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from war_env.agents.algorithms import check_algorithm, check_policy_kwargs
from war_env.agents.fields import check_observation_fields
from war_env.core.observation import OBSERVATION_FIELDS
from war_env.core.rules import WarConfig
from war_env.data import training_config_file

if TYPE_CHECKING:
    from importlib.abc import Traversable

CONFIG_VERSION = 1
CONFIG_KEYS = {
    "version": "format version of this file (1)",
    "algorithm": "ppo, a2c, dqn or maskable_ppo",
    "notes": "free text: why these values",
    "timesteps": "default training budget (env steps, summed over envs)",
    "n_envs": "parallel training envs",
    "train_env": "WarConfig reward_* fields used by the training envs only (evaluation uses the game as given)",
    "observation": 'fields the policy sees: "all" (default), "timing" or a list of names from war_env.core.observation',
    "policy_kwargs": "net_arch and activation_fn (tanh, relu, elu, leaky_relu)",
    "hyperparameters": "keyword arguments of the SB3 algorithm class",
    "evaluation": "every_timesteps, rounds and seed of the evaluation callback",
    "checkpoint_every_timesteps": "timesteps between checkpoints (0: none)",
    "keep_checkpoints": "how many of the latest checkpoints are kept (older ones are deleted)",
}
EVALUATION_KEYS = {"every_timesteps", "rounds", "seed"}
RESERVED_HYPERPARAMETERS = {
    "policy",
    "env",
    "policy_kwargs",
    "tensorboard_log",
    "verbose",
    "seed",
    "device",
    "_init_setup_model",
    "stats_window_size",
    "monitor_wrapper",
    "replay_buffer_class",
    "replay_buffer_kwargs",
    "rollout_buffer_class",
    "rollout_buffer_kwargs",
}
"""Algorithm arguments the script sets itself (or that take Python objects, not JSON values)."""
MAX_MAGNITUDE = 1_000_000
"""Largest magnitude of any number in a config: beyond it torch's float32 arithmetic overflows."""
RANGES = {
    # name: (lowest, highest, whether the lowest itself is excluded). The upper ends bound what a run
    # allocates and how long one update takes: a rollout holds n_steps * n_envs steps, a DQN replay
    # buffer buffer_size transitions (about 150 bytes each).
    "learning_rate": (0, 1, True),
    "n_steps": (1, 65_536, False),
    "batch_size": (1, 1_000_000, False),
    "n_epochs": (1, 1_000, False),
    "buffer_size": (1, 1_000_000, False),
    "train_freq": (1, 1_000_000, False),
    "target_update_interval": (1, 10_000_000, False),
    "learning_starts": (0, 10_000_000, False),
    "gradient_steps": (0, 1_000, False),
    **{
        name: (0, 1, False)
        for name in (
            "gamma",
            "gae_lambda",
            "tau",
            "exploration_fraction",
            "exploration_initial_eps",
            "exploration_final_eps",
        )
    },
    **{name: (0, MAX_MAGNITUDE, False) for name in ("ent_coef", "vf_coef", "max_grad_norm", "clip_range")},
}
"""Hyperparameter ranges (any other number must lie within +-``MAX_MAGNITUDE``)."""
MAX_N_ENVS = 64
MAX_EVALUATION_ROUNDS = 10_000


@dataclass(frozen=True)
class TrainConfig:
    """One algorithm's training configuration, validated (the shipped ones: ``war_env/data/configs/*.json``)."""

    algorithm: str
    timesteps: int
    n_envs: int
    train_env: dict
    policy_kwargs: dict
    hyperparameters: dict
    evaluation: dict
    checkpoint_every_timesteps: int
    keep_checkpoints: int = 3
    observation: tuple = OBSERVATION_FIELDS
    notes: str = ""
    version: int = CONFIG_VERSION

    def as_json(self) -> dict:
        return asdict(self)


def shipped_config_file(algo: str) -> Traversable:
    """The config the package ships for ``algo`` (``war_env/data/configs/<algo>.json``)."""
    return training_config_file(check_algorithm(algo))


def load_config(path: str | os.PathLike | Traversable, overrides: dict | None = None) -> TrainConfig:
    """Read and validate a config file (a user's own path, or ``shipped_config_file(algo)``);
    ``overrides`` replaces hyperparameters (``--set k=v``)."""
    if isinstance(path, (str, os.PathLike)):
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
        timesteps=positive_int("timesteps", raw.get("timesteps", 100_000)),
        n_envs=check_n_envs(raw.get("n_envs", 1)),
        train_env=check_train_env(raw.get("train_env", {})),
        policy_kwargs=check_policy_kwargs(algo, raw.get("policy_kwargs", {})),
        hyperparameters=check_hyperparameters(algo, raw["hyperparameters"]),
        evaluation=check_evaluation(evaluation),
        checkpoint_every_timesteps=non_negative_int(
            "checkpoint_every_timesteps", raw.get("checkpoint_every_timesteps", 10_000)
        ),
        keep_checkpoints=int_in_range("keep_checkpoints", raw.get("keep_checkpoints", 3), 1, 1_000),
        observation=check_observation_fields(raw.get("observation", "all")),
        notes=str(raw.get("notes", "")),
    )
    return config


def check_hyperparameters(algo: str, hyperparameters: dict) -> dict:
    """Keys must be arguments of the algorithm class; values must match the type of its default."""
    if not isinstance(hyperparameters, dict):
        raise ValueError(f"hyperparameters must be a JSON object, got {hyperparameters!r}")
    from war_env.agents.algorithms import algorithm_class

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
    elif isinstance(default, int):
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
    number = value[0] if isinstance(value, list) else value
    if number is None or isinstance(number, str):
        return
    low, high, open_low = RANGES.get(name, (-MAX_MAGNITUDE, MAX_MAGNITUDE, False))
    if not (low < number if open_low else low <= number) or not number <= high:
        raise bad(f"in {'(' if open_low else '['}{low:,}, {high:,}]")


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
        "every_timesteps": non_negative_int("evaluation.every_timesteps", evaluation["every_timesteps"]),
        "rounds": int_in_range("evaluation.rounds", evaluation["rounds"], 1, MAX_EVALUATION_ROUNDS),
        "seed": non_negative_int("evaluation.seed", evaluation["seed"]),
    }


def check_n_envs(value) -> int:
    return int_in_range("n_envs", value, 1, MAX_N_ENVS)


def int_in_range(name: str, value, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{name} must be an integer in [{low:,}, {high:,}], got {value!r}")
    return value


def positive_int(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return value


def non_negative_int(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} must be an integer >= 0, got {value!r}")
    return value
