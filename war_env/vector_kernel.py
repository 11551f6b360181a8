"""Compiled (numba) kernels for ``WarVectorEnv``: one tick of all N games in a plain loop over games.

An optional accelerator (``pip install war-env[fast]``): ``war_env.vector.WarVectorEnv(backend=...)``
uses it when numba imports. The kernels change, in place, the very arrays ``fastpath.BatchedRounds``
and ``WarVectorEnv`` keep, one game at a time, exactly as the numpy code changes them a batch at a
time: the same engine (``engine.Game``: lay, reveal, war, trick, pick-up, end checks), the same
clock (``clock.TimedRound``: turns, reactions, takeover), the SplitMix64 hash of ``randomness`` in
uint64 wrap-around arithmetic, and the observation's float64 formulas cast to float32.
``tests/test_vector.py`` runs every equality test over both backends.

The numpy version pays ~100 numpy calls on small index subsets per step; here a step is one call.
``time_rounds`` is the fast path's per-move clock (``fastpath._time_rounds``) the same way, proven
equal by ``tests/test_fastpath.py`` over both backends.

Two things keep the kernels fast: the game's arrays travel as named tuples of *borrowed* views
(``_borrowed``: no reference counting per call), and the functions on the path of every draw are
inlined (``inline="always"``; inlining all of them tripled the compile time for no gain).
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np
from numba.core import cgutils, types
from numba.extending import intrinsic

from war_env.cards import DECK_SIZE
from war_env.engine import ALL_CARDS, BATTLE_LIMIT, POINTS, POT_POSITIONS, WAR_SHORTAGE
from war_env.fastpath import NEVER, NO_CARD, NO_WINNER, REASON_CODE, _BUCKET_BITS, _reaction_table
from war_env.randomness import _GOLDEN, _MUL1, _MUL2, STREAM_PICKUP

_U_GOLDEN = np.uint64(_GOLDEN)
_U_MUL1 = np.uint64(_MUL1)
_U_MUL2 = np.uint64(_MUL2)
_STREAM_PICKUP = np.uint64(STREAM_PICKUP)
_DECK = DECK_SIZE
_NEVER = int(NEVER)
_NO_CARD = NO_CARD
_NO_WINNER = NO_WINNER
_ALL_CARDS = REASON_CODE[ALL_CARDS]
_POINTS = REASON_CODE[POINTS]
_BATTLE_LIMIT = REASON_CODE[BATTLE_LIMIT]
_WAR_SHORTAGE = REASON_CODE[WAR_SHORTAGE]
_POT_POSITIONS = POT_POSITIONS
_BUCKET_SHIFT = np.uint64(64 - _BUCKET_BITS)
_UNIFORM_SCALE = 1.0 / (1 << 53)



class Rules(NamedTuple):
    """The scalars of ``WarConfig`` the kernels need (``-1`` for a rule that is off)."""

    war_face_down: int
    cards_for_war: int
    target_points: int
    max_battles: int
    shuffled: bool
    turn_ticks: int
    track_idle: bool
    """Seat 0 is played by a model (the fast path): keep its idle ticks and takeover tick."""


class Timing(NamedTuple):
    """How each seat's reaction is drawn (``fastpath.ReactionModel``); ``has_model[seat]`` false
    marks a seat pressed from outside (the learner)."""

    has_model: np.ndarray  # bool (2,)
    stream: np.ndarray  # uint64 (2,)
    table: np.ndarray  # int16 (2, 2**16): the bucket table of ``fastpath._reaction_table``
    straddles: np.ndarray  # bool (2, 2**16)
    cdf0: np.ndarray  # float64
    cdf1: np.ndarray  # float64


class Rounds(NamedTuple):
    """The arrays of ``fastpath.BatchedRounds`` (same names, same layout)."""

    pile: np.ndarray
    head: np.ndarray
    count: np.ndarray
    pot: np.ndarray
    pot_len: np.ndarray
    face_up: np.ndarray
    drawn: np.ndarray
    visible: np.ndarray
    at_war: np.ndarray
    points: np.ndarray
    moves: np.ndarray
    battles: np.ndarray
    wars: np.ndarray
    tricks: np.ndarray
    starter: np.ndarray
    round_key: np.ndarray
    over: np.ndarray
    winner: np.ndarray
    reason: np.ndarray
    tick: np.ndarray
    turn: np.ndarray
    opens: np.ndarray
    due: np.ndarray
    due_takeover: np.ndarray
    taken_over: np.ndarray
    false_starts: np.ndarray
    reaction_key: np.ndarray
    reactions: np.ndarray
    n_reactions: np.ndarray
    idle_before_last: np.ndarray
    agent_steps: np.ndarray


class Observer(NamedTuple):
    """What ``WarVectorEnv`` adds: the observation buffer and the tables of its formulas."""

    observations: np.ndarray  # float32 (n, 16)
    timer_table: np.ndarray  # float32 (turn_ticks + 2, 2)
    scales: np.ndarray  # float64 (14,)
    tick_rewards: np.ndarray  # float64 (4,)
    outcomes: np.ndarray  # float64 (3,)
    steps: np.ndarray  # int64 (n,)
    needs_reset: np.ndarray  # bool (n,)
    max_episode_steps: int  # 0: no limit


def rules_of(config, track_idle: bool) -> Rules:
    return Rules(
        war_face_down=config.war_face_down, cards_for_war=config.cards_for_war,
        target_points=-1 if config.target_points is None else config.target_points,
        max_battles=-1 if config.max_battles is None else config.max_battles,
        shuffled=config.pickup == "shuffled", turn_ticks=config.turn_ticks, track_idle=track_idle,
    )


def timing_of(models) -> Timing:
    has_model = np.array([model is not None for model in models])
    stream = np.array([0 if model is None else model.stream for model in models], dtype=np.uint64)
    table = np.zeros((2, 1 << _BUCKET_BITS), dtype=np.int16)
    straddles = np.zeros((2, 1 << _BUCKET_BITS), dtype=bool)
    cdfs = []
    for seat, model in enumerate(models):
        if model is None:
            cdfs.append(np.zeros(1, dtype=np.float64))
            continue
        table[seat], straddles[seat] = _reaction_table(tuple(model.cdf))
        cdfs.append(np.asarray(model.cdf, dtype=np.float64))
    return Timing(has_model, stream, table, straddles, cdfs[0], cdfs[1])


def rounds_of(batched) -> Rounds:
    return Rounds(*(getattr(batched, name) for name in Rounds._fields))


# --- borrowed views ----------------------------------------------------------------------------
@intrinsic
def _borrowed(typingctx, group):
    """The (named) tuple ``group`` with every array's reference count (its NRT meminfo) left out.

    Why: numba increfs and decrefs every array of a tuple argument on entry to and exit from each
    function it is passed to, an atomic operation each; with ~30 arrays per call that cost more than
    the game itself (a profile showed ~40% of the time in ``lock inc``/``lock dec``). The arrays are
    owned by ``BatchedRounds``/``WarVectorEnv`` and outlive every kernel call; the views never leave it."""
    def codegen(context, builder, signature, args):
        value = args[0]
        for index, member in enumerate(group.types):
            if isinstance(member, types.Array):
                array = context.make_array(member)(context, builder, builder.extract_value(value, index))
                array.meminfo = cgutils.get_null_value(array.meminfo.type)
                value = builder.insert_value(value, array._getvalue(), index)
        return value

    return group(group), codegen


# --- randomness.hash64 in uint64 -------------------------------------------------------------
@numba.njit(cache=True, inline="always")
def _mix64(x):
    x = x + _U_GOLDEN
    x = (x ^ (x >> np.uint64(30))) * _U_MUL1
    x = (x ^ (x >> np.uint64(27))) * _U_MUL2
    return x ^ (x >> np.uint64(31))


@numba.njit(cache=True, inline="always")
def hash64(round_key, stream, counter):
    return _mix64(round_key ^ _mix64((stream << np.uint64(48)) ^ np.uint64(counter)))


# --- the card game: engine.Game ------------------------------------------------------------
@numba.njit(cache=True, inline="always")
def _pop(r: Rounds, row):
    head = r.head[row]
    card = r.pile[row, head]
    r.head[row] = (head + 1) % _DECK
    r.count[row] -= 1
    return card


@numba.njit(cache=True, inline="always")
def _to_pot(r: Rounds, g, card):
    r.pot[g, r.pot_len[g]] = card
    r.pot_len[g] += 1


@numba.njit(cache=True, inline="always")
def _append(r: Rounds, row, cards, length):
    tail = r.head[row] + r.count[row]
    for i in range(length):
        r.pile[row, (tail + i) % _DECK] = cards[i]
    r.count[row] += length


@numba.njit(cache=True)
def _pick_up(r: Rounds, rules: Rules, g, winner):
    """``Game._pick_up``: the pot in the order laid, or sorted by ``(hash key, card)``."""
    n = r.over.shape[0]
    length = r.pot_len[g]
    cards = r.pot[g]  # sorted in place when shuffled: the pot is empty after the pick-up
    if rules.shuffled:
        keys = np.empty(length, dtype=np.uint64)
        base = r.tricks[g] * _POT_POSITIONS
        for i in range(length):
            keys[i] = hash64(r.round_key[g], _STREAM_PICKUP, base + i)
        for i in range(1, length):  # insertion sort of (key, card) pairs, as sorted(zip(keys, pot))
            key, card = keys[i], cards[i]
            j = i - 1
            while j >= 0 and (keys[j] > key or (keys[j] == key and cards[j] > card)):
                keys[j + 1], cards[j + 1] = keys[j], cards[j]
                j -= 1
            keys[j + 1], cards[j + 1] = key, card
    _append(r, winner * n + g, cards, length)
    r.pot_len[g] = 0


@numba.njit(cache=True)
def _move_pile(r: Rounds, g, from_seat, to_seat):
    n = r.over.shape[0]
    source = from_seat * n + g
    length = r.count[source]
    cards = np.empty(length, dtype=r.pile.dtype)
    for i in range(length):
        cards[i] = r.pile[source, (r.head[source] + i) % _DECK]
    _append(r, to_seat * n + g, cards, length)
    r.count[source] = 0


@numba.njit(cache=True, inline="always")
def _end(r: Rounds, g, winner, reason):
    r.over[g] = True
    r.winner[g] = winner
    r.reason[g] = reason


@numba.njit(cache=True)
def _start_war(r: Rounds, rules: Rules, g):
    n = r.over.shape[0]
    r.wars[g] += 1
    short0 = r.count[g] < rules.cards_for_war
    short1 = r.count[g + n] < rules.cards_for_war
    if short0 and short1:
        _end(r, g, _NO_WINNER, _WAR_SHORTAGE)
    elif short0 or short1:
        winner = 1 if short0 else 0
        _pick_up(r, rules, g, winner)
        _move_pile(r, g, 1 - winner, winner)
        _end(r, g, winner, _WAR_SHORTAGE)
    else:
        r.at_war[g] = True


@numba.njit(cache=True, inline="always")
def _take_trick(r: Rounds, rules: Rules, g, winner):
    n = r.over.shape[0]
    _pick_up(r, rules, g, winner)
    r.points[winner, g] += 1
    r.tricks[g] += 1
    r.at_war[g] = False
    if r.count[(1 - winner) * n + g] == 0:
        _end(r, g, winner, _ALL_CARDS)
    elif rules.target_points >= 0 and r.points[winner, g] >= rules.target_points:
        _end(r, g, winner, _POINTS)
    elif rules.max_battles >= 0 and r.battles[g] >= rules.max_battles:
        _end(r, g, _NO_WINNER, _BATTLE_LIMIT)


@numba.njit(cache=True, inline="always")
def _reveal(r: Rounds, rules: Rules, g):
    first, second = r.face_up[0, g], r.face_up[1, g]
    r.visible[0, g], r.visible[1, g] = first, second
    r.face_up[0, g] = r.face_up[1, g] = _NO_CARD
    r.drawn[0, g] = r.drawn[1, g] = False
    rank0, rank1 = first >> 2, second >> 2
    if rank0 == rank1:
        _start_war(r, rules, g)
    else:
        _take_trick(r, rules, g, 1 if rank1 > rank0 else 0)


@numba.njit(cache=True, inline="always")
def _lay(r: Rounds, rules: Rules, g, seat):
    """``Game.draw``: returns whether the step was completed (and revealed)."""
    row = seat * r.over.shape[0] + g
    if r.at_war[g]:
        for _ in range(rules.war_face_down):
            _to_pot(r, g, _pop(r, row))
    elif seat == r.starter[g]:
        r.battles[g] += 1
    card = _pop(r, row)
    _to_pot(r, g, card)
    r.face_up[seat, g] = card
    r.drawn[seat, g] = True
    r.moves[seat, g] += 1
    revealed = r.drawn[1 - seat, g]
    if revealed:
        _reveal(r, rules, g)
    return revealed


# --- the clock: clock.TimedRound ---------------------------------------------------------------
@numba.njit(cache=True, inline="always")
def _reaction(r: Rounds, rules: Rules, timing: Timing, g, seat):
    if r.taken_over[seat, g]:
        return 0
    if not timing.has_model[seat]:
        return rules.turn_ticks
    return _sample(timing, seat, r.reaction_key[seat, g], r.moves[seat, g])


@numba.njit(cache=True, inline="always")
def _open_turn(r: Rounds, rules: Rules, timing: Timing, g, seat, opens):
    r.turn[g] = seat
    r.opens[seat, g] = opens
    reaction = _reaction(r, rules, timing, g, seat)
    r.due[seat, g] = opens + min(reaction, rules.turn_ticks - 1)
    r.due_takeover[seat, g] = reaction >= rules.turn_ticks


@numba.njit(cache=True, inline="always")
def _draw(r: Rounds, rules: Rules, timing: Timing, g, seat, tick, takeover):
    """``BatchedRounds.draw`` for one game (the caller made room in the reaction log)."""
    opened = r.opens[seat, g]
    if not (r.taken_over[seat, g] or takeover):
        slot = r.n_reactions[seat, g]
        r.reactions[seat, g, slot] = tick - opened
        r.n_reactions[seat, g] = slot + 1
    if takeover:
        r.taken_over[seat, g] = True
    r.tick[g] = tick
    r.opens[seat, g] = _NEVER
    r.due[seat, g] = _NEVER
    revealed = _lay(r, rules, g, seat)
    if r.over[g]:
        r.turn[g] = -1
    else:
        _open_turn(r, rules, timing, g, r.starter[g] if revealed else 1 - seat, tick + 1)


@numba.njit(cache=True)
def _play_moves(r: Rounds, rules: Rules, timing: Timing, g):
    """``BatchedRounds.play_moves`` for one game; ``False`` (nothing changed by the last attempt)
    when the reaction log is full."""
    room = r.reactions.shape[2]
    while not r.over[g]:
        seat = r.turn[g]
        tick = r.due[seat, g]
        takeover = r.due_takeover[seat, g]
        if not (r.taken_over[seat, g] or takeover) and r.n_reactions[seat, g] >= room:
            return False
        if rules.track_idle and seat == 0 and not r.taken_over[0, g]:
            r.idle_before_last[g] += tick - r.opens[0, g]
            if takeover:
                r.agent_steps[g] = tick
        _draw(r, rules, timing, g, seat, tick, takeover)
    return True


# --- the env: WarVectorEnv.step ------------------------------------------------------------------
@numba.njit(cache=True, inline="always")
def observe_timer(r: Rounds, o: Observer, g):
    """Columns 0-1 of row ``g`` (``WarVectorEnv._refresh_timer``): they change on every tick."""
    left = min(r.due[0, g] - r.tick[g], o.timer_table.shape[0] - 1)
    o.observations[g, 0] = o.timer_table[left, 0]
    o.observations[g, 1] = o.timer_table[left, 1]


@numba.njit(cache=True, inline="always")
def observe(r: Rounds, o: Observer, g):
    """Row ``g`` of the observation: ``WarVectorEnv._observe_rows`` and ``_refresh_timer``."""
    n = r.over.shape[0]
    out = o.observations
    observe_timer(r, o, g)
    visible0, visible1 = r.visible[0, g], r.visible[1, g]
    counts = (
        np.float64(r.drawn[0, g]), np.float64(r.drawn[1, g]), np.float64(r.count[g]), np.float64(r.count[g + n]),
        np.float64((visible0 >> 2) + 2 if visible0 >= 0 else 0), np.float64((visible1 >> 2) + 2 if visible1 >= 0 else 0),
        np.float64(r.at_war[g]), np.float64(r.pot_len[g]), np.float64(r.points[0, g]), np.float64(r.points[1, g]),
        np.float64(r.battles[g]), np.float64(r.starter[g] == 0), np.float64(r.taken_over[0, g]),
        np.float64(r.taken_over[1, g]),
    )
    for k in range(14):
        out[g, 2 + k] = np.float32(min(counts[k] / o.scales[k], 1.0))


@numba.njit(cache=True)
def observe_rows(r: Rounds, o: Observer, games):
    r, o = _borrowed(r), _borrowed(o)
    for i in range(games.shape[0]):
        observe(r, o, games[i])


@numba.njit(cache=True, inline="always")
def _finish(r: Rounds, o: Observer, g, rewards, terminated, truncated, moved):
    """The end of game ``g``'s step; only a move (``moved``) changes more than the timer columns."""
    if moved:
        observe(r, o, g)
    else:
        observe_timer(r, o, g)
    over = r.over[g]
    cut = o.max_episode_steps > 0 and o.steps[g] >= o.max_episode_steps
    terminated[g] = over
    truncated[g] = cut
    if over:
        rewards[g] += o.outcomes[r.winner[g] + 1]
    o.needs_reset[g] = over or cut


