"""The clock of ``clock.TimedRound`` on the batched state, compiled: turns, reactions, takeover.

One rule, ``wait``: once a seat's turn opens it draws by itself after its reaction (a bot's, or an
agent's reaction model), sampled from the hash of its key, stream and move number; a reaction of
``turn_ticks`` or more misses the timer, and the takeover bot draws for it on the last tick of the
turn and plays the seat from then on, at once. A turn opens on the tick after the draw that allows
it. Two ways to play it, both from ``wait``:

* event by event (``open_turn``, ``draw``, ``play_moves``): the vector env's ticks and its play-out
  after a takeover, where cards and clock move together;
* move by move over a finished card game (``time_rounds``): the fast path's closed form. The cards
  never depend on timing, so the ticks of a whole round follow from its number of moves alone.
"""

from __future__ import annotations

import numba
import numpy as np

from war_env.batched.borrow import borrowed
from war_env.batched.cards import lay
from war_env.batched.hashing import hash64, uniform
from war_env.batched.layout import KEY_REACTION, KEY_ROUND, NEVER, NO_TURN, Col, Rule
from war_env.batched.models import BUCKET_BITS, NO_KEY_STREAM, UNSURE, Seat, Timing
from war_env.core.randomness import SEED_SHIFT, STREAM_LATENCY

_BUCKET_SHIFT = np.uint64(64 - BUCKET_BITS)
_SEED_SHIFT = np.uint64(SEED_SHIFT)
_LATENCY_STREAMS = tuple(int(stream) for stream in STREAM_LATENCY)


@numba.njit(cache=True, inline="always")
def reaction(timing, seat, key, move):
    """``bots.sample_reaction(cdf, hash_uniform(key, stream, move))`` of the seat's model: the bucket
    table of the hash's top bits, a binary search where a CDF value cuts the bucket."""
    bits = hash64(key, timing.seats[seat, Seat.STREAM], move)
    tick = timing.tables[seat, bits >> _BUCKET_SHIFT]
    if tick != UNSURE:
        return np.int64(tick)
    return np.int64(np.searchsorted(timing.cdfs[seat], uniform(bits), side="right"))


@numba.njit(cache=True, inline="always")
def wait(timing, turn_ticks, seat, key, move, taken_over):
    """Ticks from the opening of the seat's turn to its draw, and whether that draw is the takeover
    bot's: the reaction if it is in time; ``turn_ticks - 1`` and the takeover if not (a seat pressed
    from outside, without a model, is due there too, unless it draws first); 0 once taken over."""
    if taken_over:
        return np.int64(0), False
    ticks = turn_ticks
    if timing.seats[seat, Seat.HAS_MODEL]:
        ticks = reaction(timing, seat, key, move)
    if ticks >= turn_ticks:
        return np.int64(turn_ticks - 1), True
    return ticks, False


# --- event by event: the vector env ----------------------------------------------------------
@numba.njit(cache=True, inline="always")
def open_turn(state, keys, timing, rules, g, seat, opens):
    """The seat's turn opens on tick ``opens``; its own draw (or takeover) is due after its wait."""
    state[g, Col.TURN] = seat
    state[g, Col.OPENS + seat] = opens
    ticks, late = wait(timing, rules[Rule.TURN_TICKS], seat, keys[g, KEY_REACTION + seat], state[g, Col.MOVES + seat],
                       state[g, Col.TAKEN_OVER + seat])
    state[g, Col.DUE + seat] = opens + ticks
    state[g, Col.DUE_TAKEOVER + seat] = late


@numba.njit(cache=True, inline="always")
def begin_clock(state, keys, timing, rules, g):
    """Tick 0 of round g: no turn taken, nothing logged; the starter's turn opens on tick 1. Each seat's
    reaction key is the round key, or the seed ``randomness.derive_seed`` makes of it on the stream that
    ``ReactionModel.key_stream`` names."""
    for seat in range(2):
        key = keys[g, KEY_ROUND]
        if timing.seats[seat, Seat.KEY_STREAM] != NO_KEY_STREAM:
            key = hash64(key, timing.seats[seat, Seat.KEY_STREAM], 0) >> _SEED_SHIFT
        keys[g, KEY_REACTION + seat] = key
    for seat in range(2):
        state[g, Col.OPENS + seat] = NEVER
        state[g, Col.DUE + seat] = NEVER
        state[g, Col.DUE_TAKEOVER + seat] = 0
        state[g, Col.TAKEN_OVER + seat] = 0
        state[g, Col.FALSE_STARTS + seat] = 0
        state[g, Col.LOGGED + seat] = 0
        state[g, Col.SENT + seat] = 0
        state[g, Col.FLIGHT + seat] = 0
        state[g, Col.DELAYS + seat] = 0
    state[g, Col.TICK] = 0
    state[g, Col.STEPS] = 0
    state[g, Col.NEEDS_RESET] = 0
    open_turn(state, keys, timing, rules, g, state[g, Col.STARTER], 1)


