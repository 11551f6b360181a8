"""Rounds of War batched in numpy: the card game of ``engine`` and the timer of ``clock`` for
thousands of rounds at once, and the fast path for whole rounds that no learner plays.

Two facts of the design make this possible (see ``randomness``):

* the cards of a round never depend on timing, and every random number inside a round is a hash of
  ``(round_key, stream, counter)``, so a batch computes exactly the numbers the single env computes;
* a bot's draw time is known as soon as its turn opens (opening tick + reaction), so a round played
  by two reaction-time models can be advanced *move by move* instead of tick by tick.

``BatchedRounds`` holds the state of ``n`` rounds (game and clock) in arrays and changes only
through ``draw(games, seats, ticks, takeover)`` (one move in each of the given games) and
``play_moves`` (every given game draws at its due tick until its round ends). ``WarVectorEnv``
(``war_env.vector``) drives it tick by tick with a learner at seat 0, and plays out a taken-over
round with ``play_moves``.

The fast path proper, ``simulate`` (and ``play_rounds``, which returns ``RoundRecord``s), goes further
for rounds played by two reaction-time models: ``play_cards`` plays every round's card game to its end
(one battle of every running round per numpy iteration), then ``_time_rounds`` derives each move's
tick, the takeovers, reaction ticks, env steps and seat 0's return from the reaction hashes alone.
``simulate_moves`` computes the same through ``BatchedRounds.play_moves`` and is kept as its
cross-check. With numba installed, ``_time_rounds`` runs the compiled ``vector_kernel.time_rounds``
instead of its numpy chunks (``backend="numpy"`` keeps them; both are tested). ``tests/test_fastpath.py`` and ``tests/test_vector.py`` prove all of them equal, round by
round, to the tick-by-tick ``WarEnv``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from gymnasium.utils import seeding

from war_env.bots import Bot, Instant, make_bot
from war_env.cards import DECK_SIZE
from war_env.engine import BATTLE_LIMIT, END_REASONS, POINTS, POT_POSITIONS, WAR_SHORTAGE, ALL_CARDS
from war_env.deal import draw_deal
from war_env.randomness import STREAM_PICKUP, STREAM_REACTION, hash64_array
from war_env.round_info import round_info
from war_env.records import RoundRecord
from war_env.rules import WarConfig

NEVER = np.int64(1 << 62)
"""Tick of a turn that is not pending (compares greater than any real tick)."""
NO_WINNER = -1
"""``winner`` of a drawn round (and of a round not over yet)."""
NO_CARD = -1
REASON_CODE = {reason: code for code, reason in enumerate(END_REASONS)}
_MAX_KEY = np.uint64((1 << 64) - 1)
_any = np.count_nonzero
"""``bool(_any(mask))``: whether a bool mask has a true entry (cheaper than ``ndarray.any`` in hot loops)."""
_POSITIONS = np.arange(DECK_SIZE)


@dataclass(frozen=True)
class ReactionModel:
    """When a seat draws by itself: reaction tick ``searchsorted(cdf, u, side="right")`` for its n-th
    move, ``u = hash_uniform(key, stream, n)``, where ``key`` is the round key, or, with
    ``key_stream`` set, ``hash64(round_key, key_stream, 0) >> 33`` (the seed the benchmark gives an
    agent, see ``war_env.records.agent_seed``). A reaction of ``turn_ticks`` or more means no draw:
    the seat is taken over on the last tick of its turn.

    ``presses_always`` (seat 0 in ``simulate`` only) is the ``eager`` agent: it presses draw on every
    tick, so it draws as its turn opens and every other tick of the round is a false start."""

    cdf: tuple[float, ...]
    stream: int
    key_stream: int | None = None
    presses_always: bool = False

    @classmethod
    def of_bot(cls, bot: str | Bot, config: WarConfig, seat: int) -> ReactionModel:
        """The model of a bot seated at ``seat`` by the clock (``TimedRound`` controllers)."""
        return cls(make_bot(bot).reaction_cdf(config), STREAM_REACTION[seat])


def end_after_trick(batch, rounds, winners, loser_has_no_cards) -> None:
    """The end checks after a trick, in ``Game._take_trick``'s order: all cards, points, battle limit.
    ``batch`` is either batched card game of this module (their ``points``/``battles`` are indexed
    ``[winner, round]``/``[round]``, and ``_end(rounds, winners, reason)`` ends rounds)."""
    config = batch.config
    ended = loser_has_no_cards
    if _any(ended):
        batch._end(rounds[ended], winners[ended], ALL_CARDS)
    if config.target_points is not None:
        reached = ~ended & (batch.points[winners, rounds] >= config.target_points)
        if _any(reached):
            batch._end(rounds[reached], winners[reached], POINTS)
        ended |= reached
    if config.max_battles is not None:
        limit = ~ended & (batch.battles[rounds] >= config.max_battles)
        if _any(limit):
            batch._end(rounds[limit], NO_WINNER, BATTLE_LIMIT)


class BatchedRounds:
    """The state of ``n`` rounds (game and clock) in numpy arrays.

    ``models[seat]`` times a seat that draws by itself; ``None`` marks a seat pressed from outside
    (the learner of ``WarVectorEnv``): its draws come through ``draw`` and it is taken over on the
    last tick of its turn unless it draws. Per-seat arrays are seat-major, shape ``(2, n)``.
    """

    def __init__(self, config: WarConfig, n: int, models: tuple[ReactionModel | None, ReactionModel | None]):
        if any(model is not None and model.presses_always for model in models):
            raise ValueError("BatchedRounds times draws only; a seat that presses on every tick needs simulate()")
        self.config = config
        self.n = n
        self.models = tuple(models)
        self._cdfs = tuple(None if m is None else np.asarray(m.cdf, dtype=np.float64) for m in models)
        self.turn_ticks = config.turn_ticks
        # --- the card game (engine.Game) ---
        self.pile = np.zeros((2 * n, DECK_SIZE), dtype=np.int8)
        """Ring buffers, row ``seat * n + game``: the top card is at ``head``, ``count`` cards."""
        self.head = np.zeros(2 * n, dtype=np.int64)
        self.count = np.zeros(2 * n, dtype=np.int64)
        self.pot = np.zeros((n, DECK_SIZE), dtype=np.int8)
        self.pot_len = np.zeros(n, dtype=np.int64)
        self.face_up = np.full((2, n), NO_CARD, dtype=np.int8)
        self.drawn = np.zeros((2, n), dtype=bool)
        self.visible = np.full((2, n), NO_CARD, dtype=np.int8)
        self.at_war = np.zeros(n, dtype=bool)
        self.points = np.zeros((2, n), dtype=np.int64)
        self.moves = np.zeros((2, n), dtype=np.int64)
        self.battles = np.zeros(n, dtype=np.int64)
        self.wars = np.zeros(n, dtype=np.int64)
        self.tricks = np.zeros(n, dtype=np.int64)
        self.starter = np.zeros(n, dtype=np.int64)
        self.round_key = np.zeros(n, dtype=np.uint64)
        self.over = np.zeros(n, dtype=bool)
        self.winner = np.full(n, NO_WINNER, dtype=np.int64)
        self.reason = np.full(n, -1, dtype=np.int64)
        # --- the clock (clock.TimedRound) ---
        self.tick = np.zeros(n, dtype=np.int64)
        """Tick of the last event (the vector env advances it every step)."""
        self.turn = np.full(n, -1, dtype=np.int64)
        """The seat whose turn is pending (only one is, ever), -1 once the round is over."""
        self.opens = np.full((2, n), NEVER, dtype=np.int64)
        self.due = np.full((2, n), NEVER, dtype=np.int64)
        """Tick on which the pending seat draws by itself (bot press or takeover)."""
        self.due_takeover = np.zeros((2, n), dtype=bool)
        self.taken_over = np.zeros((2, n), dtype=bool)
        self.false_starts = np.zeros((2, n), dtype=np.int64)
        self.reaction_key = np.zeros((2, n), dtype=np.uint64)
        reaction_dtype = np.uint8 if self.turn_ticks <= 255 else np.int64
        self.reactions = np.zeros((2, n, 128), dtype=reaction_dtype)
        """Each seat's own draws, ticks after its turn opened (grown on demand)."""
        self.n_reactions = np.zeros((2, n), dtype=np.int64)
        # --- seat 0's return when a model plays it (the fast path) ---
        self.idle_before_last = np.zeros(n, dtype=np.int64)
        """Idle ticks of seat 0 in the env steps before the one that ends its episode."""
        self.agent_steps = np.zeros(n, dtype=np.int64)
        """Tick on which seat 0 was taken over (its env's last step), else 0."""

    # --- starting rounds ---------------------------------------------------------------------
    def start(self, games: np.ndarray, piles: Sequence[tuple[Sequence[int], Sequence[int]]] | np.ndarray,
              starters: np.ndarray, round_keys: np.ndarray) -> None:
        """Start a round in each of ``games``. ``piles`` is either an array of shuffled decks, shape
        ``(k, 52)`` (seat 0 gets the first half, as ``cards.deal_from_permutation``), or a list of
        ``(pile0, pile1)`` card lists, top card first."""
        games = np.asarray(games, dtype=np.int64)
        n = self.n
        rows0, rows1 = games, games + n
        self.head[rows0] = 0
        self.head[rows1] = 0
        if isinstance(piles, np.ndarray):
            half = piles.shape[1] // 2
            self.pile[rows0, :half] = piles[:, :half]
            self.pile[rows1, : piles.shape[1] - half] = piles[:, half:]
            self.count[rows0] = half
            self.count[rows1] = piles.shape[1] - half
        else:
            for game, (pile0, pile1) in zip(games.tolist(), piles):  # explicit deals: reset only
                self.pile[game, : len(pile0)] = pile0
                self.pile[game + n, : len(pile1)] = pile1
                self.count[game], self.count[game + n] = len(pile0), len(pile1)
        self.pot_len[games] = 0
        for array in (self.face_up, self.visible):
            array[:, games] = NO_CARD
        for array in (self.drawn, self.taken_over, self.due_takeover):
            array[:, games] = False
        for array in (self.points, self.moves, self.false_starts, self.n_reactions):
            array[:, games] = 0
        for array in (self.battles, self.wars, self.tricks, self.tick, self.idle_before_last, self.agent_steps):
            array[games] = 0
        self.at_war[games] = False
        self.over[games] = False
        self.winner[games] = NO_WINNER
        self.reason[games] = -1
        starters = np.asarray(starters, dtype=np.int64)
        round_keys = np.asarray(round_keys, dtype=np.uint64)
        self.starter[games] = starters
        self.round_key[games] = round_keys
        for seat, model in enumerate(self.models):
            if model is not None:
                key = round_keys if model.key_stream is None else hash64_array(round_keys, model.key_stream, 0) >> np.uint64(33)
                self.reaction_key[seat, games] = key
        self.opens[:, games] = NEVER
        self.due[:, games] = NEVER
        self._open_turn(games, starters, np.ones(len(games), dtype=np.int64))

    # --- the one transition --------------------------------------------------------------
    def draw(self, games: np.ndarray, seats: np.ndarray, ticks: np.ndarray, takeover: np.ndarray) -> None:
        """In each of ``games`` (distinct), ``seats`` lays its move on ``ticks``: by itself, or, where
        ``takeover`` is set, by the takeover bot on the last tick of its turn (the seat is taken over
        from then on). Then the next turn opens on the following tick, as ``clock.TimedRound`` does."""
        opened = self.opens[seats, games]
        own = ~(self.taken_over[seats, games] | takeover)
        if _any(own):
            self._log_reactions(seats[own], games[own], (ticks - opened)[own])
        if _any(takeover):
            self.taken_over[seats[takeover], games[takeover]] = True
        self.tick[games] = ticks
        self.opens[seats, games] = NEVER
        self.due[seats, games] = NEVER
        revealed = self._lay(games, seats)
        live = ~self.over[games]
        self.turn[games[~live]] = -1
        if _any(live):
            starters = self.starter[games]
            next_seat = np.where(revealed, starters, 1 - seats)
            self._open_turn(games[live], next_seat[live], ticks[live] + 1)

    def play_moves(self, games: np.ndarray) -> None:
        """Advance each of ``games`` move by move to the end of its round, every seat drawing at its
        due tick (seat 0 must be played by a model or be taken over). Keeps seat 0's idle ticks and
        takeover tick for its return (``idle_before_last``, ``agent_steps``)."""
        games = np.asarray(games, dtype=np.int64)
        games = games[~self.over[games]]
        track = self.models[0] is not None
        while games.size:
            seats = self.turn[games]
            ticks = self.due[seats, games]
            takeover = self.due_takeover[seats, games]
            if track:
                self._count_idle(games, seats, ticks, takeover)
            self.draw(games, seats, ticks, takeover)
            games = games[~self.over[games]]

    # --- the card game: engine.Game.draw and its resolution ------------------------------
    def _lay(self, games, seats) -> np.ndarray:
        """``Game.draw``: returns where the step was completed (and revealed)."""
        rows = seats * self.n + games
        war = self.at_war[games]
        self.battles[games] += ~war & (seats == self.starter[games])
        if _any(war):
            war_games, war_rows = games[war], rows[war]
            for _ in range(self.config.war_face_down):
                self._to_pot(war_games, self._pop(war_rows))
        card = self._pop(rows)
        self._to_pot(games, card)
        self.face_up[seats, games] = card
        self.drawn[seats, games] = True
        self.moves[seats, games] += 1
        revealed = self.drawn[1 - seats, games]
        if _any(revealed):
            self._reveal(games[revealed])
        return revealed

    def _pop(self, rows):
        head = self.head[rows]
        cards = self.pile[rows, head]
        self.head[rows] = (head + 1) % DECK_SIZE
        self.count[rows] -= 1
        return cards

    def _to_pot(self, games, cards):
        self.pot[games, self.pot_len[games]] = cards
        self.pot_len[games] += 1

    def _reveal(self, games):
        face_up = self.face_up[:, games]
        self.visible[:, games] = face_up
        self.face_up[:, games] = NO_CARD
        self.drawn[:, games] = False
        ranks = face_up >> 2
        tie = ranks[0] == ranks[1]
        if _any(tie):
            self._start_war(games[tie])
        if np.count_nonzero(tie) < tie.size:
            decided = ~tie
            self._take_trick(games[decided], (ranks[1] > ranks[0])[decided].astype(np.int64))

    def _start_war(self, games):
        self.wars[games] += 1
        need = self.config.cards_for_war
        short0 = self.count[games] < need
        short1 = self.count[games + self.n] < need
        both = short0 & short1
        if _any(both):
            self._end(games[both], NO_WINNER, WAR_SHORTAGE)
        one = short0 ^ short1
        if _any(one):
            losers_games = games[one]
            winners = short0[one].astype(np.int64)  # seat 0 short: seat 1 wins
            self._pick_up(losers_games, winners)
            self._move_pile(losers_games, 1 - winners, winners)
            self._end(losers_games, winners, WAR_SHORTAGE)
        neither = ~(short0 | short1)
        self.at_war[games[neither]] = True

    def _take_trick(self, games, winners):
        self._pick_up(games, winners)
        self.points[winners, games] += 1
        self.tricks[games] += 1
        self.at_war[games] = False
        end_after_trick(self, games, winners, loser_has_no_cards=self.count[(1 - winners) * self.n + games] == 0)

    def _pick_up(self, games, winners):
        """The pot under the winner's pile, in the order laid or sorted by the pickup hash exactly as
        ``Game._pick_up`` sorts ``(key, card)`` pairs (``lexsort``: key first, then card)."""
        lengths = self.pot_len[games]
        cards = self.pot[games]
        if self.config.pickup == "shuffled":
            valid = _POSITIONS < lengths[:, None]
            counters = (self.tricks[games] * POT_POSITIONS)[:, None] + _POSITIONS
            keys = hash64_array(self.round_key[games][:, None], STREAM_PICKUP, counters)
            keys = np.where(valid, keys, _MAX_KEY)
            order = np.lexsort((np.where(valid, cards, DECK_SIZE), keys), axis=-1)
            cards = np.take_along_axis(cards, order, axis=1)
        self._append(winners * self.n + games, cards, lengths)
        self.pot_len[games] = 0

    def _append(self, rows, cards, lengths):
        which, position = np.nonzero(_POSITIONS < lengths[:, None])
        tail = self.head[rows] + self.count[rows]
        self.pile[rows[which], (tail[which] + position) % DECK_SIZE] = cards[which, position]
        self.count[rows] += lengths

    def _move_pile(self, games, from_seats, to_seats):
        source = from_seats * self.n + games
        lengths = self.count[source]
        order = (self.head[source][:, None] + _POSITIONS) % DECK_SIZE
        cards = self.pile[source[:, None], order]
        self._append(to_seats * self.n + games, cards, lengths)
        self.count[source] = 0

    def _end(self, games, winners, reason):
        self.over[games] = True
        self.winner[games] = winners
        self.reason[games] = REASON_CODE[reason]

    # --- the clock -----------------------------------------------------------------------
    def _open_turn(self, games, seats, opens):
        """``seats``' turn opens on ``opens``; its own draw (or takeover) is due after its reaction."""
        turn_ticks = self.turn_ticks
        self.turn[games] = seats
        self.opens[seats, games] = opens
        reaction = self._reaction(games, seats)
        self.due[seats, games] = opens + np.minimum(reaction, turn_ticks - 1)
        self.due_takeover[seats, games] = reaction >= turn_ticks

    def _reaction(self, games, seats):
        """Reaction tick of each seat's next move (``clock.TimedRound._reaction_of``); a seat pressed
        from outside gets ``turn_ticks`` (due = its takeover tick), a taken-over seat 0 (instant)."""
        reaction = np.full(len(games), self.turn_ticks, dtype=np.int64)
        for seat, model in enumerate(self.models):
            if model is None:
                continue
            mine = seats == seat
            if not _any(mine):
                continue
            own = games[mine]
            reaction[mine] = _sample_reactions(model, self._cdfs[seat], self.reaction_key[seat, own], self.moves[seat, own])
        reaction[self.taken_over[seats, games]] = 0
        return reaction

    def _log_reactions(self, seats, games, ticks):
        slots = self.n_reactions[seats, games]
        if slots.max() >= self.reactions.shape[2]:
            self.grow_reactions()
        self.reactions[seats, games, slots] = ticks
        self.n_reactions[seats, games] = slots + 1

    def grow_reactions(self) -> None:
        """Double the room of the reaction log (a new ``reactions`` array, the old entries kept)."""
        grown = np.zeros((2, self.n, 2 * self.reactions.shape[2]), dtype=self.reactions.dtype)
        grown[:, :, : self.reactions.shape[2]] = self.reactions
        self.reactions = grown

    def _count_idle(self, games, seats, ticks, takeover):
        """Seat 0 played by a model: it idles ``reaction`` ticks before its own draw, ``turn_ticks - 1``
        before the takeover tick (that tick's idle and takeover rewards are the last step's)."""
        seat0 = (seats == 0) & ~self.taken_over[0, games]
        if not _any(seat0):
            return
        own = games[seat0]
        self.idle_before_last[own] += ticks[seat0] - self.opens[0, own]
        taken = takeover[seat0]
        self.agent_steps[own[taken]] = ticks[seat0][taken]

    # --- reading results -----------------------------------------------------------------
    def reaction_ticks(self, seat: int, game: int) -> list[int]:
        return self.reactions[seat, game, : self.n_reactions[seat, game]].tolist()

    def cards_held(self, seat: int) -> np.ndarray:
        return self.count[seat * self.n : (seat + 1) * self.n]

    def nbytes(self) -> int:
        """Memory of the state arrays."""
        return sum(value.nbytes for value in vars(self).values() if isinstance(value, np.ndarray))


