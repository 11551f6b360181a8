"""The Stable-Baselines3 algorithms a War policy is trained with, and the networks they may build.

``policy_kwargs`` travel as JSON (training configs, ``war_env_model.json``): ``net_arch`` and an
``activation_fn`` name, nothing else, and a network's size is bounded (``MAX_PARAMETERS``) before torch
allocates it. torch and SB3 are imported inside the functions (one-threaded: ``war_env.support.threads``).
"""

from __future__ import annotations

from war_env.core.observation import OBSERVATION_SIZE
from war_env.core.specs import did_you_mean
from war_env.support.extras import require
from war_env.support.threads import single_threaded_torch

ALGORITHMS = {
    "ppo": ("stable_baselines3", "PPO"),
    "a2c": ("stable_baselines3", "A2C"),
    "dqn": ("stable_baselines3", "DQN"),
    "maskable_ppo": ("sb3_contrib", "MaskablePPO"),
    "recurrent_ppo": ("sb3_contrib", "RecurrentPPO"),
}
"""Algorithm name (as in spec strings ``ppo:PATH`` and ``war-train --algo``) -> (module, class)."""
POLICIES = {"recurrent_ppo": "MlpLstmPolicy"}
"""The SB3 policy of each algorithm that is not ``MlpPolicy``: RecurrentPPO's runs an LSTM before its MLPs."""
RECURRENT = frozenset(POLICIES)
"""Algorithms whose policy keeps a state from tick to tick (reset at each round)."""
MAX_LSTM_HIDDEN = 1024

MAX_PARAMETERS = 10_000_000
"""Largest network (weights and biases of one policy, DQN's target network included): 40 MB of float32,
thousands of times the default 64x64 MLP. Checked before a network is built, from a config or a model file."""
MAX_LAYERS = 32
ACTIVATIONS = {"tanh": "Tanh", "relu": "ReLU", "elu": "ELU", "leaky_relu": "LeakyReLU"}
"""JSON names of activation functions -> ``torch.nn`` classes (nothing else is accepted)."""

DEFAULT_POLICY_KWARGS = {
    "ppo": {"net_arch": {"pi": [64, 64], "vf": [64, 64]}, "activation_fn": "tanh"},
    "a2c": {"net_arch": {"pi": [64, 64], "vf": [64, 64]}, "activation_fn": "tanh"},
    "maskable_ppo": {"net_arch": {"pi": [64, 64], "vf": [64, 64]}, "activation_fn": "tanh"},
    "dqn": {"net_arch": [64, 64], "activation_fn": "relu"},
    "recurrent_ppo": {"net_arch": {"pi": [64, 64], "vf": [64, 64]}, "activation_fn": "tanh", "lstm_hidden_size": 256},
}
"""SB3's own MlpPolicy defaults (sb3-contrib's MlpLstmPolicy's for RecurrentPPO: an LSTM of 256 for the actor and
one for the critic), used for a model file without ``war_env_model.json``."""


def check_algorithm(algo: str) -> str:
    """The canonical algorithm name, or a ``ValueError`` listing the known ones."""
    if not isinstance(algo, str):
        raise TypeError(f"algorithm must be a string such as 'ppo', got {algo!r}")
    name = algo.strip().lower().replace("-", "_")
    if name == "maskableppo":
        name = "maskable_ppo"
    if name not in ALGORITHMS:
        raise ValueError(
            f"unknown algorithm {algo!r}; known: {', '.join(sorted(ALGORITHMS))}{did_you_mean(name, ALGORITHMS)}"
        )
    return name


def algorithm_class(algo: str) -> type:
    """The SB3 (or sb3-contrib) class of ``algo``, imported on demand (torch one-threaded)."""
    import importlib

    module_name, class_name = ALGORITHMS[check_algorithm(algo)]
    require("train", f"the {algo} models")
    single_threaded_torch()
    return getattr(importlib.import_module(module_name), class_name)


