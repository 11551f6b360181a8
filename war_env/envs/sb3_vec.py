"""Stable-Baselines3 ``VecEnv`` over ``WarVectorEnv``: SB3 trains on the batched env directly.

Importing this module imports ``stable_baselines3`` (the ``train`` extra); ``import war_env`` does
not import it.

SB3's conventions differ from Gymnasium's vector API in three ways, all handled here:

* ``step`` returns ``(observations, rewards, dones, infos)`` with ``dones = terminated | truncated``
  and ``infos`` a list of one dict per env;
* a finished env is reset *in the same step* (SB3's autoreset, the vector env's ``SAME_STEP`` mode): its
  returned observation is the first one of the next round, the last one is in
  ``infos[i]["terminal_observation"]``;
* ``infos[i]["TimeLimit.truncated"]`` is true when the round was cut by ``max_episode_steps`` (not
  ended by the rules), so that SB3 bootstraps the value of the cut-off state.

Sub-env ``i`` behaves exactly as SB3's ``DummyVecEnv`` over ``gym.make("War-v0")`` envs (with
``env_id="WarLatency-v0"``, ``gym.make("WarLatency-v0")`` envs) with the same seed (``seed(s)`` seeds env
``i`` with ``s + i`` at the next ``reset``), which the tests check.

``render_mode="rgb_array"`` (for SB3's ``VecVideoRecorder``): the batched env draws nothing, so each
sub-env gets a single-env *view* that replays its actions and draws its frames; by the equality above the
view plays the same game, and every step checks that it does. Rendering costs a single env's step per
sub-env, so record with few envs.
"""

from __future__ import annotations

import numpy as np
from gymnasium.vector import AutoresetMode

from war_env.support.extras import require

require("train", "war_env.envs.sb3_vec")
from stable_baselines3.common.vec_env.base_vec_env import VecEnv  # noqa: E402

from war_env.envs.games import VECTOR_GAMES  # noqa: E402
from war_env.envs.vector import sub_env_round_info  # noqa: E402
from war_env.envs.war import WarEnv  # noqa: E402


class WarSB3VecEnv(VecEnv):
    """``WarSB3VecEnv(num_envs, opponent=None, max_episode_steps=None, config=None, render_mode=None,
    backend="auto", env_id="War-v0", **rules)``; the arguments are ``WarVectorEnv``'s, ``env_id`` the game
    (``"War-v0"``, ``"WarLatency-v0"``: action latency and its observation, ``WarLatencyVectorEnv``, or a probe's
    id, ``war_env.envs.probe_envs.ProbeVectorEnv``), ``opponent`` the env id's default (``"human"``, a probe's own)
    unless given, and
    ``render_mode="rgb_array"`` draws frames (see the module docstring). ``env_method("action_masks")``
    serves sb3-contrib's ``MaskablePPO``."""

    def __init__(
        self,
        num_envs: int = 1,
        opponent=None,
        max_episode_steps: int | None = None,
        config=None,
        render_mode: str | None = None,
        backend: str = "auto",
        env_id: str = "War-v0",
        **rules,
    ):
        if render_mode not in (None, "rgb_array"):
            raise ValueError(
                f"WarSB3VecEnv draws rgb_array frames only (for VecVideoRecorder), got render_mode={render_mode!r}"
            )
        if env_id not in VECTOR_GAMES:  # the games by env id (War-v0, WarLatency-v0, the probes: envs.games)
            raise ValueError(f"env_id must be one of {sorted(VECTOR_GAMES)}, got {env_id!r}")
        vector_env = VECTOR_GAMES[env_id]
        single_env = vector_env.single_env  # its rendering views
        if opponent is not None:
            rules["opponent"] = opponent
        self.venv = vector_env(
            num_envs,
            max_episode_steps=max_episode_steps,
            config=config,
            backend=backend,
            autoreset_mode=AutoresetMode.SAME_STEP,
            **rules,
        )
        opponent = self.venv.opponent_bot
        super().__init__(num_envs, self.venv.single_observation_space, self.venv.single_action_space)
        self._actions: np.ndarray | None = None
        self.render_mode = render_mode
        self._views = None
        if render_mode is not None:
            self.metadata = {"render_modes": [render_mode], "render_fps": WarEnv.metadata["render_fps"]}
            self._views = [single_env(render_mode, opponent=opponent, config=self.venv.config) for _ in range(num_envs)]
            if max_episode_steps is not None:
                from gymnasium.wrappers import TimeLimit

                self._views = [TimeLimit(view, max_episode_steps) for view in self._views]

    def reset(self) -> np.ndarray:
        seeds = None if all(seed is None for seed in self._seeds) else list(self._seeds)
        if any(option != self._options[0] for option in self._options):
            raise ValueError("WarSB3VecEnv takes one set of reset options for all envs: set_options(dict)")
        if self._views is not None and seeds is None:  # the views must deal what the sub-envs deal
            seeds = [int(seed) for seed in np.random.SeedSequence().generate_state(self.num_envs)]
        observations, _ = self.venv.reset(seed=seeds, options=self._options[0] or None)
        for i, view in enumerate(self._views or ()):
            view.reset(seed=seeds[i], options=self._options[0] or None)
        self._reset_seeds()
        self._reset_options()
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return observations

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs)

    def step_wait(self):
        if self._actions is None:
            raise RuntimeError("step_async(actions) must come before step_wait()")
        actions, self._actions = self._actions, None
        observations, rewards, terminated, truncated, info = self.venv.step(actions)
        dones = terminated | truncated
        cut = truncated & ~terminated
        infos = [{"TimeLimit.truncated": bool(flag)} for flag in cut.tolist()]
        for i in np.flatnonzero(dones).tolist():  # SB3's infos are a list of dicts: one per finished round
            infos[i]["terminal_observation"] = info["final_obs"][i]
            round_info = sub_env_round_info(info, i)
            if round_info is not None:
                infos[i]["round"] = round_info
        if self._views is not None:
            self._step_views(actions, dones, observations)
        return observations, rewards.astype(np.float32), dones, infos

    def _step_views(self, actions: np.ndarray, dones: np.ndarray, observations: np.ndarray) -> None:
        for i, view in enumerate(self._views):
            observation, *_ = view.step(int(actions[i]))
            if dones[i]:
                observation, _ = view.reset()
            if not np.array_equal(observation, observations[i]):
                raise RuntimeError(
                    f"the single-env view of sub-env {i} no longer plays its game; its frames would be wrong"
                )

    def close(self) -> None:
        self.venv.close()
        for view in self._views or ():
            view.close()

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
        if self._views is None:
            return [None for _ in range(self.num_envs)]
        return [view.render() for view in self._views]
