"""The vector env's transitions on the batched state, compiled: one env step of every round in one
loop, the deals of its resets, and seat 0's observation.

``step`` does for each round what ``WarEnv.step`` does for one: the tick (seat 0's press, the
opponent bot's due draw, seat 0's takeover: ``clock.draw``), the play-out of a round whose seat 0 was
taken over (``clock.play_moves``), the reward (the tick's timing reward, then the outcome), the
``TimeLimit`` cut and the observation, and it starts the next round where the last step ended one
(Gymnasium's NEXT_STEP autoreset: the three draws of ``deal.draw_deal`` from the round's own
``numpy`` Generator, which numba drives to exactly numpy's numbers: ``generators``).
"""

from __future__ import annotations

import numba
import numpy as np

from war_env.batched.borrow import borrowed
from war_env.batched.cards import begin_cards, deal_deck
from war_env.batched.clock import begin_clock, draw, play_moves, send_and_land
from war_env.batched.generators import generator
from war_env.batched.layout import KEY_ROUND, Col, Rule
from war_env.batched.models import Timing
from war_env.core.cards import DECK_SIZE
from war_env.core.observation import LATENCY_EXTRA_FIELDS, OBSERVATION_SIZE

_RANK_VALUE_OFFSET = 2
"""``cards.rank_value``: rank index + 2."""
_IN_FLIGHT = OBSERVATION_SIZE + len(LATENCY_EXTRA_FIELDS)
"""Column of ``in_flight_0`` in the latency observation (``observation.latency_fields``)."""


# --- seat 0's observation: observation.seat_counts, encoded as observation.encode ------------
@numba.njit(cache=True, inline="always")
def _ticks_left(state, rules, g, seat):
    """``TimedRound.ticks_left(seat)``: ticks the seat still has to draw, counting the next tick."""
    next_tick = state[g, Col.TICK] + 1
    opens = state[g, Col.OPENS + seat]
    if opens > next_tick:
        return np.int64(0)
    return rules[Rule.TURN_TICKS] - (next_tick - opens)


@numba.njit(cache=True, inline="always")
def _encode(count, divisor):
    return np.float32(min(np.float64(count) / divisor, 1.0))


@numba.njit(cache=True, inline="always")
def _rank_value(card):
    return np.int64(0) if card < 0 else (card >> 2) + _RANK_VALUE_OFFSET


@numba.njit(cache=True, inline="always")
def observe_timer(state, rules, divisors, out, masks, g):
    """The first two fields (can_draw, timer_left), the only ones a tick without a draw changes, and
    the action mask (``observation.action_mask``: a draw is in turn)."""
    left = _ticks_left(state, rules, g, 0)
    out[g, 0] = _encode(np.int64(left > 0), divisors[0])
    out[g, 1] = _encode(left, divisors[1])
    masks[g, 1] = left > 0


@numba.njit(cache=True, inline="always")
def observe(state, rules, divisors, out, masks, g):
    """Row g of the observation: seat 0's counts in ``OBSERVATION_FIELDS`` order (``observation.seat_counts``),
    encoded. (Written out field by field: a loop over a tuple of the counts was measurably slower.)"""
    observe_timer(state, rules, divisors, out, masks, g)
    out[g, 2] = _encode(state[g, Col.DRAWN], divisors[2])
    out[g, 3] = _encode(state[g, Col.DRAWN + 1], divisors[3])
    out[g, 4] = _encode(state[g, Col.COUNT], divisors[4])
    out[g, 5] = _encode(state[g, Col.COUNT + 1], divisors[5])
    out[g, 6] = _encode(_rank_value(state[g, Col.VISIBLE]), divisors[6])
    out[g, 7] = _encode(_rank_value(state[g, Col.VISIBLE + 1]), divisors[7])
    out[g, 8] = _encode(state[g, Col.AT_WAR], divisors[8])
    out[g, 9] = _encode(state[g, Col.POT], divisors[9])
    out[g, 10] = _encode(state[g, Col.POINTS], divisors[10])
    out[g, 11] = _encode(state[g, Col.POINTS + 1], divisors[11])
    out[g, 12] = _encode(state[g, Col.BATTLES], divisors[12])
    out[g, 13] = _encode(np.int64(state[g, Col.STARTER] == 0), divisors[13])
    out[g, 14] = _encode(state[g, Col.TAKEN_OVER], divisors[14])
    out[g, 15] = _encode(state[g, Col.TAKEN_OVER + 1], divisors[15])
    if out.shape[1] > OBSERVATION_SIZE:
        observe_latency(state, rules, divisors, out, g)


@numba.njit(cache=True, inline="always")
def observe_latency(state, rules, divisors, out, g):
    """The fields the latency observation adds (``observation.observe_latency``): the opponent's clock,
    scaled as seat 0's own, and seat 0's presses in flight by age. They change on every tick."""
    left = _ticks_left(state, rules, g, 1)
    out[g, OBSERVATION_SIZE] = _encode(np.int64(left > 0), 1.0)
    out[g, OBSERVATION_SIZE + 1] = _encode(left, divisors[1])
    flight = state[g, Col.FLIGHT]
    for age in range(rules[Rule.MAX_DELAY]):
        out[g, _IN_FLIGHT + age] = np.float32((flight >> age) & 1)


