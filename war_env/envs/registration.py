"""What ``import war_env`` registers with each id: the probes' entry points (``entry_points``), and a clear error
for ``vector_kwargs``.

Every id here has a batched vector env (``vector_entry_point``), which takes its arguments as keywords:
``gym.make_vec("War-v0", num_envs=4, autoreset_mode=AutoresetMode.SAME_STEP)``. ``vector_kwargs`` is for
Gymnasium's own ``SyncVectorEnv``/``AsyncVectorEnv``; given to a batched env, Gymnasium refuses it with
"Custom vector environment can be passed arguments only through kwargs", which does not say what to write.
Gymnasium gives no hook for that check, but ``make_vec`` reads ``vectorization_mode`` and then
``vector_kwargs`` through ``pop`` on (a copy of) the id's registered kwargs, with the caller's values as the
defaults (gymnasium 1.1 to 1.4; ``tests/test_vector.py`` holds it): the kwargs below see both and refuse the
call first, naming the keyword form.
"""

from __future__ import annotations

from enum import Enum

from gymnasium.envs.registration import VectorizeMode
from gymnasium.error import Error

_BATCHED_MODES = (None, VectorizeMode.VECTOR_ENTRY_POINT, VectorizeMode.VECTOR_ENTRY_POINT.value)


class BatchedSpecKwargs(dict):
    """The registered kwargs of ``env_id`` (none besides): refuses ``vector_kwargs`` for its batched vector env."""

    def __init__(self, env_id: str):
        super().__init__()
        self.env_id = env_id
        self.vectorization_mode = None

    def pop(self, key, *default):
        if key == "vectorization_mode" and default:
            self.vectorization_mode = default[0]
        if key == "vector_kwargs" and default and default[0] and self.vectorization_mode in _BATCHED_MODES:
            raise Error(vector_kwargs_message(self.env_id, default[0]))
        return super().pop(key, *default)


_GAMES_MODULE = "war_env.envs.games"
_VECTOR = ".vector"


def entry_points(env_id: str) -> tuple[str, str]:
    """The entry point and the vector entry point of a probe's id: its classes in ``envs.games.GAMES`` and
    ``VECTOR_GAMES`` (read from ``envs.probe_envs``' tables keyed by probe name: the env, and the vector env made from
    it), resolved when Gymnasium first makes
    it, so that registering imports no env module (``war_env.register_envs`` runs as Gymnasium is imported)."""
    return f"{_GAMES_MODULE}:{env_id}", f"{_GAMES_MODULE}:{env_id}{_VECTOR}"


def parse_entry_name(name: str) -> tuple[str, bool]:
    """The env id an entry point of ``entry_points`` names, and whether it is the vector one."""
    return (name.removesuffix(_VECTOR), True) if name.endswith(_VECTOR) else (name, False)


def vector_kwargs_message(env_id: str, vector_kwargs: dict) -> str:
    keywords = ", ".join(f"{name}={_source(value)}" for name, value in vector_kwargs.items())
    return (
        f"{env_id}'s batched vector env takes these as keywords, not in vector_kwargs: "
        f'gym.make_vec("{env_id}", num_envs=..., {keywords}) (vector_kwargs is for vectorization_mode="sync" '
        f'or "async")'
    )


def _source(value) -> str:
    """How the value is written in code: ``AutoresetMode.SAME_STEP`` rather than its repr."""
    return f"{type(value).__name__}.{value.name}" if isinstance(value, Enum) else repr(value)
