"""The one configuration object: rules of the card game, the turn timer and the reward weights.

``WarConfig`` is frozen and validated on construction, so an env, a vector env, a benchmark run and a
training run that share a config share exactly the same game. Every keyword argument of
``gym.make("War-v0", ...)`` that is not about the opponent or rendering is a field here.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from numbers import Integral, Real

from war_env.core.cards import DECK_SIZE
from war_env.core.latency import NO_LATENCY, canonical_latency, latency_probabilities

PICKUP_ORDERS = ("in_order", "shuffled")
MAX_ROUND_LENGTH = 100_000
"""Largest ``target_points`` and ``max_battles``: 200 times the defaults, and every counter of a round
stays far inside the integers of the batched and compiled engines."""
MAX_TURN_TICKS = 10_000
"""Largest turn timer in ticks (a 100 s timer at 10 ms ticks). The reaction tables of the bots and the
batched engines have one entry per tick of a turn (the fast path keeps ticks as 16-bit integers)."""
MAX_REWARD = 1e6
"""Largest magnitude of a reward weight: a round has at most ``MAX_ROUND_LENGTH`` battles of at most
``2 * MAX_TURN_TICKS`` ticks each, so every return and every statistic of returns stays finite."""


@dataclass(frozen=True)
class WarConfig:
    """Rules, timer and reward weights of War-v0. The defaults are the project's reading of its two
    source documents (see docs/rules.md)."""

    # --- the card game ---
    war_face_down: int = 1
    """Cards each player lays face down in a war before the new face-up card (English guide: one)."""
    target_points: int | None = 50
    """A round ends when the winner of a trick reaches this many points; ``None`` switches it off."""
    max_battles: int | None = 500
    """A round is a draw after this many battles (wars included, each battle counts once); ``None``
    switches it off."""
    pickup: str = "in_order"
    """How the winner takes the pot under their pile: ``"in_order"`` (the order the cards were laid,
    starter's card first) or ``"shuffled"`` (shuffled first)."""

    # --- time ---
    tick_seconds: float = 0.1
    """Game time of one env step."""
    turn_seconds: float = 3.0
    """The turn timer; must be a whole number of ticks."""
    latency: str = NO_LATENCY
    """Ticks from sending a press to its acting, as a spec (``war_env.core.latency``): ``"fixed:ticks=2"``,
    ``"uniform:low=1,high=4"``. It applies to seats pressed from outside (an agent, a policy), never to
    bots or the takeover bot. The largest delay must be below ``turn_ticks`` and at most 16 ticks. Only the
    scalar reference plays it (``WarLatency-v0``); the default, no latency, is War-v0's game."""

    # --- rewards (seat-relative) ---
    reward_win: float = 1.0
    reward_loss: float = -1.0
    reward_draw: float = 0.0
    reward_takeover: float = -1.0
    """Added once, on the tick the seat is taken over by the bot."""
    reward_false_start: float = -0.1
    """Per draw pressed while the seat's turn is not open."""
    reward_idle_tick: float = -0.001
    """Per tick in which the seat's own turn is open and it does not draw."""

    def __post_init__(self) -> None:
        _check_int("war_face_down", self.war_face_down, 0, DECK_SIZE)
        _check_int("target_points", self.target_points, 1, MAX_ROUND_LENGTH, optional=True)
        _check_int("max_battles", self.max_battles, 1, MAX_ROUND_LENGTH, optional=True)
        if self.target_points is None and self.max_battles is None:
            raise ValueError(
                "target_points and max_battles cannot both be None: with in-order pickup a round of War "
                "can cycle forever, and one of the two is what guarantees that every round ends"
            )
        if self.pickup not in PICKUP_ORDERS:
            raise ValueError(f"pickup must be one of {PICKUP_ORDERS}, got {self.pickup!r}")
        for name in ("tick_seconds", "turn_seconds"):
            value = getattr(self, name)
            if not _is_real(value) or not math.isfinite(value) or value <= 0:
                raise ValueError(f"{name} must be a positive number of seconds, got {value!r}")
        ratio = self.turn_seconds / self.tick_seconds
        if not 1 - 1e-9 <= ratio <= MAX_TURN_TICKS + 0.5:
            raise ValueError(
                f"turn_seconds / tick_seconds must be a whole number of ticks from 1 to {MAX_TURN_TICKS}, got "
                f"{self.turn_seconds} / {self.tick_seconds} = {ratio:.6g} ticks"
            )
        if abs(ratio - round(ratio)) > 1e-6:
            raise ValueError(
                f"turn_seconds ({self.turn_seconds}) must be a whole number (>= 1) of ticks of "
                f"tick_seconds ({self.tick_seconds})"
            )
        self._check_latency()
        for field in dataclasses.fields(self):
            if field.name.startswith("reward_"):
                value = getattr(self, field.name)
                if not _is_real(value) or not math.isfinite(value) or abs(value) > MAX_REWARD:
                    raise ValueError(
                        f"{field.name} must be a number from {-MAX_REWARD:g} to {MAX_REWARD:g}, got {value!r}"
                    )

    @cached_property  # read on every tick; the config is frozen, so computed once
    def turn_ticks(self) -> int:
        """Steps a player has to draw once their turn is open."""
        return round(self.turn_seconds / self.tick_seconds)

    @cached_property
    def latency_probabilities(self) -> tuple[float, ...]:
        """P(a press lands d ticks after it was sent), d = 0 .. ``max_delay``."""
        return latency_probabilities(self.latency)

    @cached_property
    def max_delay(self) -> int:
        """The largest delay a press can have, in ticks (0: no latency)."""
        return len(self.latency_probabilities) - 1

    @property
    def has_latency(self) -> bool:
        """Whether any press can be delayed (else the game is exactly War-v0's)."""
        return self.max_delay > 0

    def _check_latency(self) -> None:
        if not isinstance(self.latency, str):
            raise ValueError(
                f"latency must be a spec string like 'fixed:ticks=2' or 'uniform:low=1,high=4', got {self.latency!r}"
            )
        object.__setattr__(self, "latency", canonical_latency(self.latency))  # one spelling per latency
        if self.max_delay >= self.turn_ticks:  # parses the spec (a bad one, or one above 16 ticks, raises there)
            raise ValueError(
                f"latency {self.latency!r} can delay a press by {self.max_delay} ticks, but a turn has "
                f"{self.turn_ticks}: a press sent as the turn opens must be able to land in it"
            )

    @property
    def cards_for_war(self) -> int:
        """Cards a player must hold when a war starts, or lose the round (the shortage rule)."""
        return self.war_face_down + 1

    @classmethod
    def field_names(cls) -> frozenset[str]:
        return frozenset(field.name for field in dataclasses.fields(cls))

    @classmethod
    def from_kwargs(cls, rules: Mapping[str, object] | Iterable[tuple[str, object]]) -> WarConfig:
        """The config of keyword arguments (``gym.make("War-v0", turn_seconds=2)``, ``--env ...``), given as
        a mapping or as (name, value) pairs; a name that is not a field is an ``UnknownArgument``."""
        rules = dict(rules)
        unknown = sorted(set(rules) - cls.field_names())
        if unknown:
            raise UnknownArgument(f"War-v0 got {_unexpected(unknown)}; known: {sorted(cls.field_names())}")
        return cls(**rules)

    def replace(self, **changes) -> WarConfig:
        return dataclasses.replace(self, **changes)


class UnknownArgument(TypeError, ValueError):
    """A keyword argument the env does not take. A ``TypeError``, as Python raises for any call with an
    unexpected keyword (TorchRL and other wrappers catch it to drop arguments they pass to every env), and a
    ``ValueError``, the project's bad-input error that the commands turn into one line."""


def _unexpected(names: list[str]) -> str:
    """Python's own wording for a call's unknown keywords, which wrappers match on (TorchRL's GymEnv passes
    ``frameskip`` to every env and drops it when the error says "unexpected keyword argument 'frameskip'")."""
    if len(names) == 1:
        return f"an unexpected keyword argument {names[0]!r}"
    return "unexpected keyword arguments " + ", ".join(repr(name) for name in names)


def make_config(config: WarConfig | None, rules: Mapping[str, object]) -> WarConfig:
    """One ``WarConfig`` from either a config object or its fields as keywords (not both): the envs' arguments."""
    if config is not None:
        if not isinstance(config, WarConfig):
            raise TypeError(f"config must be a WarConfig, got {type(config).__name__}")
        if rules:
            raise ValueError(f"pass either config=WarConfig(...) or rule keywords, not both (got {sorted(rules)})")
        return config
    return WarConfig.from_kwargs(rules)


def _is_real(value) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool)


def _check_int(name: str, value, minimum: int, maximum: int, optional: bool = False) -> None:
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, Integral) or not minimum <= value <= maximum:
        allowed = f"an integer from {minimum} to {maximum}" + (" or None" if optional else "")
        raise ValueError(f"{name} must be {allowed}, got {value!r}")
