"""Stable-Baselines3 models as agents, loaded without running code from the model file.

An SB3 ``.zip`` holds ``data`` (a JSON file whose non-JSON entries, such as the policy class, the
spaces, ``policy_kwargs`` and the learning-rate schedule, are *cloudpickled* and unpickled by
``PPO.load``: unpickling runs whatever code the file's author put there) and ``.pth`` files with the
weights (``policy.pth``, ``policy.optimizer.pth``, ``pytorch_variables.pth``).

``load_sb3_agent`` never reads ``data``. It builds the model from the project's own code: the
algorithm named by the caller, War-v0's spaces (or the subset of observation fields the policy was
trained on) and the network architecture from the file's
``war_env_model.json`` (plain JSON that ``save_model`` adds next to SB3's entries; SB3 ignores it)
or, without one, SB3's default architecture for the algorithm. Then it loads only the weights with
``model.set_parameters(path)``, which reads the ``.pth`` files with ``torch.load(weights_only=True)``
(tensors and plain containers, no code). A file that does not fit gets a ``ValueError`` that says
why. ``trust_model_file=True`` opts in to SB3's full ``load`` (which does unpickle ``data``).

Resources are bounded before they are spent: entry sizes are read from the zip's directory (an entry
inflating past ``MAX_ENTRY_BYTES``, or a metadata entry past ``MAX_METADATA_BYTES``, is refused unread),
the architecture must fit both ``MAX_PARAMETERS`` and the bytes of ``policy.pth`` before the network is
built, and every weight must be a finite float32 (a NaN network would play garbage silently).

torch and stable-baselines3 are imported inside the functions, so ``import war_env.agents`` stays light.
"""

from __future__ import annotations

import io
import json
import os
import zipfile
import zlib
from pathlib import Path

import numpy as np

from war_env.agents.base import Agent
from war_env.atomic import write_atomic
from war_env.extras import require
from war_env.latency import MAX_LATENCY
from war_env.observation import INDEX, OBSERVATION_FIELDS, OBSERVATION_SIZE, latency_fields
from war_env.rules import WarConfig
from war_env.specs import did_you_mean
from war_env.threads import single_threaded_torch

METADATA_NAME = "war_env_model.json"
"""The plain-JSON entry ``save_model`` adds to an SB3 zip: how to rebuild the model safely."""
METADATA_FORMAT = "war-env-sb3/1"

ALGORITHMS = {
    "ppo": ("stable_baselines3", "PPO"),
    "a2c": ("stable_baselines3", "A2C"),
    "dqn": ("stable_baselines3", "DQN"),
    "maskable_ppo": ("sb3_contrib", "MaskablePPO"),
}
"""Algorithm name (as in spec strings ``ppo:PATH`` and ``war-train --algo``) -> (module, class)."""

MAX_PARAMETERS = 10_000_000
"""Largest network (weights and biases of one policy, DQN's target network included): 40 MB of float32,
thousands of times the default 64x64 MLP. Checked before a network is built, from a config or a model file."""
MAX_LAYERS = 32
MAX_METADATA_BYTES = 1 << 20
"""Largest ``war_env_model.json`` read (the real ones are about 1 kB)."""
MAX_ENTRY_BYTES = 256 << 20
"""Largest uncompressed entry of a model zip read (a network at ``MAX_PARAMETERS`` with Adam's two
moments is about 120 MB); checked from the zip's directory before anything is inflated."""

ACTIVATIONS = {"tanh": "Tanh", "relu": "ReLU", "elu": "ELU", "leaky_relu": "LeakyReLU"}
"""JSON names of activation functions -> ``torch.nn`` classes (nothing else is accepted)."""

DEFAULT_POLICY_KWARGS = {
    "ppo": {"net_arch": {"pi": [64, 64], "vf": [64, 64]}, "activation_fn": "tanh"},
    "a2c": {"net_arch": {"pi": [64, 64], "vf": [64, 64]}, "activation_fn": "tanh"},
    "maskable_ppo": {"net_arch": {"pi": [64, 64], "vf": [64, 64]}, "activation_fn": "tanh"},
    "dqn": {"net_arch": [64, 64], "activation_fn": "relu"},
}
"""SB3's own MlpPolicy defaults, used for a model file without ``war_env_model.json``."""