@numba.njit(cache=True, inline="always")
def draw(state, cards, keys, log, timing, rules, g, seat, tick, takeover):
    """``seat`` draws in round g on ``tick``: by itself, or, with ``takeover``, by the takeover bot
    (the seat is taken over from then on); then the next turn opens on the next tick. The caller
    made room in the seat's reaction log."""
    if not (state[g, Col.TAKEN_OVER + seat] or takeover):
        slot = state[g, Col.LOGGED + seat]
        log[g, seat, slot] = tick - state[g, Col.OPENS + seat]
        state[g, Col.LOGGED + seat] = slot + 1
    if takeover:
        state[g, Col.TAKEN_OVER + seat] = 1
    state[g, Col.TICK] = tick
    state[g, Col.OPENS + seat] = NEVER
    state[g, Col.DUE + seat] = NEVER
    revealed = lay(state, cards, keys, rules, g, seat)
    if state[g, Col.OVER]:
        state[g, Col.TURN] = NO_TURN
    else:  # the other seat may draw now, or the revealed step lets the starter open the next one
        open_turn(state, keys, timing, rules, g, state[g, Col.STARTER] if revealed else 1 - seat, tick + 1)


@numba.njit(cache=True)
def play_moves(state, cards, keys, log, timing, rules, g):
    """Round g to its end, every seat drawing on its due tick (both are bots by now); ``False`` when
    the reaction log is full (grow it and call again: the round goes on from where it stopped)."""
    room = log.shape[2]
    while not state[g, Col.OVER]:
        seat = state[g, Col.TURN]
        takeover = state[g, Col.DUE_TAKEOVER + seat] != 0
        if not (state[g, Col.TAKEN_OVER + seat] or takeover) and state[g, Col.LOGGED + seat] >= room:
            return False
        draw(state, cards, keys, log, timing, rules, g, seat, state[g, Col.DUE + seat], takeover)
    return True


# --- action latency: presses in flight -----------------------------------------------------------
_NIBBLE = np.int64(15)


@numba.njit(cache=True, inline="always")
def delay(keys, rules, delay_cdf, g, seat, press):
    """``TimedRound._delay``: the delay of the seat's ``press``-th press of round g."""
    if not rules[Rule.RANDOM_DELAY]:
        return rules[Rule.MAX_DELAY]
    bits = hash64(keys[g, KEY_ROUND], _LATENCY_STREAMS[seat], press)
    return np.int64(np.searchsorted(delay_cdf, uniform(bits), side="right"))


@numba.njit(cache=True, inline="always")
def send_and_land(state, keys, rules, delay_cdf, g, seat, press):
    """``TimedRound._landing`` on the batched state: send the seat's press of this tick (if ``press``) and
    return how many of its presses land in this tick. ``FLIGHT``'s bit a is a press sent a ticks before
    this tick, its delay - 1 in ``DELAYS``'s 4 bits at 4a: it lands now if its delay is a + 1; the others
    age by one (both columns shift), and the new press, unless it lands at once, takes bit 0."""
    flight = state[g, Col.FLIGHT + seat]
    delays = state[g, Col.DELAYS + seat]
    landing = np.int64(0)
    if flight:
        kept = np.int64(0)
        age = 0
        rest = flight
        while rest:
            if rest & 1:
                if ((delays >> (4 * age)) & _NIBBLE) == age:
                    landing += 1
                else:
                    kept |= np.int64(1) << age
            rest >>= 1
            age += 1
        flight = kept << 1
        delays <<= 4
    if press:
        sent = state[g, Col.SENT + seat]
        state[g, Col.SENT + seat] = sent + 1
        ticks = delay(keys, rules, delay_cdf, g, seat, sent)
        if ticks == 0:
            landing += 1
        else:
            flight |= 1
            delays = (delays & ~_NIBBLE) | (ticks - 1)
    state[g, Col.FLIGHT + seat] = flight
    state[g, Col.DELAYS + seat] = delays
    return landing


# --- move by move over a played card game: the fast path -----------------------------------
@numba.njit(cache=True)
def time_rounds(state, keys, seats, tables, cdfs, rules, idle, reactions0, reactions1):
    """The clock of whole rounds whose card game ``cards.play_cards`` played (``MOVES`` each): move j
    of the starter, then move j of the other seat, each drawn ``wait`` ticks after its turn opened, on
    the tick after the previous move. Sets ``TICK`` (the round's ticks), ``TAKEN_OVER``, ``LOGGED``
    (own draws) and ``STEPS`` (seat 0's env steps: to its takeover tick, if any); ``idle[g]`` gets
    seat 0's idle ticks in the steps before its last, and each seat's own reactions are packed into
    ``reactions0``/``reactions1``, round after round."""
    state, keys, seats, tables, cdfs, rules, idle = borrowed((state, keys, seats, tables, cdfs, rules, idle))
    timing = Timing(seats, tables, cdfs)
    packed = borrowed((reactions0, reactions1))
    at = np.zeros(2, dtype=np.int64)
    taken = np.zeros(2, dtype=np.bool_)
    turn_ticks = rules[Rule.TURN_TICKS]
    for g in range(state.shape[0]):
        starter = state[g, Col.STARTER]
        before = (at[0], at[1])
        taken[:] = False
        tick = steps = idle[g] = 0
        for move in range(state[g, Col.MOVES]):
            for seat in (starter, 1 - starter):
                ticks, late = wait(timing, turn_ticks, seat, keys[g, KEY_REACTION + seat], move, taken[seat])
                tick += 1 + ticks
                if taken[seat]:
                    continue
                if seat == 0:
                    idle[g] += ticks
                    if late:
                        steps = tick
                if late:
                    taken[seat] = True
                else:
                    packed[seat][at[seat]] = ticks
                    at[seat] += 1
        for seat in range(2):
            state[g, Col.TAKEN_OVER + seat] = taken[seat]
            state[g, Col.LOGGED + seat] = at[seat] - before[seat]
        state[g, Col.TICK] = tick
        state[g, Col.STEPS] = steps if taken[0] else tick
