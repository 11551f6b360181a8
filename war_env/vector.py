"""WarVectorEnv: ``num_envs`` games of War-v0 advanced together in numpy arrays.

``gym.make_vec("War-v0", num_envs=N, vectorization_mode="vector_entry_point")`` returns it. The state
of all games lives in one ``fastpath.BatchedRounds``; ``step`` has no Python loop over environments:
it computes, for every game at once, what the tick does (false start, idle tick, draw, takeover,
the opponent bot's draw), then plays the draws of the few games in which one happens as one batch.
``tests/test_vector.py`` proves every sub-env equal to the single ``WarEnv``, step by step.

With numba installed (the ``fast`` extra), ``step`` instead runs the compiled kernels of
``war_env.vector_kernel`` on the same arrays: one plain loop over the games, no numpy call per event.
``backend="numpy"`` keeps the numpy code; the tests run every equality test over both.
"""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Integral

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from war_env.bots import Bot, make_bot
from war_env.cards import DECK_SIZE, parse_piles
from war_env.engine import END_REASONS
from war_env.deal import check_starter, draw_deal
from war_env.env import make_config
from war_env.fastpath import NO_WINNER, BatchedRounds, ReactionModel, _any, load_kernel
from war_env.observation import OBSERVATION_SIZE, scales
from war_env.round_info import ROUND_INFO_KEYS, round_info
from war_env.rules import WarConfig

RESET_OPTIONS = frozenset({"piles", "starter", "reset_mask"})


