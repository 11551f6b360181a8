"""war-play: you against a bot at the War table, with the turn timer in real seconds.

Controls (as in the English source document):
  Turn cards       space, enter, a click or a tap on the button: lay your card (when it is your turn)
  Play 10 battles  P or the button: the bot plays the next ten battles for you (you watch them)
  New round        N or the button: deal again; the scoreboard carries over
  Quit             Q or Esc (or close the window)
If your timer runs out, the bot takes over your seat for the rest of the round (BOT badge).
Without a display (or with --terminal) the same controls work on the keys in the terminal.

The loop is ``play_loop(session, events, clock, view)``: events and clock are passed in, so tests
drive it with synthetic pygame events and a clock that advances only when told.
"""

from __future__ import annotations

import argparse
import math
import os
import select
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

from war_env.ansi import paint_ansi
from war_env.env import WarEnv
from war_env.render.layout import HEIGHT, WIDTH, Control, button_at
from war_env.scene import Scene, build_scene

TURN, AUTOPLAY, NEW_ROUND, QUIT = "turn", "autoplay", "new_round", "quit"
COMMANDS = (TURN, AUTOPLAY, NEW_ROUND, QUIT)
BUTTON_COMMANDS = (TURN, AUTOPLAY, NEW_ROUND)
"""What each button of ``layout.BUTTONS`` does, left to right."""
AUTOPLAY_BATTLES = 10
TERMINAL_KEYS = {" ": TURN, "\n": TURN, "\r": TURN, "p": AUTOPLAY, "n": NEW_ROUND, "q": QUIT}
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


# --- event sources: what the person pressed, as commands ---------------------------------------
class PygameEvents:
    """Commands from the pygame event queue: clicks and taps on the buttons, and keys."""

    def __init__(self):
        import pygame

        self.pygame = pygame
        self.keys = {
            pygame.K_SPACE: TURN,
            pygame.K_RETURN: TURN,
            pygame.K_p: AUTOPLAY,
            pygame.K_n: NEW_ROUND,
            pygame.K_q: QUIT,
            pygame.K_ESCAPE: QUIT,
        }

    def poll(self) -> list[str]:
        pygame = self.pygame
        commands = []
        for event in pygame.event.get():
            point = None
            if event.type == pygame.QUIT:
                commands.append(QUIT)
            elif event.type == pygame.KEYDOWN and event.key in self.keys:
                commands.append(self.keys[event.key])
            elif event.type == pygame.MOUSEBUTTONDOWN and event.button == 1 and not getattr(event, "touch", False):
                point = event.pos  # (touches also arrive as FINGERDOWN: don't count them twice)
            elif event.type == pygame.FINGERDOWN:
                point = (event.x * WIDTH, event.y * HEIGHT)  # normalised to the window
            if point is not None:
                button = button_at(point)
                if button is not None:
                    commands.append(BUTTON_COMMANDS[button])
        return commands


class TerminalKeys:
    """Commands from keys typed in a terminal, read without blocking (single keys when a tty)."""

    def __init__(self, stream=None):
        self.stream = stream if stream is not None else sys.stdin
        self.fd = self.stream.fileno()
        self._saved = None
        self._eof = False
        if os.isatty(self.fd):
            import termios
            import tty

            self._saved = termios.tcgetattr(self.fd)
            tty.setcbreak(self.fd)

    def poll(self) -> list[str]:
        commands = []
        while not self._eof and select.select([self.fd], [], [], 0)[0]:
            data = os.read(self.fd, 64)
            if not data:
                self._eof = True
                break
            for char in data.decode(errors="ignore").lower():
                if char in TERMINAL_KEYS:
                    commands.append(TERMINAL_KEYS[char])
        return commands

    def close(self) -> None:
        if self._saved is not None:
            import termios

            termios.tcsetattr(self.fd, termios.TCSADRAIN, self._saved)
            self._saved = None


# --- views: how the table is shown --------------------------------------------------------------
class WindowView:
    """The pixel table in a pygame window, with the three buttons."""

    def __init__(self):
        from war_env.render.table import TablePainter
        from war_env.render.window import TableWindow

        self.painter = TablePainter()
        self.window = TableWindow("War - you against the bot")

    def show(self, session: PlaySession) -> None:
        self.window.show(self.painter.paint(session.scene(), session.controls()))

    def close(self) -> None:
        self.window.close()


