"""War with both seats as agents: a PettingZoo ``ParallelEnv`` over the same engine and clock.

Needs the ``multiagent`` extra (PettingZoo). ``import war_env`` does not import this module.

    from war_env.envs.multiagent import parallel_env, env
    par = parallel_env(turn_seconds=3.0)      # ParallelEnv: both players act on every tick
    aec = env()                               # the AEC form, through PettingZoo's own conversion
"""

from __future__ import annotations

import copy
import dataclasses
import warnings
from collections.abc import Mapping
from numbers import Integral

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding

from war_env.core.clock import TimedRound
from war_env.core.deal import check_new_match, check_options, deal_round
from war_env.core.engine import Game
from war_env.core.observation import action_mask, observation_size, observe, observe_latency
from war_env.core.randomness import Stream, derive_seed
from war_env.core.rewards import outcome_reward
from war_env.core.round_info import RoundResult
from war_env.core.rules import WarConfig, make_config
from war_env.core.scoreboard import Scoreboard
from war_env.envs.war import RESET_OPTIONS, parse_action
from war_env.support.extras import require
from war_env.views.render.display import require_display, window_modes_here

require("multiagent", "war_env.envs.multiagent")
from pettingzoo import ParallelEnv  # noqa: E402
from pettingzoo.utils.conversions import parallel_to_aec  # noqa: E402

AGENTS = ("player_0", "player_1")
SEATS = {agent: seat for seat, agent in enumerate(AGENTS)}
POLICY_SEED_COUNTER = {1: 0, 0: 1}
"""Counter of each seat's policy seed on War-v0's stream: seat 1 gets War-v0's opponent seed."""


