"""The vector env's transitions on the batched state, compiled: one env step of every round in one
loop, the deals of its resets, and seat 0's observation.

``step`` does for each round what ``WarEnv.step`` does for one: the tick (seat 0's press, the
opponent bot's due draw, seat 0's takeover: ``clock.draw``), the play-out of a round whose seat 0 was
taken over (``clock.play_moves``), the reward (``params.tick_rewards`` of the tick, then the outcome), the
``TimeLimit`` cut and the observation. With ``params.restart`` it starts a new round where the last step ended
one (Gymnasium's next-step autoreset: the three draws of ``deal.draw_deal`` from the round's own ``numpy``
Generator, which numba drives to exactly numpy's numbers: ``generators``); without, the caller restarts
the rounds that ended itself (``reset_rounds``: the same-step and disabled autoreset modes).

The kernels take the engine's arrays in the bundles of ``state``: ``rounds`` (``RoundArrays``: the records,
the reaction logs, the generators), ``rules`` (``Rules``: the ``PARAMS`` record and the seats' reaction
tables), ``outputs`` (``StepOutputs``), plus what a call starts rounds from (``Resets``, ``Deals``).
``step`` checks its input once, before any round moves (``check_step``), and raises ``InvalidAction`` or
``RoundOver`` for a step that must not be taken.
"""

from __future__ import annotations

import numba
import numpy as np

from war_env.batched.borrow import borrowed
from war_env.batched.cards import begin_cards, deal_deck
from war_env.batched.generators import generator
from war_env.batched.state import ENCODED, INFERENCE_OBSERVATION, LATENCY_OBSERVATION, InvalidAction, RoundOver
from war_env.batched.turn_clock import begin_clock, draw, play_moves, send_and_land, takes_over
from war_env.core.cards import DECK_SIZE
from war_env.core.observation import LATENCY_EXTRA_FIELDS, OBSERVATION_SIZE

_RANK_VALUE_OFFSET = 2
"""``cards.rank_value``: rank index + 2."""
_IN_FLIGHT = OBSERVATION_SIZE + len(LATENCY_EXTRA_FIELDS)
"""Column of ``in_flight_0`` in the latency observation (``observation.latency_fields``)."""


# --- seat 0's observation: observation.seat_counts, encoded as observation.encode ------------
@numba.njit(cache=True, inline="always")
def _ticks_left(r, p, seat):
    """``TimedRound.ticks_left(seat)``: ticks the seat still has to draw, counting the next tick."""
    next_tick = r.ticks + 1
    opens = r.opens[seat]
    if opens > next_tick:
        return np.int64(0)
    return p.turn_ticks - (next_tick - opens)


@numba.njit(cache=True, inline="always")
def _encode(count, divisor):
    return np.float32(min(np.float64(count) / divisor, 1.0))


@numba.njit(cache=True, inline="always")
def _encoded(p, field, count):
    """``_encode(count, p.divisors[field])``: read from ``p.encoded`` for a small count (a division costs
    more than the rest of a field's observation)."""
    if 0 <= count < ENCODED:
        return p.encoded[field, count]
    return _encode(count, p.divisors[field])


@numba.njit(cache=True, inline="always")
def _rank_value(card):
    return np.int64(0) if card < 0 else (card >> 2) + _RANK_VALUE_OFFSET


@numba.njit(cache=True, inline="always")
def observe_timer(r, p, out, mask):
    """The first two fields (can_draw, timer_left), the only ones a tick without a draw changes, and
    the action mask (``observation.action_mask``: a draw is in turn)."""
    left = _ticks_left(r, p, 0)
    out[0] = _encoded(p, 0, np.int64(left > 0))
    out[1] = _encoded(p, 1, left)
    mask[1] = left > 0


@numba.njit(cache=True, inline="always")
def observe(r, p, out, mask):
    """Seat 0's observation into ``out``: its counts in ``OBSERVATION_FIELDS`` order
    (``observation.seat_counts``), encoded. (Written out field by field: a loop over a tuple of the counts
    was measurably slower.)"""
    observe_timer(r, p, out, mask)
    out[2] = _encoded(p, 2, r.drawn[0])
    out[3] = _encoded(p, 3, r.drawn[1])
    out[4] = _encoded(p, 4, r.cards[0])
    out[5] = _encoded(p, 5, r.cards[1])
    out[6] = _encoded(p, 6, _rank_value(r.visible[0]))
    out[7] = _encoded(p, 7, _rank_value(r.visible[1]))
    out[8] = _encoded(p, 8, r.at_war)
    out[9] = _encoded(p, 9, r.pot)
    out[10] = _encoded(p, 10, r.points[0])
    out[11] = _encoded(p, 11, r.points[1])
    out[12] = _encoded(p, 12, r.battles)
    out[13] = _encoded(p, 13, np.int64(r.starter == 0))
    out[14] = _encoded(p, 14, r.takeover[0])
    out[15] = _encoded(p, 15, r.takeover[1])
    if p.observation >= LATENCY_OBSERVATION:
        observe_latency(r, p, out)


