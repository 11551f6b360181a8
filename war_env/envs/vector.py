"""WarVectorEnv: ``num_envs`` games of War-v0 advanced together by the batched engine.

``gym.make_vec("War-v0", num_envs=N, vectorization_mode="vector_entry_point")`` returns it;
``gym.make_vec("WarLatency-v0", ...)`` its subclass ``WarLatencyVectorEnv`` (action latency), and a probe's id
its ``war_env.envs.probe_envs.ProbeVectorEnv`` (docs/probes.md). It is a thin
driver: the state of all games lives in the compiled engine (``war_env.batched``), whose ``step`` plays
one env step of every game in one call (the tick, the opponent's draws, a taken-over round's play-out,
rewards, the NEXT_STEP autoreset and the observations); this module adds Gymnasium's API (spaces,
seeding, reset options, the vector-info convention). ``tests/test_vector.py`` proves every sub-env equal
to the single ``WarEnv``, step by step.

Without numba (the ``fast`` extra) the same env steps ``num_envs`` War-v0 envs in a loop instead (the
scalar reference, ``ReferenceSteps``), with a warning: the same results, many times slower.
"""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Integral

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from war_env import batched
from war_env.batched.state import InvalidAction, RoundOver
from war_env.core.bots import Bot, make_bot
from war_env.core.cards import card_code, parse_piles
from war_env.core.deal import check_starter
from war_env.core.round_info import RoundInfo, RoundTable
from war_env.core.rules import WarConfig, make_config
from war_env.envs.latency import WarLatencyEnv, with_default_latency
from war_env.envs.round_columns import RoundColumns
from war_env.envs.war import WarEnv
from war_env.support.extras import require

RESET_OPTIONS = frozenset({"piles", "starter", "reset_mask"})
BACKENDS = ("auto", "numba", "reference")


