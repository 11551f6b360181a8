"""The clock of ``clock.TimedRound`` on one round's state record, compiled: turns, reactions, takeover.

One rule, ``wait``, decides when a seat draws and whether the takeover bot does it: once a seat's turn
opens it draws by itself after its reaction (a bot's, or an agent's reaction model), sampled from the hash
of its key, stream and move number; a reaction of ``turn_ticks`` or more misses the timer, and the takeover
bot draws for it on the last tick of the turn (``core.clock.times_out``) and plays the seat from then on,
at once. A seat pressed from outside is due there too, unless it draws first. A turn opens on the tick
after the draw that allows it. Two ways to play it, both from ``wait``:

* event by event (``open_turn``, ``draw``, ``play_moves``): the vector env's ticks and its play-out
  after a takeover, where cards and clock move together;
* move by move over a finished card game (``time_rounds``): the fast path's closed form. The cards
  never depend on timing, so the ticks of a whole round follow from its number of moves alone.

``r`` is a round's record (``state.ROUND``), ``p`` the game's parameters (``state.PARAMS``), ``tables`` and
``cdfs`` the seats' reaction models (``models.reaction_tables``).
"""

from __future__ import annotations

import numba
import numpy as np

from war_env.batched.borrow import borrowed
from war_env.batched.cards import lay
from war_env.batched.hashing import hash64, uniform
from war_env.batched.models import BUCKET_BITS, UNSURE
from war_env.batched.state import BY_CARD, BY_ROUND, BY_SCORE, NEVER, NO_CARD, NO_KEY_STREAM, NO_TURN
from war_env.core.randomness import SEED_SHIFT, STREAM_LATENCY, Stream

_BUCKET_SHIFT = np.uint64(64 - BUCKET_BITS)
_SEED_SHIFT = np.uint64(SEED_SHIFT)
_LATENCY_STREAMS = tuple(int(stream) for stream in STREAM_LATENCY)
_OPPONENT_POOL = int(Stream.OPPONENT_POOL)
_UNTIL_OVER = 1 << 62
"""Moves of a round whose card game ``time_rounds`` plays itself: it stops at the round's end."""


@numba.njit(cache=True, inline="always")
def reaction(r, p, tables, cdfs, seat, move):
    """``bots.sample_reaction(cdf, hash_uniform(key, stream, move))`` of the seat's model, from its CDF of
    ``r.choice[seat]`` (its only one unless it varies): the bucket table of the hash's top bits, a binary
    search where a CDF value cuts the bucket."""
    bits = hash64(r.reaction_key[seat], p.stream[seat], move)
    choice = r.choice[seat] if tables.shape[1] > 1 else 0  # one CDF a seat (the array's shape): no load
    tick = tables[seat, choice, bits >> _BUCKET_SHIFT]
    if tick != UNSURE:
        return np.int64(tick)
    return np.int64(np.searchsorted(cdfs[seat, choice], uniform(bits), side="right"))


@numba.njit(cache=True, inline="always")
def wait(r, p, tables, cdfs, seat, move, taken_over):
    """Ticks from the opening of the seat's turn to its draw, and whether that draw is the takeover
    bot's: the reaction if it is in time; ``turn_ticks - 1`` and the takeover if not (a seat pressed
    from outside, without a model, is due there too, unless it draws first); 0 once taken over."""
    if taken_over:
        return np.int64(0), False
    turn_ticks = p.turn_ticks
    ticks = turn_ticks
    if p.has_model[seat]:
        ticks = reaction(r, p, tables, cdfs, seat, move)
    if ticks >= turn_ticks:
        return np.int64(turn_ticks - 1), True
    return ticks, False


@numba.njit(cache=True, inline="always")
def choose_by_table(r, p, seat):
    """A seat whose model reads the table samples, in the turn opening now, its CDF of the context: by score (a
    ``leader``, ``VariesByScore.context``), 1 if it has more points than the other seat, else 0; by card (a
    ``parity``, ``VariesByCard.context``), 1 if the rank value of its last face-up card is even, else 0 (and 0
    before its first: a card's rank value is ``(card >> 2) + 2``)."""
    if p.varies[seat] == BY_SCORE:
        r.choice[seat] = np.int64(r.points[seat] > r.points[1 - seat])
    elif p.varies[seat] == BY_CARD:
        card = r.visible[seat]
        r.choice[seat] = np.int64(card != NO_CARD and ((card >> 2) + 2) % 2 == 0)


