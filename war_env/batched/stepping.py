"""The vector env's transitions on the batched state, compiled: one env step of every round in one
loop, the deals of its resets, and seat 0's observation.

``step`` does for each round what ``WarEnv.step`` does for one: the tick (seat 0's press, the
opponent bot's due draw, seat 0's takeover: ``clock.draw``), the play-out of a round whose seat 0 was
taken over (``clock.play_moves``), the reward (the tick's timing reward, then the outcome), the
``TimeLimit`` cut and the observation, and it starts the next round where the last step ended one
(Gymnasium's NEXT_STEP autoreset: the three draws of ``deal.draw_deal`` from the round's own
``numpy`` Generator, which numba drives to exactly numpy's numbers).
"""

from __future__ import annotations

import numba
import numpy as np

from war_env.batched.borrow import borrowed
from war_env.batched.cards import begin_cards, deal_deck
from war_env.batched.clock import begin_clock, draw, play_moves
from war_env.batched.layout import KEY_ROUND, Col
from war_env.cards import DECK_SIZE
from war_env.observation import OBSERVATION_SIZE

_RANK_VALUE_OFFSET = 2
"""``cards.rank_value``: rank index + 2."""


# --- seat 0's observation: observation.seat_counts, encoded as observation.encode ------------
@numba.njit(cache=True, inline="always")
def _ticks_left(state, rules, g):
    """``TimedRound.ticks_left(0)``: ticks seat 0 still has to draw, counting the next tick."""
    next_tick = state[g, Col.TICK] + 1
    opens = state[g, Col.OPENS]
    if opens > next_tick:
        return np.int64(0)
    return rules.turn_ticks - (next_tick - opens)


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
    left = _ticks_left(state, rules, g)
    out[g, 0] = _encode(np.int64(left > 0), divisors[0])
    out[g, 1] = _encode(left, divisors[1])
    masks[g, 1] = left > 0


@numba.njit(cache=True, inline="always")
def observe(state, rules, divisors, out, masks, g):
    """Row g of the observation: seat 0's counts in ``OBSERVATION_FIELDS`` order, encoded."""
    observe_timer(state, rules, divisors, out, masks, g)
    counts = (
        state[g, Col.DRAWN], state[g, Col.DRAWN + 1], state[g, Col.COUNT], state[g, Col.COUNT + 1],
        _rank_value(state[g, Col.VISIBLE]), _rank_value(state[g, Col.VISIBLE + 1]), state[g, Col.AT_WAR],
        state[g, Col.POT], state[g, Col.POINTS], state[g, Col.POINTS + 1], state[g, Col.BATTLES],
        np.int64(state[g, Col.STARTER] == 0), state[g, Col.TAKEN_OVER], state[g, Col.TAKEN_OVER + 1],
    )
    for k in range(OBSERVATION_SIZE - 2):
        out[g, 2 + k] = _encode(counts[k], divisors[2 + k])


# --- starting rounds ---------------------------------------------------------------------------
@numba.njit(cache=True, inline="always")
def _deal(rng, state, cards, keys, g):
    """``deal.draw_deal``: a shuffled deck, the starter, the round key, in this order."""
    deal_deck(state, cards, g, rng.permutation(DECK_SIZE))
    state[g, Col.STARTER] = rng.integers(0, 2)
    keys[g, KEY_ROUND] = rng.integers(0, 1 << 63)


@numba.njit(cache=True, inline="always")
def _begin(state, cards, keys, timing, rules, divisors, observations, masks, g):
    begin_cards(state, g)
    begin_clock(state, keys, timing, rules, g)
    observe(state, rules, divisors, observations, masks, g)


@numba.njit(cache=True)
def deal_rounds(rngs, games, state, cards, keys):
    """The deal of each of ``games`` from its generator (``rngs[g]``)."""
    for g in games:
        _deal(rngs[g], state, cards, keys, g)


@numba.njit(cache=True)
def load_decks(decks, state, cards):
    """Round i's piles from ``decks[i]`` (seat 0 gets the first half, top card first)."""
    for g in range(decks.shape[0]):
        deal_deck(state, cards, g, decks[g])


@numba.njit(cache=True)
def start_rounds(games, state, cards, keys, timing, rules):
    """Each of ``games`` starts the round its piles, ``STARTER`` and round key hold: tick 0."""
    for g in games:
        begin_cards(state, g)
        begin_clock(state, keys, timing, rules, g)


@numba.njit(cache=True)
def observe_rows(games, state, rules, divisors, observations, masks):
    for g in games:
        observe(state, rules, divisors, observations, masks, g)