class WarVectorEnv(VectorEnv):
    """War-v0 batched: ``num_envs`` independent rounds, the same rules, timer, bots, takeover,
    observation, reward and info as ``war_env.envs.war.WarEnv`` (read its docstring for the game).

    ## Spaces
    ``single_action_space = Discrete(2)``, ``action_space = MultiDiscrete([2] * num_envs)``;
    ``single_observation_space = Box(0, 1, (16,), float32)`` with the index table of ``WarEnv``,
    ``observation_space`` its batch, shape ``(num_envs, 16)``. Observations are bit-identical to the
    single env's (the encoding of ``war_env.core.observation``).

    ## Step
    ``step(actions)`` takes an integer array of shape ``(num_envs,)`` with values 0 (wait) and 1 (draw)
    (like War-v0, it refuses bools and floats), and returns ``(observations, rewards, terminations,
    truncations, infos)``: float32 ``(num_envs, 16)``, float64 ``(num_envs,)`` (the single env's Python
    floats, exactly), bool, bool, dict. When seat 0 is taken over, the rest of its round is played out at
    once within the same step, move by move, as ``WarEnv`` does.

    ## Autoreset
    The three modes of Gymnasium 1.x (``autoreset_mode``, also in ``metadata["autoreset_mode"]``):
    ``NEXT_STEP`` (the default): the step after a sub-env terminated or was truncated resets it (its action
    is ignored) and returns its first observation, reward 0, ``terminated = truncated = False`` and the
    reset info. ``SAME_STEP``: the step that ends a round resets the sub-env at once and returns the new
    round's first observation; the last one is in ``info["final_obs"][i]`` and that step's info (its
    ``round``) in ``info["final_info"]``, masked by ``_final_obs`` and ``_final_info``. ``DISABLED``: nothing
    is reset by a step; reset the sub-envs that ended with ``reset(options={"reset_mask": ...})`` (stepping
    one that was not is a ``RuntimeError``). Every mode deals the same rounds from each sub-env's generator.

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
    ``num_envs`` pile pairs, ``starter`` a list or array of ``num_envs`` seats). As in the single env,
    the three random draws are made whatever the options. Autoresets always deal at random.
    ``options={"reset_mask": mask}`` resets only the sub-envs where the bool mask is true (Gymnasium's
    partial reset); the others keep their state.

    ## Info (Gymnasium's vector-info convention: each key has a ``_key`` bool mask)
    Every step: ``action_mask`` (bool ``(num_envs, 2)``: ``[True, draw would be in turn]``).
    On a step where some sub-envs terminate: ``round``, a dict of arrays filled where ``_round`` is
    true: ``winner`` (int, ``-1`` for a draw, where the single env says ``None``), ``reason`` (object:
    the reason string), ``battles``, ``wars``, ``steps``, ``ticks`` (int), ``points``, ``cards``,
    ``false_starts`` (int ``(num_envs, 2)``), ``takeover`` (bool ``(num_envs, 2)``),
    ``reaction_ticks`` (object: the pair of int64 arrays). ``sub_env_round_info(info, i)`` turns it back
    into the single env's ``info["round"]`` dict. The single env's ``scoreboard`` is not kept (it
    grows with every round); count results from ``round`` instead.

    ## Arguments
    ``WarVectorEnv(num_envs=1, opponent="human", max_episode_steps=None, config=None, backend="auto",
    autoreset_mode=AutoresetMode.NEXT_STEP, round_info=True, **rules)``: ``opponent`` a bot spec or
    ``war_env.core.bots.Bot`` (a policy opponent cannot be batched: use
    ``vectorization_mode="sync"``); ``max_episode_steps`` truncates a round after that many steps,
    as ``gym.make``'s ``TimeLimit`` does (``truncated`` is true on that step even if it also
    terminated); ``config`` / rule keywords as for ``WarEnv``. ``round_info=False`` leaves ``info["round"]``
    out, for a caller that does not read it (docs/results/speed.md has its cost at N = 4096).

    ``backend``: ``"auto"`` (default) steps with the compiled batched engine when numba imports (the
    ``fast`` extra), else with War-v0 envs in a loop and a warning; ``"numba"`` insists on the engine
    (``MissingExtra`` without numba); ``"reference"`` always loops over War-v0 envs (the scalar
    reference). Both give identical results (the tests run over both); ``self.backend`` says which runs.
    The engine's compiled code is cached on disk by numba: the first process after an install compiles
    it (about a minute), later ones load it.
    """

    metadata = {"render_modes": [], "autoreset_mode": AutoresetMode.NEXT_STEP}
    observes_latency = False
    """War-v0's: refuses a config with latency (``WarLatencyVectorEnv`` plays it)."""
    single_env: type[WarEnv] = WarEnv
    """The single env every sub-env equals step for step; the reference backend steps it."""

    def observation_width(self, config: WarConfig) -> int:
        """Floats of a sub-env's observation: the single env's (its ``observation_kind``'s fields)."""
        return len(self.single_env.fields_for(config))

    def __init__(
        self,
        num_envs: int = 1,
        opponent: str | Bot = "human",
        max_episode_steps: int | None = None,
        render_mode: str | None = None,
        config: WarConfig | None = None,
        backend: str = "auto",
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        round_info: bool = True,
        **rules,
    ):
        if not isinstance(round_info, bool):
            raise ValueError(f"round_info must be True or False, got {round_info!r}")
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
                "WarVectorEnv batches bot opponents only (a spec string or a war_env.core.bots.Bot), "
                f"got {opponent!r}; "
                'for a policy opponent use gym.make_vec("War-v0", ..., vectorization_mode="sync")'
            )
        if self.observes_latency:
            rules = with_default_latency(config, rules)
        self.config = config = make_config(config, rules)
        if config.has_latency and not self.observes_latency:  # War-v0's observations would hide the presses in flight
            raise ValueError(
                f"War-v0's vector env has no action latency, got latency={config.latency!r}: use "
                f"gym.make_vec('WarLatency-v0', ..., vectorization_mode='vector_entry_point')"
            )
        self.round_info = round_info
        """Whether a step where rounds end returns ``info["round"]``."""
        self.autoreset_mode = _autoreset_mode(autoreset_mode)
        """Also in ``metadata``; an attribute where Gymnasium's own vector envs keep it too
        (``SyncVectorEnv.autoreset_mode``) and where TorchRL's ``GymWrapper`` reads it."""
        self.metadata = {**self.metadata, "autoreset_mode": self.autoreset_mode}
        self.opponent_bot = make_bot(opponent)
        self.num_envs = int(num_envs)
        self.max_episode_steps = max_episode_steps
        self.render_mode = None
        self.single_action_space = spaces.Discrete(2)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        size = self.observation_width(config)
        self.single_observation_space = spaces.Box(0.0, 1.0, (size,), np.float32)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self._engine = _make_engine(
            backend,
            config,
            self.num_envs,
            self.opponent_bot,
            max_episode_steps,
            self.single_env,
            restart=self.autoreset_mode == AutoresetMode.NEXT_STEP,
        )
        self.backend = self._engine.backend
        self._started = False
        self._all_valid = np.ones(self.num_envs, dtype=bool)
        self._round_columns = RoundColumns(self.num_envs)

    # --- Gymnasium API -------------------------------------------------------------------
    def reset(self, *, seed: int | Sequence[int | None] | None = None, options: dict | None = None):
        options = dict(options or {})
        unknown = set(options) - RESET_OPTIONS
        if unknown:
            raise ValueError(f"unknown reset option(s) {sorted(unknown)}; known: {sorted(RESET_OPTIONS)}")
        mask = self._reset_mask(options.get("reset_mask"))
        games = np.flatnonzero(mask)
        seeds = self._seeds(seed)
        piles = starters = None
        if "piles" in options:
            piles = self._per_env(options["piles"], games, parse_piles, is_single=_is_pile_pair, name="piles")
        if "starter" in options:
            starters = self._per_env(options["starter"], games, check_starter, is_single=_is_single, name="starter")
        self._engine.reset(games, [seeds[game] for game in games.tolist()], piles, starters)
        self._started = True
        return self._engine.observations.copy(), {"action_mask": self._engine.masks.copy(), "_action_mask": mask.copy()}

    def step(self, actions):
        if not self._started:
            raise RuntimeError("call reset() before step()")
        engine = self._engine
        actions = self._check_actions(actions)
        try:
            rewards, terminated, truncated, ended = engine.step(actions)
        except InvalidAction:
            bad = actions[(actions != 0) & (actions != 1)]
            raise ValueError(f"invalid action(s) {bad[:5].tolist()}: War-v0 takes 0 (wait) or 1 (draw)") from None
        except RoundOver as refused:
            raise RuntimeError(
                f"sub-env {refused.game}'s round is over: reset it (reset(options={{'reset_mask': "
                f"...}})) before stepping it again (autoreset is disabled)"
            ) from None
        infos = {"action_mask": engine.masks.copy(), "_action_mask": self._all_valid}
        if ended and self.round_info:
            infos["round"], infos["_round"] = self._round_infos(terminated)
        if self.autoreset_mode == AutoresetMode.SAME_STEP:
            infos = self._restart_ended(infos, terminated | truncated)
        return engine.observations.copy(), rewards, terminated, truncated, infos

    def close(self, **kwargs):
        pass

    # --- extras --------------------------------------------------------------------------
    def action_masks(self) -> np.ndarray:
        """``[True, draw would be in turn]`` per sub-env, shape ``(num_envs, 2)``."""
        return self._engine.masks.copy()

    def state_nbytes(self) -> int:
        """Memory of the state of all games (rounds, reaction logs and the observation buffer)."""
        return self._engine.nbytes()

    # --- helpers -------------------------------------------------------------------------
    def _round_infos(self, terminated):
        """``info["round"]`` of the rounds that ended and its ``_field`` masks (``round_columns``)."""
        ended = terminated.nonzero()[0]
        info = self._round_columns.of(ended, self._engine)
        mask = terminated.copy()
        info.update(dict.fromkeys(_INFO_MASKS, mask))
        return info, mask

    def _restart_ended(self, infos: dict, done: np.ndarray) -> dict:
        """Same-step autoreset: the step's info and last observations of the rounds that ended go under
        ``final_info`` and ``final_obs``, and those sub-envs start their next round now."""
        if not done.any():
            return infos
        games = np.flatnonzero(done)
        final_obs = np.full(self.num_envs, None, dtype=object)
        for game in games.tolist():
            final_obs[game] = self._engine.observations[game].copy()
        self._engine.restart_ended(games)
        return {
            "action_mask": self._engine.masks.copy(),
            "_action_mask": self._all_valid,
            "final_obs": final_obs,
            "_final_obs": done,
            "final_info": infos,
            "_final_info": done,
        }

    def _check_actions(self, actions) -> np.ndarray:
        """int64 actions of shape ``(num_envs,)``; their values are checked by the engine's step."""
        if (
            type(actions) is np.ndarray
            and actions.dtype == np.int64
            and actions.shape == (self.num_envs,)
            and actions.flags.c_contiguous
        ):
            return actions
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},), got {actions.shape}")
        if actions.dtype.kind not in "iu":
            raise ValueError(f"actions must be integers 0 (wait) or 1 (draw), got dtype {actions.dtype}")
        return np.ascontiguousarray(actions, dtype=np.int64)

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
        """One option value for every reset sub-env, or one per sub-env (a list or array of num_envs)."""
        if is_single(value):
            single = check(value)
            return [single] * len(games)
        if (
            isinstance(value, (str, bytes))
            or not isinstance(value, (Sequence, np.ndarray))
            or len(value) != self.num_envs
        ):
            raise ValueError(
                f"reset option {name!r} must be one value for all sub-envs or a sequence of "
                f"{self.num_envs} (one per sub-env), got {value!r}"
            )
        return [check(value[game]) for game in games.tolist()]