FIELD_INDEX = {name: i for i, name in enumerate(latency_fields(WarConfig(latency=f"fixed:ticks={MAX_LATENCY}")))}
"""Column of every field a policy may see: War-v0's, then WarLatency-v0's (the opponent's clock, the presses
in flight ``in_flight_0`` .. ``in_flight_15``), at their index in WarLatency-v0's observation."""
CAN_DRAW = INDEX["can_draw"]
TIMING_FIELDS = ("can_draw", "timer_left", "has_drawn", "opponent_has_drawn", "at_war", "started")
"""The observation fields about the clock and the current step; the rest (piles, cards, pot, points,
battles) describe the cards, which timing cannot change."""


# --- which observation fields the policy sees ---------------------------------------------------
def check_observation_fields(fields) -> tuple[str, ...]:
    """``"all"`` (or ``None``) -> every field of ``war_env.observation``; else a list of its names."""
    if fields is None or fields == "all":
        return OBSERVATION_FIELDS
    if fields == "timing":
        return TIMING_FIELDS
    if not isinstance(fields, (list, tuple)) or not fields or not all(isinstance(name, str) for name in fields):
        raise ValueError(f'observation must be "all", "timing" or a non-empty list of field names, got {fields!r}')
    unknown = [name for name in fields if name not in FIELD_INDEX]
    if unknown:
        raise ValueError(f"unknown observation field(s) {unknown}; known: {list(OBSERVATION_FIELDS)} and "
                         f"WarLatency-v0's opponent_can_draw, opponent_timer_left, in_flight_0 .. in_flight_{MAX_LATENCY - 1}")
    if len(set(fields)) != len(fields):
        raise ValueError(f"observation fields must not repeat, got {list(fields)}")
    return tuple(fields)


def observes_latency(fields) -> bool:
    """Whether a policy seeing ``fields`` plays WarLatency-v0 (it sees a field War-v0 does not have)."""
    return any(name not in INDEX for name in fields)


def select_observation(env, fields):
    """Wrap a War-v0 (or WarLatency-v0) env so the policy sees only ``fields`` (in that order); all of
    War-v0's fields: unchanged."""
    fields = check_observation_fields(fields)
    if fields == OBSERVATION_FIELDS:
        return env
    from gymnasium import spaces
    from gymnasium.wrappers import TransformObservation

    columns = np.array([FIELD_INDEX[name] for name in fields])
    space = spaces.Box(0.0, 1.0, (len(columns),), np.float32)
    return TransformObservation(env, lambda observation: observation[columns], space)


# --- algorithms and policy arguments ------------------------------------------------------------
def check_algorithm(algo: str) -> str:
    """The canonical algorithm name, or a ``ValueError`` listing the known ones."""
    if not isinstance(algo, str):
        raise TypeError(f"algorithm must be a string such as 'ppo', got {algo!r}")
    name = algo.strip().lower().replace("-", "_")
    if name == "maskableppo":
        name = "maskable_ppo"
    if name not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {algo!r}; known: {', '.join(sorted(ALGORITHMS))}"
                         f"{did_you_mean(name, ALGORITHMS)}")
    return name


def algorithm_class(algo: str) -> type:
    """The SB3 (or sb3-contrib) class of ``algo``, imported on demand (torch one-threaded)."""
    import importlib

    module_name, class_name = ALGORITHMS[check_algorithm(algo)]
    require("train", f"the {algo} models")
    single_threaded_torch()
    return getattr(importlib.import_module(module_name), class_name)


def check_policy_kwargs(algo: str, policy_kwargs: dict) -> dict:
    """Validate the JSON form of ``policy_kwargs``: ``net_arch`` and ``activation_fn`` only."""
    algo = check_algorithm(algo)
    if not isinstance(policy_kwargs, dict):
        raise ValueError(f"policy_kwargs must be a JSON object, got {policy_kwargs!r}")
    unknown = set(policy_kwargs) - {"net_arch", "activation_fn"}
    if unknown:
        raise ValueError(f"unknown policy_kwargs key(s) {sorted(unknown)}; known: ['activation_fn', 'net_arch']")
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
    size = network_parameters(algo, net_arch, OBSERVATION_SIZE)
    if size > MAX_PARAMETERS:
        raise ValueError(f"net_arch {net_arch!r} makes a network of {size:,} parameters; at most {MAX_PARAMETERS:,}")
    return checked


