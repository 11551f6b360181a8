"""Rounds of War batched in numpy: the card game of ``engine`` and the timer of ``clock`` for
thousands of rounds at once, and the fast path for whole rounds that no learner plays.

Two facts of the design make this possible (see ``randomness``):

* the cards of a round never depend on timing, and every random number inside a round is a hash of
  ``(round_key, stream, counter)``, so a batch computes exactly the numbers the single env computes;
* a bot's draw time is known as soon as its turn opens (opening tick + reaction), so a round played
  by two reaction-time models can be advanced *move by move* instead of tick by tick.

``BatchedRounds`` holds the state of ``n`` rounds in arrays and changes only through
``draw(games, seats, ticks, takeover)`` (one move in each of the given games) and ``play_moves``
(every given game draws at its due tick until its round ends). ``WarVectorEnv`` (``war_env.vector``)
drives it tick by tick with a learner at seat 0; ``simulate`` and ``play_rounds`` drive it move by
move with a reaction-time model at seat 0. ``tests/test_fastpath.py`` and ``tests/test_vector.py``
prove both equal, round by round, to the tick-by-tick ``WarEnv``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from gymnasium.utils import seeding

from war_env.bots import Bot, make_bot
from war_env.cards import DECK_SIZE
from war_env.engine import BATTLE_LIMIT, END_REASONS, POINTS, POT_POSITIONS, WAR_SHORTAGE, ALL_CARDS
from war_env.randomness import STREAM_PICKUP, STREAM_REACTION, draw_round_key, hash64_array, hash_uniform_array
from war_env.rules import WarConfig

NEVER = np.int64(1 << 62)
"""Tick of a turn that is not pending (compares greater than any real tick)."""
NO_WINNER = -1
"""``winner`` of a drawn round (and of a round not over yet)."""
NO_CARD = -1
REASON_CODE = {reason: code for code, reason in enumerate(END_REASONS)}
_MAX_KEY = np.uint64((1 << 64) - 1)
_POSITIONS = np.arange(DECK_SIZE)


@dataclass(frozen=True)
class ReactionModel:
    """When a seat draws by itself: reaction tick ``searchsorted(cdf, u, side="right")`` for its n-th
    move, ``u = hash_uniform(key, stream, n)``, where ``key`` is the round key, or, with
    ``key_stream`` set, ``hash64(round_key, key_stream, 0) >> 33`` (the seed the benchmark gives an
    agent, see ``war_env.records.agent_seed``). A reaction of ``turn_ticks`` or more means no draw:
    the seat is taken over on the last tick of its turn."""

    cdf: tuple[float, ...]
    stream: int
    key_stream: int | None = None

    @classmethod
    def of_bot(cls, bot: str | Bot, config: WarConfig, seat: int) -> ReactionModel:
        """The model of a bot seated at ``seat`` by the clock (``TimedRound`` controllers)."""
        return cls(make_bot(bot).reaction_cdf(config), STREAM_REACTION[seat])


class BatchedRounds:
    """The state of ``n`` rounds (game and clock) in numpy arrays.

    ``models[seat]`` times a seat that draws by itself; ``None`` marks a seat pressed from outside
    (the learner of ``WarVectorEnv``): its draws come through ``draw`` and it is taken over on the
    last tick of its turn unless it draws. Per-seat arrays are seat-major, shape ``(2, n)``.
    """

    def __init__(self, config: WarConfig, n: int, models: tuple[ReactionModel | None, ReactionModel | None]):
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
        if own.any():
            self._log_reactions(seats[own], games[own], (ticks - opened)[own])
        if takeover.any():
            self.taken_over[seats[takeover], games[takeover]] = True
        self.tick[games] = ticks
        self.opens[seats, games] = NEVER
        self.due[seats, games] = NEVER
        revealed = self._lay(games, seats)
        live = ~self.over[games]
        self.turn[games[~live]] = -1
        if live.any():
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
        if war.any():
            war_games, war_rows = games[war], rows[war]
            for _ in range(self.config.war_face_down):
                self._to_pot(war_games, self._pop(war_rows))
        card = self._pop(rows)
        self._to_pot(games, card)
        self.face_up[seats, games] = card
        self.drawn[seats, games] = True
        self.moves[seats, games] += 1
        revealed = self.drawn[1 - seats, games]
        if revealed.any():
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
        if tie.any():
            self._start_war(games[tie])
        if not tie.all():
            decided = ~tie
            self._take_trick(games[decided], (ranks[1] > ranks[0])[decided].astype(np.int64))

    def _start_war(self, games):
        self.wars[games] += 1
        need = self.config.cards_for_war
        short0 = self.count[games] < need
        short1 = self.count[games + self.n] < need
        both = short0 & short1
        if both.any():
            self._end(games[both], NO_WINNER, WAR_SHORTAGE)
        one = short0 ^ short1
        if one.any():
            losers_games = games[one]
            winners = short0[one].astype(np.int64)  # seat 0 short: seat 1 wins
            self._pick_up(losers_games, winners)
            self._move_pile(losers_games, 1 - winners, winners)
            self._end(losers_games, winners, WAR_SHORTAGE)
        neither = ~(short0 | short1)
        self.at_war[games[neither]] = True

    def _take_trick(self, games, winners):
        config = self.config
        self._pick_up(games, winners)
        self.points[winners, games] += 1
        self.tricks[games] += 1
        self.at_war[games] = False
        ended = self.count[(1 - winners) * self.n + games] == 0
        if ended.any():
            self._end(games[ended], winners[ended], ALL_CARDS)
        if config.target_points is not None:
            reached = ~ended & (self.points[winners, games] >= config.target_points)
            if reached.any():
                self._end(games[reached], winners[reached], POINTS)
            ended |= reached
        if config.max_battles is not None:
            limit = ~ended & (self.battles[games] >= config.max_battles)
            if limit.any():
                self._end(games[limit], NO_WINNER, BATTLE_LIMIT)

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
            if not mine.any():
                continue
            own = games[mine]
            uniform = hash_uniform_array(self.reaction_key[seat, own], model.stream, self.moves[seat, own])
            reaction[mine] = np.searchsorted(self._cdfs[seat], uniform, side="right")
        reaction[self.taken_over[seats, games]] = 0
        return reaction

    def _log_reactions(self, seats, games, ticks):
        slots = self.n_reactions[seats, games]
        if slots.max() >= self.reactions.shape[2]:
            grown = np.zeros((2, self.n, 2 * self.reactions.shape[2]), dtype=self.reactions.dtype)
            grown[:, :, : self.reactions.shape[2]] = self.reactions
            self.reactions = grown
        self.reactions[seats, games, slots] = ticks
        self.n_reactions[seats, games] = slots + 1

    def _count_idle(self, games, seats, ticks, takeover):
        """Seat 0 played by a model: it idles ``reaction`` ticks before its own draw, ``turn_ticks - 1``
        before the takeover tick (that tick's idle and takeover rewards are the last step's)."""
        seat0 = (seats == 0) & ~self.taken_over[0, games]
        if not seat0.any():
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


# --- deals ------------------------------------------------------------------------------
def draw_deal(rng: np.random.Generator) -> tuple[np.ndarray, int, int]:
    """The three draws of ``WarEnv.reset``, in its order: a shuffled deck, the starter, the round key."""
    permutation = rng.permutation(DECK_SIZE)
    starter = int(rng.integers(2))
    return permutation, starter, draw_round_key(rng)


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
@dataclass(frozen=True)
class RoundBatch:
    """Per-round results of ``simulate``, one entry per deal (arrays of length k)."""

    rounds: BatchedRounds
    episode_return: np.ndarray
    """Seat 0's return, the float sum ``play_round`` makes of the env's step rewards."""
    steps: np.ndarray
    """Env steps seat 0 took (the takeover tick, else the round's ticks)."""

    def __len__(self) -> int:
        return self.rounds.n

    def round_info(self, i: int) -> dict:
        """Round ``i`` as the env's ``info["round"]`` (``war_env.env.describe_round``)."""
        rounds = self.rounds
        winner = int(rounds.winner[i])
        return {
            "winner": None if winner == NO_WINNER else winner,
            "reason": END_REASONS[rounds.reason[i]],
            "battles": int(rounds.battles[i]),
            "wars": int(rounds.wars[i]),
            "points": (int(rounds.points[0, i]), int(rounds.points[1, i])),
            "cards": (int(rounds.count[i]), int(rounds.count[rounds.n + i])),
            "takeover": (bool(rounds.taken_over[0, i]), bool(rounds.taken_over[1, i])),
            "false_starts": (0, 0),
            "reaction_ticks": (rounds.reaction_ticks(0, i), rounds.reaction_ticks(1, i)),
            "steps": int(self.steps[i]),
            "ticks": int(rounds.tick[i]),
        }


def simulate(config: WarConfig, seat_models: tuple[ReactionModel, ReactionModel],
             decks: np.ndarray | list, starters: np.ndarray, round_keys: np.ndarray) -> RoundBatch:
    """Play one whole round per deal, both seats timed by their reaction models, move by move.
    ``decks``: shuffled decks ``(k, 52)`` or a list of ``(pile0, pile1)`` card lists."""
    count = len(starters)
    rounds = BatchedRounds(config, count, seat_models)
    games = np.arange(count)
    rounds.start(games, decks if isinstance(decks, list) else np.asarray(decks), starters, round_keys)
    rounds.play_moves(games)
    taken = rounds.taken_over[0]
    steps = np.where(taken, rounds.agent_steps, rounds.tick)
    idle_sums = _idle_sums(config.reward_idle_tick, int(rounds.idle_before_last.max(initial=0)))
    outcome = np.array([config.outcome_reward(None, 0), config.outcome_reward(0, 0), config.outcome_reward(1, 0)])
    last_tick = 0.0 + config.reward_idle_tick + config.reward_takeover  # the takeover tick, as clock.tick sums it
    last_step = np.where(taken, last_tick, 0.0) + outcome[rounds.winner + 1]
    returns = idle_sums[rounds.idle_before_last] + last_step
    return RoundBatch(rounds, returns, steps)


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
    """The reaction model of a scripted agent that times its draws like a bot, or ``None`` when the
    agent's draws depend on more than its turn clock (then it must be played tick by tick).

    ``prompt`` draws at once, ``never`` is taken over, ``last_moment`` draws on the last tick, and
    ``human`` / ``bot:SPEC`` sample the bot's reaction with ``hash_uniform(agent_seed, 18, turn)``
    (``agents.scripted``), which ``ReactionModel(key_stream=STREAM_AGENT_SEED)`` reproduces."""
    if isinstance(agent, Bot):
        return ReactionModel.of_bot(agent, config, seat=0)
    try:
        from agents import scripted
        from war_env.records import STREAM_AGENT_SEED
    except ImportError:  # pragma: no cover - the agents package is part of the project
        return None
    name = type(agent)
    fixed = {scripted.Prompt: 0, scripted.Never: config.turn_ticks}
    if name in fixed:
        return ReactionModel(make_bot(f"fixed:ticks={fixed[name]}").reaction_cdf(config), STREAM_REACTION[0])
    if isinstance(agent, (scripted.LastMoment, scripted.BotAgent)):
        if agent.config.turn_ticks != config.turn_ticks or agent.config.tick_seconds != config.tick_seconds:
            raise ValueError(
                f"agent {agent.spec()!r} was built for a turn of {agent.config.turn_ticks} ticks of "
                f"{agent.config.tick_seconds} s, the env has {config.turn_ticks} of {config.tick_seconds} s"
            )
        if isinstance(agent, scripted.LastMoment):
            return ReactionModel(make_bot(f"fixed:ticks={config.turn_ticks - 1}").reaction_cdf(config), STREAM_REACTION[0])
        return ReactionModel(agent.bot.reaction_cdf(config), scripted.STREAM_AGENT_REACTION, STREAM_AGENT_SEED)
    return None


def play_rounds(config: WarConfig, agent, opponent: str | Bot, seeds: Sequence[int], *, first_index: int = 0,
                agent_spec: str | None = None, opponent_spec: str | None = None) -> list:
    """``records.play_round(env, agent, seed)`` for every seed at once, for agents that
    ``agent_reaction_model`` covers: the same ``RoundRecord`` list, field by field.

    Raises ``ValueError`` for an agent whose draws are not a reaction-time model (play it tick by tick).
    """
    from war_env.records import RoundRecord

    model = agent_reaction_model(agent, config)
    if model is None:
        raise ValueError(f"the fast path plays reaction-time agents only, not {agent!r}: use records.play_round")
    opponent_bot = make_bot(opponent)
    decks, starters, keys = deals_from_seeds(seeds)
    batch = simulate(config, (model, ReactionModel.of_bot(opponent_bot, config, seat=1)), decks, starters, keys)
    agent_name = agent_spec if agent_spec is not None else agent.spec()
    opponent_name = opponent_spec if opponent_spec is not None else opponent_bot.spec()
    records = []
    for i, seed in enumerate(seeds):
        info = batch.round_info(i)
        records.append(RoundRecord(
            round=first_index + i, seed=int(seed), agent=agent_name, opponent=opponent_name,
            winner=info["winner"], reason=info["reason"], battles=info["battles"], wars=info["wars"],
            points=info["points"], cards=info["cards"], takeover=info["takeover"],
            false_starts=info["false_starts"], reaction_ticks=tuple(info["reaction_ticks"][0]),
            steps=info["steps"], ticks=info["ticks"], episode_return=float(batch.episode_return[i]),
        ))
    return records