@numba.njit(cache=True)
def valid_actions(actions):
    for i in range(actions.shape[0]):
        if actions[i] != 0 and actions[i] != 1:
            return False
    return True


@numba.njit(cache=True)
def step(r: Rounds, rules: Rules, timing: Timing, o: Observer, actions, rewards, terminated, truncated,
         resets, playouts):
    """One env step of every game. Games due an autoreset are listed in ``resets`` (the caller
    deals them), games whose seat 0 was taken over in ``playouts`` (their play-out, observation and
    end are ``finish_playouts``'s). Returns ``(resets, playouts, ended, most reactions logged)``."""
    r, timing, o = _borrowed(r), _borrowed(timing), _borrowed(o)
    n = r.over.shape[0]
    n_resets = n_playouts = n_ended = 0
    most = 0
    for g in range(n):
        if o.needs_reset[g]:
            rewards[g] = 0.0
            terminated[g] = truncated[g] = False
            resets[n_resets] = g
            n_resets += 1
            continue
        r.tick[g] += 1
        tick = r.tick[g]
        press = actions[g] == 1
        open0 = r.opens[0, g] <= tick
        false_start = press and not open0
        idle = open0 and not press
        takeover0 = idle and r.due[0, g] == tick
        rewards[g] = o.tick_rewards[np.int64(false_start) + 2 * np.int64(idle) + np.int64(takeover0)]
        r.false_starts[0, g] += false_start
        o.steps[g] += 1
        moved = (press and open0) or takeover0 or r.due[1, g] == tick
        if moved:
            seat = r.turn[g]
            _draw(r, rules, timing, g, seat, tick, takeover0 or (seat == 1 and r.due_takeover[1, g]))
            if takeover0:
                playouts[n_playouts] = g
                n_playouts += 1
                continue
        _finish(r, o, g, rewards, terminated, truncated, moved)
        n_ended += terminated[g]
        most = max(most, r.n_reactions[0, g], r.n_reactions[1, g])
    return n_resets, n_playouts, n_ended, most


