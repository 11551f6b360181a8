"""The vectorised War-v0 envs that ``war-train`` trains and evaluates on (Stable-Baselines3's)."""

from __future__ import annotations

import gymnasium as gym

from war_env.agents import make_opponent
from war_env.agents.sb3_model import select_observation
from war_env.env import make_config
from war_env.observation import OBSERVATION_FIELDS


class WarEnvFactory:
    """Picklable env constructor (SubprocVecEnv sends it to a worker process): War-v0 with the given
    rule arguments and opponent spec, showing the policy the ``observation`` fields."""

    def __init__(self, env_args: dict, opponent: str, trust_model_file: bool, observation=OBSERVATION_FIELDS):
        self.env_args, self.opponent, self.trust_model_file = env_args, opponent, trust_model_file
        self.observation = tuple(observation)

    def __call__(self):
        config = make_config(None, dict(self.env_args))
        opponent = make_opponent(self.opponent, config=config, trust_model_file=self.trust_model_file)
        return select_observation(gym.make("War-v0", opponent=opponent, config=config), self.observation)


def make_vec(env_args: dict, opponent: str, n_envs: int, seed: int, vec_env: str = "dummy", trust_model_file=False,
             observation=OBSERVATION_FIELDS):
    """SB3's ``make_vec_env`` over War-v0 (Monitor-wrapped, env ``i`` seeded ``seed + i``); the policy
    sees the ``observation`` fields."""
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    if vec_env not in ("dummy", "subproc"):
        raise ValueError(f"vec_env must be 'dummy' or 'subproc', got {vec_env!r}")
    factory = WarEnvFactory(env_args, opponent, trust_model_file, observation)
    cls = SubprocVecEnv if vec_env == "subproc" else DummyVecEnv
    kwargs = {"start_method": "spawn"} if vec_env == "subproc" else None  # never fork a process running torch
    return make_vec_env(factory, n_envs=n_envs, seed=seed, vec_env_cls=cls, vec_env_kwargs=kwargs)