def check_policy_kwargs(algo: str, policy_kwargs: dict, inputs: int = OBSERVATION_SIZE) -> dict:
    """Validate the JSON form of ``policy_kwargs``: ``net_arch`` and ``activation_fn`` (and RecurrentPPO's
    ``lstm_hidden_size``) only; the network on ``inputs`` observation floats must fit ``MAX_PARAMETERS``."""
    algo = check_algorithm(algo)
    if not isinstance(policy_kwargs, dict):
        raise ValueError(f"policy_kwargs must be a JSON object, got {policy_kwargs!r}")
    known = set(DEFAULT_POLICY_KWARGS[algo])
    unknown = set(policy_kwargs) - known
    if unknown:
        raise ValueError(f"unknown {algo} policy_kwargs key(s) {sorted(unknown)}; known: {sorted(known)}")
    checked = dict(DEFAULT_POLICY_KWARGS[algo])
    checked.update(policy_kwargs)
    activation = checked["activation_fn"]
    if activation not in ACTIVATIONS:
        raise ValueError(f"activation_fn must be one of {sorted(ACTIVATIONS)}, got {activation!r}")
    net_arch = checked["net_arch"]
    if algo == "dqn" or isinstance(net_arch, list):
        _check_layers("net_arch", net_arch)
    elif isinstance(net_arch, dict) and set(net_arch) == {"pi", "vf"}:
        _check_layers("net_arch.pi", net_arch["pi"])
        _check_layers("net_arch.vf", net_arch["vf"])
    else:
        raise ValueError(f"net_arch must be a list of layer sizes or {{'pi': [...], 'vf': [...]}}, got {net_arch!r}")
    hidden = checked.get("lstm_hidden_size")
    if hidden is not None and (
        isinstance(hidden, bool) or not isinstance(hidden, int) or not 1 <= hidden <= MAX_LSTM_HIDDEN
    ):
        raise ValueError(f"lstm_hidden_size must be an integer in [1, {MAX_LSTM_HIDDEN}], got {hidden!r}")
    size = network_parameters(algo, checked, inputs)
    if size > MAX_PARAMETERS:
        raise ValueError(
            f"policy_kwargs {policy_kwargs!r} make a network of {size:,} parameters; at most {MAX_PARAMETERS:,}"
        )
    return checked


def _check_layers(name: str, layers) -> None:
    if not isinstance(layers, list) or not all(
        isinstance(size, int) and not isinstance(size, bool) and size >= 1 for size in layers
    ):
        raise ValueError(f"{name} must be a list of positive integers (layer sizes), got {layers!r}")
    if len(layers) > MAX_LAYERS:
        raise ValueError(f"{name} has {len(layers)} layers; at most {MAX_LAYERS}")


def network_parameters(algo: str, policy_kwargs: dict, inputs: int) -> int:
    """Weights and biases of ``algo``'s policy with ``policy_kwargs`` (validated) on ``inputs`` observation
    floats and War-v0's two actions: PPO/A2C have a policy and a value network, DQN a Q-network and its
    target copy; RecurrentPPO puts an LSTM before each of its two networks (sb3-contrib's default: one for
    the actor, one for the critic; torch's LSTM has two biases per gate)."""
    net_arch = policy_kwargs["net_arch"]

    def mlp(first: int, layers: list[int], outputs: int) -> int:
        sizes = [first, *layers, outputs]
        return sum((fan_in + 1) * fan_out for fan_in, fan_out in zip(sizes, sizes[1:]))

    if algo == "dqn":
        return 2 * mlp(inputs, net_arch, 2)
    pi, vf = (net_arch, net_arch) if isinstance(net_arch, list) else (net_arch["pi"], net_arch["vf"])
    if algo not in RECURRENT:
        return mlp(inputs, pi, 2) + mlp(inputs, vf, 1)
    hidden = policy_kwargs["lstm_hidden_size"]
    lstm = 4 * hidden * (inputs + hidden + 2)
    return 2 * lstm + mlp(hidden, pi, 2) + mlp(hidden, vf, 1)


def torch_policy_kwargs(policy_kwargs: dict) -> dict:
    """The JSON form turned into what SB3 takes (the activation name becomes a ``torch.nn`` class)."""
    import torch

    return {
        **policy_kwargs,
        "activation_fn": getattr(torch.nn, ACTIVATIONS[policy_kwargs["activation_fn"]]),
    }


def build_model(algo: str, env, policy_kwargs: dict | None = None, hyperparameters: dict | None = None, **extra):
    """A fresh SB3 model of ``algo`` on ``env`` (a War-v0 env or VecEnv), built from the project's
    own code only. ``extra`` goes to the algorithm (``seed``, ``tensorboard_log``, ``verbose``)."""
    algo = check_algorithm(algo)
    kwargs = check_policy_kwargs(algo, policy_kwargs or {})
    cls = algorithm_class(algo)
    return cls(
        POLICIES.get(algo, "MlpPolicy"),
        env,
        policy_kwargs=torch_policy_kwargs(kwargs),
        device="cpu",
        **dict(hyperparameters or {}),
        **extra,
    )