class WarParallelEnv(ParallelEnv):
    """War for two learning seats: ``player_0`` and ``player_1`` both choose wait or draw on every tick.

    ## Description
    The game, the turn timer, the takeover, the reward weights and the observation of each seat are
    those of ``War-v0`` (``war_env.envs.war.WarEnv``, whose docstring is the reference): the same
    ``TimedRound`` runs underneath, with both seats played from outside instead of seat 1 by a bot.
    Seat ``i`` is ``player_i``; seat 0 gets the first half of the deal.

    | | |
    |---|---|
    | Agents | `player_0`, `player_1` |
    | Action Space | `Discrete(2)` per agent |
    | Observation Space | `Dict(observation=Box(0, 1, (16,), float32), action_mask=Box(0, 1, (2,), int8))` |
    | Parallel API | Yes (`parallel_env()`); AEC through `pettingzoo.utils.conversions.parallel_to_aec` (`env()`) |
    | import | `from war_env.envs.multiagent import parallel_env, env` |

    ## Action Space
    ``0`` wait, ``1`` draw, for every live agent on every step (a draw out of turn is a false start).
    ``step`` wants exactly one action per live agent; a missing one, one for an agent that has left,
    or a value other than 0/1 raises ``ValueError``.

    ## Observation Space
    As in PettingZoo's classic games, a dict: ``"observation"`` is the seat's 16-float vector of
    War-v0 (``war_env.core.observation``: what the seat can see, from its own side), and
    ``"action_mask"`` is ``int8 [1, draw_in_turn]``. Both actions are always legal (a false start is
    allowed and penalised); the mask marks whether a draw would be in turn, exactly as War-v0's
    ``info["action_mask"]`` does. A policy that samples with the mask never false-starts.

    ## Rewards
    Per seat, as War-v0 gives seat 0: the timing rewards of every tick (``-0.001`` per idle tick of an
    open turn, ``-0.1`` per false start, ``-1`` once on being taken over) and, on the seat's last step,
    ``+1`` / ``-1`` / ``0`` for the round's outcome. A seat taken over before the round ends leaves
    with its outcome reward at once: War has no choices, so the result is fixed by the deal and the
    round key whatever the timing (``foreseen_result``). Each seat's return is therefore what War-v0
    would pay that seat.

    ## Starting State
    ``reset(seed=...)`` seeds ``self.np_random`` (PettingZoo's convention: ``seed=None`` continues
    the stream) and makes the same three draws as War-v0, in the same order: a permutation of the
    52 cards, the starter, the round key. A seed therefore deals the same round here as in War-v0.
    Options as War-v0: ``piles``, ``starter``, ``new_match``; unknown options are ignored with a
    warning (PettingZoo's checker passes one).

    ## Episode End
    An episode is one round. A seat whose turn timer runs out is taken over by the bot for the rest
    of the round: it is terminated on that step and leaves ``agents``; the other seat plays on to the
    round's end. When both seats are taken over, the rest of the round is played at once and the
    episode ends on that step. With ``max_cycles`` set, the live agents are truncated after that
    many steps (off by default, as War-v0 never truncates by itself). Stepping with no live agents
    raises ``RuntimeError`` until ``reset()``.

    ## Information
    At reset, ``infos[agent]["policy_seed"]``: a seed for the policy playing the seat this round
    (a hash of the round key; player_1's is the seed War-v0 gives its opponent policy, so a random
    bot policy reset with it plays the same in both envs). On later steps ``infos[agent]`` is ``{}``
    except on the agent's last step: ``round`` (War-v0's round dict: winner,
    reason, battles, wars, points, cards, takeover, false_starts, reaction_ticks, steps, ticks; winner
    and reason are ``None`` while the round still runs) and, at the round's end, ``scoreboard``; a seat
    that leaves by takeover before the end also gets ``foreseen_result`` (the round's result as a dict).

    ## Arguments
    ``WarParallelEnv(render_mode=None, config=None, max_cycles=None, **rules)``: ``config`` is a
    ``WarConfig`` or its fields as keywords, exactly as for War-v0.

    ## Action latency
    With ``latency`` in the rules (``parallel_env(latency="uniform:low=1,high=4")``) both seats play
    WarLatency-v0's game (``war_env.envs.latency``): each seat's presses land after their delays (each
    seat's k-th press hashed on its own stream), and ``"observation"`` is WarLatency-v0's
    ``18 + max_delay`` floats from the seat's side (its opponent's clock, its own presses in flight);
    ``metadata["name"]`` is then ``"war_latency_v0"``. player_0 then sees exactly what WarLatency-v0
    shows when the same policy plays its opponent (``tests/test_multiagent.py``).

    ## Rendering
    War-v0's frames of the table, with the seats named ``player_0`` and ``player_1``: ``"ansi"`` (text),
    ``"rgb_array"`` (a ``uint8`` array) and ``"human"`` (a window, after every ``reset``/``step``); the
    pixel modes need pygame-ce (the ``render`` extra).

    ## Version History
    * v0: first release; action latency for both seats (``latency``, the observation above) added with
      WarLatency-v0 (a config without latency plays and observes exactly as before).
    """

    metadata = {
        "name": "war_v0",
        "render_modes": ["ansi", "rgb_array", "human"],
        "render_fps": 10,
        "is_parallelizable": True,
    }
    _screen = None  # the pixel painter (and window), made by the first render() in a pixel mode

    def __init__(
        self,
        render_mode: str | None = None,
        config: WarConfig | None = None,
        max_cycles: int | None = None,
        **rules,
    ):
        self.config = make_config(config, rules)
        self.observes_latency = self.config.has_latency
        """Each seat sees WarLatency-v0's observation (its presses in flight, the opponent's clock)."""
        if self.observes_latency:  # new semantics, new name
            self.metadata = {**self.metadata, "name": "war_latency_v0"}
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        if render_mode == "human":
            require_display("WarParallelEnv(render_mode='human')")
        self.metadata = {**self.metadata, "render_modes": window_modes_here(self.metadata["render_modes"])}
        if max_cycles is not None and (
            isinstance(max_cycles, bool) or not isinstance(max_cycles, Integral) or max_cycles < 1
        ):
            raise ValueError(f"max_cycles must be a whole number >= 1 or None, got {max_cycles!r}")
        self.render_mode = render_mode
        self.max_cycles = max_cycles
        self.possible_agents = list(AGENTS)
        self.agents: list[str] = []
        # One space object per agent, kept: PettingZoo seeds spaces per agent and checks identity.
        size = observation_size(self.config, self.observes_latency)
        self._observation_spaces = {agent: _observation_space(size) for agent in AGENTS}
        self._action_spaces = {agent: spaces.Discrete(2) for agent in AGENTS}
        self.np_random: np.random.Generator | None = None
        self.np_random_seed: int | None = None
        self.scoreboard = Scoreboard()
        self.round: TimedRound | None = None
        self._steps = 0
        self._result: RoundResult | None = None

    def observation_space(self, agent: str) -> spaces.Dict:
        return self._observation_spaces[_check_agent(agent)]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self._action_spaces[_check_agent(agent)]

    # --- PettingZoo API --------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None):
        if seed is not None or self.np_random is None:
            self.np_random, self.np_random_seed = seeding.np_random(seed)
        options = check_options(options, RESET_OPTIONS)
        unknown = set(options) - RESET_OPTIONS
        if unknown:
            warnings.warn(f"ignoring unknown reset option(s) {sorted(unknown)}; known: {sorted(RESET_OPTIONS)}")
        new_match = check_new_match(options.get("new_match", False))
        piles, starter, round_key = deal_round(self.np_random, options)  # as War-v0 deals
        if new_match:
            self.scoreboard = Scoreboard()
        self.round = TimedRound(self.config, piles, starter, round_key, (None, None))
        self.agents = list(AGENTS)
        self._steps = 0
        self._result = None
        observations = {agent: self._observe(agent) for agent in self.agents}
        if self.render_mode == "human":
            self.render()
        return observations, {agent: {"policy_seed": policy_seed(round_key, SEATS[agent])} for agent in self.agents}

    def step(self, actions: Mapping):
        if not self.agents:
            raise RuntimeError("no live agents (the round is over or was never started): call reset() before step()")
        presses = self._presses(actions)
        timed = self.round
        acting = list(self.agents)
        timing_rewards = timed.tick(*presses)
        self._steps += 1
        if all(timed.taken_over) and not timed.over:
            self._play_out()
        if timed.over:
            self.scoreboard.record(timed.game.result)
        truncate = self.max_cycles is not None and self._steps >= self.max_cycles and not timed.over

        observations, rewards, terminations, truncations, infos = {}, {}, {}, {}, {}
        for agent in acting:
            seat = SEATS[agent]
            leaves = timed.over or timed.taken_over[seat]
            reward = timing_rewards[seat]
            info = {}
            if leaves:
                result = self.result()
                reward += outcome_reward(self.config, result.winner, seat)
                info["round"] = timed.info(self._steps).as_dict()
                if timed.over:
                    info["scoreboard"] = self.scoreboard.as_dict()
                else:
                    info["foreseen_result"] = dataclasses.asdict(result)
            observations[agent] = self._observe(agent)
            rewards[agent] = float(reward)
            terminations[agent] = leaves
            truncations[agent] = truncate and not leaves
            infos[agent] = info
        self.agents = [agent for agent in acting if not (terminations[agent] or truncations[agent])]
        if self.render_mode == "human":
            self.render()
        return observations, rewards, terminations, truncations, infos

    def render(self):
        if self.render_mode is None:
            warnings.warn("render() called without a render_mode; use WarParallelEnv(render_mode='ansi')")
            return None
        if self.render_mode == "ansi":
            from war_env.views.ansi import render_ansi

            return render_ansi(self.round, self.scoreboard, names=AGENTS)
        if self._screen is None:
            from war_env.views.render.window import EnvScreen  # imports pygame (the `render` extra)

            self._screen = EnvScreen(self.render_mode, self.metadata["render_fps"], names=AGENTS)
        return self._screen.render(self.round, self.scoreboard)

    def close(self):
        if self._screen is not None:
            self._screen.close()
            self._screen = None

    # --- extras ------------------------------------------------------------------------------
    def result(self) -> RoundResult:
        """The result of the current round: the real one once it is over, else ``foreseen_result``."""
        if self.round is None:
            raise RuntimeError("no round yet: call reset() first")
        if self.round.over:
            return self.round.game.result
        if self._result is None:
            self._result = foreseen_result(self.round.game)
        return self._result

    # --- helpers -----------------------------------------------------------------------------
    def _observe(self, agent: str) -> dict:
        seat = SEATS[agent]
        return {
            "observation": (observe_latency if self.observes_latency else observe)(self.round, seat),
            "action_mask": action_mask(self.round, seat).astype(np.int8),
        }

    def _presses(self, actions) -> list[bool]:
        if not isinstance(actions, Mapping):
            raise TypeError(f"actions must be a dict {{agent: 0 or 1}}, got {type(actions).__name__}")
        live = set(self.agents)
        extra = sorted(set(actions) - live, key=str)
        if extra:
            raise ValueError(f"actions given for agent(s) that are not live: {extra}; live agents: {self.agents}")
        missing = [agent for agent in self.agents if agent not in actions]
        if missing:
            raise ValueError(f"no action for live agent(s) {missing}: every live agent acts on every step")
        presses = [False, False]
        for agent in self.agents:
            try:
                presses[SEATS[agent]] = parse_action(actions[agent])
            except ValueError as error:
                raise ValueError(f"{agent}: {error}") from None
        return presses

    def _play_out(self) -> None:
        """Both seats are taken over: the takeover bots play the rest of the round at once."""
        timed = self.round
        while not timed.over:
            timed.tick(False, False)


