"""Whether a window can be shown here, asked before pygame is: without a display, SDL falls back to drawing
offscreen (after printing an XDG_RUNTIME_DIR error), so a window would silently show nothing.

Imports no pygame except in ``display_available``, which tries the display itself."""

from __future__ import annotations

import os
import sys


class NoDisplay(OSError):
    """A window was asked for where none can be shown (``render_mode="human"``, ``war-play --window``)."""


def headless_on_purpose() -> bool:
    """SDL told to draw nowhere (tests, recordings): a window is then asked for knowingly."""
    return os.environ.get("SDL_VIDEODRIVER") in ("dummy", "offscreen")


def display_found() -> bool:
    """A display a window could open on, judged from the environment alone (no pygame): on Linux a
    ``DISPLAY`` or ``WAYLAND_DISPLAY``; other systems always have one."""
    return not sys.platform.startswith("linux") or bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def display_available() -> bool:
    """A display that pygame really opens (the test of ``war-play``'s automatic choice of a window)."""
    if headless_on_purpose() or not display_found():
        return False
    try:
        import pygame

        pygame.display.init()
        return True
    except Exception:  # pygame missing (the render extra) or no usable video driver
        return False


def window_modes_here(modes: list[str]) -> list[str]:
    """``modes`` without ``"human"`` where no window can be shown: what an env can render here (Gymnasium's
    ``check_env`` tries every mode in ``metadata["render_modes"]``)."""
    if headless_on_purpose() or display_found():
        return list(modes)
    return [mode for mode in modes if mode != "human"]


def require_display(what: str) -> None:
    """``NoDisplay`` in one line unless a window can be shown (or SDL draws nowhere on purpose)."""
    if not (headless_on_purpose() or display_found()):
        raise NoDisplay(
            f"{what} needs a display, and none was found (DISPLAY and WAYLAND_DISPLAY unset): use "
            f"render_mode='rgb_array' for frames, or set SDL_VIDEODRIVER=dummy to draw nowhere on purpose"
        )