@numba.njit(cache=True, inline="always")
def observe_latency(r, p, out):
    """The fields the latency observation adds (``observation.observe_latency``): the opponent's clock,
    scaled as seat 0's own, and seat 0's presses in flight by age. They change on every tick. With the
    inference observation (``params.observation``) one more column, the inference probe's
    (``observation.observe_inference``): the opponent's last own reaction
    + 1 over the turn's ticks, at most 1, 0 before its first."""
    left = _ticks_left(r, p, 1)
    out[OBSERVATION_SIZE] = _encode(np.int64(left > 0), 1.0)
    out[OBSERVATION_SIZE + 1] = _encoded(p, 1, left)
    flight = r.flight[0]
    for age in range(p.max_delay):
        out[_IN_FLIGHT + age] = np.float32((flight >> age) & 1)
    if p.observation == INFERENCE_OBSERVATION:  # the inference probe's opponent_reaction, scaled as timer_left
        out[_IN_FLIGHT + p.max_delay] = _encoded(p, 1, r.last_reaction[1])


# --- starting rounds ---------------------------------------------------------------------------
@numba.njit(cache=True, inline="always")
def _deal(pointers, r):
    """``deal.draw_deal`` from the round's generator: a shuffled deck, the starter, the round key."""
    rng = generator(pointers[0], pointers[1], pointers[2], pointers[3])
    deal_deck(r, rng.permutation(DECK_SIZE))
    r.starter = rng.integers(0, 2)
    r.round_key = rng.integers(0, 1 << 63)


@numba.njit(cache=True, inline="always")
def _begin(r, p, tables, cdfs, out, mask):
    begin_cards(r)
    begin_clock(r, p, tables, cdfs)
    observe(r, p, out, mask)


@numba.njit(cache=True)
def reset_rounds(rounds, rules, resets, observations, masks):
    """A new round in each of ``resets.games`` (``state.Resets``): the deal from its generator, then, where
    given, the dealt piles and starter; its first observation."""
    (state, _, generator_pointers), (params, tables, cdfs) = borrowed(rounds), borrowed(rules)
    games, piles, pile_counts, starters = resets
    observations, masks = borrowed((observations, masks))
    p = params[0]
    for i in range(games.shape[0]):
        g = games[i]
        r = state[g]
        _deal(generator_pointers[g], r)
        for seat in range(2):
            if pile_counts[i, seat] >= 0:
                r.piles[seat, : pile_counts[i, seat]] = piles[i, seat, : pile_counts[i, seat]]
                r.cards[seat] = pile_counts[i, seat]
        if starters[i] >= 0:
            r.starter = starters[i]
        _begin(r, p, tables, cdfs, observations[g], masks[g])


@numba.njit(cache=True)
def start_decks(state, rules, deals):
    """Round i starts from the deal of ``deals`` (``state.Deals``): ``decks[i]``, ``starters[i]``, ``round_keys[i]``."""
    state, (params, tables, cdfs) = borrowed(state), borrowed(rules)
    decks, starters, round_keys = deals
    p = params[0]
    for g in range(decks.shape[0]):
        r = state[g]
        deal_deck(r, decks[g])
        r.starter = starters[g]
        r.round_key = round_keys[g]
        begin_cards(r)
        begin_clock(r, p, tables, cdfs)


@numba.njit(cache=True)
def start_rounds(state, rules):
    """Every round starts from the piles, ``starter`` and round key it holds (explicit deals)."""
    state, (params, tables, cdfs) = borrowed(state), borrowed(rules)
    p = params[0]
    for g in range(state.shape[0]):
        r = state[g]
        begin_cards(r)
        begin_clock(r, p, tables, cdfs)


# --- WarEnv.step for every round -----------------------------------------------------------------
@numba.njit(cache=True, inline="always")
def check_step(state, p, actions):
    """What ``step`` needs of its input, checked before any round moves: ``InvalidAction``, ``RoundOver``
    (the first such round)."""
    for g in range(actions.shape[0]):
        if actions[g] != 0 and actions[g] != 1:
            raise InvalidAction()
    if not p.restart:
        for g in range(state.shape[0]):
            if state[g].needs_reset:
                raise RoundOver(g)


