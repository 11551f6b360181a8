"""The vectorised War-v0 envs that ``war-train`` trains and evaluates on (Stable-Baselines3's); with
action latency in the rules (``latency=...``), WarLatency-v0 envs, batched the same three ways.

Three ways to batch the training envs (``vec_env``):

* ``"batched"`` (the default): one ``WarSB3VecEnv`` over the batched engine (``war_env.batched``),
  every env stepped in one compiled call, under SB3's ``VecMonitor``. It needs a bot opponent (the
  engine batches bots only; an agent or a model at seat 1 is trained on ``"dummy"`` instead, with a
  warning) and numba for its speed (without it, the same env loops over War-v0 envs, with a warning).
* ``"dummy"``: SB3's ``DummyVecEnv`` over ``Monitor``-wrapped ``gym.make("War-v0")`` envs;
* ``"subproc"``: the same in one spawned process per env.

All three are the same game step for step: env ``i`` is seeded ``seed + i``, and the adapter steps
exactly like ``DummyVecEnv`` (``tests/test_sb3_vec.py``), so a model trained with the same seed learns
the same weights either way (``tests/test_training.py``).

``env_id`` names another game of ``war_env.envs.games`` (a probe's, ``WarMemory-v1``): its rules are
``games.game_config``'s and its envs are ``gym.make(env_id)``'s, batched too (the engine plays every probe,
``WarSB3VecEnv(env_id=...)``), but for a probe trained on chosen fields of its observation (``"dummy"``, with a
warning).
``frame_stack`` K > 1 shows the policy its last K observations (SB3's ``VecFrameStack``: oldest first, zeros
before a round's first), as ``SB3Agent`` replays them.
"""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np

from war_env.agents import make_opponent
from war_env.agents.fields import check_observation_fields, observation_columns, select_observation
from war_env.core.bots import Bot
from war_env.core.observation import OBSERVATION_FIELDS
from war_env.envs.games import game_config, game_fields, game_id

VEC_ENVS = ("batched", "dummy", "subproc")


class WarEnvFactory:
    """Picklable env constructor (SubprocVecEnv sends it to a worker process): War-v0 with the given
    rule arguments and opponent spec, showing the policy the ``observation`` fields."""

    def __init__(
        self,
        env_args: dict,
        opponent: str,
        trust_model_file: bool,
        observation=OBSERVATION_FIELDS,
        game: str | None = None,
    ):
        self.env_args, self.opponent, self.trust_model_file = env_args, opponent, trust_model_file
        self.observation = tuple(observation)
        self.game = game

    def __call__(self):
        config = game_config(self.game, self.env_args)
        opponent = make_opponent(self.opponent, config=config, trust_model_file=self.trust_model_file)
        return select_observation(
            gym.make(env_id(config, self.game), opponent=opponent, config=config), self.observation
        )


def policy_fields(observation, config, game: str | None = None) -> tuple[str, ...]:
    """The fields a run's policy sees: ``observation``, except that "all" (War-v0's fields) means all of the
    game's: with action latency WarLatency-v0's, the opponent's clock and the presses in flight too (with them
    the state is Markov); in a probe's game (``game``) its observation as it is."""
    fields = check_observation_fields(observation)
    if fields == OBSERVATION_FIELDS and (config.has_latency or game is not None):
        return game_fields(env_id(config, game), config)
    return fields


def env_id(config, game: str | None = None) -> str:
    """The game a run trains on: ``game`` when named, else ``WarLatency-v0`` (its observation shows the presses in
    flight) when the rules have action latency, else ``War-v0``."""
    return game_id(game, config)


def make_vec(
    env_args: dict,
    opponent: str,
    n_envs: int,
    seed: int,
    vec_env: str = "batched",
    trust_model_file=False,
    observation=OBSERVATION_FIELDS,
    game: str | None = None,
    frame_stack: int = 1,
):
    """``n_envs`` envs of ``game`` (default: War-v0, or WarLatency-v0 with latency) for SB3 (env ``i`` seeded
    ``seed + i``, episode statistics monitored); the policy sees the ``observation`` fields, the last
    ``frame_stack`` observations at once. ``vec_env``: one of ``VEC_ENVS`` (see the module)."""
    if vec_env not in VEC_ENVS:
        raise ValueError(f"vec_env must be one of {', '.join(VEC_ENVS)}, got {vec_env!r}")
    env = _vec(env_args, opponent, n_envs, seed, vec_env, trust_model_file, observation, game)
    if frame_stack == 1:
        return env
    from stable_baselines3.common.vec_env import VecFrameStack

    return VecFrameStack(env, frame_stack)


def _vec(env_args, opponent, n_envs, seed, vec_env, trust_model_file, observation, game):
    config = game_config(game, env_args)
    if vec_env == "batched":
        player = make_opponent(opponent, config=config, trust_model_file=trust_model_file)
        if isinstance(player, Bot):
            return _batched(config, player, n_envs, seed, observation, env_id(config, game))
        else:
            warnings.warn(
                f"the batched env plays bot opponents only, not {opponent!r}: training on vec_env='dummy'",
                RuntimeWarning,
                stacklevel=3,
            )
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    factory = WarEnvFactory(env_args, opponent, trust_model_file, observation, game)
    cls = SubprocVecEnv if vec_env == "subproc" else DummyVecEnv
    kwargs = {"start_method": "spawn"} if vec_env == "subproc" else None  # never fork a process running torch
    return make_vec_env(factory, n_envs=n_envs, seed=seed, vec_env_cls=cls, vec_env_kwargs=kwargs)


def _batched(config, opponent: Bot, n_envs: int, seed: int, observation, game: str):
    from stable_baselines3.common.vec_env import VecMonitor

    from war_env.envs.sb3_vec import WarSB3VecEnv

    env = WarSB3VecEnv(n_envs, opponent=opponent, config=config, env_id=game)
    env.seed(seed)
    fields = check_observation_fields(observation)
    if fields != OBSERVATION_FIELDS:  # War-v0's fields, like the game's whole list, mean all of it
        columns = observation_columns(fields, game_fields(game, config))
        if columns is not None:
            env = _select_columns(env, columns)
    return VecMonitor(env)


def _select_columns(env, columns: np.ndarray):
    """The policy sees these columns only (``select_observation`` for a whole batch, terminal observations too)."""
    from gymnasium import spaces
    from stable_baselines3.common.vec_env import VecEnvWrapper

    class SelectColumns(VecEnvWrapper):
        def __init__(self, venv):
            super().__init__(venv, observation_space=spaces.Box(0.0, 1.0, (len(columns),), np.float32))

        def reset(self):
            return self.venv.reset()[:, columns]

        def step_wait(self):
            observations, rewards, dones, infos = self.venv.step_wait()
            for info in infos:
                if "terminal_observation" in info:
                    info["terminal_observation"] = info["terminal_observation"][columns]
            return observations[:, columns], rewards, dones, infos

    return SelectColumns(env)