class WarLatencyVectorEnv(WarVectorEnv):
    """WarLatency-v0 batched: ``num_envs`` rounds of ``war_env.envs.latency.WarLatencyEnv`` (read its
    docstring for the game: presses sent now land later), stepped by the same engine as War-v0's vector
    env, with WarLatency-v0's observation, ``Box(0, 1, (18 + max_delay,), float32)`` per sub-env.
    ``gym.make_vec("WarLatency-v0", num_envs=N, vectorization_mode="vector_entry_point", latency=...)``
    returns it. Everything else (spaces of actions, step, autoreset, seeding, reset options, info,
    arguments, backends) is ``WarVectorEnv``'s; without ``latency`` and ``config`` the latency is
    WarLatency-v0's default, ``fixed:ticks=2``. Sub-env ``i`` is ``gym.make("WarLatency-v0")`` reset with
    ``seed + i``, step for step (``tests/test_vector_latency.py``)."""

    observes_latency = True
    single_env = WarLatencyEnv


class ReferenceSteps:
    """The vector env's engine without numba: ``n`` single envs (War-v0, WarLatency-v0 or a probe's) stepped in
    a loop (the scalar reference), with the interface of ``war_env.batched.rounds.BatchedSteps``."""

    backend = "reference"

    def __init__(
        self,
        config: WarConfig,
        n: int,
        opponent: Bot,
        max_episode_steps: int | None,
        single: type[WarEnv] = WarEnv,
        restart: bool = True,
    ):
        self.restart = restart
        self.envs = [single(opponent=opponent, config=config) for _ in range(n)]
        self.max_episode_steps = max_episode_steps
        self.observations = np.zeros((n, self.envs[0].observation_space.shape[0]), dtype=np.float32)
        self.masks = np.ones((n, 2), dtype=bool)
        self._needs_reset = np.ones(n, dtype=bool)  # a sub-env that was never reset deals on its first step

    def reset(self, games, seeds, piles, starters):
        for i, game in enumerate(games.tolist()):
            options = {"new_match": True}  # the scoreboard would grow with every round
            if piles is not None:  # parsed by the vector env: back to codes for War-v0
                options["piles"] = [[card_code(card) for card in pile] for pile in piles[i]]
            if starters is not None:
                options["starter"] = starters[i]
            self.observations[game], info = self.envs[game].reset(seed=seeds[i], options=options)
            self.masks[game] = info["action_mask"]
            self._needs_reset[game] = False

    def step(self, actions):
        """As ``BatchedSteps.step``: a step refused (``InvalidAction``; ``RoundOver`` without ``restart``)
        moves no sub-env."""
        if not ((actions == 0) | (actions == 1)).all():
            raise InvalidAction()
        if not self.restart and self._needs_reset.any():
            raise RoundOver(int(np.flatnonzero(self._needs_reset)[0]))
        n = len(self.envs)
        rewards, terminated, truncated = np.zeros(n), np.zeros(n, dtype=bool), np.zeros(n, dtype=bool)
        for game, (env, action) in enumerate(zip(self.envs, actions.tolist())):
            if self._needs_reset[game]:
                self.observations[game], info = env.reset(options={"new_match": True})
                self.masks[game] = info["action_mask"]
                self._needs_reset[game] = False
                continue
            self.observations[game], rewards[game], terminated[game], _, info = env.step(action)
            self.masks[game] = info["action_mask"]
            truncated[game] = self.max_episode_steps is not None and env.round_info()["steps"] >= self.max_episode_steps
            self._needs_reset[game] = terminated[game] or truncated[game]
        return rewards, terminated, truncated, int(terminated.sum())

    def restart_ended(self, games: np.ndarray) -> None:
        self.reset(games, [None] * len(games), None, None)

    def table(self, games) -> RoundTable:
        return RoundTable.of_infos([RoundInfo.of(**self.envs[game].round_info()) for game in games.tolist()])

    def write_rounds(self, games, numbers, takeover, blank, blanked) -> list[tuple[np.ndarray, np.ndarray]]:
        """As ``BatchedSteps.write_rounds``, from the single envs' ``round_info``."""
        table = self.table(games)
        numbers[blanked] = blank
        takeover[blanked] = False
        numbers[games] = table.rows.view(np.int64).reshape(len(games), -1)
        takeover[games] = table.column("takeover")
        return list(table.reaction_pairs())

    def nbytes(self) -> int:
        return self.observations.nbytes + self._needs_reset.nbytes


