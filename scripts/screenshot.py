"""Make the screenshots of docs/playing.md from real play: a double war at the table, then the round's popup.

The frames come from the same session, painter and controls as war-play, driven by a clock that
only moves when told (so the picture is the same on every run): two short rounds fill the
scoreboard, then a dealt round reaches a double war with your timer running, and is played to the
end for the result popup.

    python -m war_env.scripts.screenshot            # writes docs/screenshot.png and docs/screenshot-popup.png
"""

from __future__ import annotations

import argparse
from pathlib import Path

from war_env.play.loop import ManualClock
from war_env.play.session import AUTOPLAY, TURN, PlaySession

SCOREBOARD_ROUNDS = ([["AS"], ["2C"]], [["3C"], ["KH"]])
"""Two one-battle rounds: you win the first, the bot the second."""
TABLE_PILES = [
    ["5H", "QS", "9C", "3D", "JC", "6S", "AD", "4S", "8D", "7H"],
    ["8C", "4D", "9D", "2S", "JH", "10C", "5D", "6D", "3S", "2H"],
]
"""Battle 1 goes to the bot, battle 2 to you, battle 3 ties (nines), its war ties again (jacks)."""
TIMER_SECONDS_GONE = 1.2


def main(out_dir: str | Path = "docs") -> list[Path]:
    from war_env.render.table import TablePainter

    import pygame

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    clock = ManualClock()
    session = PlaySession(opponent="fixed:ticks=4", turn_seconds=3.0, seed=0)
    for piles in SCOREBOARD_ROUNDS:
        session.new_round(clock.now(), options={"piles": piles, "starter": 0})
        _play_until(session, clock, lambda: session.over, press=True)
    session.new_round(clock.now(), options={"piles": TABLE_PILES, "starter": 0})
    _play_until(session, clock, lambda: session.timed.game.under_visible[0] == 1 and session.your_turn, press=True)
    _wait(session, clock, TIMER_SECONDS_GONE)
    painter = TablePainter()
    table = out_dir / "screenshot.png"
    pygame.image.save(painter.paint(session.scene(), session.controls()), str(table))
    session.handle(AUTOPLAY, clock.now())
    _play_until(session, clock, lambda: session.over, press=True)
    popup = out_dir / "screenshot-popup.png"
    pygame.image.save(painter.paint(session.scene(), session.controls()), str(popup))
    return [table, popup]


def _play_until(session: PlaySession, clock: _StoppedClock, done, press: bool, limit: int = 10_000) -> None:
    """Tick by tick, pressing "Turn cards" whenever it is your turn, until ``done()``."""
    for _ in range(limit):
        if done():
            return
        if press and session.your_turn:
            session.handle(TURN, clock.now())
        clock.sleep(session.tick_seconds)
        session.advance(clock.now())
    raise RuntimeError("the scripted screenshot game did not reach its moment; were the piles changed?")


def _wait(session: PlaySession, clock: _StoppedClock, seconds: float) -> None:
    ticks = round(seconds / session.tick_seconds)
    for _ in range(ticks):
        clock.sleep(session.tick_seconds)
        session.advance(clock.now())


def cli(argv: list[str] | None = None) -> list[Path]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out-dir", default="docs", help="where the PNGs go (default docs/)")
    args = parser.parse_args(argv)
    paths = main(args.out_dir)
    for path in paths:
        print(path)
    return paths


if __name__ == "__main__":
    cli()
