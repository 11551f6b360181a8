"""What a seated player can see, as one flat float32 vector: the encoding every front end shares.

Only public information goes in: both pile counts, the last revealed card of each seat, the pot's
size, the score, the clock of the seat's own turn and whether each seat has drawn. The order of the
cards still in the piles and the cards laid but not yet revealed never reach it.
"""

from __future__ import annotations

import numpy as np

from war_env.cards import DECK_SIZE, rank_value
from war_env.clock import TimedRound
from war_env.rules import WarConfig

OBSERVATION_FIELDS = (
    "can_draw",            # 1 if drawing on the next tick is not a false start
    "timer_left",          # share of the seat's turn timer left on the next tick (0 when not open)
    "has_drawn",           # 1 if the seat has laid its card in the current step
    "opponent_has_drawn",  # 1 if the opponent has laid its card in the current step
    "own_pile",            # cards in the seat's pile / 52
    "opponent_pile",       # cards in the opponent's pile / 52
    "own_card",            # rank value (2..14) of the seat's last revealed card / 14, 0 for none
    "opponent_card",       # the same for the opponent's last revealed card
    "at_war",              # 1 while a war is on (a tie is pending)
    "pot",                 # cards on the table / 52
    "own_points",          # tricks won / point scale (target_points, else 500), at most 1
    "opponent_points",     # the same for the opponent
    "battles",             # battles played / battle scale (max_battles, else 1000), at most 1
    "started",             # 1 if the seat started the round (draws first in every step)
    "own_taken_over",      # 1 if the seat is played by the takeover bot
    "opponent_taken_over", # 1 if the opponent seat is played by the takeover bot
)
OBSERVATION_SIZE = len(OBSERVATION_FIELDS)
INDEX = {name: i for i, name in enumerate(OBSERVATION_FIELDS)}


def point_scale(config: WarConfig) -> float:
    return float(config.target_points if config.target_points is not None else 500)


def battle_scale(config: WarConfig) -> float:
    return float(config.max_battles if config.max_battles is not None else 1000)


def observe(timed: TimedRound, seat: int) -> np.ndarray:
    """The observation of ``seat`` after the last tick."""
    game = timed.game
    config = timed.config
    other = 1 - seat
    ticks_left = timed.ticks_left(seat)
    own_card, other_card = game.visible[seat], game.visible[other]
    points = game.points
    points_over = point_scale(config)
    return np.array(
        (
            1.0 if ticks_left else 0.0,
            ticks_left / config.turn_ticks,
            1.0 if game.drawn[seat] else 0.0,
            1.0 if game.drawn[other] else 0.0,
            len(game.piles[seat]) / DECK_SIZE,
            len(game.piles[other]) / DECK_SIZE,
            0.0 if own_card is None else rank_value(own_card) / 14,
            0.0 if other_card is None else rank_value(other_card) / 14,
            1.0 if game.at_war else 0.0,
            len(game.pot) / DECK_SIZE,
            min(points[seat] / points_over, 1.0),
            min(points[other] / points_over, 1.0),
            min(game.battles / battle_scale(config), 1.0),
            1.0 if game.starter == seat else 0.0,
            1.0 if timed.taken_over[seat] else 0.0,
            1.0 if timed.taken_over[other] else 0.0,
        ),
        dtype=np.float32,
    )


def action_mask(timed: TimedRound, seat: int) -> np.ndarray:
    """Both actions are always legal; the mask marks whether a draw would not be a false start."""
    return np.array((True, timed.ticks_left(seat) > 0), dtype=bool)
