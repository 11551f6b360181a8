"""The card game of ``engine.Game`` on the batched state (``layout``), compiled: one round at a time.

The same transitions as ``Game``: ``lay(seat)`` is ``Game.draw`` (face-down war cards, then the
face-up one), and the second card of a step reveals it (``_reveal``): a tie starts a war (or ends the
round by the shortage rule), otherwise the higher rank takes the trick (``_take_trick``), the pot goes
under the winner's pile (``_pick_up``, in the order laid or shuffled by the round key) and the end
checks follow, in ``Game._take_trick``'s order. Who lays *when* is the clock's business (``clock``).
``play_cards`` plays whole rounds with no clock at all: the first half of the fast path.
"""

from __future__ import annotations

import numba
import numpy as np

from war_env.batched.borrow import borrowed
from war_env.batched.hashing import hash64
from war_env.batched.layout import KEY_ROUND, NO_CARD, NO_WINNER, POT_ROW, REASON_CODE, RING_MASK, Col, Rule
from war_env.core.engine import ALL_CARDS, BATTLE_LIMIT, POINTS, POT_POSITIONS, WAR_SHORTAGE
from war_env.core.randomness import Stream

_PICKUP = int(Stream.PICKUP)
_ALL_CARDS = REASON_CODE[ALL_CARDS]
_POINTS = REASON_CODE[POINTS]
_BATTLE_LIMIT = REASON_CODE[BATTLE_LIMIT]
_WAR_SHORTAGE = REASON_CODE[WAR_SHORTAGE]


# --- starting a round ------------------------------------------------------------------------
@numba.njit(cache=True, inline="always")
def deal_deck(state, cards, g, deck):
    """``cards.deal_from_permutation``: seat 0 gets the first half of the shuffled deck, top card first."""
    half = deck.shape[0] // 2
    for i in range(half):
        cards[g, 0, i] = deck[i]
    for i in range(deck.shape[0] - half):
        cards[g, 1, i] = deck[half + i]
    state[g, Col.COUNT] = half
    state[g, Col.COUNT + 1] = deck.shape[0] - half


@numba.njit(cache=True, inline="always")
def begin_cards(state, g):
    """The card game of round g starts from the piles in its ``cards`` (``COUNT`` each, from slot 0)
    and its ``STARTER``: an empty table, no score."""
    for seat in range(2):
        state[g, Col.HEAD + seat] = 0
        state[g, Col.FACE_UP + seat] = NO_CARD
        state[g, Col.VISIBLE + seat] = NO_CARD
        state[g, Col.DRAWN + seat] = 0
        state[g, Col.POINTS + seat] = 0
        state[g, Col.MOVES + seat] = 0
    state[g, Col.POT] = 0
    state[g, Col.AT_WAR] = 0
    state[g, Col.BATTLES] = 0
    state[g, Col.WARS] = 0
    state[g, Col.TRICKS] = 0
    state[g, Col.OVER] = 0
    state[g, Col.WINNER] = NO_WINNER
    state[g, Col.REASON] = -1


# --- Game.draw ---------------------------------------------------------------------------------
@numba.njit(cache=True, inline="always")
def lay(state, cards, keys, rules, g, seat):
    """``Game.draw(seat)`` for round g; returns whether the step was completed (and revealed)."""
    if state[g, Col.AT_WAR]:
        for _ in range(rules[Rule.WAR_FACE_DOWN]):
            _to_pot(state, cards, g, _pop(state, cards, g, seat))
    elif seat == state[g, Col.STARTER]:
        state[g, Col.BATTLES] += 1
    card = _pop(state, cards, g, seat)
    _to_pot(state, cards, g, card)
    state[g, Col.FACE_UP + seat] = card
    state[g, Col.DRAWN + seat] = 1
    state[g, Col.MOVES + seat] += 1
    if not state[g, Col.DRAWN + 1 - seat]:
        return False
    _reveal(state, cards, keys, rules, g)
    return True


@numba.njit(cache=True, inline="always")
def _pop(state, cards, g, seat):
    head = state[g, Col.HEAD + seat]
    state[g, Col.HEAD + seat] = (head + 1) & RING_MASK
    state[g, Col.COUNT + seat] -= 1
    return cards[g, seat, head]


@numba.njit(cache=True, inline="always")
def _to_pot(state, cards, g, card):
    length = state[g, Col.POT]
    cards[g, POT_ROW, length] = card
    state[g, Col.POT] = length + 1


# --- resolution --------------------------------------------------------------------------------
@numba.njit(cache=True, inline="always")
def _reveal(state, cards, keys, rules, g):
    first, second = state[g, Col.FACE_UP], state[g, Col.FACE_UP + 1]
    for seat in range(2):
        state[g, Col.VISIBLE + seat] = state[g, Col.FACE_UP + seat]
        state[g, Col.FACE_UP + seat] = NO_CARD
        state[g, Col.DRAWN + seat] = 0
    if first >> 2 == second >> 2:
        _start_war(state, cards, keys, rules, g)
    else:
        _take_trick(state, cards, keys, rules, g, 0 if first >> 2 > second >> 2 else 1)


