"""Which observation fields a trained policy sees: all of War-v0's, the ``timing`` subset, or any list of
them and of WarLatency-v0's fields, and the wrapper that shows a policy exactly those.

A policy is trained on, saved with and loaded for one list of fields (``war_env_model.json``'s
``observation_fields``, ``war_env.agents.model_files``); every field has one column in WarLatency-v0's longest
observation (``FIELD_INDEX``), so a policy's columns can be cut from any observation that holds them.
"""

from __future__ import annotations

import numpy as np

from war_env.core.latency import MAX_LATENCY
from war_env.core.observation import INDEX, INFERENCE_EXTRA_FIELDS, OBSERVATION_FIELDS, latency_fields
from war_env.core.rules import WarConfig

FIELD_INDEX = {name: i for i, name in enumerate(latency_fields(WarConfig(latency=f"fixed:ticks={MAX_LATENCY}")))}
"""Column of every field a policy may see: War-v0's, then WarLatency-v0's (the opponent's clock, the presses
in flight ``in_flight_0`` .. ``in_flight_15``), at their index in WarLatency-v0's observation."""
WHOLE_ONLY = INFERENCE_EXTRA_FIELDS
"""Fields whose column depends on the game (the inference probe's ``opponent_reaction`` follows the presses in
flight): a policy that sees one sees its game's whole observation, as it is (``columns_of``)."""
CAN_DRAW = INDEX["can_draw"]
TIMING_FIELDS = ("can_draw", "timer_left", "has_drawn", "opponent_has_drawn", "at_war", "started")
"""The observation fields about the clock and the current step; the rest (piles, cards, pot, points,
battles) describe the cards, which timing cannot change."""


def check_observation_fields(fields) -> tuple[str, ...]:
    """``"all"`` (or ``None``) -> every field of ``war_env.core.observation``; else a list of its names."""
    if fields is None or fields == "all":
        return OBSERVATION_FIELDS
    if fields == "timing":
        return TIMING_FIELDS
    if not isinstance(fields, (list, tuple)) or not fields or not all(isinstance(name, str) for name in fields):
        raise ValueError(f'observation must be "all", "timing" or a non-empty list of field names, got {fields!r}')
    unknown = [name for name in fields if name not in FIELD_INDEX and name not in WHOLE_ONLY]
    if unknown:
        raise ValueError(
            f"unknown observation field(s) {unknown}; known: {list(OBSERVATION_FIELDS)}, "
            f"WarLatency-v0's opponent_can_draw, opponent_timer_left, in_flight_0 .. in_flight_{MAX_LATENCY - 1} "
            f"and WarInference-v0's {', '.join(WHOLE_ONLY)}"
        )
    if len(set(fields)) != len(fields):
        raise ValueError(f"observation fields must not repeat, got {list(fields)}")
    return tuple(fields)


def columns_of(fields) -> np.ndarray | None:
    """The columns of ``fields`` in any game's observation that shows them (every field but ``WHOLE_ONLY`` has
    the same column in all of them), or ``None`` when a field of ``WHOLE_ONLY`` is among them: then the policy
    sees the observation as it is, which must be exactly ``fields``."""
    if any(name in WHOLE_ONLY for name in fields):
        return None
    return np.array([FIELD_INDEX[name] for name in fields])


def observes_latency(fields) -> bool:
    """Whether a policy seeing ``fields`` plays WarLatency-v0 (it sees a field War-v0 does not have)."""
    return any(name not in INDEX for name in fields)


def observation_columns(fields: tuple[str, ...], shown: tuple[str, ...]) -> np.ndarray | None:
    """The columns of ``fields`` in an observation of the fields ``shown`` (a game's), or ``None`` when they are all
    of it; a field the game does not show, or one of ``WHOLE_ONLY`` among fewer than all, is an error naming it."""
    if tuple(fields) == tuple(shown):
        return None
    missing = [name for name in fields if name not in shown]
    if missing:
        raise ValueError(f"observation fields {missing} are not in the game's observation {list(shown)}")
    columns = columns_of(fields)
    if columns is None:
        raise ValueError(
            f"a policy that sees {', '.join(WHOLE_ONLY)} sees its game's whole observation, "
            f"{list(shown)}; got {list(fields)}"
        )
    return columns


def select_observation(env, fields):
    """Wrap a War-v0 (or WarLatency-v0, or a probe's) env so the policy sees only ``fields`` (in that order);
    the env's own fields: unchanged."""
    columns = observation_columns(check_observation_fields(fields), env.unwrapped.observation_fields())
    if columns is None:
        return env
    from gymnasium import spaces
    from gymnasium.wrappers import TransformObservation

    space = spaces.Box(0.0, 1.0, (len(columns),), np.float32)
    return TransformObservation(env, lambda observation: observation[columns], space)