@numba.njit(cache=True)
def finish_playouts(r: Rounds, rules: Rules, timing: Timing, o: Observer, games, rewards, terminated, truncated):
    """Play out the taken-over games and finish their step. Returns the position in ``games`` of a
    game whose reaction log is full (grow it and call again from there), or -1 when all are done,
    and how many of them ended."""
    r, timing, o = _borrowed(r), _borrowed(timing), _borrowed(o)
    n_ended = 0
    for i in range(games.shape[0]):
        g = games[i]
        if not _play_moves(r, rules, timing, g):
            return i, n_ended
        _finish(r, o, g, rewards, terminated, truncated, True)
        n_ended += terminated[g]
    return -1, n_ended


# --- the fast path's per-move clock: fastpath._time_rounds ---------------------------------------
@numba.njit(cache=True, inline="always")
def _sample(timing: Timing, seat, key, counter):
    """``sample_reaction(cdf, hash_uniform(key, stream, counter))`` through the bucket table."""
    bits = hash64(key, timing.stream[seat], counter)
    bucket = bits >> _BUCKET_SHIFT
    if not timing.straddles[seat, bucket]:
        return np.int64(timing.table[seat, bucket])
    uniform = np.float64(bits >> np.uint64(11)) * _UNIFORM_SCALE
    cdf = timing.cdf0 if seat == 0 else timing.cdf1
    return np.int64(np.searchsorted(cdf, uniform, side="right"))


