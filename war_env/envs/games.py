"""The single-seat games by env id: which class plays each, the rules its keywords make, its default opponent.

``War-v0`` and ``WarLatency-v0`` and the probes' ids (``war_env.core.probes``) are one game with different
defaults and observations, so every tool that plays, trains or loads a seat (the evaluation loop, ``war-train``,
the model loader) asks here instead of spelling the ids out. Without an id the game is chosen by the rules, as
before the probes: ``WarLatency-v0`` when they have action latency, else ``War-v0``.
"""

from __future__ import annotations

from collections.abc import Mapping

from war_env.core.probes import PROBES, Probe
from war_env.core.rules import WarConfig
from war_env.envs.latency import WarLatencyEnv, with_default_latency
from war_env.envs.probe_envs import PROBE_ENVS, PROBE_VECTOR_ENVS
from war_env.envs.vector import WarLatencyVectorEnv, WarVectorEnv
from war_env.envs.war import WarEnv


class _ByEnvId(Mapping):
    """Env id -> class: the base games', then each probe's (``PROBES``' env id -> ``by_probe[probe name]``), looked
    up when asked, so that a probe is one row of ``PROBES`` (its classes are made from it: ``envs.probe_envs``)."""

    def __init__(self, base: dict, by_probe: dict):
        self.base, self.by_probe = base, by_probe

    def _probe_classes(self) -> dict:
        return {probe.env_id: self.by_probe[name] for name, probe in PROBES.items() if name in self.by_probe}

    def __getitem__(self, env_id: str):
        return self.base[env_id] if env_id in self.base else self._probe_classes()[env_id]

    def __iter__(self):
        return iter({**self.base, **self._probe_classes()})

    def __len__(self) -> int:
        return len(self.base) + len(self._probe_classes())


GAMES: Mapping[str, type[WarEnv]] = _ByEnvId({"War-v0": WarEnv, "WarLatency-v0": WarLatencyEnv}, PROBE_ENVS)
"""Env id -> the class ``gym.make(env_id)`` builds."""
VECTOR_GAMES: Mapping[str, type[WarVectorEnv]] = _ByEnvId(
    {"War-v0": WarVectorEnv, "WarLatency-v0": WarLatencyVectorEnv}, PROBE_VECTOR_ENVS
)
"""Env id -> its batched vector env (``gym.make_vec(env_id, vectorization_mode="vector_entry_point")``)."""


def __getattr__(name: str):
    """The Gymnasium entry points of the probes' ids (``registration.entry_points``): Gymnasium loads an entry point
    with ``getattr`` on its module, so registering names only the env id and the class comes from the tables."""
    from war_env.envs.registration import parse_entry_name  # here: importing it imports Gymnasium, which registers

    env_id, vector = parse_entry_name(name)
    games = VECTOR_GAMES if vector else GAMES
    if env_id not in games:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return games[env_id]


def check_env_id(env_id: str) -> str:
    if env_id not in GAMES:
        raise ValueError(f"unknown env id {env_id!r}; known: {', '.join(GAMES)}")
    return env_id


def game_id(env_id: str | None, config: WarConfig) -> str:
    """``env_id``, or the game the rules choose without one (``WarLatency-v0`` with action latency)."""
    if env_id is not None:
        return check_env_id(env_id)
    return "WarLatency-v0" if config.has_latency else "War-v0"


def probe_of(env_id: str | None) -> Probe | None:
    """The probe an env id names, else ``None``."""
    probe = getattr(GAMES.get(env_id), "probe", None)
    return probe if isinstance(probe, Probe) else None


def game_config(env_id: str | None, env_args: dict) -> WarConfig:
    """The rules of ``gym.make(env_id, **env_args)``: a probe's latency and reward weights unless
    ``env_args`` overrides them, WarLatency-v0's default latency unless one is given."""
    probe = probe_of(env_id)
    if probe is not None:
        return WarConfig.from_kwargs({"latency": probe.latency, **probe.rules, **env_args})
    if env_id == "WarLatency-v0":
        return WarConfig.from_kwargs(with_default_latency(None, dict(env_args)))
    return WarConfig.from_kwargs(env_args)


def default_opponent(env_id: str | None, fallback: str = "human") -> str:
    """A probe's own opponent, else ``fallback``."""
    probe = probe_of(env_id)
    return probe.opponent if probe is not None else fallback


def make_game(env_id: str | None, opponent, config: WarConfig) -> WarEnv:
    """The env of ``env_id`` (``game_id``'s choice without one) with this opponent and these rules."""
    return GAMES[game_id(env_id, config)](opponent=opponent, config=config)


def make_vector_game(env_id: str | None, num_envs: int, opponent, config: WarConfig) -> WarVectorEnv:
    """``num_envs`` rounds of the game of ``env_id`` on the batched engine: sub-env ``i`` is ``make_game``'s env."""
    return VECTOR_GAMES[game_id(env_id, config)](num_envs, opponent=opponent, config=config)


def game_fields(env_id: str | None, config: WarConfig) -> tuple[str, ...]:
    """The names of the fields a seat observes in that game, in order."""
    return GAMES[game_id(env_id, config)].fields_for(config)
