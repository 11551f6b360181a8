"""The pixel painters of the table (pygame-ce, the ``render`` extra).

Importing this package does not import pygame; ``war_env.views.render.table`` and
``war_env.views.render.window`` do, and raise ``gymnasium.error.DependencyNotInstalled`` naming the extra
when it is missing. ``layout`` is plain geometry shared by the painter and the play loop.
"""

from __future__ import annotations

from gymnasium.error import DependencyNotInstalled

from war_env.support.extras import install_hint


def require_pygame():
    """pygame, or ``DependencyNotInstalled`` telling how to install the ``render`` extra."""
    try:
        import pygame
    except ImportError as error:
        raise DependencyNotInstalled(
            f"pygame is not installed: the rgb_array and human render modes and war-play's window need "
            f"the `render` extra: {install_hint('render')}"
        ) from error
    return pygame
