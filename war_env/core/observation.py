"""What a seated player can see, as one flat float32 vector: the encoding every front end shares.

Only public information goes in: both pile counts, the last revealed card of each seat, the pot's
size, the score, the clock of the seat's own turn and whether each seat has drawn. The order of the
cards still in the piles and the cards laid but not yet revealed never reach it.

Every field is a whole number (a count, a flag, a rank value) divided by its scale: ``min(count /
scale, 1.0)`` in float64, then float32 (``encode``). ``scales(config)`` gives the divisors; each
implementation of the rules reads the counts from its own state, in ``OBSERVATION_FIELDS`` order
(``seat_counts`` for the scalar reference; ``war_env.batched.stepping.observe`` for the batched engine, which
takes the divisors from its ``PARAMS.divisors``, filled from ``scales``), and the tests hold the two equal
bit for bit (``tests/test_vector.py``). The latency and inference observations (``observe_latency``,
``observe_inference``) append their fields to these, here and in ``stepping.observe_latency``.
"""

from __future__ import annotations

from operator import truediv

import numpy as np

from war_env.core.cards import DECK_SIZE, rank_value
from war_env.core.clock import TimedRound
from war_env.core.rules import WarConfig

OBSERVATION_FIELDS = (
    "can_draw",  # 1 if drawing on the next tick is not a false start
    "timer_left",  # share of the seat's turn timer left on the next tick (0 when not open)
    "has_drawn",  # 1 if the seat has laid its card in the current step
    "opponent_has_drawn",  # 1 if the opponent has laid its card in the current step
    "own_pile",  # cards in the seat's pile / 52
    "opponent_pile",  # cards in the opponent's pile / 52
    "own_card",  # rank value (2..14) of the seat's last revealed card / 14, 0 for none
    "opponent_card",  # the same for the opponent's last revealed card
    "at_war",  # 1 while a war is on (a tie is pending)
    "pot",  # cards on the table / 52
    "own_points",  # tricks won / point scale (target_points, else 500), at most 1
    "opponent_points",  # the same for the opponent
    "battles",  # battles played / battle scale (max_battles, else 1000), at most 1
    "started",  # 1 if the seat started the round (draws first in every step)
    "own_taken_over",  # 1 if the seat is played by the takeover bot
    "opponent_taken_over",  # 1 if the opponent seat is played by the takeover bot
)
OBSERVATION_SIZE = len(OBSERVATION_FIELDS)
INDEX = {name: i for i, name in enumerate(OBSERVATION_FIELDS)}
HIGHEST_RANK_VALUE = 14


def point_scale(config: WarConfig) -> float:
    return float(config.target_points if config.target_points is not None else 500)


def battle_scale(config: WarConfig) -> float:
    return float(config.max_battles if config.max_battles is not None else 1000)


def scales(config: WarConfig) -> tuple[float, ...]:
    """The divisor of each field, in ``OBSERVATION_FIELDS`` order."""
    known = _SCALES.get(id(config))  # observe runs on every step: no hashing of the config there
    if known is not None and known[0] is config:
        return known[1]
    points, battles = point_scale(config), battle_scale(config)
    divisors = (
        1.0,
        float(config.turn_ticks),
        1.0,
        1.0,
        float(DECK_SIZE),
        float(DECK_SIZE),
        float(HIGHEST_RANK_VALUE),
        float(HIGHEST_RANK_VALUE),
        1.0,
        float(DECK_SIZE),
        points,
        points,
        battles,
        1.0,
        1.0,
        1.0,
    )
    if len(_SCALES) >= 256:
        _SCALES.clear()
    _SCALES[id(config)] = (config, divisors)  # holding the config keeps its id from being reused
    return divisors


_SCALES: dict[int, tuple[WarConfig, tuple[float, ...]]] = {}


def encode(counts, divisors: tuple[float, ...]) -> np.ndarray:
    """The observation of these counts: ``min(count / scale, 1.0)`` in float64, cast to float32. (Computed
    here as the cast, then the cap: the same numbers, since 1.0 is a float32 and rounding keeps order.)"""
    values = np.fromiter(map(truediv, counts, divisors), dtype=np.float32, count=OBSERVATION_SIZE)
    return np.minimum(values, _ONES, out=values)


_ONES = np.ones(OBSERVATION_SIZE, dtype=np.float32)