def foreseen_result(game: Game) -> RoundResult:
    """The result a running round will reach. War has no choices: the rules fix the order of the
    draws and every random event is a hash of the round key, so a copy of the game played to its
    end without the clock ends exactly as the timed round will, however the seats time their draws."""
    if game.result is not None:
        return game.result
    return copy.deepcopy(game).play_to_end()


def policy_seed(round_key: int, seat: int) -> int:
    """The reset seed for the policy at ``seat`` in the round of ``round_key`` (31 bits, as War-v0's)."""
    return derive_seed(round_key, Stream.POLICY_SEED, POLICY_SEED_COUNTER[seat])


def parallel_env(**kwargs) -> WarParallelEnv:
    """The ``ParallelEnv`` (PettingZoo's naming: ``parallel_env``)."""
    return WarParallelEnv(**kwargs)


def env(**kwargs):
    """The AEC form: ``parallel_to_aec(WarParallelEnv(**kwargs))``, PettingZoo's own conversion
    (player_0 then player_1 choose, and the tick runs when both have chosen)."""
    return parallel_to_aec(WarParallelEnv(**kwargs))


def _observation_space(size: int) -> spaces.Dict:
    return spaces.Dict(
        {
            "observation": spaces.Box(0.0, 1.0, (size,), np.float32),
            "action_mask": spaces.Box(0, 1, (2,), np.int8),
        }
    )


def _check_agent(agent) -> str:
    if agent not in SEATS:
        raise ValueError(f"unknown agent {agent!r}; agents are {list(AGENTS)}")
    return agent