def _check_layers(name: str, layers) -> None:
    if not isinstance(layers, list) or not all(
        isinstance(size, int) and not isinstance(size, bool) and size >= 1 for size in layers
    ):
        raise ValueError(f"{name} must be a list of positive integers (layer sizes), got {layers!r}")
    if len(layers) > MAX_LAYERS:
        raise ValueError(f"{name} has {len(layers)} layers; at most {MAX_LAYERS}")


def network_parameters(algo: str, net_arch, inputs: int) -> int:
    """Weights and biases of SB3's MlpPolicy for ``algo`` with ``net_arch`` (validated) on ``inputs``
    observation fields and War-v0's two actions: PPO/A2C have a policy and a value network, DQN a
    Q-network and its target copy."""

    def mlp(layers: list[int], outputs: int) -> int:
        sizes = [inputs, *layers, outputs]
        return sum((fan_in + 1) * fan_out for fan_in, fan_out in zip(sizes, sizes[1:]))

    if algo == "dqn":
        return 2 * mlp(net_arch, 2)
    pi, vf = (net_arch, net_arch) if isinstance(net_arch, list) else (net_arch["pi"], net_arch["vf"])
    return mlp(pi, 2) + mlp(vf, 1)


def torch_policy_kwargs(policy_kwargs: dict) -> dict:
    """The JSON form turned into what SB3 takes (the activation name becomes a ``torch.nn`` class)."""
    import torch

    return {
        "net_arch": policy_kwargs["net_arch"],
        "activation_fn": getattr(torch.nn, ACTIVATIONS[policy_kwargs["activation_fn"]]),
    }


def build_model(algo: str, env, policy_kwargs: dict | None = None, hyperparameters: dict | None = None, **extra):
    """A fresh SB3 model of ``algo`` on ``env`` (a War-v0 env or VecEnv), built from the project's
    own code only. ``extra`` goes to the algorithm (``seed``, ``tensorboard_log``, ``verbose``)."""
    algo = check_algorithm(algo)
    kwargs = check_policy_kwargs(algo, policy_kwargs or {})
    cls = algorithm_class(algo)
    return cls(
        "MlpPolicy",
        env,
        policy_kwargs=torch_policy_kwargs(kwargs),
        device="cpu",
        **dict(hyperparameters or {}),
        **extra,
    )


# --- saving with the safe-loading metadata ------------------------------------------------------
def save_model(model, path: str | os.PathLike, algo: str, policy_kwargs: dict, observation="all", **metadata) -> Path:
    """Save ``model`` to ``path`` atomically (a temporary file in the same folder, then a rename), as
    SB3's own zip plus the plain-JSON ``war_env_model.json`` that ``load_sb3_agent`` reads.

    ``observation`` names the fields the policy sees (see ``check_observation_fields``);
    ``metadata`` adds JSON fields (e.g. ``opponent``); a crash never leaves a half-written zip.
    """
    path = Path(path)
    buffer = io.BytesIO()
    model.save(buffer)
    record = {
        "format": METADATA_FORMAT,
        "algorithm": check_algorithm(algo),
        "policy": "MlpPolicy",
        "policy_kwargs": check_policy_kwargs(algo, policy_kwargs),
        "observation_fields": list(check_observation_fields(observation)),
        "num_timesteps": int(model.num_timesteps),
        **metadata,
    }
    with zipfile.ZipFile(buffer, mode="a") as archive:
        archive.writestr(METADATA_NAME, json.dumps(record, indent=2, sort_keys=True))
    write_atomic(path, buffer.getvalue())
    return path


def entry_sizes(path: str | os.PathLike) -> dict[str, int]:
    """The uncompressed size of every entry of a model zip, read from its directory (nothing is inflated).
    An entry larger than the caps (``MAX_METADATA_BYTES``, ``MAX_ENTRY_BYTES``) is refused here, so no
    later read can inflate a small file into gigabytes."""
    path = _existing_file(path)
    try:
        with zipfile.ZipFile(path) as archive:
            sizes = {info.filename: info.file_size for info in archive.infolist()}
    except (zipfile.BadZipFile, EOFError):
        raise ValueError(f"model file {str(path)!r} is not a zip file, or a truncated one (an SB3 model is "
                         "a .zip)") from None
    for name, size in sizes.items():
        cap = MAX_METADATA_BYTES if name == METADATA_NAME else MAX_ENTRY_BYTES
        if size > cap:
            raise ValueError(f"model file {str(path)!r}: its entry {name!r} inflates to {size:,} bytes; "
                             f"at most {cap:,} are read")
    return sizes