# --- WarEnv.step for every round -----------------------------------------------------------------
@numba.njit(cache=True)
def valid_actions(actions):
    for g in range(actions.shape[0]):
        if actions[g] != 0 and actions[g] != 1:
            return False
    return True


@numba.njit(cache=True, inline="always")
def _finish(state, rules, divisors, outcomes, observations, masks, rewards, terminated, truncated, g, moved):
    """The end of round g's env step: its observation (only a draw changes more than the timer), the
    outcome, the flags, and whether the next step starts a new round. Returns whether it ended."""
    if moved:
        observe(state, rules, divisors, observations, masks, g)
    else:
        observe_timer(state, rules, divisors, observations, masks, g)
    over = state[g, Col.OVER] != 0
    cut = rules.max_episode_steps > 0 and state[g, Col.STEPS] >= rules.max_episode_steps
    terminated[g] = over
    truncated[g] = cut
    if over:
        rewards[g] += outcomes[state[g, Col.WINNER] + 1]
    state[g, Col.NEEDS_RESET] = over or cut
    return over


@numba.njit(cache=True)
def step(state, cards, keys, log, rngs, timing, rules, divisors, tick_rewards, outcomes, actions, observations, masks,
         rewards, terminated, truncated, pending):
    """One env step of every round, seat 0 pressing ``actions[g]`` (0 or 1, checked by the caller).
    ``tick_rewards[false_start + 2 * idle + takeover]`` is seat 0's reward of a tick, ``outcomes[winner
    + 1]`` of a round's end. A round whose play-out filled its reaction log is listed in ``pending``
    (grow the log, then ``finish_playouts``). Returns the rounds that ended, the pending ones, and
    the most entries a reaction log holds (the caller keeps room for one more)."""
    state, cards, keys, log, timing, divisors = borrowed((state, cards, keys, log, timing, divisors))
    tick_rewards, outcomes, actions, observations, masks = borrowed((tick_rewards, outcomes, actions, observations, masks))
    rewards, terminated, truncated, pending = borrowed((rewards, terminated, truncated, pending))
    ended = n_pending = most = 0
    for g in range(state.shape[0]):
        if state[g, Col.NEEDS_RESET]:  # NEXT_STEP autoreset: a new round; the action is ignored
            _deal(rngs[g], state, cards, keys, g)
            _begin(state, cards, keys, timing, rules, divisors, observations, masks, g)
            rewards[g] = 0.0
            terminated[g] = truncated[g] = False
            continue
        tick = state[g, Col.TICK] + 1
        state[g, Col.TICK] = tick
        state[g, Col.STEPS] += 1
        press = actions[g] == 1
        is_open = state[g, Col.OPENS] <= tick
        false_start = press and not is_open
        idle = is_open and not press
        takeover = idle and state[g, Col.DUE] == tick  # seat 0 is due on the last tick of its turn
        rewards[g] = tick_rewards[np.int64(false_start) + 2 * np.int64(idle) + np.int64(takeover)]
        state[g, Col.FALSE_STARTS] += false_start
        moved = (press and is_open) or takeover or state[g, Col.DUE + 1] == tick
        if moved:
            seat = state[g, Col.TURN]
            draw(state, cards, keys, log, timing, rules, g, seat, tick,
                 takeover or (seat == 1 and state[g, Col.DUE_TAKEOVER + 1] != 0))
            if takeover and not play_moves(state, cards, keys, log, timing, rules, g):
                pending[n_pending] = g
                n_pending += 1
                continue
        ended += _finish(state, rules, divisors, outcomes, observations, masks, rewards, terminated, truncated, g, moved)
        most = max(most, state[g, Col.LOGGED], state[g, Col.LOGGED + 1])
    return ended, n_pending, most


@numba.njit(cache=True)
def finish_playouts(state, cards, keys, log, timing, rules, divisors, outcomes, observations, masks, rewards,
                    terminated, truncated, games):
    """Play out the taken-over rounds ``games`` and finish their step. Returns how many ended, and the
    position in ``games`` of one whose reaction log is full again (-1 when all are done)."""
    state, cards, keys, log, timing, divisors = borrowed((state, cards, keys, log, timing, divisors))
    outcomes, observations, masks = borrowed((outcomes, observations, masks))
    rewards, terminated, truncated, games = borrowed((rewards, terminated, truncated, games))
    ended = 0
    for i in range(games.shape[0]):
        g = games[i]
        if not play_moves(state, cards, keys, log, timing, rules, g):
            return ended, i
        ended += _finish(state, rules, divisors, outcomes, observations, masks, rewards, terminated, truncated, g, True)
    return ended, -1
