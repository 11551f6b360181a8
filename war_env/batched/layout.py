"""The state of n rounds as the batched engine keeps it: one row per round in three arrays.

* ``state``, int64 ``(n, len(Col))``: every counter of the card game (``engine.Game``) and of the clock
  (``clock.TimedRound``), one column each (``Col``). A per-seat pair is two adjacent columns, seat 0
  first (``Col.OPENS + seat``); flags are 0 or 1. The columns every tick reads come first: a round in
  which nothing is drawn costs one cache line of state, and a whole round under six, in one place (the
  last columns, the presses in flight of action latency, are touched only by rules with latency).
* ``cards``, int8 ``(n, 3, RING)``: the two face-down piles as rings (the top card at ``HEAD``,
  ``COUNT`` cards, wrapping with ``& RING_MASK``), then the pot in the order laid (``POT`` cards).
* ``keys``, uint64 ``(n, 3)``: the round key, then each seat's reaction key (``KEY_ROUND``, ``KEY_REACTION``).

Plus each seat's reaction log, ``log`` ``(n, 2, capacity)``, grown when a round outlasts it. The rules
of a ``WarConfig`` are an int64 array too, ``rules`` (``Rule``): integers that fit in int64. (Arrays,
not tuples, are what the compiled calls take: numba reads a tuple's type on every call, a few
microseconds each.)
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np

from war_env.core.cards import DECK_SIZE
from war_env.core.engine import END_REASONS
from war_env.core.latency import latency_cdf
from war_env.core.rules import WarConfig

RING = 64
"""Slots of a pile's ring: at least the 52 cards, a power of two so that wrapping is a bit mask."""
RING_MASK = RING - 1
POT_ROW = 2
"""``cards[g, POT_ROW]`` is the pot of round g, in the order laid."""
KEY_ROUND = 0
KEY_REACTION = 1
"""``keys[g, KEY_REACTION + seat]``: the key of the seat's reaction hashes."""

NEVER = 1 << 62
"""Tick of a turn that is not pending (compares greater than any real tick)."""
NO_CARD = -1
NO_WINNER = -1
"""``winner`` of a drawn round (and of a round not over yet)."""
NO_TURN = -1
"""``turn`` of a round that is over."""
REASON_CODE = {reason: code for code, reason in enumerate(END_REASONS)}
"""``state[g, Col.REASON]`` is ``REASON_CODE[reason]`` (``-1`` while the round runs)."""

_COLUMNS = (
    # What a tick reads in every round, one cache line (a tick without a draw touches nothing else).
    ("TICK", 1, "the last tick played"),
    ("DUE", 2, "tick on which the pending seat draws by itself: a bot's press, or the takeover"),
    ("STEPS", 1, "env steps of seat 0 (the vector env's; the fast path's: up to its takeover)"),
    ("NEEDS_RESET", 1, "the vector env starts a new round here on its next step (NEXT_STEP autoreset)"),
    ("OVER", 1, "the round has ended"),
    ("OPENS", 2, "tick on which the seat's pending turn opens (NEVER: no turn pending)"),
    # The rest of the clock.
    ("TURN", 1, "the seat whose turn is pending (only one ever is), NO_TURN once the round is over"),
    ("DUE_TAKEOVER", 2, "the due draw is the takeover bot's (the seat's reaction missed the timer)"),
    ("TAKEN_OVER", 2, "the seat is played by the takeover bot"),
    ("FALSE_STARTS", 2, "draws pressed while the seat's turn was not open"),
    ("LOGGED", 2, "entries of the seat's reaction log"),
    # The card game.
    ("COUNT", 2, "cards in the seat's pile"),
    ("HEAD", 2, "ring slot of the seat's top card"),
    ("POT", 1, "cards on the table"),
    ("FACE_UP", 2, "the card the seat laid face up in this step, hidden until both drew (NO_CARD: none)"),
    ("DRAWN", 2, "the seat has laid its card in this step"),
    ("VISIBLE", 2, "the seat's last revealed card (NO_CARD: none yet)"),
    ("AT_WAR", 1, "a tie is pending: this step is a war step"),
    ("STARTER", 1, "the seat that draws first in every step"),
    ("POINTS", 2, "tricks the seat won"),
    ("MOVES", 2, "draws the seat made this round"),
    ("BATTLES", 1, "battles started (a war counts once)"),
    ("WARS", 1, "ties (each war step counted)"),
    ("TRICKS", 1, "tricks taken (numbers the shuffled pick-ups)"),
    ("WINNER", 1, "seat that won, NO_WINNER for a draw"),
    ("REASON", 1, "REASON_CODE of why the round ended"),
    # Action latency (a seat pressed from outside): read and written only when the rules have latency.
    ("SENT", 2, "presses the seat sent this round (k of the next press's delay hash)"),
    ("FLIGHT", 2, "bit a: the seat's press sent a ticks ago (at the last tick) has not landed yet"),
    ("DELAYS", 2, "4 bits at 4a: the delay - 1 of the press of FLIGHT's bit a (delays are 1 .. latency.MAX_LATENCY = 16)"),
)