def _make_engine(
    backend: str,
    config: WarConfig,
    n: int,
    opponent: Bot,
    max_episode_steps: int | None,
    single: type[WarEnv],
    restart: bool,
):
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    if backend == "numba" or (backend == "auto" and batched.available()):
        require("fast", "WarVectorEnv(backend='numba')")
        from war_env.batched.rounds import BatchedSteps

        engine = BatchedSteps(config, n, opponent, max_episode_steps, single.observation_kind, restart)
        _check_width(engine, single, config)
        hidden = single.hidden_columns(config) if hasattr(single, "hidden_columns") else []
        return HidingSteps(engine, hidden) if hidden else engine
    if backend == "auto":
        batched.warn_unavailable("WarVectorEnv", "steps num_envs War-v0 envs in a loop")
    return ReferenceSteps(config, n, opponent, max_episode_steps, single, restart)


def _check_width(engine, single: type[WarEnv], config: WarConfig) -> None:
    """The engine writes the observation the single env declares (``observation_kind``); a single env whose
    ``fields_for`` says otherwise would get another observation from its vector env."""
    fields = single.fields_for(config)
    if engine.observations.shape[1] != len(fields):
        raise ValueError(
            f"{single.__name__} shows {len(fields)} floats, but its declared observation "
            f"{single.observation_kind!r} has {engine.observations.shape[1]}: declare the observation "
            f"it shows (observation_kind, a key of war_env.core.observation.OBSERVATIONS)"
        )