def read_metadata(path: str | os.PathLike) -> dict | None:
    """The ``war_env_model.json`` entry of a model zip (plain ``json.loads``, nothing unpickled), or
    ``None`` when the file has none (e.g. a model saved by plain SB3 or the RL Zoo)."""
    path = _existing_file(path)
    if METADATA_NAME not in entry_sizes(path):
        return None
    try:
        with zipfile.ZipFile(path) as archive:
            text = archive.read(METADATA_NAME).decode("utf-8")
    except (zipfile.BadZipFile, EOFError, zlib.error) as error:  # a damaged entry (CRC, cut data)
        raise ValueError(f"model file {str(path)!r} is damaged: {error}") from None
    except UnicodeDecodeError as error:
        raise ValueError(f"model file {str(path)!r} has an unreadable {METADATA_NAME}: {error}") from None
    try:
        record = json.loads(text)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"model file {str(path)!r} has an unreadable {METADATA_NAME}: {error}") from None
    if not isinstance(record, dict) or record.get("format") != METADATA_FORMAT:
        raise ValueError(f"model file {str(path)!r}: {METADATA_NAME} is not in format {METADATA_FORMAT!r}")
    return record


def _existing_file(path) -> Path:
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"model path must be a string or path, got {path!r}")
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"model file {str(path)!r} does not exist")
    return path


# --- loading --------------------------------------------------------------------------------------
def load_model(algo: str, path: str | os.PathLike, trust_model_file: bool = False, env=None):
    """The SB3 model in ``path``, built as ``algo``; weights only unless ``trust_model_file``.

    ``env`` (optional) is attached to the model, e.g. to continue training.
    """
    algo = check_algorithm(algo)
    path = _existing_file(path)
    metadata = read_metadata(path)
    if metadata is not None and metadata.get("algorithm") != algo:
        raise ValueError(
            f"model file {str(path)!r} holds a {metadata.get('algorithm')!r} model, not {algo!r}: "
            f"use the spec {metadata.get('algorithm')}:{path}"
        )
    if trust_model_file:
        model = _load_trusted(algo, path, env)
        check_weights(path, {"policy": model.policy.state_dict()})
        return model
    source = f"its {METADATA_NAME}" if metadata else f"SB3's default MlpPolicy for {algo} (the file has no {METADATA_NAME})"
    try:
        policy_kwargs = check_policy_kwargs(algo, metadata["policy_kwargs"] if metadata else DEFAULT_POLICY_KWARGS[algo])
    except (KeyError, TypeError, ValueError) as error:
        raise ValueError(f"model file {str(path)!r}: {METADATA_NAME} has no valid policy_kwargs: {error}") from None
    fields = observation_fields(metadata)
    # The network is built before its weights are read: its size must fit the tensors the file holds
    # (4 bytes per float32 parameter), so a small file cannot make this process allocate a huge one.
    needed = 4 * network_parameters(algo, policy_kwargs["net_arch"], len(fields))
    held = entry_sizes(path).get("policy.pth", 0)
    if needed > held:
        raise _does_not_fit(path, algo, source, f"that network needs {needed:,} bytes of weights, the file's "
                                                f"policy.pth holds {held:,}")
    if env is None:
        import gymnasium as gym

        import war_env  # noqa: F401  (registers War-v0)

        flights = sum(name.startswith("in_flight_") for name in fields)  # spaces only: any latency that long
        game = gym.make("WarLatency-v0", latency=f"fixed:ticks={flights}") if observes_latency(fields) else gym.make("War-v0")
        env = select_observation(game, fields)
    hyperparameters = {"buffer_size": 1, "learning_starts": 0} if algo == "dqn" else {}
    model = build_model(algo, env, policy_kwargs, hyperparameters)
    from stable_baselines3.common.save_util import load_from_zip_file

    try:  # the .pth files only, with torch.load(weights_only=True): tensors and plain containers, no code
        _, parameters, _ = load_from_zip_file(str(path), device="cpu", load_data=False)
    except Exception as error:  # torch's UnpicklingError, a damaged zip entry
        raise _does_not_fit(path, algo, source, f"{type(error).__name__}: {error}") from None
    check_weights(path, parameters)
    try:
        model.set_parameters(parameters, exact_match=True, device="cpu")
    except Exception as error:  # load_state_dict's RuntimeError (shapes, names), SB3's ValueError
        raise _does_not_fit(path, algo, source, f"{type(error).__name__}: {error}") from None
    if metadata is not None:
        model.num_timesteps = int(metadata.get("num_timesteps", 0))
    return model


