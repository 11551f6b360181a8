"""Where things sit on the pixel table: plain geometry, no pygame, so that the play loop's hit tests
and the render tests read the same rectangles the painter draws into. Rectangles are
``(left, top, width, height)`` in pixels of a ``WIDTH`` x ``HEIGHT`` frame."""

from __future__ import annotations

from dataclasses import dataclass

WIDTH, HEIGHT = 960, 640
"""Frame size: both divisible by 16, so video encoders take frames as they are."""

CARD_W, CARD_H = 92, 128
TABLE = (14, 14, WIDTH - 28, 532)
"""The felt."""
BAR = (0, 556, WIDTH, HEIGHT - 556)
"""The control bar under the table: buttons in play, a status line when watching."""

ROW_CENTER_Y = (412, 150)
"""Vertical centre of each seat's row: seat 0 (you, the agent) at the bottom, seat 1 at the top."""
AVATAR_X, AVATAR_RADIUS, RING_RADIUS, RING_WIDTH = 104, 38, 50, 8
PILE_X = 214
"""Left edge of each seat's face-down pile."""
SPOT_X = 436
"""Left edge of each seat's face-up card (the play spot)."""
UNDER_STEP = 20
"""How far each face-down war card under the face-up card peeks out to the left."""
LAID_STEP = (26, 10)
"""Offset of each card laid face down (not revealed yet) on top of the play spot."""
BUBBLE_W, BUBBLE_H = 124, 58
SCOREBOARD = (748, 30, 182, 168)
ROUND_PANEL = (748, 212, 182, 116)
KEY_PANEL = (748, 342, 182, 136)
"""What the marks mean: the gold frame, "draws first", the BOT badge."""
MIDDLE_X = (TABLE[0] + SCOREBOARD[0]) // 2
"""Centre of the lines between the two rows (who won the battle, the war, notices)."""
MIDDLE_Y = 258
NOTICE_WIDTH = 600
"""Widest line of a notice before it wraps."""
POPUP_X, POPUP_W = 180, 600

BUTTON_Y, BUTTON_H = BAR[1] + 16, 52
BUTTONS = (
    (236, BUTTON_Y, 196, BUTTON_H),
    (448, BUTTON_Y, 220, BUTTON_H),
    (684, BUTTON_Y, 196, BUTTON_H),
)
"""The three control buttons, left to right: "Turn cards", "Play 10 battles", "New round"."""


@dataclass(frozen=True)
class Control:
    """One button of the control bar as the painter draws it."""

    label: str
    key_hint: str
    enabled: bool


def row_y(seat: int) -> int:
    return ROW_CENTER_Y[seat]


def card_top(seat: int) -> int:
    return row_y(seat) - CARD_H // 2


def face_up_rect(seat: int) -> tuple[int, int, int, int]:
    return (SPOT_X, card_top(seat), CARD_W, CARD_H)


def pile_rect(seat: int) -> tuple[int, int, int, int]:
    return (PILE_X, card_top(seat), CARD_W, CARD_H)


def laid_rect(seat: int, index: int) -> tuple[int, int, int, int]:
    """The ``index``-th card laid face down this step (0 = the first), on top of the play spot."""
    dx, dy = LAID_STEP
    return (SPOT_X + dx * (index + 1), card_top(seat) + dy * (index + 1) * (1 if seat == 0 else -1), CARD_W, CARD_H)


def bubble_rect(seat: int) -> tuple[int, int, int, int]:
    """The "War!" speech bubble, to the right of the seat's cards."""
    return (SPOT_X + CARD_W + 96, row_y(seat) - BUBBLE_H - 12, BUBBLE_W, BUBBLE_H)


def avatar_center(seat: int) -> tuple[int, int]:
    return (AVATAR_X, row_y(seat) - 14)


IN_FLIGHT_RADIUS = 5
IN_FLIGHT_ROWS = 8


def in_flight_mark(seat: int, age: int, ages: int) -> tuple[int, int]:
    """Center of the mark of the seat's press of ``age`` (of ``ages`` slots: the latency's largest delay)
    beside its timer ring: the newest at the top, a second column from the ninth age on."""
    cx, cy = avatar_center(seat)
    rows = min(ages, IN_FLIGHT_ROWS)
    column, row = divmod(age, IN_FLIGHT_ROWS)
    return (cx + RING_RADIUS + 16 + 14 * column, cy + 11 * row - 11 * (rows - 1) // 2)


def popup_rect(lines: int) -> tuple[int, int, int, int]:
    """The result popup with ``lines`` lines in its results list, centred over the felt."""
    height = 290 + 24 * lines
    return (POPUP_X, (BAR[1] - height) // 2, POPUP_W, height)


def contains(rect: tuple[int, int, int, int], point: tuple[float, float]) -> bool:
    x, y, w, h = rect
    return x <= point[0] < x + w and y <= point[1] < y + h


def button_at(point: tuple[float, float]) -> int | None:
    """Index of the button under ``point`` (pixels), or ``None``."""
    return next((index for index, rect in enumerate(BUTTONS) if contains(rect, point)), None)