@numba.njit(cache=True)
def _delays(timing: Timing, seat, key, moves, turn_ticks, delay, reactions, offset):
    """A seat's wait before each of its ``moves`` moves into ``delay`` (its reaction until its first
    late move, ``turn_ticks - 1`` on that one, 0 after: the takeover bot is instant), its own
    reactions into ``reactions[offset:]``; returns the move it was taken over on (``moves`` if none)."""
    taken_at = moves
    for move in range(moves):
        reaction = _sample(timing, seat, key, move)
        if reaction >= turn_ticks:
            taken_at = move
            break
        delay[move] = reaction
        reactions[offset + move] = reaction
    for move in range(taken_at, moves):
        delay[move] = turn_ticks - 1 if move == taken_at else 0
    return taken_at


@numba.njit(cache=True)
def time_rounds(timing: Timing, turn_ticks, starters, keys0, keys1, moves, ticks, steps, takeover, idle, counts,
                reactions0, reactions1):
    """``fastpath._time_rounds`` round by round: move j of a seat waits its delay after its turn opens,
    the turn opens the tick after the previous move. Fills ``ticks``, ``steps``, ``takeover`` (2, k),
    ``idle`` (seat 0's idle ticks before its last step), ``counts`` (2, k: own moves) and each seat's
    own reactions, round after round, packed (round i's start is the sum of the counts before it)."""
    timing = _borrowed(timing)
    longest = 0
    for i in range(moves.shape[0]):
        longest = max(longest, moves[i])
    delay0 = np.zeros(longest + 1, dtype=np.int64)
    delay1 = np.zeros(longest + 1, dtype=np.int64)
    packed0 = packed1 = 0
    for i in range(moves.shape[0]):
        m = moves[i]
        taken0 = _delays(timing, 0, keys0[i], m, turn_ticks, delay0, reactions0, packed0)
        taken1 = _delays(timing, 1, keys1[i], m, turn_ticks, delay1, reactions1, packed1)
        counts[0, i], counts[1, i] = taken0, taken1
        packed0 += taken0
        packed1 += taken1
        takeover[0, i], takeover[1, i] = taken0 < m, taken1 < m
        total = earlier = own_idle = 0
        for move in range(m):
            both = delay0[move] + delay1[move]
            total += both
            if move < taken0:
                earlier += both
                own_idle += delay0[move]
        ticks[i] = 2 * m + total
        if taken0 < m:  # seat 0's env steps end on its takeover tick
            opened = 1 if starters[i] == 0 else 2 + delay1[taken0]  # seat 1 started: it moved first
            steps[i] = earlier + 2 * taken0 + opened + turn_ticks - 1
            idle[i] = own_idle + turn_ticks - 1
        else:
            steps[i] = ticks[i]
            idle[i] = own_idle