def _does_not_fit(path: Path, algo: str, source: str, why: str) -> ValueError:
    return ValueError(
        f"model file {str(path)!r} does not fit a {algo} War-v0 policy built from {source}: {why}. Only weights "
        "are loaded (no code from the file runs); pass trust_model_file=True (--trust-model-file) to let SB3 "
        "unpickle the whole file if you trust it."
    )


def check_weights(path: Path, state_dicts: dict) -> None:
    """Every tensor of the policy is float32 and every floating tensor (optimizer state too) is finite: a
    network with a NaN would choose an arbitrary action on every tick (and be taken over all the time)."""
    import torch

    for module, state in state_dicts.items():
        for name, tensor in _tensors(state):
            if not isinstance(tensor, torch.Tensor):
                continue
            where = f"{module}.pth: {name}"
            if module == "policy" and tensor.dtype != torch.float32:
                raise ValueError(f"model file {str(path)!r}: {where} is {tensor.dtype}, not torch.float32")
            if tensor.is_floating_point() and not bool(torch.isfinite(tensor).all()):
                raise ValueError(f"model file {str(path)!r}: {where} holds NaN or infinite values")


def _tensors(state, prefix: str = ""):
    """(dotted name, value) of every leaf of a state dict (an optimizer's nests dicts and lists)."""
    if isinstance(state, dict):
        for key, value in state.items():
            yield from _tensors(value, f"{prefix}{key}.")
    elif isinstance(state, (list, tuple)):
        for index, value in enumerate(state):
            yield from _tensors(value, f"{prefix}{index}.")
    else:
        yield prefix.rstrip("."), state


def observation_fields(metadata: dict | None) -> tuple[str, ...]:
    """The fields a saved policy sees: from its metadata, else all of them."""
    try:
        return check_observation_fields((metadata or {}).get("observation_fields", "all"))
    except ValueError as error:
        raise ValueError(f"{METADATA_NAME}: {error}") from None


def _load_trusted(algo: str, path: Path, env):
    """SB3's full ``load``: unpickles the file's ``data`` (runs code from it). Opt-in only."""
    model = algorithm_class(algo).load(str(path), env=env, device="cpu")
    size = len(observation_fields(read_metadata(path)))
    shape = getattr(model.observation_space, "shape", None)
    actions = getattr(model.action_space, "n", None)
    if shape != (size,) or actions != 2:
        raise ValueError(
            f"model file {str(path)!r} was trained on observations {shape} and {actions} actions; "
            f"War-v0 (with the file's observation fields) has ({size},) and 2"
        )
    return model


def load_sb3_agent(
    algo: str, path: str, trust_model_file: bool = False, deterministic: bool = True
) -> "SB3Agent":
    """An ``Agent`` that plays with the SB3 model in ``path`` (see the module docstring for safety)."""
    model = load_model(algo, path, trust_model_file)
    fields = observation_fields(read_metadata(path))
    return SB3Agent(model, check_algorithm(algo), str(path), deterministic, fields)