class TerminalView:
    """The ansi table, redrawn when it changes, with the keys under it."""

    KEYS_LINE = "[space] Turn cards   [p] Play 10 battles   [n] New round   [q] Quit"

    def __init__(self, out=None):
        self.out = out if out is not None else sys.stdout
        self._last = None
        self._tty = getattr(self.out, "isatty", lambda: False)()

    def show(self, session: PlaySession) -> None:
        text = paint_ansi(session.scene())
        if session.timed.taken_over[0] and not session.over:
            text += "Your timer ran out: the bot plays your seat. [n] deals a new round.\n"
        elif session.autoplaying:
            text += f"The bot plays for you until battle {session.autoplay_target} is done.\n"
        text += self.KEYS_LINE + "\n"
        if text != self._last:
            self._last = text
            if self._tty:  # overwrite in place (home, clear each line's rest, then the screen's) - no flicker
                text = "\x1b[H" + text.replace("\n", "\x1b[K\n") + "\x1b[J"
            else:
                text = "\n" + text
            self.out.write(text)
            self.out.flush()

    def close(self) -> None:
        pass


# --- clocks -------------------------------------------------------------------------------------
class WallClock:
    """Real seconds."""

    def now(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


class ManualClock:
    """Time that moves only when the loop sleeps: for tests and for scripted play (screenshots)."""

    def __init__(self):
        self.time = 0.0

    def now(self) -> float:
        return self.time

    def sleep(self, seconds: float) -> None:
        self.time += seconds


# --- the loop -----------------------------------------------------------------------------------
def play_loop(
    session: PlaySession,
    events,
    clock,
    view,
    *,
    fps: float = 30.0,
    max_frames: int | None = None,
    until: Callable[[PlaySession], bool] | None = None,
) -> str:
    """Frames until the person quits: read commands, play the due ticks, show the table, wait.
    Returns why it stopped: ``"quit"``, ``"until"`` (the condition held) or ``"max_frames"``."""
    frames = 0
    while max_frames is None or frames < max_frames:
        for command in events.poll():
            if command == QUIT:
                return "quit"
            session.handle(command, clock.now())
        session.advance(clock.now())
        view.show(session)
        frames += 1
        if until is not None and until(session):
            return "until"
        clock.sleep(1.0 / fps)
    return "max_frames"


@dataclass(frozen=True)
class PlayResult:
    stopped: str
    rounds: int
    rounds_won: tuple[int, int]
    draws: int


def main(
    opponent: str = "human",
    turn_seconds: float = 3.0,
    seed: int | None = None,
    mode: str = "auto",
    fps: float = 30.0,
    max_frames: int | None = None,
    clock=None,
    keys=None,
    out=None,
) -> PlayResult:
    """Play at the table until quit. ``mode``: ``"window"``, ``"terminal"`` or ``"auto"`` (a window
    when a display is there, else the terminal). ``clock``, ``keys`` (a terminal input stream) and
    ``out`` replace the real ones in tests."""
    if mode not in ("auto", "window", "terminal"):
        raise ValueError(f"mode must be 'auto', 'window' or 'terminal', got {mode!r}")
    session = PlaySession(opponent=opponent, turn_seconds=turn_seconds, seed=seed)
    clock = clock if clock is not None else WallClock()
    if mode == "auto":
        mode = "window" if _display_available() else "terminal"
    if mode == "window":
        view, events = WindowView(), PygameEvents()
    else:
        view, events = TerminalView(out), TerminalKeys(keys)
    session.new_round(clock.now())
    try:
        stopped = play_loop(session, events, clock, view, fps=fps, max_frames=max_frames)
    finally:
        view.close()
        if isinstance(events, TerminalKeys):
            events.close()
    board = session.env.scoreboard
    return PlayResult(stopped, board.rounds, (board.rounds_won[0], board.rounds_won[1]), board.draws)


def _display_available() -> bool:
    if os.environ.get("SDL_VIDEODRIVER") in ("dummy", "offscreen"):
        return False
    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        return False
    try:
        import pygame

        pygame.display.init()
        return True
    except Exception:  # pygame missing (the render extra) or no usable video driver
        return False


def cli(argv: list[str] | None = None) -> int:
    """The ``war-play`` command; returns the exit status for ``sys.exit`` (``main`` returns the result)."""
    parser = argparse.ArgumentParser(
        prog="war-play", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--opponent", default="human", help="bot spec: human (default), instant, fixed:ticks=5, ...")
    parser.add_argument("--turn-seconds", type=float, default=3.0, help="your turn timer (default 3 s)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the first deal")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--terminal", dest="mode", action="store_const", const="terminal", help="play in the terminal")
    group.add_argument("--window", dest="mode", action="store_const", const="window", help="play in a window")
    parser.set_defaults(mode="auto")
    args = parser.parse_args(argv)
    try:
        result = main(args.opponent, args.turn_seconds, args.seed, args.mode)
    except KeyboardInterrupt:
        return 130
    print(f"Rounds won: You {result.rounds_won[0]}, Bot {result.rounds_won[1]}, draws {result.draws}")
    return 0


if __name__ == "__main__":
    sys.exit(cli())