# --- starting rounds ---------------------------------------------------------------------------
@numba.njit(cache=True, inline="always")
def _deal(rngs, state, cards, keys, g):
    """``deal.draw_deal`` from round g's generator: a shuffled deck, the starter, the round key."""
    rng = generator(rngs[g, 0], rngs[g, 1], rngs[g, 2], rngs[g, 3])
    deal_deck(state, cards, g, rng.permutation(DECK_SIZE))
    state[g, Col.STARTER] = rng.integers(0, 2)
    keys[g, KEY_ROUND] = rng.integers(0, 1 << 63)


@numba.njit(cache=True, inline="always")
def _begin(state, cards, keys, timing, rules, divisors, observations, masks, g):
    begin_cards(state, g)
    begin_clock(state, keys, timing, rules, g)
    observe(state, rules, divisors, observations, masks, g)


@numba.njit(cache=True)
def reset_rounds(rngs, games, piles, pile_counts, starters, state, cards, keys, seats, tables, cdfs, rules, divisors,
                 observations, masks):
    """A new round in each of ``games``: the deal from its generator (``rngs[g]``: ``generators.pointers_of``
    it), then, where given, dealt piles (``pile_counts[i, seat]`` cards of ``piles[i, seat]``; -1: keep the
    deal's) and a starter (``starters[i]``; -1: keep the drawn one); its first observation."""
    state, cards, keys, rngs, seats, tables, cdfs, rules, divisors, observations, masks = borrowed(
        (state, cards, keys, rngs, seats, tables, cdfs, rules, divisors, observations, masks))
    timing = Timing(seats, tables, cdfs)
    for i in range(games.shape[0]):
        g = games[i]
        _deal(rngs, state, cards, keys, g)
        for seat in range(2):
            if pile_counts[i, seat] >= 0:
                cards[g, seat, :pile_counts[i, seat]] = piles[i, seat, :pile_counts[i, seat]]
                state[g, Col.COUNT + seat] = pile_counts[i, seat]
        if starters[i] >= 0:
            state[g, Col.STARTER] = starters[i]
        _begin(state, cards, keys, timing, rules, divisors, observations, masks, g)


@numba.njit(cache=True)
def start_decks(decks, starters, round_keys, state, cards, keys, seats, tables, cdfs, rules):
    """Round i starts from ``decks[i]`` (seat 0 gets the first half), ``starters[i]`` and ``round_keys[i]``."""
    state, cards, keys, seats, tables, cdfs, rules = borrowed((state, cards, keys, seats, tables, cdfs, rules))
    timing = Timing(seats, tables, cdfs)
    for g in range(decks.shape[0]):
        deal_deck(state, cards, g, decks[g])
        state[g, Col.STARTER] = starters[g]
        keys[g, KEY_ROUND] = round_keys[g]
        begin_cards(state, g)
        begin_clock(state, keys, timing, rules, g)


@numba.njit(cache=True)
def start_rounds(state, cards, keys, seats, tables, cdfs, rules):
    """Every round starts from the piles, ``STARTER`` and round key it holds (explicit deals)."""
    state, cards, keys, seats, tables, cdfs, rules = borrowed((state, cards, keys, seats, tables, cdfs, rules))
    timing = Timing(seats, tables, cdfs)
    for g in range(state.shape[0]):
        begin_cards(state, g)
        begin_clock(state, keys, timing, rules, g)


# --- WarEnv.step for every round -----------------------------------------------------------------
@numba.njit(cache=True, inline="always")
def _finish(state, rules, divisors, outcomes, observations, masks, rewards, terminated, truncated, g, moved):
    """The end of round g's env step: its observation, the outcome, the flags, and whether the next step
    starts a new round. Returns whether it ended. Only a draw changes more than the timer fields, and
    those only while seat 0's turn is open or opens on the next tick (else they stay 0: not rewritten);
    the latency observation's own fields are rewritten on every step."""
    if moved:
        observe(state, rules, divisors, observations, masks, g)
    else:
        if state[g, Col.OPENS] <= state[g, Col.TICK] + 1:
            observe_timer(state, rules, divisors, observations, masks, g)
        if observations.shape[1] > OBSERVATION_SIZE:
            observe_latency(state, rules, divisors, observations, g)
    over = state[g, Col.OVER] != 0
    cut = rules[Rule.MAX_EPISODE_STEPS] > 0 and state[g, Col.STEPS] >= rules[Rule.MAX_EPISODE_STEPS]
    terminated[g] = over
    truncated[g] = cut
    if over:
        rewards[g] += outcomes[state[g, Col.WINNER] + 1]
    state[g, Col.NEEDS_RESET] = over or cut
    return over


