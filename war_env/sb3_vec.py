"""Stable-Baselines3 ``VecEnv`` over ``WarVectorEnv``: SB3 trains on the batched env directly.

Importing this module imports ``stable_baselines3`` (the ``train`` extra); ``import war_env`` does
not import it.

SB3's conventions differ from Gymnasium's vector API in three ways, all handled here:

* ``step`` returns ``(observations, rewards, dones, infos)`` with ``dones = terminated | truncated``
  and ``infos`` a list of one dict per env;
* a finished env is reset *in the same step* (SB3's autoreset): its returned observation is the
  first one of the next round, the last one is in ``infos[i]["terminal_observation"]``;
* ``infos[i]["TimeLimit.truncated"]`` is true when the round was cut by ``max_episode_steps`` (not
  ended by the rules), so that SB3 bootstraps the value of the cut-off state.

Sub-env ``i`` behaves exactly as SB3's ``DummyVecEnv`` over ``gym.make("War-v0")`` envs with the same
seed (``seed(s)`` seeds env ``i`` with ``s + i`` at the next ``reset``), which the tests check.
"""

from __future__ import annotations

import numpy as np

from war_env.extras import require

require("train", "war_env.sb3_vec")
from stable_baselines3.common.vec_env.base_vec_env import VecEnv  # noqa: E402

from war_env.vector import WarVectorEnv, sub_env_round_info  # noqa: E402


class WarSB3VecEnv(VecEnv):
    """``WarSB3VecEnv(num_envs, opponent="human", max_episode_steps=None, config=None, **rules)``;
    the arguments are ``WarVectorEnv``'s. ``env_method("action_masks")`` serves sb3-contrib's
    ``MaskablePPO``."""

    def __init__(self, num_envs: int = 1, opponent="human", max_episode_steps: int | None = None,
                 config=None, **rules):
        self.venv = WarVectorEnv(num_envs, opponent=opponent, max_episode_steps=max_episode_steps,
                                 config=config, **rules)
        super().__init__(num_envs, self.venv.single_observation_space, self.venv.single_action_space)
        self._actions: np.ndarray | None = None

    def reset(self) -> np.ndarray:
        seeds = None if all(seed is None for seed in self._seeds) else list(self._seeds)
        if any(option != self._options[0] for option in self._options):
            raise ValueError("WarSB3VecEnv takes one set of reset options for all envs: set_options(dict)")
        observations, _ = self.venv.reset(seed=seeds, options=self._options[0] or None)
        self._reset_seeds()
        self._reset_options()
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return observations

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs)

    def step_wait(self):
        if self._actions is None:
            raise RuntimeError("step_async(actions) must come before step_wait()")
        observations, rewards, terminated, truncated, info = self.venv.step(self._actions)
        self._actions = None
        dones = terminated | truncated
        cut = truncated & ~terminated
        infos = [{"TimeLimit.truncated": bool(flag)} for flag in cut.tolist()]
        finished = np.flatnonzero(dones)
        if finished.size:
            for i in finished.tolist():  # SB3's infos are a list of dicts: one per finished round
                infos[i]["terminal_observation"] = observations[i]
                round_info = sub_env_round_info(info, i)
                if round_info is not None:
                    infos[i]["round"] = round_info
            observations, _ = self.venv.reset(options={"reset_mask": dones})
        return observations, rewards.astype(np.float32), dones, infos

    def close(self) -> None:
        self.venv.close()

    # --- SB3's attribute plumbing: one batched env stands for all indices ----------------
    def get_attr(self, attr_name: str, indices=None) -> list:
        value = getattr(self.venv, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value, indices=None) -> None:
        raise AttributeError(f"WarSB3VecEnv cannot set {attr_name!r} per env: its envs share one batched state")

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list:
        if method_name != "action_masks":
            raise AttributeError(f"WarSB3VecEnv supports env_method('action_masks') only, not {method_name!r}")
        masks = self.venv.action_masks()
        return [masks[i] for i in self._get_indices(indices)]

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def get_images(self):
        return [None for _ in range(self.num_envs)]
