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


def seed(text: str) -> int:
    """An argparse type: a seed is a whole number >= 0 (what Gymnasium's ``reset(seed=...)`` takes)."""
    value = int(text)  # a ValueError here is argparse's "invalid seed value"
    if value < 0:
        raise argparse.ArgumentTypeError(f"a seed must be a whole number >= 0, got {text}")
    return value


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """``--help`` shows each option's default and keeps the description's line breaks."""


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