@numba.njit(cache=True, inline="always")
def reads_table(p, seat):
    """Whether the seat's model picks its CDF from the table as each of its turns opens (``choose_by_table``)."""
    return p.varies[seat] == BY_SCORE or p.varies[seat] == BY_CARD


@numba.njit(cache=True, inline="always")
def choose_by_round(r, p):
    """Each seat's CDF for the whole round: a ``pool``'s member, ``Pool.member_of`` (``sample_tick`` of its
    cumulative prior at ``hash_uniform(round_key, Stream.OPPONENT_POOL, seat)``); 0 for any other model."""
    for seat in range(2):
        r.choice[seat] = 0
        if p.varies[seat] == BY_ROUND:
            u = uniform(hash64(r.round_key, _OPPONENT_POOL, seat))
            member = np.searchsorted(p.prior_cdf[seat], u, side="right")
            r.choice[seat] = min(np.int64(member), p.choices[seat] - 1)


@numba.njit(cache=True, inline="always")
def takes_over(r, seat, tick):
    """Whether the seat, with no draw of its own in this tick, is taken over in it: its turn is open
    and its due draw (``wait``) falls on this tick, the turn's last, as the takeover bot's."""
    return r.opens[seat] <= tick and r.due[seat] == tick and r.due_takeover[seat] != 0


# --- event by event: the vector env ----------------------------------------------------------
@numba.njit(cache=True, inline="always")
def open_turn(r, p, tables, cdfs, seat, opens):
    """The seat's turn opens on tick ``opens``; its own draw (or takeover) is due after its wait."""
    r.turn = seat
    r.opens[seat] = opens
    if tables.shape[1] > 1:  # some seat has several CDFs (its shape, not a load)
        choose_by_table(r, p, seat)
    ticks, late = wait(r, p, tables, cdfs, seat, r.moves[seat], r.takeover[seat])
    r.due[seat] = opens + ticks
    r.due_takeover[seat] = late


@numba.njit(cache=True, inline="always")
def begin_clock(r, p, tables, cdfs):
    """Tick 0 of the round: no turn taken, nothing logged; the starter's turn opens on tick 1. Each seat's
    reaction key is the round key, or the seed ``randomness.derive_seed`` makes of it on the stream that
    ``ReactionModel.key_stream`` names."""
    for seat in range(2):
        key = r.round_key
        if p.key_stream[seat] != NO_KEY_STREAM:
            key = hash64(key, p.key_stream[seat], 0) >> _SEED_SHIFT
        r.reaction_key[seat] = key
        r.opens[seat] = NEVER
        r.due[seat] = NEVER
        r.due_takeover[seat] = 0
        r.takeover[seat] = 0
        r.false_starts[seat] = 0
        r.logged[seat] = 0
        r.sent[seat] = 0
        r.flight[seat] = 0
        r.delays[seat] = 0
        r.last_reaction[seat] = 0
    choose_by_round(r, p)
    r.ticks = 0
    r.steps = 0
    r.needs_reset = 0
    open_turn(r, p, tables, cdfs, np.int64(r.starter), 1)


@numba.njit(cache=True, inline="always")
def draw(r, log, p, tables, cdfs, seat, tick, takeover):
    """``seat`` draws on ``tick``: by itself, or, with ``takeover``, by the takeover bot (the seat is
    taken over from then on); then the next turn opens on the next tick. ``log`` is the round's reaction
    log (2, capacity); the caller made room in the seat's row."""
    if not (r.takeover[seat] or takeover):
        slot = r.logged[seat]
        ticks = tick - r.opens[seat]
        log[seat, slot] = ticks
        r.logged[seat] = slot + 1
        r.last_reaction[seat] = ticks + 1
    if takeover:
        r.takeover[seat] = 1
    r.ticks = tick
    r.opens[seat] = NEVER
    r.due[seat] = NEVER
    revealed = lay(r, p, seat)
    if r.over:
        r.turn = NO_TURN
    else:  # the other seat may draw now, or the revealed step lets the starter open the next one
        open_turn(r, p, tables, cdfs, np.int64(r.starter) if revealed else 1 - seat, tick + 1)


