"""Playing in a terminal: keys typed as commands, the table drawn as text (``war_env.views.ansi``)."""

from __future__ import annotations

import os
import select
import sys

from war_env.play.session import AUTOPLAY, NEW_ROUND, QUIT, TURN, PlaySession
from war_env.views.ansi import paint_ansi

TERMINAL_KEYS = {" ": TURN, "\n": TURN, "\r": TURN, "p": AUTOPLAY, "n": NEW_ROUND, "q": QUIT}


class TerminalKeys:
    """Commands from keys typed in a terminal, read without blocking (single keys when a tty). The end of
    the input (a closed pipe, ``< /dev/null``) quits: nobody is left to press a key."""

    def __init__(self, stream=None):
        self.stream = stream if stream is not None else sys.stdin
        self.fd = self.stream.fileno()
        self._saved = None
        self._eof = False
        self.keys_read = 0
        """Keys read that mean a command: none at the end of the input means nobody could play."""
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
                commands.append(QUIT)
                break
            for char in data.decode(errors="ignore").lower():
                if char in TERMINAL_KEYS:
                    commands.append(TERMINAL_KEYS[char])
                    self.keys_read += 1
        return commands

    @property
    def ended_without_keys(self) -> bool:
        """The input ended before a single key (``war-play < /dev/null``, a script with no terminal)."""
        return self._eof and self.keys_read == 0

    def close(self) -> None:
        if self._saved is not None:
            import termios

            termios.tcsetattr(self.fd, termios.TCSADRAIN, self._saved)
            self._saved = None


class TerminalView:
    """The ansi table, redrawn when it changes, with the keys under it."""

    def __init__(self, out=None):
        self.out = out if out is not None else sys.stdout
        self._last = None
        self._tty = getattr(self.out, "isatty", lambda: False)()

    def show(self, session: PlaySession) -> None:
        text = paint_ansi(session.scene())
        notice = session.notice()
        if notice:
            text += f">> {notice}\n"
        turn, autoplay, new_round = (control.label for control in session.controls())
        text += f"[space] {turn}   [p] {autoplay}   [n] {new_round}   [q] Quit\n"
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
