"""What every console script shares: its extras checked before anything happens, and a user's mistake
reported as one line (``prog: error: ...``) instead of a traceback.

Exit statuses: 0 done, 1 the command could not do its job (a missing extra, a file it cannot read or
write, a run that failed), 2 a usage error (a bad argument, spec or file name), 130 interrupted.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from collections.abc import Callable, Sequence

from war_env.support.extras import MissingExtra, require

USAGE_ERRORS = (ValueError, FileNotFoundError, FileExistsError, NotADirectoryError, IsADirectoryError)
"""What the project raises for bad input: the message names the problem, the command adds its name."""


def seed(text: str) -> int:
    """An argparse type: a seed is a whole number >= 0 (what Gymnasium's ``reset(seed=...)`` takes)."""
    value = int(text)  # a ValueError here is argparse's "invalid seed value"
    if value < 0:
        raise argparse.ArgumentTypeError(f"a seed must be a whole number >= 0, got {text}")
    return value


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """``--help`` for users: an option's default is shown when it has one (not for on/off flags, nor
    when the help already says it); the description is wrapped to the terminal paragraph by paragraph,
    and indented lines (examples) are kept as written."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if (
            action.default is None
            or action.default is False
            or action.default is argparse.SUPPRESS
            or "default" in text
        ):
            return text
        return f"{text} (default: %(default)s)"

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        out, prose = [], []

        def flush():
            if prose:
                out.append(textwrap.fill(" ".join(prose), width, initial_indent=indent, subsequent_indent=indent))
                prose.clear()

        for line in text.strip("\n").splitlines():
            if line.startswith(" ") or not line.strip():  # an example line as written, or a paragraph break
                flush()
                out.append(indent + line if line.strip() else "")
            else:
                prose.append(line.strip())
        flush()
        return "\n".join(out)


def run_command(parser: argparse.ArgumentParser, call: Callable[[], int], extras: Sequence[str] = ()) -> int:
    """Check ``extras`` (before any file is written), then run ``call`` and return its exit status."""
    try:
        if extras:
            require(extras, parser.prog)
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
