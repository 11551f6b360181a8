"""The batched engine from Python: the arrays of n rounds and the compiled calls that change them.

``BatchedRounds`` is the engine itself: ``start`` deals rounds, ``play_cards`` plays their card games
to the end and ``time_rounds`` lays the clock over the moves (the fast path), ``stats`` reads the
results. ``BatchedSteps`` adds what the vector env needs: seat 0 pressed from outside, one env step
of every round at once (``step``), its observations and the rounds' own generators for the resets.
Importing this module imports numba (the ``fast`` extra).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from gymnasium.utils import seeding

from war_env.batched import cards as card_kernels
from war_env.batched import clock as clock_kernels
from war_env.batched import stepping
from war_env.batched.generators import POINTERS, pointers_of
from war_env.batched.layout import KEY_ROUND, Col, delay_cdf, new_arrays, new_log, rules_of
from war_env.batched.models import timing_of
from war_env.core.bots import Bot, ReactionModel
from war_env.core.cards import DECK_SIZE
from war_env.core.observation import observation_size, scales
from war_env.core.round_info import RoundStats
from war_env.core.rules import WarConfig

Piles = Sequence[tuple[Sequence[int], Sequence[int]]]
_TABLE_SOURCES = np.array([Col.WINNER, Col.REASON, Col.BATTLES, Col.WARS, Col.POINTS, Col.POINTS + 1, Col.COUNT,
                           Col.COUNT + 1, Col.TAKEN_OVER, Col.TAKEN_OVER + 1, Col.FALSE_STARTS, Col.FALSE_STARTS + 1,
                           Col.STEPS, Col.TICK])
"""The ``state`` column of each column of ``RoundStats.table`` (``round_info.TABLE_COLUMNS``)."""


class BatchedRounds:
    """``n`` rounds of War in the engine's arrays (``war_env.batched.layout``). ``models[seat]`` times
    a seat that draws by itself; ``None`` marks a seat pressed from outside."""

    def __init__(self, config: WarConfig, n: int, models: tuple[ReactionModel | None, ReactionModel | None],
                 max_episode_steps: int | None = None):
        self.config = config
        self.n = n
        self.rules = rules_of(config, max_episode_steps)
        self.timing = timing_of(models, config)
        self.state, self.cards, self.keys = new_arrays(n)
        self.log = new_log(n, config.turn_ticks)

    def start(self, piles: np.ndarray | Piles, starters, round_keys) -> None:
        """Start round i from ``piles[i]``, ``starters[i]`` and ``round_keys[i]``: ``piles`` shuffled decks
        ``(n, 52)`` (seat 0 gets the first half, as ``cards.deal_from_permutation``) or ``(pile0, pile1)``
        card lists, top card first."""
        if isinstance(piles, np.ndarray):
            stepping.start_decks(np.ascontiguousarray(piles, dtype=np.int8), np.asarray(starters, dtype=np.int64),
                                 np.asarray(round_keys, dtype=np.uint64), self.state, self.cards, self.keys,
                                 *self.timing, self.rules)
            return
        for game, pair in enumerate(piles):
            for seat, pile in enumerate(pair):
                self.cards[game, seat, : len(pile)] = pile
                self.state[game, Col.COUNT + seat] = len(pile)
        self.state[:, Col.STARTER] = starters
        self.keys[:, KEY_ROUND] = round_keys
        stepping.start_rounds(self.state, self.cards, self.keys, *self.timing, self.rules)

    # --- whole rounds: the fast path ---------------------------------------------------------
    def play_cards(self) -> None:
        """Every round's card game to its end (no clock: the cards never depend on timing)."""
        card_kernels.play_cards(self.state, self.cards, self.keys, self.rules)

    def time_rounds(self) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]:
        """The clock over the played card games (``clock.time_rounds``): seat 0's idle ticks before
        its last env step, and each seat's own reaction ticks, packed round after round."""
        moves = self.state[:, Col.MOVES]
        idle = np.zeros(self.n, dtype=np.int64)
        packed = tuple(np.zeros(int(moves.sum()), dtype=self.log.dtype) for _ in range(2))
        clock_kernels.time_rounds(self.state, self.keys, *self.timing, self.rules, idle, *packed)
        return idle, tuple(ticks[: self.state[:, Col.LOGGED + seat].sum()] for seat, ticks in enumerate(packed))

    # --- reading results ------------------------------------------------------------------------
    def stats(self, games: np.ndarray, reactions: tuple[np.ndarray, np.ndarray] | None = None) -> RoundStats:
        """The rounds ``games`` as ``RoundStats``; their reactions from the logs, or ``reactions``
        (``time_rounds``'s packed ones, of every round in order)."""
        rows = self.state[games]
        counts = rows[:, Col.LOGGED:Col.LOGGED + 2]
        if reactions is None:
            logs = self.log[games]
            held = np.arange(logs.shape[2]) < counts[:, :, None]
            reactions = (logs[:, 0][held[:, 0]], logs[:, 1][held[:, 1]])
        return RoundStats(rows[:, _TABLE_SOURCES], reactions, counts)

    def grow_log(self) -> None:
        """Double the room of the reaction logs (a new array, the entries kept)."""
        grown = np.zeros((self.n, 2, 2 * self.log.shape[2]), dtype=self.log.dtype)
        grown[:, :, : self.log.shape[2]] = self.log
        self.log = grown

    def nbytes(self) -> int:
        return self.state.nbytes + self.cards.nbytes + self.keys.nbytes + self.log.nbytes