@numba.njit(cache=True, inline="always")
def _finish(r, p, g, outputs, moved, latency):
    """The end of round g's env step: its observation, the outcome, the flags, and whether the next step
    starts a new round. Returns whether it ended. Only a draw changes more than the timer fields, and
    those only while seat 0's turn is open or opens on the next tick (else they stay 0: not rewritten);
    the latency observation's own fields are rewritten on every step (``latency``: as ``step``'s)."""
    observations, masks, rewards, terminated, truncated = outputs
    out, mask = observations[g], masks[g]
    if moved:
        observe(r, p, out, mask)
    else:
        if r.opens[0] <= r.ticks + 1:
            observe_timer(r, p, out, mask)
        if latency is not None and p.observation >= LATENCY_OBSERVATION:
            observe_latency(r, p, out)
    over = r.over != 0
    cut = p.max_episode_steps > 0 and r.steps >= p.max_episode_steps
    terminated[g] = over
    truncated[g] = cut
    if over:
        rewards[g] += p.outcomes[r.winner + 1]
    r.needs_reset = over or cut
    return over


@numba.njit(cache=True)
def step(rounds, rules, actions, outputs, pending, latency):
    """One env step of every round, seat 0 pressing ``actions[g]``, 0 or 1. With latency the press is sent,
    and the presses landing in this tick act (``clock.send_and_land``), as ``TimedRound.tick``: the first
    draws if seat 0's turn is open, the others are false starts (none after the round's last draw). The
    reward is ``params.tick_rewards`` of the tick (one entry per false start when several land) plus
    ``params.outcomes`` at a round's end.

    A round that ended in an earlier step starts again here (``params.restart``; its action is ignored). A
    round whose play-out filled its reaction log is listed in ``pending`` (grow the log, then
    ``finish_playouts``). Returns the rounds that ended, the pending ones, and the most entries a reaction
    log holds (the caller keeps room for one more). Raises ``InvalidAction`` or ``RoundOver``
    (``check_step``) for a step that must not be taken, before any round moves.

    ``latency``: ``True`` if the rules have latency or seat 0 is shown the latency observation
    (``uses_latency``), else ``None``: numba then compiles the step without their branches, which cost War-v0's
    step at N = 4096 several microseconds."""
    (state, log, generator_pointers), (params, tables, cdfs) = borrowed(rounds), borrowed(rules)
    actions, outputs, pending = borrowed((actions, outputs, pending))
    observations, masks, rewards, terminated, truncated = outputs
    p = params[0]
    check_step(state, p, actions)
    ended = n_pending = most = 0
    for g in range(state.shape[0]):
        r = state[g]
        if r.needs_reset:
            _deal(generator_pointers[g], r)  # next-step autoreset: a new round; the action is ignored
            _begin(r, p, tables, cdfs, observations[g], masks[g])
            rewards[g] = 0.0
            terminated[g] = truncated[g] = False
            continue
        tick = r.ticks + 1
        r.ticks = tick
        r.steps += 1
        press = actions[g] == 1
        landing = np.int64(press)
        if latency is not None and p.max_delay > 0:
            landing = send_and_land(r, p, 0, press)
        is_open = r.opens[0] <= tick
        draws = is_open and landing > 0
        false_starts = landing - np.int64(draws)
        idle = is_open and landing == 0
        takeover = idle and takes_over(r, 0, tick)
        moved = draws or takeover or r.due[1] == tick
        if moved:
            seat = np.int64(r.turn)
            draw(r, log[g], p, tables, cdfs, seat, tick, takeover or (seat == 1 and r.due_takeover[1] != 0))
            if draws and false_starts and r.over:  # presses landing after the round's last draw: nothing
                false_starts = 0
        rewards[g] = p.tick_rewards[min(false_starts, 1) + 2 * np.int64(idle) + np.int64(takeover)]
        if false_starts:
            r.false_starts[0] += false_starts
            if latency is not None and false_starts > 1:  # several landed: one false start's reward each, summed
                # as rewards.tick_reward does
                rewards[g] = 0.0
                for _ in range(false_starts):
                    rewards[g] += p.tick_rewards[1]
        if takeover:
            r.flight[0] = 0  # presses in flight no longer act (observed as landed)
            if not play_moves(r, log[g], p, tables, cdfs):
                pending[n_pending] = g
                n_pending += 1
                continue
        if moved:
            most = max(most, r.logged[0], r.logged[1])
        ended += _finish(r, p, g, outputs, moved, latency)
    return ended, n_pending, most


