"""Playing in a pygame window (the render extra): clicks, taps and keys as commands, the pixel table."""

from __future__ import annotations

from war_env.play.session import AUTOPLAY, BUTTON_COMMANDS, NEW_ROUND, QUIT, TURN, PlaySession
from war_env.views.render.layout import HEIGHT, WIDTH, button_at


class PygameEvents:
    """Commands from the pygame event queue: clicks and taps on the buttons, and keys."""

    def __init__(self):
        import pygame

        self.pygame = pygame
        self.keys = {
            pygame.K_SPACE: TURN,
            pygame.K_RETURN: TURN,
            pygame.K_p: AUTOPLAY,
            pygame.K_n: NEW_ROUND,
            pygame.K_q: QUIT,
            pygame.K_ESCAPE: QUIT,
        }

    def poll(self) -> list[str]:
        pygame = self.pygame
        commands = []
        for event in pygame.event.get():
            point = None
            if event.type == pygame.QUIT:
                commands.append(QUIT)
            elif event.type == pygame.KEYDOWN and event.key in self.keys:
                commands.append(self.keys[event.key])
            elif event.type == pygame.MOUSEBUTTONDOWN and event.button == 1 and not getattr(event, "touch", False):
                point = event.pos  # (touches also arrive as FINGERDOWN: don't count them twice)
            elif event.type == pygame.FINGERDOWN:
                point = (event.x * WIDTH, event.y * HEIGHT)  # normalised to the window
            if point is not None:
                button = button_at(point)
                if button is not None:
                    commands.append(BUTTON_COMMANDS[button])
        return commands


class WindowView:
    """The pixel table in a pygame window, with the three buttons."""

    def __init__(self):
        from war_env.views.render.table import TablePainter
        from war_env.views.render.window import TableWindow

        self.painter = TablePainter()
        self.window = TableWindow("War - you against the bot")

    def show(self, session: PlaySession) -> None:
        self.window.show(self.painter.paint(session.scene(), session.controls(), session.notice()))

    def close(self) -> None:
        self.window.close()