class HidingSteps:
    """The batched engine with some columns of every observation shown as 0, as the single env shows them (a
    probe's ``hidden`` fields): zeroed in place after every call that writes observations."""

    def __init__(self, engine, hidden: list[int]):
        self.engine, self.hidden = engine, hidden

    def __getattr__(self, name):
        return getattr(self.engine, name)

    def _hide(self) -> None:
        self.engine.observations[:, self.hidden] = 0.0

    def reset(self, *args):
        self.engine.reset(*args)
        self._hide()

    def step(self, actions):
        result = self.engine.step(actions)
        self._hide()
        return result

    def restart_ended(self, games) -> None:
        self.engine.restart_ended(games)
        self._hide()


_INFO_MASKS = tuple(f"_{key}" for key in RoundInfo.field_names())


def _autoreset_mode(mode) -> AutoresetMode:
    try:
        return mode if isinstance(mode, AutoresetMode) else AutoresetMode(mode)
    except ValueError:
        raise ValueError(f"autoreset_mode must be one of {[m.value for m in AutoresetMode]}, got {mode!r}") from None


def _is_pile_pair(value) -> bool:
    """``[["2C", ...], ["3D", ...]]`` (a pair of lists of codes), not a list of such pairs."""
    try:
        return len(value) == 2 and all(
            not isinstance(pile, (str, bytes)) and all(isinstance(c, str) for c in pile) for pile in value
        )
    except TypeError:
        return False


def _is_single(value) -> bool:
    """One value for all sub-envs: not a list, a tuple or an array of one or more dimensions."""
    return not isinstance(value, Sequence) and not (isinstance(value, np.ndarray) and value.ndim > 0)


def sub_env_round_info(info: dict, i: int) -> dict | None:
    """``info["round"]`` of sub-env ``i`` in the single env's form (``None`` if it did not end); with
    same-step autoreset, read from ``info["final_info"]``."""
    if "final_info" in info:
        info = info["final_info"]
    if "round" not in info or not info["_round"][i]:
        return None
    return RoundInfo.of(**{key: info["round"][key][i] for key in RoundInfo.field_names()}).as_dict()
