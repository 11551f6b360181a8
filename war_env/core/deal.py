"""The deal of a round: the one place that turns a reset's RNG and options into piles, starter and key.

Every front end (War-v0, the vector env, the two-seat env, the fast path) deals through here, so a
seed deals the same round everywhere.
"""

from __future__ import annotations

from collections.abc import Mapping
from numbers import Integral

import numpy as np

from war_env.core.cards import DECK_SIZE, deal_from_permutation, parse_piles
from war_env.core.randomness import draw_round_key


def draw_deal(rng: np.random.Generator) -> tuple[np.ndarray, int, int]:
    """The three draws of a reset, always in this order and always all three (whatever the options),
    so a seed means the same random stream: a shuffled deck, the starter (50/50), the round key."""
    permutation = rng.permutation(DECK_SIZE)
    starter = int(rng.integers(2))
    return permutation, starter, draw_round_key(rng)


def check_options(options, known: frozenset[str]) -> dict:
    """A reset's ``options`` as a dict: ``None`` is none; anything but a mapping with string keys is refused.
    Keys outside ``known`` are returned for the caller to refuse (War-v0) or ignore (the two-seat env)."""
    if options is None:
        return {}
    if not isinstance(options, Mapping) or not all(isinstance(key, str) for key in options):
        raise TypeError(f"reset options must be a dict with keys from {sorted(known)}, got {options!r}")
    return dict(options)


def check_new_match(value) -> bool:
    """``options["new_match"]``: ``True`` clears the scoreboard. Only a bool: ``"no"`` is truthy."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"new_match must be True or False, got {value!r}")
    return bool(value)


def deal_round(rng: np.random.Generator, options: dict) -> tuple[tuple[list[int], list[int]], int, int]:
    """Piles, starter and round key of a new round; ``options`` may fix ``piles`` and ``starter``."""
    permutation, starter, round_key = draw_deal(rng)
    piles = parse_piles(options["piles"]) if "piles" in options else deal_from_permutation(permutation)
    if "starter" in options:
        starter = check_starter(options["starter"])
    return piles, starter, round_key


def check_starter(starter) -> int:
    if isinstance(starter, bool) or not isinstance(starter, Integral) or starter not in (0, 1):
        raise ValueError(f"starter must be 0 or 1 (the seat that draws first), got {starter!r}")
    return int(starter)