@numba.njit(cache=True)
def play_moves(r, log, p, tables, cdfs):
    """The round to its end, every seat drawing on its due tick (both are bots by now); ``False`` when
    the reaction log is full (grow it and call again: the round goes on from where it stopped)."""
    room = log.shape[1]
    while not r.over:
        seat = np.int64(r.turn)
        takeover = r.due_takeover[seat] != 0
        if not (r.takeover[seat] or takeover) and r.logged[seat] >= room:
            return False
        draw(r, log, p, tables, cdfs, seat, r.due[seat], takeover)
    return True


# --- action latency: presses in flight -----------------------------------------------------------
_NIBBLE = np.int64(15)


@numba.njit(cache=True, inline="always")
def delay(r, p, seat, press):
    """``TimedRound._delay``: the delay of the seat's ``press``-th press of the round."""
    if not p.random_delay:
        return p.max_delay
    bits = hash64(r.round_key, _LATENCY_STREAMS[seat], press)
    return np.int64(np.searchsorted(p.delay_cdf, uniform(bits), side="right"))


@numba.njit(cache=True, inline="always")
def send_and_land(r, p, seat, press):
    """``TimedRound._landing`` on the record: send the seat's press of this tick (if ``press``) and return
    how many of its presses land in this tick. ``flight``'s bit a is a press sent a ticks before this tick,
    its delay - 1 in ``delays``'s 4 bits at 4a: it lands now if its delay is a + 1; the others age by one
    (both fields shift), and the new press, unless it lands at once, takes bit 0."""
    flight = r.flight[seat]
    delays = r.delays[seat]
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
        sent = r.sent[seat]
        r.sent[seat] = sent + 1
        ticks = delay(r, p, seat, sent)
        if ticks == 0:
            landing += 1
        else:
            flight |= 1
            delays = (delays & ~_NIBBLE) | (ticks - 1)
    r.flight[seat] = flight
    r.delays[seat] = delays
    return landing


# --- move by move over a played card game: the fast path -----------------------------------
@numba.njit(cache=True)
def time_rounds(state, rules, idle, reactions):
    """The clock of whole rounds whose card game ``cards.play_cards`` played (``moves`` each): move j
    of the starter, then move j of the other seat, each drawn ``wait`` ticks after its turn opened, on
    the tick after the previous move. Sets ``ticks`` (the round's), ``takeover``, ``logged`` (own draws)
    and ``steps`` (seat 0's env steps: to its takeover tick, if any); ``idle[g]`` gets seat 0's idle ticks
    in the steps before its last, and each seat's own reactions are packed into its array of ``reactions``,
    round after round. ``rules``: ``state.Rules``.

    A seat whose reactions read the table (a ``leader``, a ``parity``) reads it as each of its turns opens, so
    there the card game is not played beforehand: the rounds come as ``start`` left them, and each move is laid
    (``cards.lay``) right after its wait, the table read before it (``choose_by_table``)."""
    params, _, _ = rules
    p = params[0]
    if reads_table(p, 0) or reads_table(p, 1):
        _time_rounds(state, rules, idle, reactions, True)
    else:
        _time_rounds(state, rules, idle, reactions, None)


@numba.njit(cache=True)
def _time_rounds(state, rules, idle, reactions, with_cards):
    """``time_rounds``: ``with_cards`` is ``None`` (the card games were played: numba compiles this body without
    the card game's branches, which are pruned for a ``None`` argument) or ``True`` (lay the cards here)."""
    state, (params, tables, cdfs), idle, packed = borrowed((state, rules, idle, reactions))
    p = params[0]
    at = np.zeros(2, dtype=np.int64)
    taken = np.zeros(2, dtype=np.bool_)
    for g in range(state.shape[0]):
        r = state[g]
        starter = np.int64(r.starter)  # a byte in the record: a seat is an int64 here
        before = (at[0], at[1])
        taken[:] = False
        tick = steps = idle[g] = 0
        for move in range(r.moves[0] if with_cards is None else _UNTIL_OVER):
            if with_cards is not None and r.over:
                break
            for seat in (starter, 1 - starter):
                if with_cards is not None:
                    choose_by_table(r, p, seat)
                ticks, late = wait(r, p, tables, cdfs, seat, move, taken[seat])
                tick += 1 + ticks
                if with_cards is not None:
                    lay(r, p, seat)
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
            r.takeover[seat] = taken[seat]
            r.logged[seat] = at[seat] - before[seat]
        r.ticks = tick
        r.steps = steps if taken[0] else tick
