"""A person at the War table: the session of ``war-play`` (and of any other front end that lets a person
play, in a window, a terminal or a browser).

Ticks follow the wall clock, and the commands are the English guide's controls:

  Turn cards       lay your card (when it is your turn)
  Play 10 battles  the bot plays the next ten battles for you (you watch them)
  New round        deal again; the scoreboard carries over

If your timer runs out, the bot takes over your seat for the rest of the round (BOT badge).
"""

from __future__ import annotations

import math

from war_env.env import WarEnv
from war_env.render.layout import Control
from war_env.scene import Scene, build_scene

TURN, AUTOPLAY, NEW_ROUND, QUIT = "turn", "autoplay", "new_round", "quit"
COMMANDS = (TURN, AUTOPLAY, NEW_ROUND, QUIT)
BUTTON_COMMANDS = (TURN, AUTOPLAY, NEW_ROUND)
"""What each button of ``layout.BUTTONS`` does, left to right."""
AUTOPLAY_BATTLES = 10
PLAYER_NAMES = ("You", "Bot")


class PlaySession:
    """The game at the table: the env's round and scoreboard, your pending press and the autoplay.

    Ticks follow the wall clock: ``advance(now)`` plays every tick that ``tick_seconds`` of real time
    has made due since the round began. The session ticks the env's ``TimedRound`` itself rather than
    calling ``env.step``, because ``step`` plays a taken-over round to its end at once (an agent has
    nothing left to do), while a person wants to watch the bot play their seat.
    """

    def __init__(self, opponent: str = "human", turn_seconds: float = 3.0, seed: int | None = None, **rules):
        self.env = WarEnv(opponent=opponent, turn_seconds=turn_seconds, **rules)
        if self.env.opponent_bot is None:
            raise ValueError(f"war-play needs a bot opponent (a spec such as 'human' or 'fixed:ticks=5'), got {opponent!r}")
        self.tick_seconds = self.env.config.tick_seconds
        self._seed = seed
        self.round_started_at = 0.0
        self.ticks_played = 0
        self.pending_press = False
        self.autoplay_target: int | None = None
        """Completed battles at which the autoplay stops; ``None`` when it is off."""

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
        return not timed.over and not timed.taken_over[0] and timed.ticks_left(0) > 0

    @property
    def autoplaying(self) -> bool:
        return self.autoplay_target is not None

    def completed_battles(self) -> int:
        """Battles fully played (a battle in progress, its wars included, does not count yet)."""
        game = self.timed.game
        in_progress = game.at_war or any(game.drawn)
        return game.battles - (1 if in_progress else 0)

    def scene(self) -> Scene:
        return build_scene(self.timed, self.env.scoreboard, PLAYER_NAMES)

    def controls(self) -> tuple[Control, ...]:
        playing = not self.over and not self.timed.taken_over[0]
        return (
            Control("Turn cards", "Space / click", self.your_turn and not self.autoplaying),
            self._autoplay_control(playing),
            Control("New round", "N", True),
        )

    def _autoplay_control(self, playing: bool) -> Control:
        if self.autoplaying:
            left = self.autoplay_target - self.completed_battles()
            return Control(f"Bot plays: {left} left", "for you", False)
        return Control("Play 10 battles", "P", playing)

    # --- commands ---------------------------------------------------------------------------
    def new_round(self, now: float, options: dict | None = None) -> None:
        """Deal again (the first deal uses the session's seed); the scoreboard carries over. A round
        left unfinished is not counted."""
        seed, self._seed = self._seed, None
        self.env.reset(seed=seed, options=options)
        self.round_started_at = now
        self.ticks_played = 0
        self.pending_press = False
        self.autoplay_target = None

    def handle(self, command: str, now: float) -> bool:
        """Apply a command; returns whether it did something (a press outside your turn does not)."""
        if command == TURN:
            if not self.your_turn or self.autoplaying:
                return False
            self.pending_press = True
            return True
        if command == AUTOPLAY:
            if self.over or self.timed.taken_over[0] or self.autoplaying:
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
        if self.over:
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
        timed.tick(press, False)  # seat 1 is a bot: it times itself
        if timed.over:
            self.env.scoreboard.record(timed.game.result)
            self.autoplay_target = None
        elif self.autoplaying and self.completed_battles() >= self.autoplay_target:
            self.autoplay_target = None
