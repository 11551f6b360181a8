"""What every console script shares: its extras checked before anything happens, and a user's mistake
reported as one line (``prog: error: ...``) instead of a traceback.

Exit statuses: 0 done, 1 the command could not do its job (a missing extra, a file it cannot read or
write, a run that failed), 2 a usage error (a bad argument, spec or file name), 130 interrupted.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from war_env.extras import MissingExtra, require

USAGE_ERRORS = (ValueError, FileNotFoundError, FileExistsError, NotADirectoryError, IsADirectoryError)
"""What the project raises for bad input: the message names the problem, the command adds its name."""


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """``--help`` shows each option's default and keeps the description's line breaks. Flags (on or off)
    and options without a default (``None``) show none: "(default: False)" tells a user nothing."""

    def _get_help_string(self, action: argparse.Action) -> str:
        if action.nargs == 0 or action.default is None:
            return action.help or ""
        return super()._get_help_string(action)


def run_command(parser: argparse.ArgumentParser, call: Callable[[], int], extras: Sequence[str] = ()) -> int:
    """Check ``extras`` (before any file is written), then run ``call`` and return its exit status."""
    try:
        for extra in extras:
            require(extra, parser.prog)
        return call()
    except MissingExtra as error:
        print(f"{parser.prog}: error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except USAGE_ERRORS as error:
        parser.error(str(error))  # prints usage and the message, exits 2
    except OSError as error:  # permissions, a full disk: the message names the path
        print(f"{parser.prog}: error: {error}", file=sys.stderr)
        return 1