class SB3Agent(Agent):
    """A trained SB3 policy behind the ``Agent`` interface.

    Deterministic play (the default) runs the policy's layers as numpy matrix products, copied
    from the torch modules at load time: at one call per tick, SB3's ``predict`` (tensor
    conversion, bookkeeping) costs far more than the 16-64-64-2 network itself. The greedy action is
    the argmax of the logits (PPO, A2C) or Q-values (DQN); ``tests/test_sb3_model.py`` checks it
    equal to SB3's ``predict(deterministic=True)``. Stochastic play, or a policy whose layers are not
    plain Linear/activation stacks (a trusted custom file), goes through the torch policy.
    MaskablePPO gets its action mask from the observation: ``can_draw`` (index 0) is exactly
    ``action_masks()[1]``.
    """

    def __init__(self, model, algo: str, path: str, deterministic: bool = True, fields=OBSERVATION_FIELDS):
        torch = single_threaded_torch()
        self.model = model
        self.algo = algo
        self.path = path
        self.deterministic = bool(deterministic)
        self.name = algo
        self._torch = torch
        self._masked = algo == "maskable_ppo"
        model.policy.set_training_mode(False)
        self._layers = _numpy_layers(model.policy) if self.deterministic else None
        fields = check_observation_fields(fields)
        self._columns = None if fields == OBSERVATION_FIELDS else np.array([FIELD_INDEX[name] for name in fields])
        self.observes_latency = observes_latency(fields)
        """Plays from WarLatency-v0's observation (the evaluation loop then plays it through WarLatency-v0)."""

    def spec(self) -> str:
        return f"{self.algo}:{self.path}"

    def reset(self, seed: int | None = None) -> None:
        if seed is not None and not self.deterministic:
            self._torch.manual_seed(seed)

    def act(self, observation) -> int:
        return int(self._actions(np.asarray(observation, dtype=np.float32).reshape(1, -1))[0])

    def batch_policy(self):
        """Greedy play depends on the observation alone, so many rounds can be played at once; sampled
        play draws from torch's generator, which ``reset`` seeds per round: those rounds go one by one."""
        return self._actions if self.deterministic else None

    def predict(self, observation, state=None, episode_start=None, deterministic: bool = True):
        observation = np.asarray(observation, dtype=np.float32)
        if observation.ndim == 1:
            return np.asarray(self._actions(observation.reshape(1, -1))[0]), state
        return self._actions(observation), state

    def _actions(self, observations: np.ndarray) -> np.ndarray:
        """Greedy (or sampled) actions for full War-v0 observations, one per row."""
        seen = observations if self._columns is None else observations[:, self._columns]
        if self._layers is not None:
            scores = _forward(self._layers, seen)
            if self._masked:
                scores = np.where(self._masks(observations), scores, -np.inf)
            return scores.argmax(axis=1)
        torch = self._torch
        with torch.no_grad():
            tensor = torch.as_tensor(np.ascontiguousarray(seen))
            if self._masked:
                actions = self.model.policy._predict(tensor, deterministic=self.deterministic,
                                                     action_masks=self._masks(observations))
            else:
                actions = self.model.policy._predict(tensor, deterministic=self.deterministic)
        return actions.numpy().reshape(-1)

    @staticmethod
    def _masks(observations: np.ndarray) -> np.ndarray:
        return np.stack([np.ones(len(observations), bool), observations[:, CAN_DRAW] > 0.5], axis=1)


def _numpy_layers(policy) -> list | None:
    """The greedy-action network of ``policy`` as ``[("linear", W, b) | ("tanh",) | ...]``, or
    ``None`` when it is not a flat observation through plain Linear and activation layers."""
    import torch
    from stable_baselines3.common.torch_layers import FlattenExtractor

    if hasattr(policy, "q_net"):  # DQN
        extractor, modules = policy.q_net.features_extractor, list(policy.q_net.q_net)
    elif hasattr(policy, "action_net") and hasattr(policy, "mlp_extractor"):  # PPO, A2C, MaskablePPO
        extractor = policy.pi_features_extractor
        modules = list(policy.mlp_extractor.policy_net) + [policy.action_net]
    else:
        return None
    if type(extractor) is not FlattenExtractor:
        return None
    layers = []
    for module in modules:
        if type(module) is torch.nn.Linear:
            layers.append(("linear", module.weight.detach().numpy().T.copy(), module.bias.detach().numpy().copy()))
        elif type(module) in (torch.nn.Tanh, torch.nn.ReLU, torch.nn.ELU):
            layers.append((type(module).__name__.lower(),))
        elif type(module) is torch.nn.LeakyReLU:
            layers.append(("leaky_relu", module.negative_slope))
        else:
            return None
    return layers


def _forward(layers: list, x: np.ndarray) -> np.ndarray:
    for layer in layers:
        kind = layer[0]
        if kind == "linear":
            x = x @ layer[1] + layer[2]
        elif kind == "tanh":
            x = np.tanh(x)
        elif kind == "relu":
            x = np.maximum(x, 0)
        elif kind == "elu":
            x = np.where(x > 0, x, np.expm1(np.minimum(x, 0)))
        else:
            x = np.where(x > 0, x, x * layer[1])
    return x
