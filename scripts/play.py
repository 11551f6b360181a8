"""``war-play``: you against a bot at the War table, in a window or a terminal (``war_env.play``)."""

from __future__ import annotations

import argparse
import sys

from war_env.play.loop import play
from war_env.scripts.common import HelpFormatter, run_command, seed

DESCRIPTION = """\
Play War against a bot, with the turn timer in real seconds.

controls:
  Turn cards       Space, Enter, or a click or tap on the button: lay your card when it is your turn
  Play 10 battles  P or the button: the bot plays the next ten battles for you
  New round        N or the button: deal again (the scoreboard carries over)
  Quit             Q or Esc, or close the window

If your timer runs out, the bot takes over your seat for the rest of the round (BOT badge).
A window needs a display and the render extra; otherwise the game is played in the terminal.
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="war-play", description=DESCRIPTION, formatter_class=HelpFormatter)
    parser.add_argument("--opponent", default="human",
                        help="the bot you play against: human, instant, fixed:ticks=5, uniform:low=1,high=10")
    parser.add_argument("--turn-seconds", type=float, default=3.0, help="your turn timer, in seconds")
    parser.add_argument("--seed", type=seed, default=None, help="seed of the first deal (default: a random deal)")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--terminal", dest="mode", action="store_const", const="terminal", help="play in the terminal")
    group.add_argument("--window", dest="mode", action="store_const", const="window", help="play in a window")
    parser.set_defaults(mode="auto")
    return parser


def cli(argv: list[str] | None = None) -> int:
    """The ``war-play`` command; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)

    def call() -> int:
        result = play(args.opponent, args.turn_seconds, args.seed, args.mode)
        print(f"Rounds won: You {result.rounds_won[0]}, Bot {result.rounds_won[1]}, draws {result.draws}")
        return 0

    return run_command(parser, call, extras=("render",) if args.mode == "window" else ())


if __name__ == "__main__":
    sys.exit(cli())