@numba.njit(cache=True)
def _start_war(state, cards, keys, rules, g):
    state[g, Col.WARS] += 1
    short0 = state[g, Col.COUNT] < rules[Rule.CARDS_FOR_WAR]
    short1 = state[g, Col.COUNT + 1] < rules[Rule.CARDS_FOR_WAR]
    if short0 and short1:
        _end(state, g, NO_WINNER, _WAR_SHORTAGE)
    elif short0 or short1:
        winner = 1 if short0 else 0
        _pick_up(state, cards, keys, rules, g, winner)
        _move_pile(state, cards, g, 1 - winner, winner)
        _end(state, g, winner, _WAR_SHORTAGE)
    else:
        state[g, Col.AT_WAR] = 1


@numba.njit(cache=True, inline="always")
def _take_trick(state, cards, keys, rules, g, winner):
    _pick_up(state, cards, keys, rules, g, winner)
    state[g, Col.POINTS + winner] += 1
    state[g, Col.TRICKS] += 1
    state[g, Col.AT_WAR] = 0
    if state[g, Col.COUNT + 1 - winner] == 0:
        _end(state, g, winner, _ALL_CARDS)
    elif rules[Rule.TARGET_POINTS] >= 0 and state[g, Col.POINTS + winner] >= rules[Rule.TARGET_POINTS]:
        _end(state, g, winner, _POINTS)
    elif rules[Rule.MAX_BATTLES] >= 0 and state[g, Col.BATTLES] >= rules[Rule.MAX_BATTLES]:
        _end(state, g, NO_WINNER, _BATTLE_LIMIT)


@numba.njit(cache=True, inline="always")
def _pick_up(state, cards, keys, rules, g, winner):
    """``Game._pick_up``: the pot under the winner's pile, in the order laid or shuffled."""
    length = state[g, Col.POT]
    if rules[Rule.SHUFFLED]:
        _shuffle_pot(cards, keys, g, length, state[g, Col.TRICKS])
    tail = state[g, Col.HEAD + winner] + state[g, Col.COUNT + winner]
    for i in range(length):
        cards[g, winner, (tail + i) & RING_MASK] = cards[g, POT_ROW, i]
    state[g, Col.COUNT + winner] += length
    state[g, Col.POT] = 0


@numba.njit(cache=True)
def _shuffle_pot(cards, keys, g, length, trick):
    """The pot sorted like ``sorted(zip(keys, pot))`` in ``Game._pick_up``: by hash key, then card."""
    pot = cards[g, POT_ROW]
    base = trick * POT_POSITIONS
    if length == 2:  # a battle's pot (most pick-ups): one comparison, no key array
        first, second = hash64(keys[g, KEY_ROUND], _PICKUP, base), hash64(keys[g, KEY_ROUND], _PICKUP, base + 1)
        if second < first or (second == first and pot[1] < pot[0]):
            pot[0], pot[1] = pot[1], pot[0]
        return
    order = np.empty(length, dtype=np.uint64)
    for i in range(length):
        order[i] = hash64(keys[g, KEY_ROUND], _PICKUP, base + i)
    for i in range(1, length):  # insertion sort of (key, card) pairs: pots are short
        key, card = order[i], pot[i]
        j = i - 1
        while j >= 0 and (order[j] > key or (order[j] == key and pot[j] > card)):
            order[j + 1], pot[j + 1] = order[j], pot[j]
            j -= 1
        order[j + 1], pot[j + 1] = key, card


@numba.njit(cache=True)
def _move_pile(state, cards, g, source, target):
    """The shortage rule: the loser's whole pile goes under the winner's."""
    head, length = state[g, Col.HEAD + source], state[g, Col.COUNT + source]
    tail = state[g, Col.HEAD + target] + state[g, Col.COUNT + target]
    for i in range(length):
        cards[g, target, (tail + i) & RING_MASK] = cards[g, source, (head + i) & RING_MASK]
    state[g, Col.COUNT + target] += length
    state[g, Col.COUNT + source] = 0


@numba.njit(cache=True, inline="always")
def _end(state, g, winner, reason):
    state[g, Col.OVER] = 1
    state[g, Col.WINNER] = winner
    state[g, Col.REASON] = reason


# --- whole rounds without a clock: the fast path's card game ---------------------------------
@numba.njit(cache=True)
def play_cards(state, cards, keys, rules):
    """Every round's card game to its end: the starter lays, then the other seat, step after step.
    (The cards never depend on timing: the clock can be laid over the moves afterwards.)"""
    state, cards, keys, rules = borrowed((state, cards, keys, rules))
    for g in range(state.shape[0]):
        starter = state[g, Col.STARTER]
        while not state[g, Col.OVER]:
            lay(state, cards, keys, rules, g, starter)
            lay(state, cards, keys, rules, g, 1 - starter)