def uses_latency(params: np.ndarray) -> bool | None:
    """``step``'s ``latency`` for a game of ``params``: ``True`` if it has latency or shows the latency
    observation, else ``None``."""
    p = params[0]
    return True if p["max_delay"] > 0 or p["observation"] >= LATENCY_OBSERVATION else None


@numba.njit(cache=True)
def finish_playouts(rounds, rules, games, outputs):
    """Play out the taken-over rounds ``games`` and finish their step. Returns how many ended, and the
    position in ``games`` of one whose reaction log is full again (-1 when all are done)."""
    (state, log, _), (params, tables, cdfs) = borrowed(rounds), borrowed(rules)
    games, outputs = borrowed((games, outputs))
    p = params[0]
    ended = 0
    for i in range(games.shape[0]):
        g = games[i]
        r = state[g]
        if not play_moves(r, log[g], p, tables, cdfs):
            return ended, i
        ended += _finish(r, p, g, outputs, True, True)
    return ended, -1


# --- reading finished rounds -----------------------------------------------------------------------
@numba.njit(cache=True)
def read_rounds(rounds, games, words):
    """The numbers of the rounds ``games`` (``rows[i]``: round ``games[i]``'s int64 words ``words`` of its
    record, ``state.reported_words``), how many reactions each seat logged (``counts[i]``), and those
    reactions packed seat by seat, round after round, as int64. One call instead of a numpy gather per field:
    the vector env reads the rounds that ended on most of its steps."""
    state, log, _ = rounds
    flat = state.view(np.int64).reshape(state.shape[0], -1)
    rows = np.empty((games.shape[0], words.shape[0]), dtype=np.int64)
    counts = np.empty((games.shape[0], 2), dtype=np.int64)
    for i in range(games.shape[0]):
        for j in range(words.shape[0]):
            rows[i, j] = flat[games[i], words[j]]
        counts[i, 0], counts[i, 1] = state[games[i]].logged[0], state[games[i]].logged[1]
    totals = counts.sum(axis=0)
    reactions0, reactions1 = np.empty(totals[0], dtype=np.int64), np.empty(totals[1], dtype=np.int64)
    at0 = at1 = 0
    for i in range(games.shape[0]):
        for k in range(counts[i, 0]):
            reactions0[at0] = log[games[i], 0, k]
            at0 += 1
        for k in range(counts[i, 1]):
            reactions1[at1] = log[games[i], 1, k]
            at1 += 1
    return rows, counts, reactions0, reactions1


@numba.njit(cache=True)
def write_rounds(rounds, games, words, columns, blank, blanked):
    """The vector env's ``info["round"]`` columns of the rounds ``games`` that ended, in place: ``columns`` is
    ``(numbers, takeover)``, ``numbers`` the int64 words of one ``info_dtype`` record per sub-env, ``takeover``
    bools ``(n, 2)``. The rows ``blanked`` (those written last) get the ``blank`` words and no takeover; row
    ``games[i]`` gets round ``games[i]``'s ``words`` of its record (``state.reported_words``) and its takeover
    flags. Returns each seat's reactions of those rounds packed round after round, as int64, and ``bounds``:
    round i's of seat s are ``bounds[i, s]`` to ``bounds[i + 1, s]``. One call for what numpy did in a dozen:
    the vector env writes its info on most of its steps."""
    (state, log, _), games, words = borrowed(rounds), borrowed(games), borrowed(words)
    (numbers, takeover), blank, blanked = borrowed(columns), borrowed(blank), borrowed(blanked)
    flat = state.view(np.int64).reshape(state.shape[0], -1)
    for i in range(blanked.shape[0]):
        g = blanked[i]
        numbers[g, :] = blank
        takeover[g, 0] = takeover[g, 1] = False
    bounds = np.zeros((games.shape[0] + 1, 2), dtype=np.int64)
    for i in range(games.shape[0]):
        g = games[i]
        r = state[g]
        for j in range(words.shape[0]):
            numbers[g, j] = flat[g, words[j]]
        for seat in range(2):
            takeover[g, seat] = r.takeover[seat] != 0
            bounds[i + 1, seat] = bounds[i, seat] + r.logged[seat]
    reactions0 = np.empty(bounds[games.shape[0], 0], dtype=np.int64)
    reactions1 = np.empty(bounds[games.shape[0], 1], dtype=np.int64)
    for i in range(games.shape[0]):
        g = games[i]
        for k in range(bounds[i + 1, 0] - bounds[i, 0]):
            reactions0[bounds[i, 0] + k] = log[g, 0, k]
        for k in range(bounds[i + 1, 1] - bounds[i, 1]):
            reactions1[bounds[i, 1] + k] = log[g, 1, k]
    return reactions0, reactions1, bounds
