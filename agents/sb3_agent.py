"""A trained Stable-Baselines3 policy as an ``Agent``: ``load_sb3_agent`` reads a model file safely
(``war_env.agents.model_files``) and plays it, greedy play as numpy matrix products.

A policy with memory keeps it per round, reset by ``reset``: a frame-stacked one (``frame_stack`` > 1 in its
metadata) the last observations, as SB3's ``VecFrameStack`` stacked them in training; a recurrent one
(RecurrentPPO) its LSTM's state, as sb3-contrib's ``predict`` carries it from one call to the next."""

from __future__ import annotations

import numpy as np

from war_env.agents.algorithms import RECURRENT, check_algorithm
from war_env.agents.base import Agent
from war_env.agents.fields import CAN_DRAW, check_observation_fields, columns_of, observes_latency
from war_env.agents.model_files import env_id_of, frame_stack_of, load_model, observation_fields, read_metadata
from war_env.agents.numpy_nets import forward, lstm_step
from war_env.core.observation import OBSERVATION_FIELDS
from war_env.support.threads import single_threaded_torch, use_threads


def load_sb3_agent(
    algo: str, path: str, trust_model_file: bool = False, deterministic: bool = True, threads: int = 1
) -> "SB3Agent":
    """An ``Agent`` that plays with the SB3 model in ``path`` (see the module docstring for safety) on
    ``threads`` CPU threads."""
    model = load_model(algo, path, trust_model_file)
    metadata = read_metadata(path)
    return SB3Agent(
        model,
        check_algorithm(algo),
        str(path),
        deterministic,
        observation_fields(metadata),
        frame_stack_of(metadata),
        env_id_of(metadata),
        threads,
    )


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

    def __init__(
        self,
        model,
        algo: str,
        path: str,
        deterministic: bool = True,
        fields=OBSERVATION_FIELDS,
        frame_stack: int = 1,
        env_id: str | None = None,
        threads: int = 1,
    ):
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
        self.fields = check_observation_fields(fields)
        """The observation fields the policy sees (the evaluation loop refuses a game that does not show them)."""
        self.env_id = env_id
        """The game the policy was trained on, when its file says."""
        self.frame_stack = frame_stack
        self.recurrent = algo in RECURRENT
        self._columns = columns_of(self.fields)
        self.observes_latency = observes_latency(self.fields)
        """Plays from WarLatency-v0's observation (the evaluation loop then plays it through WarLatency-v0)."""
        self._layers = _numpy_layers(model.policy) if self.deterministic else None
        self._lstm = _numpy_lstm(model.policy) if self.recurrent and self._layers is not None else None
        self.reset()

    def spec(self) -> str:
        return (
            f"{self.algo}:{self.path}" if self.threads == 1 else f"{self.algo}:path={self.path},threads={self.threads}"
        )

    @property
    def has_memory(self) -> bool:
        return self.frame_stack > 1 or self.recurrent

    def reset(self, seed: int | None = None) -> None:
        if seed is not None and not self.deterministic:
            self._torch.manual_seed(seed)
        self._frames = np.zeros((1, len(self.fields) * self.frame_stack), dtype=np.float32)
        self._lstm_state = None  # (h, c): zeros at a round's first tick, as an episode start makes them
        self._starting = True

    def act(self, observation) -> int:
        use_threads(self.threads)
        observation = np.asarray(observation, dtype=np.float32).reshape(1, -1)
        seen = self._seen(observation)
        if not self.has_memory:
            return int(self._scores_to_actions(seen, observation)[0])
        if self.frame_stack > 1:  # VecFrameStack: shift out the oldest, the newest observation last
            width = seen.shape[1]
            self._frames = np.concatenate((self._frames[:, width:], seen), axis=1)
            seen = self._frames
        if self.recurrent:
            return int(self._recurrent_action(seen, observation))
        return int(self._scores_to_actions(seen, observation)[0])

    def batch_policy(self):
        """Greedy play of a policy without memory depends on the observation alone, so many rounds can be played
        at once; sampled play draws from torch's generator, which ``reset`` seeds per round, and a policy with
        memory carries it from tick to tick: those rounds go one by one."""
        return self._actions if self.deterministic and not self.has_memory else None

    def predict(self, observation, state=None, episode_start=None, deterministic: bool = True):
        if self.has_memory:  # one copy of the agent per env, each with its own memory
            return super().predict(observation, state, episode_start, deterministic)
        observation = np.asarray(observation, dtype=np.float32)
        if observation.ndim == 1:
            return np.asarray(self._actions(observation.reshape(1, -1))[0]), state
        return self._actions(observation), state

    def _seen(self, observations: np.ndarray) -> np.ndarray:
        return observations if self._columns is None else observations[:, self._columns]

    def _recurrent_action(self, seen: np.ndarray, observation: np.ndarray) -> int:
        if self._lstm is not None:
            self._lstm_state = lstm_step(self._lstm, seen[0], self._lstm_state)
            return int(self._scores_to_actions(self._lstm_state[0][None, :], observation)[0])
        action, self._lstm_state = self.model.predict(
            seen, state=self._lstm_state, episode_start=np.array([self._starting]), deterministic=self.deterministic
        )
        self._starting = False
        return int(np.asarray(action).reshape(-1)[0])

    def _actions(self, observations: np.ndarray) -> np.ndarray:
        """Greedy (or sampled) actions of a policy without memory for whole observations, one per row."""
        use_threads(self.threads)
        return self._scores_to_actions(self._seen(observations), observations)

    def _scores_to_actions(self, seen: np.ndarray, observations: np.ndarray) -> np.ndarray:
        """The actions for what the policy sees (``seen``; ``observations`` are the whole ones, for the mask)."""
        if self._layers is not None:
            scores = forward(self._layers, seen)
            if self._masked:
                scores = np.where(self._masks(observations), scores, -np.inf)
            return scores.argmax(axis=1)
        torch = self._torch
        with torch.no_grad():
            tensor = torch.as_tensor(np.ascontiguousarray(seen))
            if self._masked:
                actions = self.model.policy._predict(
                    tensor, deterministic=self.deterministic, action_masks=self._masks(observations)
                )
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


def _numpy_lstm(policy) -> tuple | None:
    """RecurrentPPO's actor LSTM as ``(W_ih, W_hh, b)`` for ``numpy_nets.lstm_step``, or ``None`` when it is not one
    plain layer (the agent then calls sb3-contrib's ``predict``)."""
    lstm = getattr(policy, "lstm_actor", None)
    if lstm is None or lstm.num_layers != 1 or lstm.bidirectional or getattr(lstm, "proj_size", 0):
        return None
    weights = {name: value.detach().numpy() for name, value in lstm.named_parameters()}
    return (
        weights["weight_ih_l0"].T.copy(),
        weights["weight_hh_l0"].T.copy(),
        weights["bias_ih_l0"] + weights["bias_hh_l0"],
    )
