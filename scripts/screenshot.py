"""Make the screenshots of docs/playing.md from real play: a war at the table, then the round's popup.

The frames come from the same session, painter and controls as war-play, on real shuffled deals
(seeded, so the pictures are the same on every run) against the default opponent bot, with a clock
that only moves when told: two rounds are played to their end by "Play 10 battles" (they fill the
scoreboard), then the third round is played by pressing "Turn cards" half a second into each turn
until a war is on and your timer runs (the first picture), and then to its end (the popup).

    python -m war_env.scripts.screenshot            # writes docs/screenshot.png and docs/screenshot-popup.png
"""

from __future__ import annotations

import argparse
from pathlib import Path

from war_env.play.loop import ManualClock
from war_env.play.session import AUTOPLAY, TURN, PlaySession

SEED = 3
"""Seed of the first deal; the later deals follow from it."""
REACTION_SECONDS = 0.5
"""How long into each of your turns the scripted person presses "Turn cards"."""
TIMER_SECONDS_GONE = 1.2
"""How much of your turn has run in the first picture."""


def main(out_dir: str | Path = "docs", seed: int = SEED) -> list[Path]:
    import pygame

    from war_env.views.render.table import TablePainter

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    clock = ManualClock()
    session = PlaySession(opponent="human", seed=seed)
    for _ in range(2):
        session.new_round(clock.now())
        _let_the_bot_play_to_the_end(session, clock)
    session.new_round(clock.now())
    session.handle(TURN, clock.now())  # start the round
    _play_until(session, clock, lambda: session.timed.game.at_war and session.your_turn and _turn_time(session) == 0)
    _wait(session, clock, TIMER_SECONDS_GONE)
    painter = TablePainter()
    table = out_dir / "screenshot.png"
    pygame.image.save(painter.paint(session.scene(), session.controls(), session.notice()), str(table))
    _play_until(session, clock, lambda: session.over)
    popup = out_dir / "screenshot-popup.png"
    pygame.image.save(painter.paint(session.scene(), session.controls(), session.notice()), str(popup))
    return [table, popup]


def _turn_time(session: PlaySession) -> float:
    """Seconds your current turn has been open."""
    config = session.env.config
    return (config.turn_ticks - session.timed.ticks_left(0)) * config.tick_seconds


def _play_until(session: PlaySession, clock: ManualClock, done, limit: int = 100_000) -> None:
    """Tick by tick, pressing "Turn cards" ``REACTION_SECONDS`` into each of your turns, until ``done()``."""
    for _ in range(limit):
        if done():
            return
        if session.your_turn and _turn_time(session) >= REACTION_SECONDS - 1e-9:
            session.handle(TURN, clock.now())
        clock.sleep(session.tick_seconds)
        session.advance(clock.now())
    raise RuntimeError("the scripted screenshot game did not reach its moment; was the seed changed?")


def _let_the_bot_play_to_the_end(session: PlaySession, clock: ManualClock, limit: int = 1_000_000) -> None:
    for _ in range(limit):
        if session.over:
            return
        if not session.autoplaying:
            session.handle(AUTOPLAY, clock.now())  # also starts the round
        clock.sleep(session.tick_seconds)
        session.advance(clock.now())
    raise RuntimeError("a round played by the bot did not end")


def _wait(session: PlaySession, clock: ManualClock, seconds: float) -> None:
    ticks = round(seconds / session.tick_seconds)
    for _ in range(ticks):
        clock.sleep(session.tick_seconds)
        session.advance(clock.now())


def cli(argv: list[str] | None = None) -> list[Path]:
    parser = argparse.ArgumentParser(
        prog="python -m war_env.scripts.screenshot",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--out-dir", default="docs", help="where the PNGs go (default docs/)")
    parser.add_argument("--seed", type=int, default=SEED, help=f"seed of the first deal (default {SEED})")
    args = parser.parse_args(argv)
    paths = main(args.out_dir, args.seed)
    for path in paths:
        print(path)
    return paths


if __name__ == "__main__":
    cli()