@numba.njit(cache=True)
def step(state, cards, keys, log, rngs, seats, tables, cdfs, rules, delay_cdf, divisors, tick_rewards, outcomes,
         actions, observations, masks, rewards, terminated, truncated, pending):
    """One env step of every round, seat 0 pressing ``actions[g]``: 0 or 1, else nothing changes and
    ``(-1, 0, 0)`` is returned. With latency the press is sent, and the presses landing in this tick act
    (``clock.send_and_land``, ``delay_cdf`` the latency's CDF), as ``TimedRound.tick``: the first draws if
    seat 0's turn is open, the others are false starts (none after the round's last draw).
    ``tick_rewards[false_start + 2 * idle + takeover]`` is seat 0's reward of a tick with at most one false
    start, ``outcomes[winner + 1]`` of a round's end. A round whose play-out filled its reaction log is
    listed in ``pending`` (grow the log, then ``finish_playouts``). Returns the rounds that ended, the
    pending ones, and the most entries a reaction log holds (the caller keeps room for one more)."""
    for g in range(actions.shape[0]):
        if actions[g] != 0 and actions[g] != 1:
            return -1, 0, 0
    state, cards, keys, log, rngs, seats, tables, cdfs, rules, delay_cdf, divisors = borrowed(
        (state, cards, keys, log, rngs, seats, tables, cdfs, rules, delay_cdf, divisors))
    timing = Timing(seats, tables, cdfs)
    tick_rewards, outcomes, actions, observations, masks = borrowed((tick_rewards, outcomes, actions, observations, masks))
    rewards, terminated, truncated, pending = borrowed((rewards, terminated, truncated, pending))
    delayed = rules[Rule.MAX_DELAY] > 0
    ended = n_pending = most = 0
    for g in range(state.shape[0]):
        if state[g, Col.NEEDS_RESET]:  # NEXT_STEP autoreset: a new round; the action is ignored
            _deal(rngs, state, cards, keys, g)
            _begin(state, cards, keys, timing, rules, divisors, observations, masks, g)
            rewards[g] = 0.0
            terminated[g] = truncated[g] = False
            continue
        tick = state[g, Col.TICK] + 1
        state[g, Col.TICK] = tick
        state[g, Col.STEPS] += 1
        press = actions[g] == 1
        landing = send_and_land(state, keys, rules, delay_cdf, g, 0, press) if delayed else np.int64(press)
        is_open = state[g, Col.OPENS] <= tick
        draws = is_open and landing > 0
        false_starts = landing - np.int64(draws)
        idle = is_open and landing == 0
        takeover = idle and state[g, Col.DUE] == tick  # seat 0 is due on the last tick of its turn
        moved = draws or takeover or state[g, Col.DUE + 1] == tick
        if moved:
            seat = state[g, Col.TURN]
            draw(state, cards, keys, log, timing, rules, g, seat, tick,
                 takeover or (seat == 1 and state[g, Col.DUE_TAKEOVER + 1] != 0))
            if draws and false_starts and state[g, Col.OVER]:  # presses landing after the round's last draw: nothing
                false_starts = 0
        rewards[g] = tick_rewards[min(false_starts, 1) + 2 * np.int64(idle) + np.int64(takeover)]
        if false_starts:
            state[g, Col.FALSE_STARTS] += false_starts
            if false_starts > 1:  # summed one by one, as TimedRound.tick does
                rewards[g] = 0.0
                for _ in range(false_starts):
                    rewards[g] += tick_rewards[1]
        if takeover:
            state[g, Col.FLIGHT] = 0  # presses in flight no longer act (observed as landed)
            if not play_moves(state, cards, keys, log, timing, rules, g):
                pending[n_pending] = g
                n_pending += 1
                continue
        if moved:
            most = max(most, state[g, Col.LOGGED], state[g, Col.LOGGED + 1])
        ended += _finish(state, rules, divisors, outcomes, observations, masks, rewards, terminated, truncated, g, moved)
    return ended, n_pending, most


@numba.njit(cache=True)
def finish_playouts(state, cards, keys, log, seats, tables, cdfs, rules, divisors, outcomes, observations, masks,
                    rewards, terminated, truncated, games):
    """Play out the taken-over rounds ``games`` and finish their step. Returns how many ended, and the
    position in ``games`` of one whose reaction log is full again (-1 when all are done)."""
    state, cards, keys, log, seats, tables, cdfs, rules, divisors = borrowed(
        (state, cards, keys, log, seats, tables, cdfs, rules, divisors))
    timing = Timing(seats, tables, cdfs)
    outcomes, observations, masks = borrowed((outcomes, observations, masks))
    rewards, terminated, truncated, games = borrowed((rewards, terminated, truncated, games))
    ended = 0
    for i in range(games.shape[0]):
        g = games[i]
        if not play_moves(state, cards, keys, log, timing, rules, g):
            return ended, i
        ended += _finish(state, rules, divisors, outcomes, observations, masks, rewards, terminated, truncated, g, True)
    return ended, -1
