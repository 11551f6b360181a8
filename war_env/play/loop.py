"""The play loop: read commands, play the ticks that are due, show the table, wait.

``play_loop(session, events, clock, view)`` takes its event source, clock and view as arguments, so
the same loop drives a window, a terminal, tests (synthetic events, a clock that moves only when
told) and scripted play (the screenshots).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from war_env.play.session import QUIT, PlaySession
from war_env.views.render.display import NoDisplay, display_available, headless_on_purpose


class NoKeys(OSError):
    """The terminal game got no key at all: nobody was there to play (the command exits with status 1)."""


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


def play(
    opponent: str = "human",
    turn_seconds: float = 3.0,
    seed: int | None = None,
    mode: str = "auto",
    fps: float = 30.0,
    max_frames: int | None = None,
    clock=None,
    keys=None,
    out=None,
    trust_model_file: bool = False,
    **rules,
) -> PlayResult:
    """Play at the table until quit. ``mode``: ``"window"``, ``"terminal"`` or ``"auto"`` (a window
    when a display is there, else the terminal); the browser is ``war_env.web``. ``opponent``,
    ``trust_model_file`` and ``rules`` (``WarConfig`` fields) are ``PlaySession``'s. ``clock``, ``keys``
    (a terminal input stream) and ``out`` replace the real ones in tests."""
    if mode not in ("auto", "window", "terminal"):
        raise ValueError(f"mode must be 'auto', 'window' or 'terminal', got {mode!r}")
    session = PlaySession(opponent, turn_seconds, seed, trust_model_file, **rules)
    clock = clock if clock is not None else WallClock()
    if mode == "auto":
        mode = "window" if display_available() else "terminal"
    elif mode == "window" and not (headless_on_purpose() or display_available()):
        raise NoDisplay(
            "a window needs a display, and none was found (DISPLAY and WAYLAND_DISPLAY unset, or not "
            "usable): play in the terminal with --terminal"
        )
    if mode == "window":
        from war_env.play.window import PygameEvents, WindowView

        view, events = WindowView(), PygameEvents()
    else:
        from war_env.play.terminal import TerminalKeys, TerminalView

        view, events = TerminalView(out), TerminalKeys(keys)
    session.new_round(clock.now())
    try:
        stopped = play_loop(session, events, clock, view, fps=fps, max_frames=max_frames)
    finally:
        view.close()
        if hasattr(events, "close"):
            events.close()
    if getattr(events, "ended_without_keys", False):
        raise NoKeys(
            "standard input ended before any key was pressed (it is not a terminal): play in a terminal, "
            "or pipe keys into it, e.g. printf 'pq' | war-play --terminal"
        )
    board = session.env.scoreboard
    return PlayResult(stopped, board.rounds, (board.rounds_won[0], board.rounds_won[1]), board.draws)