class WarVectorEnv(VectorEnv):
    """War-v0 batched: ``num_envs`` independent rounds, the same rules, timer, bots, takeover,
    observation, reward and info as ``war_env.env.WarEnv`` (read its docstring for the game).

    ## Spaces
    ``single_action_space = Discrete(2)``, ``action_space = MultiDiscrete([2] * num_envs)``;
    ``single_observation_space = Box(0, 1, (16,), float32)`` with the index table of ``WarEnv``,
    ``observation_space`` its batch, shape ``(num_envs, 16)``. Observations are bit-identical to the
    single env's (the same float64 formulas, cast to float32).

    ## Step
    ``step(actions)`` takes an integer (or bool) array of shape ``(num_envs,)`` with values 0 (wait)
    and 1 (draw), and returns ``(observations, rewards, terminations, truncations, infos)``: float32
    ``(num_envs, 16)``, float64 ``(num_envs,)`` (the single env's Python floats, exactly), bool, bool,
    dict. When seat 0 is taken over, the rest of its round is played out at once within the same step,
    for the affected games only, by ``BatchedRounds.play_moves`` (move by move, both seats bots; exact,
    the tests compare it with ``WarEnv._play_out``).

    ## Autoreset
    ``metadata["autoreset_mode"] = AutoresetMode.NEXT_STEP``: the step after a sub-env terminated or
    was truncated resets it (its action is ignored) and returns its first observation, reward 0,
    ``terminated = truncated = False`` and the reset info.

    ## Seeding
    One ``np.random.Generator`` per sub-env, used only for the three draws of a reset (shuffled deck,
    starter, round key), exactly as ``WarEnv.reset``. ``reset(seed=s)`` seeds sub-env ``i`` with
    ``s + i`` (Gymnasium's convention, as ``SyncVectorEnv``); ``reset(seed=[s0, s1, ...])`` gives each
    its own seed; ``reset()`` without a seed and every autoreset continue each sub-env's own generator.
    So sub-env ``i`` follows exactly the trajectory of ``gym.make("War-v0").reset(seed=s + i)``
    followed by ``reset()`` after each of its rounds, for the same actions.

    ## Reset options
    ``options={"piles": [[...], [...]], "starter": 0}``: dealt piles (card codes, top first) and/or a
    starter for every sub-env reset by this call; or one entry per sub-env (``piles`` a list of
    ``num_envs`` pile pairs, ``starter`` a sequence of ``num_envs`` seats). As in the single env, the
    three random draws are made whatever the options. Autoresets always deal at random.
    ``options={"reset_mask": mask}`` resets only the sub-envs where the bool mask is true (Gymnasium's
    partial reset); the others keep their state.

    ## Info (Gymnasium's vector-info convention: each key has a ``_key`` bool mask)
    Every step: ``action_mask`` (bool ``(num_envs, 2)``: ``[True, draw would be in turn]``).
    On a step where some sub-envs terminate: ``round``, a dict of arrays filled where ``_round`` is
    true: ``winner`` (int, ``-1`` for a draw, where the single env says ``None``), ``reason`` (object:
    the reason string), ``battles``, ``wars``, ``steps``, ``ticks`` (int), ``points``, ``cards``,
    ``false_starts`` (int ``(num_envs, 2)``), ``takeover`` (bool ``(num_envs, 2)``),
    ``reaction_ticks`` (object: the pair of lists). ``sub_env_round_info(info, i)`` turns it back
    into the single env's ``info["round"]`` dict. The single env's ``scoreboard`` is not kept (it
    grows with every round); count results from ``round`` instead.

    ## Arguments
    ``WarVectorEnv(num_envs=1, opponent="human", max_episode_steps=None, config=None, **rules)``:
    ``opponent`` a bot spec or ``war_env.bots.Bot`` (a policy opponent cannot be batched: use
    ``vectorization_mode="sync"``); ``max_episode_steps`` truncates a round after that many steps,
    as ``gym.make``'s ``TimeLimit`` does (``truncated`` is true on that step even if it also
    terminated); ``config`` / rule keywords as for ``WarEnv``.

    ``backend``: ``"auto"`` (default) steps with the compiled kernels of ``war_env.vector_kernel``
    when numba imports (``pip install war-env[fast]``) and with numpy otherwise; ``"numba"`` insists
    on the kernels (``ImportError`` without numba); ``"numpy"`` never uses them. Both give identical
    results (the tests run over both); ``self.backend`` says which one runs. The first compiled step
    of a process compiles the kernels (numba caches them on disk: later processes only load them).
    """

    metadata = {"render_modes": [], "autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, num_envs: int = 1, opponent: str | Bot = "human", max_episode_steps: int | None = None,
                 render_mode: str | None = None, config: WarConfig | None = None, backend: str = "auto", **rules):
        if isinstance(num_envs, bool) or not isinstance(num_envs, Integral) or num_envs < 1:
            raise ValueError(f"num_envs must be an integer >= 1, got {num_envs!r}")
        if max_episode_steps is not None and (
            isinstance(max_episode_steps, bool) or not isinstance(max_episode_steps, Integral) or max_episode_steps < 1
        ):
            raise ValueError(f"max_episode_steps must be an integer >= 1 or None, got {max_episode_steps!r}")
        if render_mode is not None:
            raise ValueError(f"WarVectorEnv does not render (render_mode must be None), got {render_mode!r}")
        if not isinstance(opponent, (str, Bot)):
            raise TypeError(
                f"WarVectorEnv batches bot opponents only (a spec string or a war_env.bots.Bot), got {opponent!r}; "
                'for a policy opponent use gym.make_vec("War-v0", ..., vectorization_mode="sync")'
            )
        self.config = config = make_config(config, rules)
        self.opponent_bot = make_bot(opponent)
        self.num_envs = int(num_envs)
        self.max_episode_steps = max_episode_steps
        self.render_mode = None
        self.single_action_space = spaces.Discrete(2)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.single_observation_space = spaces.Box(0.0, 1.0, (OBSERVATION_SIZE,), np.float32)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)

        n = self.num_envs
        self.rounds = BatchedRounds(config, n, (None, ReactionModel.of_bot(self.opponent_bot, config, seat=1)))
        self._rngs: list[np.random.Generator | None] = [None] * n
        self._steps = np.zeros(n, dtype=np.int64)
        self._needs_reset = np.zeros(n, dtype=bool)
        self._started = False
        self._observations = np.zeros((n, OBSERVATION_SIZE), dtype=np.float32)
        self._all_valid = np.ones(n, dtype=bool)
        turn_ticks = config.turn_ticks
        # Observation columns 0-1 (can_draw, timer_left) by ticks left, the single env's formulas;
        # index turn_ticks + 1 stands for "not open".
        self._timer_table = np.array(
            [(1.0 if left else 0.0, left / turn_ticks) for left in range(turn_ticks + 1)] + [(0.0, 0.0)],
            dtype=np.float64,
        ).astype(np.float32)
        # Seat 0's reward of a tick, by code = false start + 2 * idle + takeover (as clock.tick sums it).
        self._tick_rewards = np.array([
            0.0,
            0.0 + config.reward_false_start,
            0.0 + config.reward_idle_tick,
            0.0 + config.reward_idle_tick + config.reward_takeover,
        ])
        self._scales = np.array(scales(config)[2:])  # the observation's columns 2-15 (0-1 are the timer)
        self._outcomes = np.array([config.outcome_reward(None, 0), config.outcome_reward(0, 0), config.outcome_reward(1, 0)])
        self._kernel = load_kernel(backend)
        self.backend = "numpy" if self._kernel is None else "numba"
        if self._kernel is not None:
            self._compiled_state()

    # --- Gymnasium API -------------------------------------------------------------------
    def reset(self, *, seed: int | Sequence[int | None] | None = None, options: dict | None = None):
        n = self.num_envs
        options = dict(options or {})
        unknown = set(options) - RESET_OPTIONS
        if unknown:
            raise ValueError(f"unknown reset option(s) {sorted(unknown)}; known: {sorted(RESET_OPTIONS)}")
        mask = self._reset_mask(options.get("reset_mask"))
        seeds = self._seeds(seed)
        games = np.flatnonzero(mask)
        for game in games.tolist():
            if seeds[game] is not None or self._rngs[game] is None:
                self._rngs[game], _ = seeding.np_random(seeds[game])
        decks = np.empty((len(games), DECK_SIZE), dtype=np.int8)
        starters = np.empty(len(games), dtype=np.int64)
        keys = np.empty(len(games), dtype=np.uint64)
        for row, game in enumerate(games.tolist()):
            decks[row], starters[row], keys[row] = draw_deal(self._rngs[game])
        piles = decks
        if "piles" in options:
            piles = self._per_env(options["piles"], games, parse_piles, is_single=_is_pile_pair, name="piles")
        if "starter" in options:
            starters = np.array(
                self._per_env(options["starter"], games, check_starter, is_single=_is_scalar, name="starter"),
                dtype=np.int64,
            )
        self._start(games, piles, starters, keys)
        self._refresh_timer()
        self._started = True
        return self._observations.copy(), {"action_mask": self._action_mask(), "_action_mask": mask.copy()}

    def step(self, actions):
        if not self._started:
            raise RuntimeError("call reset() before step()")
        if self._kernel is not None:
            return self._compiled_step(actions)
        press = self._check_actions(actions)
        rounds = self.rounds
        needs_reset = self._needs_reset
        resetting = _any(needs_reset)

        rounds.tick += 1
        tick = rounds.tick
        opens0 = rounds.opens[0]
        open0 = opens0 <= tick
        false_start = press & ~open0
        idle = open0 & ~press
        takeover0 = idle & (rounds.due[0] == tick)  # seat 0's due tick is the last of its turn
        events = (press & open0) | takeover0 | (rounds.due[1] == tick)
        if resetting:
            events &= ~needs_reset
        rewards = self._tick_rewards[false_start + 2 * idle + takeover0]
        rounds.false_starts[0] += false_start
        self._steps += 1

        games = np.flatnonzero(events)
        if games.size:
            seats = rounds.turn[games]
            took = takeover0[games]
            ticks = tick[games]
            rounds.draw(games, seats, ticks, took | ((seats == 1) & rounds.due_takeover[1, games]))
            if _any(took):
                rounds.play_moves(games[took])
            self._observe_rows(games)

        terminated = rounds.over.copy()
        truncated = (self._steps >= self.max_episode_steps) if self.max_episode_steps is not None else np.zeros_like(terminated)
        if resetting:
            terminated &= ~needs_reset
            truncated &= ~needs_reset
            rewards[needs_reset] = 0.0
        ended = np.flatnonzero(terminated)
        if ended.size:
            rewards[ended] += self._outcomes[rounds.winner[ended] + 1]
        infos = {}
        if resetting:
            self._autoreset(np.flatnonzero(needs_reset))
        self._refresh_timer()
        infos["action_mask"] = self._action_mask()
        infos["_action_mask"] = self._all_valid
        if ended.size:
            infos["round"], infos["_round"] = self._round_infos(ended, terminated)
        self._needs_reset = terminated | truncated
        return self._observations.copy(), rewards, terminated, truncated, infos

    def close(self, **kwargs):
        pass

    # --- extras --------------------------------------------------------------------------
    def action_masks(self) -> np.ndarray:
        """``[True, draw would be in turn]`` per sub-env, shape ``(num_envs, 2)``."""
        return self._action_mask()

    def state_nbytes(self) -> int:
        """Memory of the state of all games (rounds, generators excluded, plus the observation buffer)."""
        return self.rounds.nbytes() + self._observations.nbytes + self._steps.nbytes + self._needs_reset.nbytes

    # --- the compiled backend (war_env.vector_kernel) -----------------------------------
    def _compiled_state(self):
        kernel, n = self._kernel, self.num_envs
        self._k_rules = kernel.rules_of(self.config, track_idle=False)
        self._k_timing = kernel.timing_of(self.rounds.models)
        self._k_rounds = kernel.rounds_of(self.rounds)
        self._k_observer = kernel.Observer(
            self._observations, self._timer_table, self._scales.astype(np.float64), self._tick_rewards,
            self._outcomes, self._steps, self._needs_reset, self.max_episode_steps or 0,
        )
        self._k_resets = np.empty(n, dtype=np.int64)
        self._k_playouts = np.empty(n, dtype=np.int64)

    def _grow_reactions(self):
        self.rounds.grow_reactions()
        self._k_rounds = self._kernel.rounds_of(self.rounds)

    def _compiled_step(self, actions):
        """``step`` by ``vector_kernel.step``: the same transitions, one compiled loop over the games."""
        kernel, n = self._kernel, self.num_envs
        actions = np.asarray(actions)
        if actions.dtype == bool and actions.shape == (n,):
            actions = actions.view(np.uint8)
        elif actions.shape != (n,) or actions.dtype.kind not in "iu" or not kernel.valid_actions(actions):
            self._check_actions(actions)  # raises, naming the problem
        rewards = np.empty(n, dtype=np.float64)
        terminated = np.empty(n, dtype=bool)
        truncated = np.empty(n, dtype=bool)
        state = (self._k_rounds, self._k_rules, self._k_timing, self._k_observer)
        resets, playouts, ended, most = kernel.step(*state, actions, rewards, terminated, truncated,
                                                    self._k_resets, self._k_playouts)
        if playouts:
            games = self._k_playouts[:playouts].copy()
            while True:  # a long play-out may fill the reaction log: grow it and go on
                stop, finished = kernel.finish_playouts(self._k_rounds, *state[1:], games, rewards, terminated, truncated)
                ended += finished
                if stop < 0:
                    break
                self._grow_reactions()
                games = games[stop:]
        if most >= self.rounds.reactions.shape[2]:  # room for the next step's one draw per game
            self._grow_reactions()
        infos = {}
        if resets:
            self._autoreset(self._k_resets[:resets].copy())
        infos["action_mask"] = self._action_mask()
        infos["_action_mask"] = self._all_valid
        if ended:
            infos["round"], infos["_round"] = self._round_infos(np.flatnonzero(terminated), terminated)
        return self._observations.copy(), rewards, terminated, truncated, infos

    # --- helpers -------------------------------------------------------------------------
    def _start(self, games, piles, starters, keys):
        self.rounds.start(games, piles, starters, keys)
        self._steps[games] = 0
        self._needs_reset[games] = False
        self._observe_rows(games)

    def _autoreset(self, games):
        decks = np.empty((len(games), DECK_SIZE), dtype=np.int8)
        starters = np.empty(len(games), dtype=np.int64)
        keys = np.empty(len(games), dtype=np.uint64)
        for row, game in enumerate(games.tolist()):  # the generators: per env, on reset only
            decks[row], starters[row], keys[row] = draw_deal(self._rngs[game])
        self._start(games, decks, starters, keys)

    def _refresh_timer(self):
        rounds = self.rounds
        left = np.minimum(rounds.due[0] - rounds.tick, self.config.turn_ticks + 1)
        self._observations[:, :2] = self._timer_table[left]

    def _action_mask(self) -> np.ndarray:
        mask = np.ones((self.num_envs, 2), dtype=bool)
        mask[:, 1] = self._observations[:, 0] > 0.5
        return mask

    def _observe_rows(self, games):
        """Columns 2-15 of ``observation.observe`` for seat 0 of ``games`` (columns 0-1 are the timer):
        the same integer counts divided by the same scales in float64 (``min(..., 1.0)`` is a no-op
        on every column but the three capped ones), then cast to float32. (The compiled backend
        writes whole rows, timer included, with ``vector_kernel.observe_rows``.)"""
        if self._kernel is not None:
            self._kernel.observe_rows(self._k_rounds, self._k_observer, np.asarray(games, dtype=np.int64))
            return
        rounds = self.rounds
        visible = rounds.visible[:, games]
        rank_values = np.where(visible >= 0, (visible >> 2) + 2, 0)
        counts = np.stack((
            rounds.drawn[0, games], rounds.drawn[1, games], rounds.count[games], rounds.count[games + self.num_envs],
            rank_values[0], rank_values[1], rounds.at_war[games], rounds.pot_len[games],
            rounds.points[0, games], rounds.points[1, games], rounds.battles[games], rounds.starter[games] == 0,
            rounds.taken_over[0, games], rounds.taken_over[1, games],
        ), axis=1)
        self._observations[games, 2:] = np.minimum(counts / self._scales, 1.0)

    def _round_infos(self, ended, terminated):
        rounds, n = self.rounds, self.num_envs
        winner = np.full(n, NO_WINNER, dtype=np.int64)
        winner[ended] = rounds.winner[ended]
        reason = np.full(n, None, dtype=object)
        reason[ended] = np.array(END_REASONS, dtype=object)[rounds.reason[ended]]
        pairs = {}
        for name, source in (("points", rounds.points), ("false_starts", rounds.false_starts),
                             ("takeover", rounds.taken_over)):
            pairs[name] = np.zeros((n, 2), dtype=source.dtype)
            pairs[name][ended] = source[:, ended].T
        cards = np.zeros((n, 2), dtype=np.int64)
        cards[ended, 0] = rounds.count[ended]
        cards[ended, 1] = rounds.count[ended + n]
        reactions = np.full(n, None, dtype=object)
        for game in ended.tolist():  # one pair of lists per finished round
            reactions[game] = (rounds.reaction_ticks(0, game), rounds.reaction_ticks(1, game))
        singles = {}
        for name, source in (("battles", rounds.battles), ("wars", rounds.wars), ("steps", self._steps),
                             ("ticks", rounds.tick)):
            singles[name] = np.where(terminated, source, 0)
        info = {"winner": winner, "reason": reason, **singles, **pairs, "cards": cards, "reaction_ticks": reactions}
        mask = terminated.copy()
        info.update({f"_{key}": mask for key in ROUND_INFO_KEYS})
        return info, mask

    def _check_actions(self, actions) -> np.ndarray:
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},), got {actions.shape}")
        if actions.dtype == bool:
            return actions
        if not np.issubdtype(actions.dtype, np.integer):
            raise ValueError(f"actions must be integers 0 (wait) or 1 (draw), got dtype {actions.dtype}")
        press = actions == 1
        if not (press | (actions == 0)).all():
            bad = actions[~(press | (actions == 0))]
            raise ValueError(f"invalid action(s) {bad[:5].tolist()}: War-v0 takes 0 (wait) or 1 (draw)")
        return press

    def _reset_mask(self, mask) -> np.ndarray:
        if mask is None:
            return np.ones(self.num_envs, dtype=bool)
        mask = np.asarray(mask)
        if mask.shape != (self.num_envs,) or mask.dtype != bool:
            raise ValueError(f"reset_mask must be a bool array of shape ({self.num_envs},), got {mask!r}")
        return mask.copy()

    def _seeds(self, seed) -> list[int | None]:
        if seed is None:
            return [None] * self.num_envs
        if isinstance(seed, Integral) and not isinstance(seed, bool):
            return [int(seed) + i for i in range(self.num_envs)]
        if isinstance(seed, Sequence) and not isinstance(seed, str) and len(seed) == self.num_envs:
            return [None if s is None else int(s) for s in seed]
        raise ValueError(f"seed must be None, an int or a sequence of {self.num_envs} ints, got {seed!r}")

    def _per_env(self, value, games, check, *, is_single, name):
        """One option value for every reset sub-env, or one per sub-env (a sequence of num_envs)."""
        if is_single(value):
            single = check(value)
            return [single] * len(games)
        if isinstance(value, (str, bytes)) or not isinstance(value, Sequence) or len(value) != self.num_envs:
            raise ValueError(f"reset option {name!r} must be one value for all sub-envs or a sequence of "
                             f"{self.num_envs} (one per sub-env), got {value!r}")
        return [check(value[game]) for game in games.tolist()]


def _is_pile_pair(value) -> bool:
    """``[["2C", ...], ["3D", ...]]`` (a pair of lists of codes), not a list of such pairs."""
    try:
        return len(value) == 2 and all(not isinstance(pile, (str, bytes)) and all(isinstance(c, str) for c in pile)
                                       for pile in value)
    except TypeError:
        return False


def _is_scalar(value) -> bool:
    return not isinstance(value, Sequence) and not isinstance(value, np.ndarray)


def sub_env_round_info(info: dict, i: int) -> dict | None:
    """``info["round"]`` of sub-env ``i`` in the single env's form (``None`` if it did not end)."""
    if "round" not in info or not info["_round"][i]:
        return None
    return round_info(**{key: info["round"][key][i] for key in ROUND_INFO_KEYS})
