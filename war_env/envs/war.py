"""War-v0: the Gymnasium environment. Thin glue over ``engine`` (cards) and ``clock`` (time)."""

from __future__ import annotations

from numbers import Integral

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from war_env.core.bots import Bot, make_bot
from war_env.core.clock import TimedRound
from war_env.core.deal import check_new_match, check_options, deal_round
from war_env.core.observation import OBSERVATIONS, action_mask, observation_fields
from war_env.core.randomness import Stream, derive_seed
from war_env.core.rewards import outcome_reward
from war_env.core.rules import WarConfig, make_config
from war_env.core.scoreboard import Scoreboard
from war_env.views.render.display import require_display, window_modes_here

RESET_OPTIONS = frozenset({"piles", "starter", "new_match"})


class WarEnv(gym.Env):
    """War, the two-player card game, where the only thing a player controls is *when* to draw.

    ## Description
    Each player has a face-down pile (26 cards after a shuffled deal). In every battle the starting
    player draws the top card of their pile first; the other player may draw only after that. Once
    both have drawn, the two cards are revealed and the higher rank (2 < ... < 10 < J < Q < K < A,
    suits ignored) wins the trick: its winner puts the pot under their pile and scores 1 point.
    Equal ranks start a war: both lay ``war_face_down`` cards face down and one face up, in the
    same order, and the new face-up cards decide (repeated while they tie). A player who cannot
    finish a war loses the round at once (both short: a draw). A round ends when a trick's loser has
    no cards left, when a trick's winner reaches ``target_points``, or after ``max_battles`` battles
    (a draw).

    Nobody chooses a card, so the agent learns timing. Every step is one tick of game time
    (``tick_seconds``). Once a player's turn opens (on the tick after the event that allows it) they
    have ``turn_ticks = turn_seconds / tick_seconds`` ticks to draw; a player who does not is taken
    over by a bot that draws at once, for the rest of the round. Drawing when the turn is not open
    is a false start: nothing moves, it is counted and penalised. The agent is seat 0; the opponent
    (seat 1) is a bot with a reaction time, or any policy.

    | | |
    |---|---|
    | Action Space | `Discrete(2)` |
    | Observation Space | `Box(0.0, 1.0, (16,), float32)` |
    | import | `gymnasium.make("War-v0")` |
    | batched | `gymnasium.make_vec("War-v0", num_envs=N, vectorization_mode="vector_entry_point")` |
    | two seats | `war_env.envs.multiagent.parallel_env()` (PettingZoo) |

    ## Action Space
    | Num | Action |
    |-----|--------|
    | 0   | wait   |
    | 1   | draw (lays the next card; a false start when the agent's turn is not open) |
    Both actions are always legal; ``info["action_mask"]`` and ``action_masks()`` mark whether a
    draw would be in turn. Any other value raises ``ValueError``.

    ## Observation Space
    What the agent's seat can see, all scaled into [0, 1]:
    | Index | Name | Meaning |
    |-------|------|---------|
    | 0  | can_draw            | 1 if a draw on the next step is in turn |
    | 1  | timer_left          | share of the agent's turn timer left on the next step (0 if not open) |
    | 2  | has_drawn           | the agent has laid its card in the current step |
    | 3  | opponent_has_drawn  | the opponent has laid its card in the current step |
    | 4  | own_pile            | cards in the agent's pile / 52 |
    | 5  | opponent_pile       | cards in the opponent's pile / 52 |
    | 6  | own_card            | rank value (2..14) of the agent's last revealed card / 14; 0 = none |
    | 7  | opponent_card       | the same for the opponent |
    | 8  | at_war              | 1 while a war is on |
    | 9  | pot                 | cards on the table / 52 |
    | 10 | own_points          | points / target_points (500 if off), capped at 1 |
    | 11 | opponent_points     | the same for the opponent |
    | 12 | battles             | battles played / max_battles (1000 if off), capped at 1 |
    | 13 | started             | 1 if the agent started the round (draws first in every step) |
    | 14 | own_taken_over      | the agent's seat is played by the takeover bot |
    | 15 | opponent_taken_over | the opponent's seat is played by the takeover bot |
    Cards still in the piles and drawn cards not yet revealed are never observable.

    ## Rewards
    Defaults (all are ``WarConfig`` fields): ``+1`` for winning the round, ``-1`` for losing,
    ``0`` for a draw, given on the last step; ``-1`` once when the agent is taken over (on top of the
    round's outcome); ``-0.1`` per false start; ``-0.001`` per step in which the agent's own turn is
    open and it does not draw. Drawing on the first tick of every turn is therefore optimal.

    ## Starting State
    The env's RNG shuffles the 52 cards and deals 26 to each seat (seat 0 gets the first half), picks
    the starter 50/50 and draws one 64-bit round key; every random event inside the round (bot
    reaction times, shuffled pickups) is a hash of that key, so a round's cards never depend on
    timing. ``reset(options={"piles": [[...], [...]], "starter": 0})`` deals given piles (card codes
    like ``"10H"``, top first; any distinct cards, any sizes >= 1) and a given starter.
    ``options={"new_match": True}`` clears the scoreboard.

    ## Episode End
    An episode is one round. It terminates when the round ends (reasons ``"all_cards"``,
    ``"points"``, ``"battle_limit"``, ``"war_shortage"``). If the agent is taken over, the env plays
    the rest of the round bot against bot at once and terminates on that step. The env never
    truncates by itself; pass ``max_episode_steps`` to ``gym.make`` for a step limit. Stepping after
    the end raises ``RuntimeError`` until ``reset()``.

    ## Information
    Every step: ``action_mask`` (bool ``[True, draw_in_turn]``). On the last step of a round also
    ``round``: ``winner`` (0, 1 or None), ``reason``, ``battles``, ``wars`` (ties, each war step
    counted), ``points``, ``cards`` (pile sizes), ``takeover`` (pair of bools), ``false_starts``
    (pair), ``reaction_ticks`` (each seat's own draws, ticks after its turn opened), ``steps`` (env
    steps), ``ticks`` (game ticks, including a played-out rest); and ``scoreboard``: ``rounds``,
    ``rounds_won``, ``draws``, ``last_winner``, ``results``.

    ## Arguments
    ``gym.make("War-v0", opponent="human", render_mode=None, config=None, **rules)``
    * ``opponent``: a bot spec (``"instant"``, ``"fixed:ticks=5"``, ``"uniform:low=1,high=10"``,
      ``"human"``, ``"absent"``), a ``war_env.core.bots.Bot``, or a policy with ``act(observation) -> int``
      that plays seat 1 from seat 1's observation.
    * ``config``: a ``WarConfig``; or its fields as keywords: ``war_face_down`` (1),
      ``target_points`` (50), ``max_battles`` (500), ``pickup`` (``"in_order"`` or ``"shuffled"``),
      ``tick_seconds`` (0.1), ``turn_seconds`` (3.0), ``reward_win``, ``reward_loss``,
      ``reward_draw``, ``reward_takeover``, ``reward_false_start``, ``reward_idle_tick``. Bounds (checked by
      ``WarConfig``): ``war_face_down`` <= 52, ``target_points`` and ``max_battles`` <= 100,000, a turn of
      1 to 10,000 ticks, reward weights within +-1e6.

    ## Rendering
    Every mode paints the same scene (``war_env.views.scene``): both pile counts, the (at most two) visible
    cards, cards laid but not revealed face down, the face-down war cards, the War bubbles, the turn
    timers, BOT badges on seats taken over, the scoreboard, and a result popup at the end of a round.
    ``render_mode="ansi"`` returns it as text; ``"rgb_array"`` as a ``uint8`` array of shape
    ``(640, 960, 3)`` drawn off-screen (headless works; ``gymnasium.wrappers.RecordVideo`` records
    it); ``"human"`` shows it in a window after every ``reset``/``step`` at ``render_fps``. The pixel
    modes need pygame-ce: ``pip install "war-env[render]"``.

    ## Version History
    * v0: first release (war-env 0.1.0).
    """

    metadata = {"render_modes": ["ansi", "rgb_array", "human"], "render_fps": 10}
    observes_latency = False
    """War-v0 refuses a config with latency; ``WarLatency-v0`` (``war_env.envs.latency``) plays it."""
    observation_kind = "war"
    """The observation the game shows (a key of ``war_env.core.observation.OBSERVATIONS``); its vector env's
    engine writes the same one."""

    def __init__(
        self,
        render_mode: str | None = None,
        opponent: str | Bot | object = "human",
        config: WarConfig | None = None,
        **rules,
    ):
        self.config = make_config(config, rules)
        if self.config.has_latency and not self.observes_latency:  # new semantics, new id (Gymnasium's rule)
            raise ValueError(
                f"War-v0 has no action latency, got latency={self.config.latency!r}: "
                f"use gym.make('WarLatency-v0', latency=...)"
            )
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        if render_mode == "human":
            require_display(f"{type(self).__name__}(render_mode='human')")
        # What this instance can render here: no window without a display (check_env tries every mode listed).
        self.metadata = {**type(self).metadata, "render_modes": window_modes_here(type(self).metadata["render_modes"])}
        self.render_mode = render_mode
        self.opponent_bot, self.opponent_policy = _resolve_opponent(opponent)
        self.action_space = spaces.Discrete(2)
        self.observation_space = spaces.Box(0.0, 1.0, (len(self.observation_fields()),), np.float32)
        self.scoreboard = Scoreboard()
        self.round: TimedRound | None = None
        self._steps = 0
        self._ended = True
        self._screen = None  # the pixel painter (and window), made by the first render() in a pixel mode

    # --- Gymnasium API -------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        options = check_options(options, RESET_OPTIONS)
        unknown = set(options) - RESET_OPTIONS
        if unknown:
            raise ValueError(f"unknown reset option(s) {sorted(unknown)}; known: {sorted(RESET_OPTIONS)}")
        new_match = check_new_match(options.get("new_match", False))
        piles, starter, round_key = deal_round(self.np_random, options)
        if new_match:  # after the deal: a reset refused for bad piles keeps the scoreboard
            self.scoreboard = Scoreboard()
        self.round = TimedRound(self.config, piles, starter, round_key, (None, self.opponent_bot))
        if self.opponent_policy is not None and hasattr(self.opponent_policy, "reset"):
            self.opponent_policy.reset(seed=derive_seed(round_key, Stream.POLICY_SEED))
        self._steps = 0
        self._ended = False
        if self.render_mode == "human":
            self.render()
        return self._observe(0), {"action_mask": action_mask(self.round, 0)}

    def step(self, action):
        if self._ended:
            raise RuntimeError("the round is over (or was never started): call reset() before step()")
        press = action == 1 if type(action) is int and 0 <= action <= 1 else parse_action(action)
        timed = self.round
        reward, _ = timed.tick(press, self.opponent_press())
        self._steps += 1
        if timed.taken_over[0] and not timed.over:
            self._play_out()
        info = {"action_mask": action_mask(timed, 0)}
        terminated = timed.over
        if terminated:
            reward += outcome_reward(self.config, timed.game.result.winner, seat=0)
            self._ended = True
            self.scoreboard.record(timed.game.result)
            info["round"] = self.round_info()
            info["scoreboard"] = self.scoreboard.as_dict()
        if self.render_mode == "human":
            self.render()
        return self._observe(0), float(reward), terminated, False, info

    def render(self):
        if self.render_mode is None:
            gym.logger.warn('render() called without a render_mode; use gym.make("War-v0", render_mode="ansi")')
            return None
        if self.render_mode == "ansi":
            from war_env.views.ansi import render_ansi

            return render_ansi(self.round, self.scoreboard)
        if self._screen is None:
            from war_env.views.render.window import EnvScreen  # imports pygame (the `render` extra)

            self._screen = EnvScreen(self.render_mode, self.metadata["render_fps"])
        return self._screen.render(self.round, self.scoreboard)

    def close(self):
        if self._screen is not None:
            self._screen.close()
            self._screen = None
        super().close()

    # --- extras --------------------------------------------------------------------------
    def action_masks(self) -> np.ndarray:
        """Legal actions for sb3-contrib's MaskablePPO: ``[True, draw would be in turn]``."""
        if self.round is None:
            return np.array((True, False))
        return action_mask(self.round, 0)

    def round_info(self) -> dict:
        """The ``info["round"]`` dict of the current (ended or running) round."""
        if self.round is None:
            raise RuntimeError("no round yet: call reset() before round_info()")
        return self.round.info(self._steps).as_dict()

    def opponent_press(self) -> bool:
        """Seat 1's external press in the coming tick: the opponent policy's action on seat 1's
        observation; ``False`` when a bot times the seat (the clock asks the bot) or after a takeover."""
        policy = self.opponent_policy
        if policy is None or self.round.taken_over[1]:
            return False
        return parse_action(policy.act(self._observe(1)))

    # --- helpers -------------------------------------------------------------------------
    def observation_fields(self) -> tuple[str, ...]:
        """The names of the observation's fields, in order (``war_env.core.observation``)."""
        return self.fields_for(self.config)

    @classmethod
    def fields_for(cls, config: WarConfig) -> tuple[str, ...]:
        """The observation's fields under ``config``'s rules (those of ``observation_kind``)."""
        return observation_fields(cls.observation_kind, config)

    def _observe(self, seat: int) -> np.ndarray:
        return OBSERVATIONS[self.observation_kind][1](self.round, seat)

    def _play_out(self) -> None:
        """The agent was taken over: bot against bot (or the policy) to the end of the round."""
        timed = self.round
        while not timed.over:
            timed.tick(False, self.opponent_press())


def _resolve_opponent(opponent) -> tuple[Bot | None, object | None]:
    if isinstance(opponent, (str, Bot)):
        return make_bot(opponent), None
    if callable(getattr(opponent, "act", None)):
        return None, opponent
    raise TypeError(
        "opponent must be a bot spec string, a war_env.core.bots.Bot or a policy with act(observation), "
        f"got {opponent!r}"
    )


def parse_action(action) -> bool:
    """Accept 0/1 as a Python or numpy integer (or a one-element integer array); reject the rest."""
    value = action
    if isinstance(value, np.ndarray) and value.size == 1 and np.issubdtype(value.dtype, np.integer):
        value = value.reshape(()).item()
    if isinstance(value, bool) or not isinstance(value, Integral) or value not in (0, 1):
        raise ValueError(f"invalid action {action!r}: War-v0 takes 0 (wait) or 1 (draw)")
    return value == 1
