"""The batched engine from Python: the arrays of n rounds and the compiled calls that change them.

``BatchedRounds`` is the engine itself: ``start`` deals rounds, ``play_cards`` plays their card games
to the end and ``time_rounds`` lays the clock over the moves (the fast path), ``table`` reads the
results. ``BatchedSteps`` adds what the vector env needs: seat 0 pressed from outside, one env step
of every round at once (``step``), its observations and the rounds' own generators for the resets.
Importing this module imports numba (the ``fast`` extra).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from gymnasium.utils import seeding

from war_env.batched import cards as card_kernels
from war_env.batched import stepping, turn_clock
from war_env.batched.generators import POINTERS, pointers_of
from war_env.batched.models import reaction_tables
from war_env.batched.state import (
    BY_CARD,
    BY_SCORE,
    ROUND,
    Deals,
    Resets,
    RoundArrays,
    Rules,
    new_log,
    new_state,
    params_of,
    reported_words,
)
from war_env.core.bots import Bot, ReactionModel
from war_env.core.cards import DECK_SIZE
from war_env.core.observation import observation_fields
from war_env.core.round_info import RoundTable, info_dtype
from war_env.core.rules import WarConfig

Piles = Sequence[tuple[Sequence[int], Sequence[int]]]


class BatchedRounds:
    """``n`` rounds of War in the engine's arrays (``war_env.batched.state``). ``models[seat]`` times
    a seat that draws by itself; ``None`` marks a seat pressed from outside; ``observation`` names the one seat 0
    is shown and ``restart`` says whether a round that ended starts again on the next step (``BatchedSteps``)."""

    def __init__(
        self,
        config: WarConfig,
        n: int,
        models: tuple[ReactionModel | None, ReactionModel | None],
        max_episode_steps: int | None = None,
        observation: str = "war",
        restart: bool = False,
    ):
        self.config = config
        self.n = n
        self.rules = Rules(
            params_of(config, models, max_episode_steps, observation, restart), *reaction_tables(models, config)
        )
        self.state = new_state(n)
        self.log = new_log(n, config.turn_ticks)
        self.generator_pointers = np.zeros((n, POINTERS), dtype=np.uint64)

    @property
    def arrays(self) -> RoundArrays:
        """The arrays the compiled calls change (the log and the state are replaced as they grow or are
        played again: read them here for each call)."""
        return RoundArrays(self.state, self.log, self.generator_pointers)

    def start(self, piles: np.ndarray | Piles, starters, round_keys) -> None:
        """Start round i from ``piles[i]``, ``starters[i]`` and ``round_keys[i]``: ``piles`` shuffled decks
        ``(n, 52)`` (seat 0 gets the first half, as ``cards.deal_from_permutation``) or ``(pile0, pile1)``
        card lists, top card first."""
        if isinstance(piles, np.ndarray):
            stepping.start_decks(
                self.state,
                self.rules,
                Deals(
                    np.ascontiguousarray(piles, dtype=np.int8),
                    np.asarray(starters, dtype=np.int64),
                    np.asarray(round_keys, dtype=np.uint64),
                ),
            )
            return
        for game, pair in enumerate(piles):
            for seat, pile in enumerate(pair):
                self.state["piles"][game, seat, : len(pile)] = pile
                self.state["cards"][game, seat] = len(pile)
        self.state["starter"] = starters
        self.state["round_key"] = round_keys
        stepping.start_rounds(self.state, self.rules)

    # --- whole rounds: the fast path ---------------------------------------------------------
    @property
    def clock_reads_table(self) -> bool:
        """Whether a seat's reactions depend on the table as its turns open (a ``leader``'s on the score, a
        ``parity``'s on its last face-up card): then the clock over whole rounds (``time_rounds``) plays their card
        games along with it."""
        return bool(np.isin(self.rules.params["varies"][0], (BY_SCORE, BY_CARD)).any())

    def play_cards(self) -> None:
        """Every round's card game to its end (no clock: the cards never depend on timing). Where the clock
        reads the table (``clock_reads_table``), the rounds as dealt are kept for ``time_rounds``."""
        if self.clock_reads_table:
            self._dealt = self.state.copy()
        card_kernels.play_cards(self.state, self.rules.params)

    def time_rounds(self) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]:
        """The clock over the played card games (``clock.time_rounds``): seat 0's idle ticks before
        its last env step, and each seat's own reaction ticks, packed round after round. Where the clock
        reads the table, it plays the card games again from the deal, move by move, with the clock (the
        same cards: they never depend on timing)."""
        moves = self.state["moves"][:, 0]
        if self.clock_reads_table:
            self.state = self._dealt
        idle = np.zeros(self.n, dtype=np.int64)
        packed = tuple(np.zeros(int(moves.sum()), dtype=self.log.dtype) for _ in range(2))
        turn_clock.time_rounds(self.state, self.rules, idle, packed)
        logged = self.state["logged"]
        return idle, tuple(ticks[: logged[:, seat].sum()] for seat, ticks in enumerate(packed))

    # --- reading results ------------------------------------------------------------------------
    def table(self, games: np.ndarray, reactions: tuple[np.ndarray, np.ndarray] | None = None) -> RoundTable:
        """The rounds ``games`` as a ``RoundTable``, read from the state's fields of the same names; their
        reactions from the logs, or ``reactions`` (``time_rounds``'s packed ones, of every round in order)."""
        games = np.asarray(games, dtype=np.int64)
        words = reported_words()
        if reactions is None:
            # a plain tuple of arrays: numba reads it in C (BatchedSteps' _rules)
            rows, counts, *reactions = stepping.read_rounds(tuple(self.arrays), games, words)
        else:
            counts = self.state["logged"][games]
            rows = np.ascontiguousarray(self.state.view(np.int64).reshape(self.n, ROUND.itemsize // 8)[games][:, words])
        rows = rows.view(info_dtype()).reshape(len(games))
        return RoundTable(rows, tuple(reactions), counts)

    def grow_log(self) -> None:
        """Double the room of the reaction logs (a new array, the entries kept)."""
        grown = np.zeros((self.n, 2, 2 * self.log.shape[2]), dtype=self.log.dtype)
        grown[:, :, : self.log.shape[2]] = self.log
        self.log = grown

    def nbytes(self) -> int:
        return self.state.nbytes + self.log.nbytes + self.generator_pointers.nbytes


class BatchedSteps:
    """The vector env's engine: ``n`` rounds of seat 0 (pressed from outside, with the config's latency)
    against ``opponent``, stepped together, each reset from its own generator as ``WarEnv.reset`` does.
    ``observation``: the observation it writes, by name (``observation.OBSERVATIONS``, the single env's
    ``observation_kind``): ``"war"``, War-v0's 16 floats (also over the latency game: the memory probe's),
    ``"latency"``, WarLatency-v0's, or ``"inference"``, those and the inference probe's ``opponent_reaction``.
    ``restart``: a round that ended starts again on the next step (next-step autoreset); without, the
    caller restarts it (``restart_ended``: same-step) or resets it (disabled)."""

    backend = "numba"

    def __init__(
        self,
        config: WarConfig,
        n: int,
        opponent: Bot,
        max_episode_steps: int | None,
        observation: str = "war",
        restart: bool = True,
    ):
        width = len(observation_fields(observation, config))
        self.rounds = BatchedRounds(
            config, n, (None, ReactionModel.of_bot(opponent, config, seat=1)), max_episode_steps, observation, restart
        )
        self.n = n
        self.observations = np.zeros((n, width), dtype=np.float32)
        self.masks = np.ones((n, 2), dtype=bool)
        self.generators: list[np.random.Generator | None] = [None] * n
        """Each round's generator (``WarEnv``'s ``np_random``); the compiled code reads the rounds'
        ``generator_pointers``, which these must outlive."""
        self._pending = np.empty(n, dtype=np.int64)
        self._rules = tuple(self.rounds.rules)
        """``rounds.rules`` as the compiled calls take it here, a plain tuple: numba reads a plain tuple of arrays
        in C, a NamedTuple in Python (2 us more a step: half of one at N = 1). So are ``_arrays`` and a step's
        ``StepOutputs``."""
        self._arrays = tuple(self.rounds.arrays)
        self._latency = stepping.uses_latency(self.rounds.rules.params)
        """``stepping.step``'s ``latency``: ``None`` for War-v0's game, whose step is compiled without it."""

    def reset(self, games: np.ndarray, seeds: list[int | None], piles: Piles | None, starters: list[int] | None):
        """New rounds in ``games``: each generator re-seeded where ``seeds`` has a seed, then the deal
        of ``WarEnv.reset`` (its three draws), ``piles`` and ``starters`` replacing what was drawn."""
        for game, seed in zip(games.tolist(), seeds):
            if seed is not None or self.generators[game] is None:
                self._seed(game, seed)
        unseeded = [game for game, generator in enumerate(self.generators) if generator is None]
        for game in unseeded:  # a round that was never reset deals from a fresh generator on its first step
            self._seed(game, None)
            self.rounds.state["needs_reset"][game] = 1
        dealt = np.zeros((len(games), 2, DECK_SIZE), dtype=np.int8)
        counts = np.full((len(games), 2), -1, dtype=np.int64)
        for i, pair in enumerate(piles or ()):
            for seat, pile in enumerate(pair):
                dealt[i, seat, : len(pile)] = pile
                counts[i, seat] = len(pile)
        chosen = np.full(len(games), -1, dtype=np.int64) if starters is None else np.asarray(starters, dtype=np.int64)
        self._reset_rounds(np.asarray(games, dtype=np.int64), dealt, counts, chosen)

    def restart_ended(self, games: np.ndarray) -> None:
        """New rounds, from their own generators, where ``games`` ended (the same-step autoreset)."""
        self._reset_rounds(
            games,
            np.zeros((len(games), 2, DECK_SIZE), dtype=np.int8),
            np.full((len(games), 2), -1, dtype=np.int64),
            np.full(len(games), -1, dtype=np.int64),
        )

    def _reset_rounds(self, games, dealt, counts, starters) -> None:
        stepping.reset_rounds(
            self._arrays, self._rules, tuple(Resets(games, dealt, counts, starters)), self.observations, self.masks
        )

    def _seed(self, game: int, seed: int | None) -> None:
        self.generators[game], _ = seeding.np_random(seed)
        self.rounds.generator_pointers[game] = pointers_of(self.generators[game])

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
        """One env step of every round; ``actions`` int64 ``(n,)``. Returns rewards, terminated,
        truncated, and how many rounds ended. ``InvalidAction`` for an action other than 0 or 1, ``RoundOver``
        for a round that ended and was not reset (without ``restart``); either way no round moves."""
        n = self.n
        rewards, terminated, truncated = np.empty(n, dtype=np.float64), np.empty(n, dtype=bool), np.empty(n, dtype=bool)
        outputs = (self.observations, self.masks, rewards, terminated, truncated)  # a StepOutputs (see _rules)
        ended, pending, most = stepping.step(self._arrays, self._rules, actions, outputs, self._pending, self._latency)
        games = self._pending[:pending]
        while games.size:  # a long play-out filled a reaction log: grow it and go on
            self._grow_log()
            finished, stop = stepping.finish_playouts(self._arrays, self._rules, games, outputs)
            ended += finished
            games = games[stop:] if stop >= 0 else games[:0]
        if most >= self.rounds.log.shape[2] - 1:  # room for the next step's draw
            self._grow_log()
        return rewards, terminated, truncated, ended

    def _grow_log(self) -> None:
        self.rounds.grow_log()
        self._arrays = tuple(self.rounds.arrays)

    def write_rounds(
        self, games: np.ndarray, numbers: np.ndarray, takeover: np.ndarray, blank: np.ndarray, blanked: np.ndarray
    ) -> list[tuple[np.ndarray, np.ndarray]]:
        """The info columns of the rounds ``games`` that ended, written in place (``stepping.write_rounds``):
        ``numbers`` one ``info_dtype`` record per round as int64 words, ``takeover`` bools ``(n, 2)``, the rows
        ``blanked`` made ``blank`` first. Returns each round's reaction ticks, a pair of int64 arrays (views of one
        array per seat)."""
        reactions0, reactions1, bounds = stepping.write_rounds(
            self._arrays, games, reported_words(), (numbers, takeover), blank, blanked
        )
        ends = bounds.tolist()
        return [(reactions0[a0:b0], reactions1[a1:b1]) for (a0, a1), (b0, b1) in zip(ends, ends[1:])]

    def nbytes(self) -> int:
        return self.rounds.nbytes() + self.observations.nbytes + self.masks.nbytes
