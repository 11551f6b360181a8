"""The card game of ``engine.Game`` on one round's state record, compiled.

The same transitions as ``Game``: ``lay(r, p, seat)`` is ``Game.draw`` (face-down war cards, then the
face-up one), and the second card of a step reveals it (``_reveal``): a tie starts a war (or ends the
round by the shortage rule), otherwise the higher rank takes the trick (``_take_trick``), the pot goes
under the winner's pile (``_pick_up``, in the order laid or shuffled by the round key) and the end
checks follow, in ``Game._take_trick``'s order. Who lays *when* is the clock's business (``clock``).
``play_cards`` plays whole rounds with no clock at all: the first half of the fast path.

``r`` is a round's record (``state.ROUND``), ``p`` the game's parameters (``state.PARAMS``).
"""

from __future__ import annotations

import numba
import numpy as np

from war_env.batched.borrow import borrowed
from war_env.batched.hashing import hash64
from war_env.batched.state import NO_CARD, POT, REASON_CODE, RING_MASK
from war_env.core.engine import POT_POSITIONS
from war_env.core.randomness import Stream
from war_env.core.round_info import ALL_CARDS, BATTLE_LIMIT, NO_WINNER, POINTS, WAR_SHORTAGE

_PICKUP = int(Stream.PICKUP)
_ALL_CARDS = REASON_CODE[ALL_CARDS]
_POINTS = REASON_CODE[POINTS]
_BATTLE_LIMIT = REASON_CODE[BATTLE_LIMIT]
_WAR_SHORTAGE = REASON_CODE[WAR_SHORTAGE]


# --- starting a round ------------------------------------------------------------------------
@numba.njit(cache=True, inline="always")
def deal_deck(r, deck):
    """``cards.deal_from_permutation``: seat 0 gets the first half of the shuffled deck, top card first."""
    half = deck.shape[0] // 2
    for i in range(half):
        r.piles[0, i] = deck[i]
    for i in range(deck.shape[0] - half):
        r.piles[1, i] = deck[half + i]
    r.cards[0] = half
    r.cards[1] = deck.shape[0] - half


@numba.njit(cache=True, inline="always")
def begin_cards(r):
    """The card game of the round starts from the piles it holds (``cards`` each, from slot 0) and its
    ``starter``: an empty table, no score."""
    for seat in range(2):
        r.head[seat] = 0
        r.face_up[seat] = NO_CARD
        r.visible[seat] = NO_CARD
        r.drawn[seat] = 0
        r.points[seat] = 0
        r.moves[seat] = 0
    r.pot = 0
    r.at_war = 0
    r.battles = 0
    r.wars = 0
    r.tricks = 0
    r.over = 0
    r.winner = NO_WINNER
    r.reason = -1


# --- Game.draw ---------------------------------------------------------------------------------
@numba.njit(cache=True, inline="always")
def lay(r, p, seat):
    """``Game.draw(seat)``; returns whether the step was completed (and revealed)."""
    if r.at_war:
        for _ in range(p.war_face_down):
            _to_pot(r, _pop(r, seat))
    elif seat == r.starter:
        r.battles += 1
    card = _pop(r, seat)
    _to_pot(r, card)
    r.face_up[seat] = card
    r.drawn[seat] = 1
    r.moves[seat] += 1
    if not r.drawn[1 - seat]:
        return False
    _reveal(r, p)
    return True


@numba.njit(cache=True, inline="always")
def _pop(r, seat):
    head = r.head[seat]
    r.head[seat] = (head + 1) & RING_MASK
    r.cards[seat] -= 1
    return r.piles[seat, head]


@numba.njit(cache=True, inline="always")
def _to_pot(r, card):
    r.piles[POT, r.pot] = card
    r.pot += 1


# --- resolution --------------------------------------------------------------------------------
@numba.njit(cache=True, inline="always")
def _reveal(r, p):
    first, second = r.face_up[0], r.face_up[1]
    for seat in range(2):
        r.visible[seat] = r.face_up[seat]
        r.face_up[seat] = NO_CARD
        r.drawn[seat] = 0
    if first >> 2 == second >> 2:
        _start_war(r, p)
    else:
        _take_trick(r, p, 0 if first >> 2 > second >> 2 else 1)


