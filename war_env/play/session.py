"""A person at the War table: the session of ``war-play`` (and of any other front end that lets a person
play, in a window, a terminal or a browser).

Ticks follow the wall clock, and the commands are the English guide's controls:

  Turn cards       lay your card (when it is your turn); a press outside your turn is a false start
  Play 10 battles  the bot plays the next ten battles for you (you watch them)
  New round        deal again; the scoreboard carries over

A new round waits for you: the first "Turn cards" (or "Play 10 battles") starts it, and only then do
the turn timers run. If your timer runs out, the bot takes over your seat for the rest of the round
(BOT badge).
"""

from __future__ import annotations

import math

from war_env.agents import make_opponent
from war_env.core.rules import WarConfig
from war_env.envs.war import WarEnv
from war_env.views.render.layout import Control
from war_env.views.scene import Scene, build_scene

TURN, AUTOPLAY, NEW_ROUND, QUIT = "turn", "autoplay", "new_round", "quit"
COMMANDS = (TURN, AUTOPLAY, NEW_ROUND, QUIT)
BUTTON_COMMANDS = (TURN, AUTOPLAY, NEW_ROUND)
"""What each button of ``layout.BUTTONS`` does, left to right."""
AUTOPLAY_BATTLES = 10
PLAYER_NAMES = ("You", "Bot")
FALSE_START_NOTICE_TICKS = 15
"""How long (in ticks) the table says "False start!" after a press outside your turn."""