class BatchedSteps:
    """The vector env's engine: ``n`` rounds of seat 0 (pressed from outside, with the config's latency)
    against ``opponent``, stepped together, each reset from its own generator as ``WarEnv.reset`` does.
    ``observes_latency``: the observations are WarLatency-v0's (``observation.latency_fields``), else War-v0's."""

    backend = "numba"

    def __init__(self, config: WarConfig, n: int, opponent: Bot, max_episode_steps: int | None,
                 observes_latency: bool = False):
        self.rounds = BatchedRounds(config, n, (None, ReactionModel.of_bot(opponent, config, seat=1)), max_episode_steps)
        self.n = n
        self.observations = np.zeros((n, observation_size(config, observes_latency)), dtype=np.float32)
        self.masks = np.ones((n, 2), dtype=bool)
        self.rngs: list[np.random.Generator | None] = [None] * n
        """Each round's generator (``WarEnv``'s ``np_random``); the compiled code reads ``_pointers``."""
        self._pointers = np.zeros((n, POINTERS), dtype=np.uint64)
        self._divisors = np.array(scales(config))
        self._delay_cdf = delay_cdf(config)
        self._tick_rewards = np.array([  # by false start + 2 * idle + takeover, summed as clock.tick does
            0.0, 0.0 + config.reward_false_start, 0.0 + config.reward_idle_tick,
            0.0 + config.reward_idle_tick + config.reward_takeover,
        ])
        self._outcomes = np.array([config.outcome_reward(winner, seat=0) for winner in (None, 0, 1)])
        self._pending = np.empty(n, dtype=np.int64)

    def reset(self, games: np.ndarray, seeds: list[int | None], piles: Piles | None, starters: list[int] | None):
        """New rounds in ``games``: each generator re-seeded where ``seeds`` has a seed, then the deal
        of ``WarEnv.reset`` (its three draws), ``piles`` and ``starters`` replacing what was drawn."""
        rounds = self.rounds
        for game, seed in zip(games.tolist(), seeds):
            if seed is not None or self.rngs[game] is None:
                self._seed(game, seed)
        unseeded = [game for game, rng in enumerate(self.rngs) if rng is None]
        for game in unseeded:  # a round that was never reset deals from a fresh generator on its first step
            self._seed(game, None)
            rounds.state[game, Col.NEEDS_RESET] = 1
        dealt = np.zeros((len(games), 2, DECK_SIZE), dtype=np.int8)
        counts = np.full((len(games), 2), -1, dtype=np.int64)
        for i, pair in enumerate(piles or ()):
            for seat, pile in enumerate(pair):
                dealt[i, seat, : len(pile)] = pile
                counts[i, seat] = len(pile)
        chosen = np.full(len(games), -1, dtype=np.int64) if starters is None else np.asarray(starters, dtype=np.int64)
        stepping.reset_rounds(self._pointers, games, dealt, counts, chosen, rounds.state, rounds.cards, rounds.keys,
                              *rounds.timing, rounds.rules, self._divisors, self.observations, self.masks)

    def _seed(self, game: int, seed: int | None) -> None:
        self.rngs[game], _ = seeding.np_random(seed)
        self._pointers[game] = pointers_of(self.rngs[game])

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
        """One env step of every round; ``actions`` int64 ``(n,)``. Returns rewards, terminated,
        truncated, and how many rounds ended. ``ValueError`` for an action other than 0 or 1."""
        rounds, n = self.rounds, self.n
        rewards = np.empty(n, dtype=np.float64)
        terminated = np.empty(n, dtype=bool)
        truncated = np.empty(n, dtype=bool)
        tables = (*rounds.timing, rounds.rules, self._divisors)
        ended, pending, most = stepping.step(
            rounds.state, rounds.cards, rounds.keys, rounds.log, self._pointers, *rounds.timing, rounds.rules,
            self._delay_cdf, self._divisors, self._tick_rewards, self._outcomes, actions, self.observations,
            self.masks, rewards, terminated, truncated, self._pending)
        if ended < 0:
            bad = actions[(actions != 0) & (actions != 1)]
            raise ValueError(f"invalid action(s) {bad[:5].tolist()}: War-v0 takes 0 (wait) or 1 (draw)")
        games = self._pending[:pending]
        while games.size:  # a long play-out filled a reaction log: grow it and go on
            rounds.grow_log()
            finished, stop = stepping.finish_playouts(
                rounds.state, rounds.cards, rounds.keys, rounds.log, *tables, self._outcomes, self.observations,
                self.masks, rewards, terminated, truncated, games)
            ended += finished
            games = games[stop:] if stop >= 0 else games[:0]
        if most >= rounds.log.shape[2] - 1:  # room for the next step's draw
            rounds.grow_log()
        return rewards, terminated, truncated, ended

    def stats(self, games: np.ndarray) -> RoundStats:
        return self.rounds.stats(games)

    def nbytes(self) -> int:
        return self.rounds.nbytes() + self.observations.nbytes + self.masks.nbytes