@numba.njit(cache=True)
def _start_war(r, p):
    r.wars += 1
    short0 = r.cards[0] < p.cards_for_war
    short1 = r.cards[1] < p.cards_for_war
    if short0 and short1:
        _end(r, NO_WINNER, _WAR_SHORTAGE)
    elif short0 or short1:
        winner = 1 if short0 else 0
        _pick_up(r, p, winner)
        _move_pile(r, 1 - winner, winner)
        _end(r, winner, _WAR_SHORTAGE)
    else:
        r.at_war = 1


@numba.njit(cache=True, inline="always")
def _take_trick(r, p, winner):
    _pick_up(r, p, winner)
    r.points[winner] += 1
    r.tricks += 1
    r.at_war = 0
    if r.cards[1 - winner] == 0:
        _end(r, winner, _ALL_CARDS)
    elif p.target_points >= 0 and r.points[winner] >= p.target_points:
        _end(r, winner, _POINTS)
    elif p.max_battles >= 0 and r.battles >= p.max_battles:
        _end(r, NO_WINNER, _BATTLE_LIMIT)


@numba.njit(cache=True, inline="always")
def _pick_up(r, p, winner):
    """``Game._pick_up``: the pot under the winner's pile, in the order laid or shuffled."""
    length = r.pot
    if p.shuffled:
        _shuffle_pot(r, length)
    tail = r.head[winner] + r.cards[winner]
    for i in range(length):
        r.piles[winner, (tail + i) & RING_MASK] = r.piles[POT, i]
    r.cards[winner] += length
    r.pot = 0


@numba.njit(cache=True)
def _shuffle_pot(r, length):
    """The pot sorted like ``sorted(zip(keys, pot))`` in ``Game._pick_up``: by hash key, then card."""
    pot = r.piles[POT]
    key = r.round_key
    base = r.tricks * POT_POSITIONS
    if length == 2:  # a battle's pot (most pick-ups): one comparison, no key array
        first, second = hash64(key, _PICKUP, base), hash64(key, _PICKUP, base + 1)
        if second < first or (second == first and pot[1] < pot[0]):
            pot[0], pot[1] = pot[1], pot[0]
        return
    order = np.empty(length, dtype=np.uint64)
    for i in range(length):
        order[i] = hash64(key, _PICKUP, base + i)
    for i in range(1, length):  # insertion sort of (key, card) pairs: pots are short
        sort_key, card = order[i], pot[i]
        j = i - 1
        while j >= 0 and (order[j] > sort_key or (order[j] == sort_key and pot[j] > card)):
            order[j + 1], pot[j + 1] = order[j], pot[j]
            j -= 1
        order[j + 1], pot[j + 1] = sort_key, card


@numba.njit(cache=True)
def _move_pile(r, source, target):
    """The shortage rule: the loser's whole pile goes under the winner's."""
    head, length = r.head[source], r.cards[source]
    tail = r.head[target] + r.cards[target]
    for i in range(length):
        r.piles[target, (tail + i) & RING_MASK] = r.piles[source, (head + i) & RING_MASK]
    r.cards[target] += length
    r.cards[source] = 0


@numba.njit(cache=True, inline="always")
def _end(r, winner, reason):
    r.over = 1
    r.winner = winner
    r.reason = reason


# --- whole rounds without a clock: the fast path's card game ---------------------------------
@numba.njit(cache=True)
def play_cards(state, params):
    """Every round's card game to its end: the starter lays, then the other seat, step after step.
    (The cards never depend on timing: the clock can be laid over the moves afterwards.)"""
    state, params = borrowed((state, params))
    p = params[0]
    for g in range(state.shape[0]):
        r = state[g]
        starter = np.int64(r.starter)
        while not r.over:
            lay(r, p, starter)
            lay(r, p, 1 - starter)