class PlaySession:
    """The game at the table: the env's round and scoreboard, your pending press and the autoplay.

    ``opponent`` is any opponent spec of ``war_env.agents.make_opponent``: a bot (``human``,
    ``fixed:ticks=5``) or an agent playing seat 1 (``prompt``, ``ppo:PATH``); ``rules`` are
    ``WarConfig`` fields (``target_points=10``).

    Ticks follow the wall clock: ``advance(now)`` plays every tick that ``tick_seconds`` of real time
    has made due since the round was started. The session ticks the env's ``TimedRound`` itself
    rather than calling ``env.step``, because ``step`` plays a taken-over round to its end at once
    (an agent has nothing left to do), while a person wants to watch the bot play their seat.
    """

    def __init__(
        self,
        opponent: str = "human",
        turn_seconds: float = 3.0,
        seed: int | None = None,
        trust_model_file: bool = False,
        **rules,
    ):
        config = WarConfig.from_kwargs({"turn_seconds": turn_seconds, **rules})
        player = make_opponent(opponent, config=config, trust_model_file=trust_model_file)
        self.env = WarEnv(opponent=player, config=config)
        self.tick_seconds = config.tick_seconds
        self._seed = seed
        self.waiting = True
        """A dealt round waits for the person: no tick is played, no timer runs."""
        self.round_started_at = 0.0
        self.ticks_played = 0
        self.pending_press = False
        self.autoplay_target: int | None = None
        """Completed battles at which the autoplay stops; ``None`` when it is off."""
        self.false_start_tick: int | None = None
        """The tick of your last false start this round."""

    # --- the table --------------------------------------------------------------------------
    @property
    def timed(self):
        return self.env.round

    @property
    def over(self) -> bool:
        return self.timed.over

    @property
    def your_turn(self) -> bool:
        timed = self.timed
        return not self.waiting and not timed.over and not timed.taken_over[0] and timed.ticks_left(0) > 0

    @property
    def autoplaying(self) -> bool:
        return self.autoplay_target is not None

    @property
    def playing(self) -> bool:
        """The round runs and you play your seat yourself (not the takeover bot)."""
        return not self.waiting and not self.over and not self.timed.taken_over[0]

    def completed_battles(self) -> int:
        """Battles fully played (a battle in progress, its wars included, does not count yet)."""
        game = self.timed.game
        in_progress = game.at_war or any(game.drawn)
        return game.battles - (1 if in_progress else 0)

    def scene(self) -> Scene:
        return build_scene(self.timed, self.env.scoreboard, PLAYER_NAMES)

    def controls(self) -> tuple[Control, ...]:
        if self.waiting:
            first = Control("Start round", "Space / click", True)
        else:
            first = Control("Turn cards", "Space / click", self.your_turn and not self.autoplaying)
        return (first, self._autoplay_control(), Control("New round", "N", True))

    def _autoplay_control(self) -> Control:
        if self.autoplaying:
            left = self.autoplay_target - self.completed_battles()
            return Control(f"Bot plays: {left} left", "for you", False)
        return Control("Play 10 battles", "P", self.waiting or self.playing)

    def notice(self) -> str | None:
        """One line telling the person what the table waits for, or what just went wrong; ``None``
        when the table speaks for itself."""
        if self.waiting:
            if self.timed.game.starter == 0:
                return "Press Space or Start round to begin: your timer starts then"
            return "Press Space or Start round to begin: the bot draws first, then your timer starts"
        if self.over or self.timed.taken_over[0]:  # the popup, or the takeover note, says why
            return "New round (N) deals again"
        if self.autoplaying:
            return f"The bot plays for you until battle {self.autoplay_target} is done"
        if (
            self.false_start_tick is not None
            and self.timed.tick_count - self.false_start_tick < FALSE_START_NOTICE_TICKS
        ):
            return f"False start! Wait for your turn ({self.timed.false_starts[0]} this round)"
        return None

    # --- commands ---------------------------------------------------------------------------
    def new_round(self, now: float, options: dict | None = None) -> None:
        """Deal again (the first deal uses the session's seed) and wait for the person to start; the
        scoreboard carries over. A round left unfinished is not counted."""
        seed, self._seed = self._seed, None
        self.env.reset(seed=seed, options=options)
        self.waiting = True
        self.round_started_at = now
        self.ticks_played = 0
        self.pending_press = False
        self.autoplay_target = None
        self.false_start_tick = None

    def start(self, now: float) -> None:
        """The person is ready: the round's clock starts now (the starter's timer opens on its first tick)."""
        self.waiting = False
        self.round_started_at = now

    def handle(self, command: str, now: float) -> bool:
        """Apply a command; returns whether it did something. "Turn cards" outside your turn is a
        false start (counted and shown; nothing moves), except while the bot plays for you."""
        if command == TURN:
            if self.waiting:
                self.start(now)
                return True
            if not self.playing or self.autoplaying:
                return False
            self.pending_press = True
            return True
        if command == AUTOPLAY:
            if self.waiting:
                self.start(now)
            if not self.playing or self.autoplaying:
                return False
            self.autoplay_target = self.completed_battles() + AUTOPLAY_BATTLES
            return True
        if command == NEW_ROUND:
            self.new_round(now)
            return True
        raise ValueError(f"unknown command {command!r}; known: {COMMANDS}")

    def advance(self, now: float) -> int:
        """Play the ticks that are due at wall time ``now``; returns how many were played. After a
        stall (a dragged window) at most one turn's worth is played, the rest is skipped."""
        if self.waiting or self.over:
            return 0
        due = math.floor((now - self.round_started_at) / self.tick_seconds + 1e-9) - self.ticks_played
        limit = self.env.config.turn_ticks
        if due > limit:
            self.round_started_at += (due - limit) * self.tick_seconds
            due = limit
        played = 0
        while played < due and not self.over:
            self._tick()
            played += 1
        self.ticks_played += due
        return played

    def _tick(self) -> None:
        timed = self.timed
        press = self.pending_press or (self.autoplaying and timed.ticks_left(0) > 0)
        self.pending_press = False
        false_starts = timed.false_starts[0]
        timed.tick(press, self.env.opponent_press())  # a bot on seat 1 times itself; an agent is asked
        if timed.false_starts[0] > false_starts:  # the clock's rule: a press while your turn is not open
            self.false_start_tick = timed.tick_count
        if timed.over:
            self.env.scoreboard.record(timed.game.result)
            self.autoplay_target = None
        elif self.autoplaying and self.completed_battles() >= self.autoplay_target:
            self.autoplay_target = None
