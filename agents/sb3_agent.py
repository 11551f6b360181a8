"""A trained Stable-Baselines3 policy as an ``Agent``: ``load_sb3_agent`` reads a model file safely
(``war_env.agents.model_files``) and plays it, greedy play as numpy matrix products."""

from __future__ import annotations

import numpy as np

from war_env.agents.algorithms import check_algorithm
from war_env.agents.base import Agent
from war_env.agents.fields import CAN_DRAW, FIELD_INDEX, check_observation_fields, observes_latency
from war_env.agents.model_files import load_model, observation_fields, read_metadata
from war_env.core.observation import OBSERVATION_FIELDS
from war_env.support.threads import single_threaded_torch, use_threads


def load_sb3_agent(
    algo: str, path: str, trust_model_file: bool = False, deterministic: bool = True, threads: int = 1
) -> "SB3Agent":
    """An ``Agent`` that plays with the SB3 model in ``path`` (see the module docstring for safety) on
    ``threads`` CPU threads."""
    model = load_model(algo, path, trust_model_file)
    fields = observation_fields(read_metadata(path))
    return SB3Agent(model, check_algorithm(algo), str(path), deterministic, fields, threads)


class SB3Agent(Agent):
    """A trained SB3 policy behind the ``Agent`` interface.

    Deterministic play (the default) runs the policy's layers as numpy matrix products, copied
    from the torch modules at load time: at one call per tick, SB3's ``predict`` (tensor
    conversion, bookkeeping) costs far more than the 16-64-64-2 network itself. The greedy action is
    the argmax of the logits (PPO, A2C) or Q-values (DQN); ``tests/test_model_files.py`` checks it
    equal to SB3's ``predict(deterministic=True)``. Stochastic play, or a policy whose layers are not
    plain Linear/activation stacks (a trusted custom file), goes through the torch policy.
    MaskablePPO gets its action mask from the observation: ``can_draw`` (index 0) is exactly
    ``action_masks()[1]``.

    ``threads``: torch's intra-op threads and numpy's BLAS threads for this agent's inference. Both are the
    process's settings (``torch.set_num_threads``): each inference (a decision, or a batch of them) sets them
    to this agent's count first, so agents of different counts in one process each compute on their own
    count, and whatever the process runs next inherits the last one's.
    """

    def __init__(self, model, algo: str, path: str, deterministic: bool = True, fields=OBSERVATION_FIELDS,
                 threads: int = 1):
        torch = single_threaded_torch()
        self.model = model
        self.algo = algo
        self.path = path
        self.threads = int(threads)
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
        return f"{self.algo}:{self.path}" if self.threads == 1 else f"{self.algo}:path={self.path},threads={self.threads}"

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
        use_threads(self.threads)
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