def seat_counts(timed: TimedRound, seat: int) -> tuple[int, ...]:
    """The counts behind ``seat``'s observation after the last tick, in ``OBSERVATION_FIELDS`` order."""
    game = timed.game
    other = 1 - seat
    ticks_left = timed.ticks_left(seat)
    own_card, other_card = game.visible[seat], game.visible[other]
    return (
        ticks_left > 0,
        ticks_left,
        game.drawn[seat],
        game.drawn[other],
        len(game.piles[seat]),
        len(game.piles[other]),
        0 if own_card is None else rank_value(own_card),
        0 if other_card is None else rank_value(other_card),
        game.at_war,
        len(game.pot),
        game.points[seat],
        game.points[other],
        game.battles,
        game.starter == seat,
        timed.taken_over[seat],
        timed.taken_over[other],
    )


def observe(timed: TimedRound, seat: int) -> np.ndarray:
    """The observation of ``seat`` after the last tick."""
    return encode(seat_counts(timed, seat), scales(timed.config))


def action_mask(timed: TimedRound, seat: int) -> np.ndarray:
    """Both actions are always legal; the mask marks whether a draw would not be a false start."""
    return np.array((True, timed.ticks_left(seat) > 0), dtype=bool)


# --- the latency observation (WarLatency-v0): War-v0's fields, the opponent's clock, the presses in flight ---
LATENCY_EXTRA_FIELDS = (
    "opponent_can_draw",  # 1 if the opponent's turn is open on the next tick
    "opponent_timer_left",  # share of the opponent's turn timer left on the next tick (0 when not open)
)


def observation_size(config: WarConfig, observes_latency: bool) -> int:
    """Floats of a seat's observation: the latency observation's (``latency_fields``), or War-v0's."""
    return len(latency_fields(config)) if observes_latency else OBSERVATION_SIZE


def latency_fields(config: WarConfig) -> tuple[str, ...]:
    """The fields of the latency observation: War-v0's, the opponent's clock, then ``in_flight_a`` for
    a = 0 .. max_delay - 1 (1 if the seat's press sent a ticks ago has not landed yet)."""
    return OBSERVATION_FIELDS + LATENCY_EXTRA_FIELDS + tuple(f"in_flight_{age}" for age in range(config.max_delay))


def observe_latency(timed: TimedRound, seat: int) -> np.ndarray:
    """``seat``'s latency observation after the last tick: ``observe`` followed by the fields of the
    opponent's clock and the seat's presses in flight (same scaling as War-v0's own clock)."""
    config = timed.config
    extra = np.zeros(len(LATENCY_EXTRA_FIELDS) + config.max_delay, dtype=np.float32)
    opponent_left = timed.ticks_left(1 - seat)
    extra[0] = opponent_left > 0
    extra[1] = opponent_left / config.turn_ticks
    for age in timed.in_flight_ages(seat):
        extra[len(LATENCY_EXTRA_FIELDS) + age] = 1.0
    return np.concatenate((observe(timed, seat), extra))


# --- the inference probe's observation (WarInference-v0): the latency observation and the opponent's last reaction ---
INFERENCE_EXTRA_FIELDS = (
    "opponent_reaction",  # (ticks from its turn's opening to the opponent's last own draw + 1) / turn ticks; 0 before
)


def inference_fields(config: WarConfig) -> tuple[str, ...]:
    return latency_fields(config) + INFERENCE_EXTRA_FIELDS


def observe_inference(timed: TimedRound, seat: int) -> np.ndarray:
    """``seat``'s observation in the inference probe: ``observe_latency`` and how long the opponent took to draw
    the last time it drew by itself (what the table showed as its timer ran), so that telling a pool's members
    apart needs inference from it, not memory of it."""
    reactions = timed.reaction_ticks[1 - seat]
    last = (reactions[-1] + 1) / timed.config.turn_ticks if reactions else 0.0
    return np.concatenate((observe_latency(timed, seat), np.array([min(last, 1.0)], dtype=np.float32)))


# --- the observations a game can have, by name: each game declares one (``WarEnv.observation_kind``,
# ``Probe.observation``)
OBSERVATIONS = {
    "war": (lambda config: OBSERVATION_FIELDS, observe),
    "latency": (latency_fields, observe_latency),
    "inference": (inference_fields, observe_inference),
}
"""name: (its fields under a config, the function that observes a seat). Each extends the one before (the batched
engine writes them in this order: ``batched.state.OBSERVATION_CODE``)."""


def observation_fields(kind: str, config: WarConfig) -> tuple[str, ...]:
    """The fields of the observation named ``kind`` (a key of ``OBSERVATIONS``) under ``config``."""
    if kind not in OBSERVATIONS:
        raise ValueError(f"unknown observation {kind!r}; known: {sorted(OBSERVATIONS)}")
    return OBSERVATIONS[kind][0](config)
