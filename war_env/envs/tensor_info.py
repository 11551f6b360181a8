"""A vector env whose info holds only what a tensor can: for TorchRL's ``GymWrapper`` in same-step autoreset.

With ``autoreset_mode=SAME_STEP`` TorchRL turns the whole step info into a TensorDict to find
``final_obs`` in it, and a TensorDict holds numbers only. War's info also carries the finished round as
Gymnasium allows (the ``reason`` string, ``reaction_ticks`` as a pair of arrays or lists of different lengths; from a
``sync`` vector env also tuples and the scoreboard), so TorchRL stops with "TensorDict conversion only
supports ... Got <class 'tuple'>". ``TensorInfo`` keeps the numeric entries (``action_mask``, ``final_obs``,
the round's counts in ``final_info``) and drops the rest; TorchRL itself reads no more than the action mask and
the final observations. With ``DISABLED``, TorchRL's preferred mode, it reads no info and needs no wrapper
(docs/training.md, "TorchRL")."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode, VectorWrapper


class TensorInfo(VectorWrapper):
    """A Gymnasium vector env (any: batched or ``sync``) with every info entry that is not numeric dropped, at
    every depth: kept are bool and number arrays, and object arrays whose entries are such arrays or ``None``
    (Gymnasium's ``final_obs``)."""

    @property
    def autoreset_mode(self) -> AutoresetMode:
        """The wrapped env's, where TorchRL reads it (a ``VectorWrapper`` does not pass attributes through)."""
        return self.env.metadata["autoreset_mode"]

    def reset(self, *, seed=None, options=None):
        observations, info = self.env.reset(seed=seed, options=options)
        return observations, numeric_info(info)

    def step(self, actions):
        observations, rewards, terminations, truncations, info = self.env.step(actions)
        return observations, rewards, terminations, truncations, numeric_info(info)


def numeric_info(info: dict[str, Any]) -> dict[str, Any]:
    """``info`` without its non-numeric entries, nested dicts included (a dict left empty is kept empty)."""
    kept = {}
    for key, value in info.items():
        if isinstance(value, dict):
            kept[key] = numeric_info(value)
        elif _is_numeric(value):
            kept[key] = value
    return kept


def _is_numeric(value) -> bool:
    if not isinstance(value, np.ndarray):
        return False
    if value.dtype != object:
        return value.dtype.kind in "biuf"
    return all(entry is None or (isinstance(entry, np.ndarray) and entry.dtype.kind in "biuf") for entry in value)