def _column_numbers() -> dict[str, int]:
    numbers, at = {}, 0
    for name, width, _ in _COLUMNS:
        numbers[name] = at
        at += width
    return numbers


Col = IntEnum("Col", _column_numbers())
"""Column of ``state``: ``state[g, Col.TICK]``, ``state[g, Col.POINTS + seat]`` (see ``_COLUMNS``)."""
WIDTH = sum(width for _, width, _ in _COLUMNS)


def new_arrays(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``state``, ``cards`` and ``keys`` of ``n`` rounds that have not started."""
    state = np.zeros((n, WIDTH), dtype=np.int64)
    state[:, Col.OVER] = 1
    state[:, Col.TURN] = NO_TURN
    return state, np.zeros((n, 3, RING), dtype=np.int8), np.zeros((n, 3), dtype=np.uint64)


def new_log(n: int, turn_ticks: int, capacity: int = 128) -> np.ndarray:
    """Reaction logs of ``n`` rounds: reactions are ticks below ``turn_ticks``."""
    dtype = next(dtype for dtype in (np.uint8, np.uint16, np.int64) if turn_ticks <= np.iinfo(dtype).max)
    return np.zeros((n, 2, capacity), dtype=dtype)


class Rule(IntEnum):
    """Index of ``rules``, the engine's int64 array of a ``WarConfig``'s rules (``-1``: a rule that is off)."""

    WAR_FACE_DOWN = 0
    CARDS_FOR_WAR = 1
    TARGET_POINTS = 2
    MAX_BATTLES = 3
    SHUFFLED = 4
    TURN_TICKS = 5
    MAX_EPISODE_STEPS = 6
    """The vector env's ``TimeLimit`` (0: none)."""
    MAX_DELAY = 7
    """``WarConfig.max_delay``: 0 without latency (a press acts in the tick it is made)."""
    RANDOM_DELAY = 8
    """1 if delays vary (each is sampled from the latency CDF), 0 if every press takes ``MAX_DELAY`` ticks."""


UNREACHABLE = 1 << 62
"""A count no round reaches (points, battles): a rule above it plays exactly as this value."""


def rules_of(config: WarConfig, max_episode_steps: int | None = None) -> np.ndarray:
    """The rules as the engine's integers, without changing the game: a target or a limit beyond any
    reachable count (``WarConfig`` accepts Python ints of any size) becomes ``UNREACHABLE``, and more
    face-down war cards than a deck holds make every war a shortage, as any number above 52 does.
    Action latency is two numbers here; its CDF, for sampling random delays, is ``delay_cdf(config)``."""
    war_face_down = min(config.war_face_down, DECK_SIZE)

    def capped(value):
        return -1 if value is None else min(value, UNREACHABLE)

    rules = np.zeros(len(Rule), dtype=np.int64)
    rules[Rule.WAR_FACE_DOWN] = war_face_down
    rules[Rule.CARDS_FOR_WAR] = war_face_down + 1
    rules[Rule.TARGET_POINTS] = capped(config.target_points)
    rules[Rule.MAX_BATTLES] = capped(config.max_battles)
    rules[Rule.SHUFFLED] = config.pickup == "shuffled"
    rules[Rule.TURN_TICKS] = config.turn_ticks
    rules[Rule.MAX_EPISODE_STEPS] = min(max_episode_steps or 0, UNREACHABLE)
    rules[Rule.MAX_DELAY] = config.max_delay
    rules[Rule.RANDOM_DELAY] = any(0.0 < p < 1.0 for p in config.latency_probabilities)
    return rules


def delay_cdf(config: WarConfig) -> np.ndarray:
    """The latency's CDF over delays 0 .. ``max_delay`` (``latency.latency_cdf``, the scalar clock's)."""
    return np.array(latency_cdf(config.latency), dtype=np.float64)