# --- the optional compiled kernels -------------------------------------------------------
BACKENDS = ("auto", "numba", "numpy")


def load_kernel(backend: str):
    """``war_env.vector_kernel`` if ``backend`` allows it and numba imports, else ``None``."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    if backend == "numpy":
        return None
    try:
        from war_env import vector_kernel
    except ImportError as error:
        if backend == "numba":
            raise ImportError(f"backend='numba' needs numba (pip install war-env[fast]): {error}") from error
        return None
    return vector_kernel


# --- deals ------------------------------------------------------------------------------
def deals_from_seeds(seeds: Sequence[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The deals ``env.reset(seed=s)`` makes for each seed: decks ``(k, 52)``, starters, round keys."""
    decks = np.empty((len(seeds), DECK_SIZE), dtype=np.int8)
    starters = np.empty(len(seeds), dtype=np.int64)
    keys = np.empty(len(seeds), dtype=np.uint64)
    for i, seed in enumerate(seeds):
        rng, _ = seeding.np_random(int(seed))
        decks[i], starters[i], keys[i] = draw_deal(rng)
    return decks, starters, keys


def random_deals(rng: np.random.Generator, count: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``count`` independent deals from one generator at once (for throughput, not per-seed pairing)."""
    decks = rng.permuted(np.tile(np.arange(DECK_SIZE, dtype=np.int8), (count, 1)), axis=1)
    starters = rng.integers(2, size=count)
    keys = rng.integers(0, 1 << 63, size=count, dtype=np.int64).astype(np.uint64)
    return decks, starters, keys


# --- the fast path ----------------------------------------------------------------------
_RING = 64
"""Ring size of a pile in the fast path (>= 52, a power of two so that wrapping is a bit mask)."""
_WRAP = _RING - 1
_SIDE = 2 * _RING


@dataclass(frozen=True)
class RoundBatch:
    """Per-round results of ``simulate``: arrays with one entry per deal (pairs: shape ``(2, k)``)."""

    winner: np.ndarray
    """Seat that won, ``NO_WINNER`` (-1) for a draw."""
    reason: np.ndarray
    """Index into ``engine.END_REASONS``."""
    battles: np.ndarray
    wars: np.ndarray
    points: np.ndarray
    cards: np.ndarray
    takeover: np.ndarray
    false_starts: np.ndarray
    ticks: np.ndarray
    steps: np.ndarray
    """Env steps seat 0 took (the takeover tick, else the round's ticks)."""
    episode_return: np.ndarray
    """Seat 0's return, the float sum ``play_round`` makes of the env's step rewards."""
    reaction_ticks: tuple[tuple[np.ndarray, np.ndarray, np.ndarray], ...]
    """Per seat ``(ticks, starts, counts)``: round i's own reaction ticks are
    ``ticks[starts[i]:starts[i] + counts[i]]``."""

    def reactions_of(self, seat: int, i: int) -> list[int]:
        ticks, starts, counts = self.reaction_ticks[seat]
        return ticks[starts[i]:starts[i] + counts[i]].tolist()

    def __len__(self) -> int:
        return len(self.winner)

    def round_info(self, i: int) -> dict:
        """Round ``i`` as the env's ``info["round"]`` (``war_env.env.describe_round``)."""
        return round_info(
            winner=self.winner[i], reason=END_REASONS[self.reason[i]], battles=self.battles[i], wars=self.wars[i],
            points=self.points[:, i], cards=self.cards[:, i], takeover=self.takeover[:, i],
            false_starts=self.false_starts[:, i], reaction_ticks=(self.reactions_of(0, i), self.reactions_of(1, i)),
            steps=self.steps[i], ticks=self.ticks[i],
        )


def simulate(config: WarConfig, seat_models: tuple[ReactionModel, ReactionModel],
             decks: np.ndarray | list, starters: np.ndarray, round_keys: np.ndarray, backend: str = "auto") -> RoundBatch:
    """Play one whole round per deal, both seats timed by their reaction models.

    ``decks``: shuffled decks ``(k, 52)`` or a list of ``(pile0, pile1)`` card lists. First the card
    game of every round is played to its end (``play_cards``: it never depends on timing), then the
    ticks of every move follow from the reaction hashes (``_time_rounds``). ``backend`` as for
    ``WarVectorEnv``: ``"auto"`` times the moves with the compiled kernel when numba imports."""
    starters = np.asarray(starters, dtype=np.int64)
    round_keys = np.asarray(round_keys, dtype=np.uint64)
    cards = play_cards(config, decks, starters, round_keys)
    return _time_rounds(config, seat_models, starters, round_keys, cards, backend=backend)


def simulate_moves(config: WarConfig, seat_models: tuple[ReactionModel, ReactionModel],
                   decks: np.ndarray | list, starters: np.ndarray, round_keys: np.ndarray) -> RoundBatch:
    """``simulate`` done by ``BatchedRounds.play_moves`` (the vector env's play-out), move by move:
    slower, kept as the cross-check of ``simulate``."""
    count = len(starters)
    rounds = BatchedRounds(config, count, seat_models)
    rounds.start(np.arange(count), decks if isinstance(decks, list) else np.asarray(decks), starters, round_keys)
    rounds.play_moves(np.arange(count))
    taken = rounds.taken_over[0]
    reactions = tuple(
        (rounds.reactions[seat][np.arange(rounds.reactions.shape[2]) < rounds.n_reactions[seat][:, None]].astype(np.int64),
         np.cumsum(rounds.n_reactions[seat]) - rounds.n_reactions[seat], rounds.n_reactions[seat].copy())
        for seat in (0, 1)
    )
    return RoundBatch(
        winner=rounds.winner.copy(), reason=rounds.reason.copy(), battles=rounds.battles.copy(),
        wars=rounds.wars.copy(), points=rounds.points.copy(),
        cards=np.stack([rounds.count[:count], rounds.count[count:]]), takeover=rounds.taken_over.copy(),
        false_starts=rounds.false_starts.copy(), ticks=rounds.tick.copy(), steps=np.where(taken, rounds.agent_steps, rounds.tick),
        episode_return=_returns(config, taken, rounds.idle_before_last, rounds.winner),
        reaction_ticks=reactions,
    )


@dataclass(frozen=True)
class CardResults:
    """The card game of k rounds, per round; pairs are per seat, shape ``(2, k)``."""

    winner: np.ndarray
    reason: np.ndarray
    battles: np.ndarray
    wars: np.ndarray
    points: np.ndarray
    cards: np.ndarray
    steps: np.ndarray
    """Battle and war steps: each seat made this many moves."""


def play_cards(config: WarConfig, decks: np.ndarray | list, starters: np.ndarray, round_keys: np.ndarray) -> CardResults:
    """Every round's card game to its end, all rounds at once, one battle per loop iteration.

    The two piles of a round are kept as *sides*: side 0 is the starter's, side 1 the other seat's,
    so the pot of a battle is always (side 0's card, side 1's card) and no per-round branching on
    the starter is needed. Finished rounds leave the arrays (compaction); wars, rare, are played
    out at once for the rounds that tie."""
    state = _CardState(config, decks, starters, round_keys)
    while state.size:
        state.battle()
    return state.results()


class _CardState:
    """Working arrays of ``play_cards`` for the rounds still running (``ids`` maps them back)."""

    def __init__(self, config, decks, starters, round_keys):
        self.config = config
        count = len(starters)
        self.count = count
        self.piles = np.zeros((count, 2, _RING), dtype=np.int8)
        self.n = np.zeros((2, count), dtype=np.int64)
        if isinstance(decks, list):
            for i, (pile0, pile1) in enumerate(decks):
                by_seat = (pile0, pile1)
                for side in (0, 1):
                    pile = by_seat[side ^ int(starters[i])]
                    self.piles[i, side, : len(pile)] = pile
                    self.n[side, i] = len(pile)
        else:
            decks = np.asarray(decks)
            half = decks.shape[1] // 2
            first = starters == 0  # side 0 is the starter's pile
            self.piles[:, 0, :half] = np.where(first[:, None], decks[:, :half], decks[:, half:])
            self.piles[:, 1, :half] = np.where(first[:, None], decks[:, half:], decks[:, :half])
            self.n[:] = half
        self.head = np.zeros((2, count), dtype=np.int64)
        self.points = np.zeros((2, count), dtype=np.int64)
        self.battles = np.zeros(count, dtype=np.int64)
        self.wars = np.zeros(count, dtype=np.int64)
        self.war_steps = np.zeros(count, dtype=np.int64)
        """War steps (each seat moves once per battle and once per war step)."""
        self.keys = round_keys.copy()
        self.ids = np.arange(count)
        self.starters = starters
        self.base = np.arange(count) * _SIDE
        self.done = np.zeros(count, dtype=bool)
        self.out = {name: np.zeros(count, dtype=np.int64) for name in ("winner", "reason", "battles", "wars", "steps")}
        self.out_points = np.zeros((2, count), dtype=np.int64)
        self.out_cards = np.zeros((2, count), dtype=np.int64)

    @property
    def size(self) -> int:
        return len(self.ids)

    # --- one battle for every running round ----------------------------------------------
    def battle(self):
        config = self.config
        flat = self.piles.reshape(-1)
        base, head, n = self.base, self.head, self.n
        first = flat[base + head[0]]
        second = flat[base + _RING + head[1]]
        head += 1
        head &= _WRAP
        n -= 1
        self.battles += 1
        rank_first, rank_second = first >> 2, second >> 2
        side0_wins = rank_first > rank_second
        tie = rank_first == rank_second
        side1_wins = ~(side0_wins | tie)
        laid = (first, second)
        if config.pickup == "shuffled":
            counters = (self.points[0] + self.points[1]) * POT_POSITIONS  # tricks taken so far
            key0 = hash64_array(self.keys, STREAM_PICKUP, counters)
            key1 = hash64_array(self.keys, STREAM_PICKUP, counters + 1)
            swap = (key1 < key0) | ((key1 == key0) & (second < first))
            first, second = np.where(swap, second, first), np.where(swap, first, second)
        # Write the pot behind the winner's pile; a tie writes into free ring slots and counts nothing.
        winner_side = side1_wins.astype(np.int64)
        tail = np.where(side1_wins, head[1] + n[1], head[0] + n[0])
        row = base + winner_side * _RING
        flat[row + (tail & _WRAP)] = first
        flat[row + ((tail + 1) & _WRAP)] = second
        n[0] += 2 * side0_wins
        n[1] += 2 * side1_wins
        self.points[0] += side0_wins
        self.points[1] += side1_wins
        # The end checks of _check_end on every round at once; only rounds that end are subset.
        config_target, config_limit = config.target_points, config.max_battles
        ending = (side0_wins & (n[1] == 0)) | (side1_wins & (n[0] == 0))
        if config_target is not None:
            ending |= (self.points >= config_target).any(axis=0)
        if config_limit is not None:
            ending |= self.battles >= config_limit
        ending &= ~tie
        if _any(ending):
            ended = np.flatnonzero(ending)
            self._check_end(ended, winner_side[ended])
        if _any(tie):
            ties = np.flatnonzero(tie)
            pot = np.zeros((len(ties), DECK_SIZE), dtype=np.int8)
            pot[:, 0], pot[:, 1] = laid[0][ties], laid[1][ties]  # as laid: a war's pot is shuffled when taken
            self._war(ties, pot, np.full(len(ties), 2, dtype=np.int64))
        finished = np.count_nonzero(self.done)
        if finished and (8 * finished >= self.size or self.size <= 64):
            self._retire()

    # --- wars ----------------------------------------------------------------------------
    def _war(self, rounds, pot, pot_len):
        """``Game._start_war`` and the war steps, repeated while the face-up cards tie."""
        need = self.config.cards_for_war
        live = ~self.done[rounds]
        rounds, pot, pot_len = rounds[live], pot[live], pot_len[live]
        while rounds.size:
            self.wars[rounds] += 1
            short0 = self.n[0, rounds] < need
            short1 = self.n[1, rounds] < need
            both = short0 & short1
            if _any(both):
                self._end(rounds[both], NO_WINNER, WAR_SHORTAGE)
            one = short0 ^ short1
            if _any(one):
                winners = short0[one].astype(np.int64)
                lost = rounds[one]
                self._pick_up(lost, winners, pot[one], pot_len[one])
                self._move_pile(lost, 1 - winners, winners)
                self._end(lost, winners, WAR_SHORTAGE)
            go_on = ~(short0 | short1)
            rounds, pot, pot_len = rounds[go_on], pot[go_on], pot_len[go_on]
            if not rounds.size:
                return
            self.war_steps[rounds] += 1
            face_up = []
            laid = pot_len[0]  # the rounds of one war move in step: their pots are equally long
            for side in (0, 1):  # face-down cards then the face-up one, side 0 first
                cards = self._pop_several(side, rounds, need)
                pot[:, laid:laid + need] = cards
                laid += need
                face_up.append(cards[:, -1] >> 2)
            pot_len = pot_len + 2 * need
            tie = face_up[0] == face_up[1]
            decided = ~tie
            if _any(decided):
                won = rounds[decided]
                winners = (face_up[1] > face_up[0])[decided].astype(np.int64)
                self._pick_up(won, winners, pot[decided], pot_len[decided])
                self.points[winners, won] += 1
                self._check_end(won, winners)
            rounds, pot, pot_len = rounds[tie], pot[tie], pot_len[tie]

    def _pop_several(self, side, rounds, count):
        """The top ``count`` cards of each round's pile on ``side``, top first, shape (rounds, count)."""
        flat = self.piles.reshape(-1)
        head = self.head[side, rounds]
        cards = flat[(self.base[rounds] + side * _RING)[:, None] + ((head[:, None] + np.arange(count)) & _WRAP)]
        self.head[side, rounds] = (head + count) & _WRAP
        self.n[side, rounds] -= count
        return cards

    def _pick_up(self, rounds, sides, pot, pot_len):
        """``Game._pick_up``: the pot in the order laid, or sorted like ``sorted(zip(keys, pot))``."""
        if self.config.pickup == "shuffled":
            valid = _POSITIONS < pot_len[:, None]
            tricks = self.points[0, rounds] + self.points[1, rounds]
            counters = (tricks * POT_POSITIONS)[:, None] + _POSITIONS
            keys = np.where(valid, hash64_array(self.keys[rounds][:, None], STREAM_PICKUP, counters), _MAX_KEY)
            order = np.lexsort((np.where(valid, pot, DECK_SIZE), keys), axis=-1)
            pot = np.take_along_axis(pot, order, axis=1)
        self._append(rounds, sides, pot, pot_len)

    def _append(self, rounds, sides, cards, lengths):
        which, position = np.nonzero(_POSITIONS < lengths[:, None])
        tail = self.head[sides, rounds] + self.n[sides, rounds]
        flat = self.piles.reshape(-1)
        row = self.base[rounds] + sides * _RING
        flat[row[which] + ((tail[which] + position) & _WRAP)] = cards[which, position]
        self.n[sides, rounds] += lengths

    def _move_pile(self, rounds, from_sides, to_sides):
        lengths = self.n[from_sides, rounds]
        order = (self.head[from_sides, rounds][:, None] + _POSITIONS[None, :_RING]) & _WRAP
        rows = (rounds * 2 + from_sides)[:, None]
        cards = self.piles.reshape(-1, _RING)[rows, order]
        self._append(rounds, to_sides, cards, lengths)
        self.n[from_sides, rounds] = 0

    # --- the end of a round --------------------------------------------------------------
    def _check_end(self, rounds, winners):
        end_after_trick(self, rounds, winners, loser_has_no_cards=self.n[1 - winners, rounds] == 0)

    def _end(self, rounds, winner_sides, reason):
        """Copy a finished round's results out (in seat terms) when it ends. It stays in the arrays
        until ``_retire`` (and plays on meaninglessly; ``done`` keeps it from ending twice)."""
        fresh = ~self.done[rounds]
        rounds = rounds[fresh]
        sides = np.broadcast_to(winner_sides, fresh.shape)[fresh]
        self.done[rounds] = True
        ids = self.ids[rounds]
        starters = self.starters[ids]
        self.out["winner"][ids] = np.where(sides == NO_WINNER, NO_WINNER, sides ^ starters)
        self.out["reason"][ids] = REASON_CODE[reason]
        self.out["battles"][ids] = self.battles[rounds]
        self.out["wars"][ids] = self.wars[rounds]
        self.out["steps"][ids] = self.battles[rounds] + self.war_steps[rounds]
        for side in (0, 1):  # side 0 is seat `starter`
            seats = side ^ starters
            self.out_points[seats, ids] = self.points[side, rounds]
            self.out_cards[seats, ids] = self.n[side, rounds]

    def _retire(self):
        """Drop the finished rounds from the arrays."""
        keep = np.flatnonzero(~self.done)
        self.piles = self.piles[keep]
        self.head, self.n, self.points = self.head[:, keep], self.n[:, keep], self.points[:, keep]
        for name in ("battles", "wars", "war_steps", "keys", "ids", "done"):
            setattr(self, name, getattr(self, name)[keep])
        self.base = np.arange(len(keep)) * _SIDE

    def results(self) -> CardResults:
        out = self.out
        return CardResults(out["winner"], out["reason"], out["battles"], out["wars"], self.out_points,
                           self.out_cards, out["steps"])


def _time_rounds(config, seat_models, starters, round_keys, cards: CardResults, chunk_cells: int = 1 << 20,
                 backend: str = "auto") -> RoundBatch:
    """The clock of whole rounds from the moves alone (``_clock_numpy``, or with numba the compiled
    ``vector_kernel.time_rounds``: the same figures round by round), then seat 0's return."""
    kernel = load_kernel(backend)
    if kernel is None:
        ticks, steps, takeover, idle, reactions = _clock_numpy(config, seat_models, starters, round_keys, cards, chunk_cells)
    else:
        ticks, steps, takeover, idle, reactions = _clock_compiled(kernel, config, seat_models, starters, round_keys, cards)
    false_starts = np.zeros((2, len(starters)), dtype=np.int64)
    if seat_models[0].presses_always:
        if seat_models[0].cdf != Instant().reaction_cdf(config) or seat_models[1].presses_always:
            raise ValueError("presses_always is the eager agent at seat 0: it needs the instant reaction model")
        false_starts[0] = ticks - cards.steps  # every tick but those of its own draws
        returns = _eager_returns(config, false_starts[0], starters == 0, cards.winner)
    else:
        returns = _returns(config, takeover[0], idle, cards.winner)
    return RoundBatch(
        winner=cards.winner, reason=cards.reason, battles=cards.battles, wars=cards.wars, points=cards.points,
        cards=cards.cards, takeover=takeover, false_starts=false_starts, ticks=ticks, steps=steps,
        episode_return=returns, reaction_ticks=reactions,
    )


def _clock_compiled(kernel, config, seat_models, starters, round_keys, cards: CardResults):
    count = len(starters)
    keys = [round_keys if model.key_stream is None else hash64_array(round_keys, model.key_stream, 0) >> np.uint64(33)
            for model in seat_models]
    ticks, steps, idle = (np.zeros(count, dtype=np.int64) for _ in range(3))
    takeover = np.zeros((2, count), dtype=bool)
    counts = np.zeros((2, count), dtype=np.int64)
    total = int(cards.steps.sum())
    packed = (np.zeros(total, dtype=np.int16), np.zeros(total, dtype=np.int16))
    kernel.time_rounds(kernel.timing_of(seat_models), config.turn_ticks, starters, keys[0], keys[1],
                       np.ascontiguousarray(cards.steps, dtype=np.int64), ticks, steps, takeover, idle, counts, *packed)
    reactions = tuple((packed[seat][: counts[seat].sum()], np.cumsum(counts[seat]) - counts[seat], counts[seat])
                      for seat in (0, 1))
    return ticks, steps, takeover, idle, reactions


def _clock_numpy(config, seat_models, starters, round_keys, cards: CardResults, chunk_cells: int):
    """The clock of whole rounds from the moves alone.

    Step j (battle or war) is the starter's move j then the other seat's move j. A seat's move j
    waits ``d = min(reaction, turn_ticks - 1)`` ticks after its turn opens (0 once the seat is taken
    over, by the takeover bot); its turn opens the tick after the previous move; the first on tick 1.
    So the step ends on tick ``sum over steps <= j of (2 + d_starter + d_other)``, and a seat's takeover
    is its first move with ``reaction >= turn_ticks``. Rounds of similar length are done together,
    in chunks of about ``chunk_cells`` (round, move) cells."""
    count = len(starters)
    turn_ticks = config.turn_ticks
    ticks = np.zeros(count, dtype=np.int64)
    steps = np.zeros(count, dtype=np.int64)
    takeover = np.zeros((2, count), dtype=bool)
    idle = np.zeros(count, dtype=np.int64)
    own_counts = np.zeros((2, count), dtype=np.int64)
    pieces = ([], [])
    order = np.argsort(cards.steps, kind="stable")
    start = 0
    while start < count:
        width = int(cards.steps[order[min(count, start + max(1, chunk_cells // max(1, int(cards.steps[order[start]])))) - 1]])
        stop = min(count, start + max(1, chunk_cells // width))
        part = order[start:stop]
        width = int(cards.steps[part[-1]])
        moves = cards.steps[part]
        move = np.arange(width)
        made = move < moves[:, None]
        rows = np.arange(len(part))
        delay, taken = [], []
        for seat, model in enumerate(seat_models):
            reaction = _reactions(model, config, round_keys[part], width)
            late = (reaction >= turn_ticks) & made
            any_late = late.any(axis=1)
            taken_at = np.where(any_late, late.argmax(axis=1), moves)
            own = move < taken_at[:, None]
            d = np.where(own, reaction, 0)
            d[rows[any_late], taken_at[any_late]] = turn_ticks - 1
            delay.append(d)
            taken.append(taken_at)
            takeover[seat, part] = any_late
            own_counts[seat, part] = taken_at
            pieces[seat].append((part, reaction[own]))
        both = delay[0] + delay[1]
        ticks[part] = 2 * moves + both.sum(axis=1)
        # Seat 0's env steps end on its takeover tick: the steps before it, then its own move.
        taken_at = taken[0]
        taken0 = takeover[0, part]
        earlier = np.where(move < taken_at[:, None], both, 0).sum(axis=1) + 2 * taken_at
        starter_delay = delay[1][rows, np.minimum(taken_at, width - 1)]  # seat 1 started: it moved first
        takeover_tick = earlier + np.where(starters[part] == 0, 1, 2 + starter_delay) + turn_ticks - 1
        steps[part] = np.where(taken0, takeover_tick, ticks[part])
        idle[part] = np.where(move < taken_at[:, None], delay[0], 0).sum(axis=1) + np.where(taken0, turn_ticks - 1, 0)
        start = stop
    reactions = tuple(_gather_reactions(pieces[seat], own_counts[seat], order) for seat in (0, 1))
    return ticks, steps, takeover, idle, reactions


def _gather_reactions(pieces, counts, order):
    """Chunks of reactions (rounds in ``order``, row by row) -> ``(ticks, starts, counts)``."""
    ticks = np.concatenate([flat for _, flat in pieces]) if pieces else np.zeros(0, dtype=np.int16)
    starts = np.empty_like(counts)
    in_order = counts[order]
    starts[order] = np.cumsum(in_order) - in_order
    return ticks, starts, counts


def _sample_reactions(model: ReactionModel, cdf: np.ndarray, keys: np.ndarray, counters) -> np.ndarray:
    """``sample_reaction(cdf, hash_uniform(key, model.stream, counter))`` element-wise, through the
    bucket table of ``_reaction_table`` (exact; ``searchsorted`` only for the few unsure cells)."""
    bits = hash64_array(keys, model.stream, counters)
    table, straddles = _reaction_table(tuple(model.cdf))
    bucket = (bits >> np.uint64(64 - _BUCKET_BITS)).astype(np.intp)
    reaction = table[bucket]
    unsure = straddles[bucket]
    if _any(unsure):
        uniforms = (bits[unsure] >> np.uint64(11)).astype(np.float64) * (1.0 / (1 << 53))
        reaction[unsure] = np.searchsorted(cdf, uniforms, side="right")
    return reaction


def _reactions(model: ReactionModel, config: WarConfig, round_keys, width) -> np.ndarray:
    """Reaction ticks of a seat's moves 0..width-1, shape (rounds, width): ``sample_reaction`` of
    ``hash_uniform``, computed from the hash bits through ``_reaction_table`` (exact)."""
    cdf = np.asarray(model.cdf, dtype=np.float64)
    if np.all((cdf == 0.0) | (cdf == 1.0)):  # a point mass: no randomness to draw
        return np.full((len(round_keys), width), int((cdf == 0.0).sum()), dtype=np.int16)
    keys = round_keys if model.key_stream is None else hash64_array(round_keys, model.key_stream, 0) >> np.uint64(33)
    return _sample_reactions(model, cdf, keys[:, None], np.arange(width, dtype=np.uint64)[None, :])


_BUCKET_BITS = 16


@lru_cache(maxsize=64)
def _reaction_table(cdf: tuple[float, ...]) -> tuple[np.ndarray, np.ndarray]:
    """For each of the 2**16 buckets of the top hash bits (u in [b, b + 1) / 2**16): the reaction
    tick if no CDF value lies strictly inside the bucket (then every u in it samples the same tick),
    and whether one does (those few cells fall back to ``searchsorted``)."""
    values = np.asarray(cdf, dtype=np.float64)
    buckets = 1 << _BUCKET_BITS
    low = np.arange(buckets, dtype=np.float64) / buckets
    high = np.arange(1, buckets + 1, dtype=np.float64) / buckets
    table = np.searchsorted(values, low, side="right").astype(np.int16)  # ticks < turn_ticks + 1
    straddles = np.searchsorted(values, high, side="left") > table  # some c with low < c < high
    return table, straddles


def _returns(config: WarConfig, taken_over0, idle_before_last, winners) -> np.ndarray:
    """Seat 0's return: ``total += reward`` over its env steps. Every step before the last adds an
    idle tick or nothing; the last adds its tick's reward (idle + takeover, summed as ``clock.tick``
    does, if seat 0 is taken over, else nothing) plus the outcome."""
    idle_sums = _idle_sums(config.reward_idle_tick, int(idle_before_last.max(initial=0)))
    outcome = np.array([config.outcome_reward(None, 0), config.outcome_reward(0, 0), config.outcome_reward(1, 0)])
    last_tick = 0.0 + config.reward_idle_tick + config.reward_takeover
    last_step = np.where(taken_over0, last_tick, 0.0) + outcome[winners + 1]
    return idle_sums[idle_before_last] + last_step


def _eager_returns(config: WarConfig, false_starts, started, winners) -> np.ndarray:
    """The eager agent's return: a false start on every step but those of its own draws. A round
    ends on the second draw of a step; when seat 0 started, that is the opponent's, so the last step
    holds a false start too (pressed before the opponent drew)."""
    sums = _idle_sums(config.reward_false_start, int(false_starts.max(initial=0)))
    outcome = np.array([config.outcome_reward(None, 0), config.outcome_reward(0, 0), config.outcome_reward(1, 0)])
    last_step = np.where(started, 0.0 + config.reward_false_start, 0.0) + outcome[winners + 1]
    return sums[false_starts - started] + last_step


@lru_cache(maxsize=16)
def _idle_sums_cached(idle: float, size: int) -> np.ndarray:
    sums = np.empty(size, dtype=np.float64)
    total = 0.0
    for k in range(size):  # the same left-to-right float additions as ``total += reward``
        sums[k] = total
        total += idle
    return sums


def _idle_sums(idle: float, largest: int) -> np.ndarray:
    size = 1 << max(10, int(largest + 1).bit_length())
    return _idle_sums_cached(float(idle), size)


# --- the benchmark's entry point -------------------------------------------------------
def agent_reaction_model(agent, config: WarConfig) -> ReactionModel | None:
    """The reaction model of a bot, or of an agent that times its draws like one (its
    ``reaction_model(config)``, see ``war_env.agents.base.Agent``), or ``None`` when the agent's draws depend
    on more than its turn clock (then it must be played tick by tick). An agent class that overrides
    ``act`` below the class that defines ``reaction_model`` is played tick by tick: its draws may
    no longer be the model's."""
    if isinstance(agent, Bot):
        return ReactionModel.of_bot(agent, config, seat=0)
    if not callable(getattr(agent, "reaction_model", None)):
        return None
    if not issubclass(_defined_in(type(agent), "reaction_model"), _defined_in(type(agent), "act")):
        return None
    return agent.reaction_model(config)


def _defined_in(cls: type, name: str) -> type:
    return next(klass for klass in cls.__mro__ if name in vars(klass))


def play_rounds(config: WarConfig, agent, opponent: str | Bot, seeds: Sequence[int], *, first_index: int = 0,
                indices: Sequence[int] | None = None, agent_spec: str | None = None,
                opponent_spec: str | None = None, backend: str = "auto") -> list:
    """``evaluation.play_round(env, agent, seed, index=...)`` for every seed at once, for agents that
    ``agent_reaction_model`` covers: the same ``RoundRecord`` list, field by field. Round i gets
    index ``indices[i]`` (default ``first_index + i``).

    Raises ``ValueError`` for an agent whose draws are not a reaction-time model (play it tick by tick).
    """
    model = agent_reaction_model(agent, config)
    if model is None:
        raise ValueError(f"the fast path plays reaction-time agents only, not {agent!r}: use war_env.evaluation.play_round")
    opponent_bot = make_bot(opponent)
    decks, starters, keys = deals_from_seeds(seeds)
    batch = simulate(config, (model, ReactionModel.of_bot(opponent_bot, config, seat=1)), decks, starters, keys,
                     backend=backend)
    agent_name = agent_spec if agent_spec is not None else agent.spec()
    opponent_name = opponent_spec if opponent_spec is not None else opponent_bot.spec()
    if indices is None:
        indices = range(first_index, first_index + len(seeds))
    elif len(indices) != len(seeds):
        raise ValueError(f"indices must give one round index per seed, got {len(indices)} for {len(seeds)} seeds")
    return [RoundRecord.of_round(batch.round_info(i), round=int(index), seed=int(seed), agent=agent_name,
                                 opponent=opponent_name, episode_return=float(batch.episode_return[i]))
            for i, (index, seed) in enumerate(zip(indices, seeds))]
