"""``war-play``: you against a bot at the War table, in a window, a terminal or a browser (``war_env.play``)."""

from __future__ import annotations

import argparse
import sys

from war_env.play.loop import play
from war_env.scripts.common import HelpFormatter, run_command, seed

DESCRIPTION = """\
Play War against the computer, with the turn timer in real seconds.

A new round waits for you: your first press starts it, and the timers run from then on.

controls:
  Turn cards       Space, Enter, or a click or tap on the button: start the round, then lay your
                   card when it is your turn (a press outside your turn is a false start)
  Play 10 battles  P or the button: the computer plays the next ten battles for you
  New round        N or the button: deal again (the scoreboard carries over)
  Quit             Q or Esc, or close the window (--web: Ctrl-C stops the server)

If your timer runs out, the computer takes over your seat for the rest of the round (BOT badge).
A window needs a display and the render extra; without a display the game is played in the
terminal. --web serves the table and its rules guide as a page (the web extra): open the printed
address in a browser, on this computer or, with --host 0.0.0.0, from a phone on your network.

examples:
  war-play                                   a window (or the terminal without a display)
  war-play --web                             in the browser, at http://127.0.0.1:8000/
  war-play --opponent fixed:ticks=5 --turn-seconds 2 --target-points 10
  war-play --web --opponent ppo:runs/ppo/final.zip   against a trained model
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="war-play", description=DESCRIPTION, formatter_class=HelpFormatter)
    parser.add_argument(
        "--opponent",
        default="human",
        metavar="SPEC",
        help="who you play against: a bot (human, instant, fixed:ticks=5, uniform:low=1,high=10) "
        "or an agent (prompt, last_moment, ppo:PATH, ...)",
    )
    parser.add_argument("--turn-seconds", type=float, default=3.0, metavar="SECONDS", help="the turn timer, in seconds")
    parser.add_argument(
        "--target-points", type=int, default=50, metavar="N", help="a round ends when a player reaches this many points"
    )
    parser.add_argument(
        "--seed", type=seed, default=None, metavar="N", help="seed of the first deal (default: a random deal)"
    )
    parser.add_argument(
        "--trust-model-file",
        action="store_true",
        help="let a ppo:PATH opponent's model file unpickle its data (only for files you trust)",
    )
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--terminal", dest="mode", action="store_const", const="terminal", help="play in the terminal")
    group.add_argument("--window", dest="mode", action="store_const", const="window", help="play in a window")
    group.add_argument(
        "--web", dest="mode", action="store_const", const="web", help="serve the table as a page and play in a browser"
    )
    parser.set_defaults(mode="auto")
    web = parser.add_argument_group("the browser (--web)")
    web.add_argument(
        "--host",
        default="127.0.0.1",
        metavar="ADDRESS",
        help="address to serve on; 0.0.0.0 lets other devices on your network in",
    )
    web.add_argument("--port", type=int, default=8000, metavar="N", help="port to serve on (0: any free port)")
    web.add_argument("--max-tables", type=int, default=16, metavar="N", help="browser tabs that may play at once")
    return parser


def cli(argv: list[str] | None = None) -> int:
    """The ``war-play`` command; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    rules = {"target_points": args.target_points}

    def call() -> int:
        if args.mode == "web":
            from war_env.web.app import Limits, TableSettings, serve

            settings = TableSettings(args.opponent, args.turn_seconds, args.seed, rules, args.trust_model_file)
            serve(settings, Limits(max_sessions=args.max_tables), args.host, args.port)
            return 0
        result = play(
            args.opponent, args.turn_seconds, args.seed, args.mode, trust_model_file=args.trust_model_file, **rules
        )
        print(f"Rounds won: You {result.rounds_won[0]}, Bot {result.rounds_won[1]}, draws {result.draws}")
        return 0

    extras = {"window": ("render",), "web": ("web",)}.get(args.mode, ())
    return run_command(parser, call, extras=extras)


if __name__ == "__main__":
    sys.exit(cli())
