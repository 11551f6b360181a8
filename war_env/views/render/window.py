"""The window of ``render_mode="human"`` and of war-play: shows painted frames, nothing more."""

from __future__ import annotations

from war_env.views.render import layout as L
from war_env.views.render import require_pygame

pygame = require_pygame()


class TableWindow:
    """A fixed-size pygame window (clicks map 1:1 to ``layout`` pixels)."""

    def __init__(self, title: str = "War"):
        self.title = title
        self._clock = pygame.time.Clock()
        self._open()

    def _open(self):
        pygame.display.init()
        screen = pygame.display.set_mode((L.WIDTH, L.HEIGHT))
        pygame.display.set_caption(self.title)
        return screen

    def show(self, surface) -> None:
        # pygame has one display per process: another env's close() may have shut it, so look it up.
        screen = pygame.display.get_surface() if pygame.display.get_init() else None
        if screen is None or screen.get_size() != (L.WIDTH, L.HEIGHT):
            screen = self._open()
        screen.blit(surface, (0, 0))
        pygame.display.flip()

    def wait_frame(self, fps: float) -> None:
        """Keep the window responsive and hold the frame rate (the env's human mode)."""
        pygame.event.pump()
        self._clock.tick(fps)

    def close(self) -> None:
        pygame.display.quit()


class EnvScreen:
    """What the env's ``render()`` uses in the pixel modes: one painter, and a window in human mode."""

    def __init__(self, render_mode: str, fps: float, names: tuple[str, str] | None = None):
        from war_env.views.render.table import TablePainter

        if render_mode not in ("rgb_array", "human"):
            raise ValueError(f"EnvScreen paints the rgb_array and human modes, not {render_mode!r}")
        self.render_mode = render_mode
        self.fps = fps
        self.names = names  # None: the scene's default seat names
        self.painter = TablePainter()
        self.window = TableWindow("War-v0") if render_mode == "human" else None

    def render(self, timed, scoreboard):
        """The frame as an array (rgb_array), or ``None`` after showing it (human)."""
        from war_env.views.scene import build_scene

        scene = build_scene(timed, scoreboard) if self.names is None else build_scene(timed, scoreboard, self.names)
        if self.window is None:
            return self.painter.frame(scene)
        self.window.show(self.painter.paint(scene))
        self.window.wait_frame(self.fps)
        return None

    def close(self) -> None:
        if self.window is not None:
            self.window.close()
            self.window = None
