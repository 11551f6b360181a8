"""The pixel painter: a ``Scene`` becomes a pygame ``Surface`` (and an ``H x W x 3`` uint8 frame).

It decides nothing about what is visible (``war_env.views.scene`` did); it only places the scene's
elements where ``layout`` says. Frames are deterministic: no clock, no randomness, and pygame's
default font, so the same scene gives the same pixels.
Cards are drawn at 3x and scaled down once (cached), which gives them smooth corners and suits.
"""

from __future__ import annotations

import math

import numpy as np

from war_env.views.render import layout as L
from war_env.views.render import require_pygame
from war_env.views.scene import Popup, Scene, SeatView

pygame = require_pygame()

SUPERSAMPLE = 3

BACKGROUND = (9, 34, 20)
FELT_CENTER = (40, 128, 72)
FELT_EDGE = (15, 72, 40)
RIM = (94, 60, 32)
PRINT_LINE = (200, 178, 110)
TEXT = (240, 244, 238)
TEXT_DIM = (188, 214, 196)
GOLD = (250, 204, 21)
RED_SUIT = (200, 32, 48)
BLACK_SUIT = (28, 28, 34)
CARD_PAPER = (252, 251, 246)
CARD_EDGE = (160, 160, 150)
BACK_BLUE = (28, 58, 136)
BACK_LIGHT = (58, 98, 190)
SEAT_COLORS = ((40, 132, 196), (156, 72, 164))
BOT_BADGE = (222, 72, 48)
IN_FLIGHT = GOLD
"""A press in flight (action latency)."""
RING_TRACK = (0, 0, 0, 90)
PANEL = (0, 0, 0, 96)
BAR_COLOR = (12, 38, 24)
BUTTON_PRIMARY = (250, 204, 21)
BUTTON_NORMAL = (232, 234, 226)
BUTTON_DISABLED = (58, 78, 66)
POPUP_PAPER = (250, 248, 240)
OUTCOME_COLORS = {0: (30, 138, 82), 1: (186, 52, 52), None: (86, 98, 110)}


class TablePainter:
    """Paints scenes. Keep one per window or recorder: it caches the felt and the 53 card images."""

    def __init__(self):
        pygame.font.init()
        self._fonts: dict[int, pygame.font.Font] = {}
        self._faces: dict[str, pygame.Surface] = {}
        self._back = _card_back()
        self._shadow = _card_shadow()
        self._felt = _felt_background()

    # --- public ------------------------------------------------------------------------------
    def paint(
        self, scene: Scene, controls: tuple[L.Control, ...] | None = None, notice: str | None = None
    ) -> pygame.Surface:
        """The frame of ``scene``; ``controls`` are the buttons of the play bar (``None``: the bar
        shows a status line, as when watching an agent); ``notice`` is a line for the person at the
        table (``PlaySession.notice``: "Press Space ...", "False start! ..."), drawn over the felt."""
        surface = self._felt.copy()
        self._draw_info_panels(surface, scene)
        for view in scene.seats:
            self._draw_seat(surface, view, scene)
        self._draw_middle(surface, scene, notice)
        self._draw_bar(surface, scene, controls)
        if scene.popup is not None:
            self._draw_popup(surface, scene, scene.popup)
        return surface

    def frame(
        self, scene: Scene, controls: tuple[L.Control, ...] | None = None, notice: str | None = None
    ) -> np.ndarray:
        """``uint8`` array of shape ``(HEIGHT, WIDTH, 3)``, as ``render_mode="rgb_array"`` returns."""
        return surface_to_array(self.paint(scene, controls, notice))

    # --- seats -------------------------------------------------------------------------------
    def _draw_seat(self, surface, view: SeatView, scene: Scene) -> None:
        self._draw_avatar(surface, view)
        self._draw_pile(surface, view)
        self._draw_play_spot(surface, view)
        if view.war_bubble:
            self._draw_bubble(surface, view.seat)

    def _draw_avatar(self, surface, view: SeatView) -> None:
        cx, cy = L.avatar_center(view.seat)
        ring = _ring(view.timer_share if view.turn else 0.0)
        surface.blit(ring, ring.get_rect(center=(cx, cy)))
        color = (120, 128, 124) if view.taken_over else SEAT_COLORS[view.seat]
        pygame.draw.circle(surface, color, (cx, cy), L.AVATAR_RADIUS)
        pygame.draw.circle(surface, (255, 255, 255), (cx, cy), L.AVATAR_RADIUS, 2)
        self._text(surface, view.name[:1].upper(), 46, TEXT, center=(cx, cy + 2))
        if view.taken_over:
            badge = pygame.Rect(0, 0, 52, 24)
            badge.center = (cx + 34, cy - 38)
            pygame.draw.rect(surface, BOT_BADGE, badge, border_radius=12)
            pygame.draw.rect(surface, (255, 255, 255), badge, 2, border_radius=12)
            self._text(surface, "BOT", 20, (255, 255, 255), center=badge.center)
        base = cy + L.RING_RADIUS + 14
        self._text(surface, view.name, 26, TEXT, center=(cx, base))
        score = f"{view.points} {'pt' if view.points == 1 else 'pts'}"
        if view.false_starts:
            score += f" · {view.false_starts} false start{'' if view.false_starts == 1 else 's'}"
        self._text(surface, score, 20, TEXT_DIM, center=(cx, base + 22))
        if view.turn:
            label = "YOUR TURN" if view.name == "You" else f"{view.name.upper()}'S TURN"
            pill = pygame.Rect(0, 0, 150, 24)
            pill.center = (cx + 20, base + 48)
            pygame.draw.rect(surface, _timer_color(view.timer_share), pill, border_radius=12)
            self._text(surface, f"{label}  {view.seconds_left:.1f}s", 19, (20, 24, 20), center=pill.center)
        if view.starter:
            self._text(surface, "draws first", 17, TEXT_DIM, center=(cx, cy - L.RING_RADIUS - 10))
        self._draw_in_flight(surface, view)

    def _draw_in_flight(self, surface, view: SeatView) -> None:
        """The seat's presses in flight (action latency): one small ring per age, filled while a press flies."""
        for age, flying in enumerate(view.in_flight):
            center = L.in_flight_mark(view.seat, age, len(view.in_flight))
            if flying:
                pygame.draw.circle(surface, IN_FLIGHT, center, L.IN_FLIGHT_RADIUS)
            pygame.draw.circle(surface, TEXT_DIM, center, L.IN_FLIGHT_RADIUS, 1)

    def _draw_pile(self, surface, view: SeatView) -> None:
        x, y, w, h = L.pile_rect(view.seat)
        if view.pile == 0:
            _slot(surface, (x, y, w, h))
        else:
            layers = min(1 + (view.pile - 1) // 6, 6)
            for layer in range(layers):
                self._blit_card(surface, self._back, (x - layer, y - 2 * layer), shadow=layer == 0)
        badge = pygame.Rect(0, 0, 84, 24)
        badge.midtop = (x + w // 2, y + h + 8)
        pygame.draw.rect(surface, (0, 0, 0), badge, border_radius=12)
        self._text(surface, f"{view.pile} cards", 20, TEXT, center=badge.center)

    def _draw_play_spot(self, surface, view: SeatView) -> None:
        x, y, w, h = L.face_up_rect(view.seat)
        if view.face_up is None:
            _slot(surface, (x, y, w, h))
        else:
            for index in range(view.backs_under, 0, -1):
                self._blit_card(surface, self._back, (x - L.UNDER_STEP * index, y))
            self._blit_card(surface, self._face(view.face_up), (x, y))
            if view.won_last_trick:
                pygame.draw.rect(surface, GOLD, (x - 4, y - 4, w + 8, h + 8), 4, border_radius=12)
        for index in range(view.laid):
            lx, ly, _, _ = L.laid_rect(view.seat, index)
            self._blit_card(surface, self._back, (lx, ly))

    def _draw_bubble(self, surface, seat: int) -> None:
        bx, by, bw, bh = L.bubble_rect(seat)
        outline = (40, 40, 40)
        pygame.draw.rect(surface, (255, 255, 255), (bx, by, bw, bh), border_radius=24)
        pygame.draw.rect(surface, outline, (bx, by, bw, bh), 2, border_radius=24)
        base_left, base_right, tip = (bx + 22, by + bh - 2), (bx + 48, by + bh - 2), (bx - 6, by + bh + 22)
        pygame.draw.polygon(surface, (255, 255, 255), [base_left, base_right, tip])
        pygame.draw.line(surface, outline, base_left, tip, 2)
        pygame.draw.line(surface, outline, base_right, tip, 2)
        self._text(surface, "War!", 44, RED_SUIT, center=(bx + bw // 2, by + bh // 2 + 2))

    # --- panels ------------------------------------------------------------------------------
    def _draw_info_panels(self, surface, scene: Scene) -> None:
        board = scene.scoreboard
        x, y, w, h = L.SCOREBOARD
        _panel(surface, L.SCOREBOARD)
        self._text(surface, "SCOREBOARD", 20, GOLD, topleft=(x + 14, y + 12))
        rows = (
            (scene.names[0], board.rounds_won[0], SEAT_COLORS[0]),
            (scene.names[1], board.rounds_won[1], SEAT_COLORS[1]),
            ("Draws", board.draws, (150, 160, 156)),
        )
        for index, (name, count, color) in enumerate(rows):
            top = y + 40 + 30 * index
            pygame.draw.circle(surface, color, (x + 22, top + 11), 7)
            self._text(surface, name, 24, TEXT, topleft=(x + 36, top))
            self._text(surface, str(count), 28, TEXT, topright=(x + w - 16, top - 2))
        last = board.last_winner_name
        last_text = (
            "No round finished yet"
            if last is None
            else ("Last round: draw" if last == "Draw" else f"Last winner: {last}")
        )
        self._text(surface, last_text, 18, TEXT_DIM, topleft=(x + 14, y + h - 30))

        x, y, w, h = L.ROUND_PANEL
        _panel(surface, L.ROUND_PANEL)
        self._text(surface, f"ROUND {scene.round_number}", 20, GOLD, topleft=(x + 14, y + 12))
        limit = f" / {scene.max_battles}" if scene.max_battles is not None else ""
        self._text(surface, f"Battle {scene.battle}{limit}", 22, TEXT, topleft=(x + 14, y + 38))
        goal = f"First to {scene.target_points} points" if scene.target_points is not None else "Take all the cards"
        self._text(surface, goal, 18, TEXT_DIM, topleft=(x + 14, y + 64))
        self._text(surface, f"Wars {scene.wars} · pot {scene.pot}", 18, TEXT_DIM, topleft=(x + 14, y + 86))
        self._draw_key(surface)

    def _draw_key(self, surface) -> None:
        """What the marks on the table mean."""
        x, y, w, h = L.KEY_PANEL
        _panel(surface, L.KEY_PANEL)
        self._text(surface, "KEY", 20, GOLD, topleft=(x + 14, y + 12))
        pygame.draw.rect(surface, GOLD, (x + 16, y + 38, 18, 24), 3, border_radius=4)
        self._text(surface, "took the last battle", 18, TEXT_DIM, midleft=(x + 44, y + 50))
        self._text(surface, "draws first: lays first", 18, TEXT_DIM, topleft=(x + 14, y + 70))
        self._text(surface, "in every battle", 18, TEXT_DIM, topleft=(x + 14, y + 86))
        badge = pygame.Rect(x + 14, y + 106, 34, 16)
        pygame.draw.rect(surface, BOT_BADGE, badge, border_radius=8)
        self._text(surface, "BOT", 14, (255, 255, 255), center=badge.center)
        self._text(surface, "computer plays", 18, TEXT_DIM, midleft=(x + 56, badge.centery))

    def _draw_middle(self, surface, scene: Scene, notice: str | None) -> None:
        """Between the rows: who won the last battle (or the tie), the war's stake, the takeover, and
        the notice for the person at the table in a dark box."""
        lines = []
        if scene.trick_text:
            lines.append((scene.trick_text, 26, GOLD if scene.at_war else TEXT))
        if scene.at_war:
            lines.append((f"The next face-up cards take all {scene.pot}", 22, GOLD))
        if scene.takeover_note and scene.popup is None:
            lines.append((scene.takeover_note, 22, (255, 170, 130)))
        y = L.MIDDLE_Y
        for text, size, color in lines:
            self._text(surface, text, size, color, center=(L.MIDDLE_X, y))
            y += size + 2
        if notice and scene.popup is None:
            wrapped = _wrap(self._font(24), notice, L.NOTICE_WIDTH)
            box = pygame.Rect(0, 0, max(self._font(24).size(line)[0] for line in wrapped) + 36, 26 * len(wrapped) + 18)
            box.midtop = (L.MIDDLE_X, y - 8)
            _panel(surface, tuple(box), alpha=200)
            for index, line in enumerate(wrapped):
                self._text(surface, line, 24, (255, 236, 160), center=(box.centerx, box.top + 22 + 26 * index))

    def _draw_bar(self, surface, scene: Scene, controls) -> None:
        pygame.draw.rect(surface, BAR_COLOR, L.BAR)
        pygame.draw.line(surface, (40, 90, 60), (0, L.BAR[1]), (L.WIDTH, L.BAR[1]), 2)
        if controls is None:
            status = f"{scene.names[0]} vs {scene.names[1]} · tick {scene.tick} · battle {scene.battle}"
            self._text(surface, status, 24, TEXT_DIM, center=(L.WIDTH // 2, L.BAR[1] + L.BAR[3] // 2))
            return
        self._text(surface, f"{scene.names[0]} vs {scene.names[1]}", 22, TEXT, topleft=(20, L.BUTTON_Y + 6))
        self._text(surface, f"tick {scene.tick}", 18, TEXT_DIM, topleft=(20, L.BUTTON_Y + 30))
        for index, (control, rect) in enumerate(zip(controls, L.BUTTONS)):
            if not control.enabled:
                fill, ink, hint_ink = BUTTON_DISABLED, (140, 156, 146), (120, 136, 126)
            else:
                fill = BUTTON_PRIMARY if index == 0 else BUTTON_NORMAL
                ink, hint_ink = (24, 28, 24), (80, 86, 80)
            x, y, w, h = rect
            if control.enabled:
                pygame.draw.rect(surface, (0, 0, 0), (x + 2, y + 4, w, h), border_radius=12)
            pygame.draw.rect(surface, fill, rect, border_radius=12)
            self._text(surface, control.label, 27, ink, center=(x + w // 2, y + 19))
            self._text(surface, control.key_hint, 17, hint_ink, center=(x + w // 2, y + 40))

    def _draw_popup(self, surface, scene: Scene, popup: Popup) -> None:
        shade = pygame.Surface((L.WIDTH, L.BAR[1]), pygame.SRCALPHA)
        shade.fill((0, 0, 0, 150))
        surface.blit(shade, (0, 0))
        x, y, w, h = L.popup_rect(len(popup.rows) + (1 if popup.earlier_rounds else 0))
        shadow = pygame.Surface((w, h), pygame.SRCALPHA)
        pygame.draw.rect(shadow, (0, 0, 0, 110), (0, 0, w, h), border_radius=20)
        surface.blit(shadow, (x + 6, y + 10))
        pygame.draw.rect(surface, POPUP_PAPER, (x, y, w, h), border_radius=20)
        pygame.draw.rect(
            surface, OUTCOME_COLORS[popup.winner], (x, y, w, 74), border_top_left_radius=20, border_top_right_radius=20
        )
        self._text(surface, popup.headline, 42, (255, 255, 255), center=(x + w // 2, y + 38))
        ink, dim = (30, 34, 32), (96, 104, 100)
        self._text(surface, popup.reason_text, 30, ink, center=(x + w // 2, y + 100))
        self._text(surface, popup.details, 22, dim, center=(x + w // 2, y + 128))
        if popup.takeover_note:
            self._text(surface, popup.takeover_note, 22, (200, 90, 20), center=(x + w // 2, y + 152))
        top = y + 176
        self._text(surface, "Results so far", 24, ink, topleft=(x + 28, top))
        columns = (x + 28, x + 78, x + 190, x + w - 28)
        header = top + 28
        for text, column in zip(("#", "Winner", "How it ended"), columns):
            self._text(surface, text, 18, dim, topleft=(column, header))
        self._text(surface, "Points", 18, dim, topright=(columns[3], header))
        pygame.draw.line(surface, (210, 206, 196), (x + 24, header + 20), (x + w - 24, header + 20), 1)
        row_top = header + 26
        if popup.earlier_rounds:
            self._text(surface, f"... {popup.earlier_rounds} earlier rounds", 18, dim, topleft=(columns[1], row_top))
            row_top += 24
        for index, row in enumerate(popup.rows):
            top_of_row = row_top + 24 * index
            if index == len(popup.rows) - 1:
                pygame.draw.rect(surface, (253, 236, 160), (x + 20, top_of_row - 3, w - 40, 24), border_radius=6)
            color = OUTCOME_COLORS[row.winner]
            self._text(surface, str(row.number), 20, ink, topleft=(columns[0], top_of_row))
            self._text(surface, row.winner_name, 20, color, topleft=(columns[1], top_of_row))
            self._text(surface, row.reason_text, 20, ink, topleft=(columns[2], top_of_row))
            self._text(surface, f"{row.points[0]}-{row.points[1]}", 20, ink, topright=(columns[3], top_of_row))
        board = scene.scoreboard
        totals = (
            f"{scene.names[0]} {board.rounds_won[0]}  ·  {scene.names[1]} {board.rounds_won[1]}  ·  Draws {board.draws}"
        )
        pygame.draw.line(surface, (210, 206, 196), (x + 24, y + h - 52), (x + w - 24, y + h - 52), 1)
        self._text(surface, totals, 28, ink, center=(x + w // 2, y + h - 27))

    # --- helpers -----------------------------------------------------------------------------
    def _font(self, size: int):
        font = self._fonts.get(size)
        if font is None:
            font = self._fonts[size] = pygame.font.Font(None, size)
        return font

    def _text(self, surface, text: str, size: int, color, **anchor) -> None:
        image = self._font(size).render(text, True, color)
        surface.blit(image, image.get_rect(**anchor))

    def _face(self, code: str):
        face = self._faces.get(code)
        if face is None:
            face = self._faces[code] = _card_face(code, self._font)
        return face

    def _blit_card(self, surface, image, topleft, shadow: bool = True) -> None:
        if shadow:
            surface.blit(self._shadow, (topleft[0] + 2, topleft[1] + 4))
        surface.blit(image, topleft)


def surface_to_array(surface) -> np.ndarray:
    """``(height, width, 3)`` uint8 copy of a surface's pixels."""
    width, height = surface.get_size()
    # tobytes gives rows top to bottom, already in (height, width, 3) order: far faster than surfarray.
    return np.frombuffer(pygame.image.tobytes(surface, "RGB"), dtype=np.uint8).reshape(height, width, 3).copy()


# --- pictures drawn once -------------------------------------------------------------------------
def _felt_background():
    """Dark frame, a wooden rim and a green felt lit from the middle."""
    ys, xs = np.mgrid[0 : L.HEIGHT, 0 : L.WIDTH].astype(np.float64) + 0.5
    x0, y0, w, h = L.TABLE
    radius = 30.0
    nearest_x = np.clip(xs, x0 + radius, x0 + w - radius)
    nearest_y = np.clip(ys, y0 + radius, y0 + h - radius)
    outside = np.hypot(xs - nearest_x, ys - nearest_y) - radius  # > 0 outside the felt
    cx, cy = x0 + w * 0.42, y0 + h * 0.5
    light = np.clip(np.hypot((xs - cx) / (w * 0.62), (ys - cy) / (h * 0.62)), 0.0, 1.0) ** 1.6
    felt = (1 - light)[..., None] * np.array(FELT_CENTER) + light[..., None] * np.array(FELT_EDGE)
    felt_share = np.clip(0.5 - outside, 0.0, 1.0)[..., None]
    rim_share = np.clip(9.5 - outside, 0.0, 1.0)[..., None] - felt_share
    rim_shade = np.clip(1.0 - outside / 14.0, 0.6, 1.0)[..., None]
    pixels = felt_share * felt + rim_share * np.array(RIM) * rim_shade
    pixels += (1.0 - felt_share - rim_share) * np.array(BACKGROUND)
    surface = pygame.surfarray.make_surface(np.clip(pixels, 0, 255).astype(np.uint8).transpose(1, 0, 2))
    inner = pygame.Rect(L.TABLE).inflate(-26, -26)
    pygame.draw.rect(surface, _mix(FELT_CENTER, PRINT_LINE, 0.35), inner, 2, border_radius=22)
    return surface


def _card_face(code: str, font_of):
    """A card face with the rank and suit in two corners and a large suit (or a court letter)."""
    rank, suit = code[:-1], code[-1]
    k = SUPERSAMPLE
    big = pygame.Surface((L.CARD_W * k, L.CARD_H * k), pygame.SRCALPHA)
    pygame.draw.rect(big, CARD_PAPER, big.get_rect(), border_radius=9 * k)
    pygame.draw.rect(big, CARD_EDGE, big.get_rect(), 1 * k + 1, border_radius=9 * k)
    ink = RED_SUIT if suit in "HD" else BLACK_SUIT
    corner = pygame.Surface((30 * k, 50 * k), pygame.SRCALPHA)
    label = font_of(30 * k).render(rank, True, ink)
    corner.blit(label, label.get_rect(midtop=(15 * k, 2 * k)))
    _suit(corner, suit, (15 * k - 7 * k, 27 * k, 14 * k), ink)
    big.blit(corner, (2 * k, 4 * k))
    big.blit(pygame.transform.rotate(corner, 180), (L.CARD_W * k - 32 * k, L.CARD_H * k - 54 * k))
    middle_x, middle_y = L.CARD_W * k // 2, L.CARD_H * k // 2
    if rank in ("J", "Q", "K"):
        frame = pygame.Rect(0, 0, 46 * k, 78 * k)
        frame.center = (middle_x, middle_y)
        pygame.draw.rect(big, (250, 238, 196), frame, border_radius=6 * k)
        pygame.draw.rect(big, ink, frame, k, border_radius=6 * k)
        letter = font_of(50 * k).render(rank, True, ink)
        big.blit(letter, letter.get_rect(center=(middle_x, middle_y - 12 * k)))
        _suit(big, suit, (middle_x - 9 * k, middle_y + 12 * k, 18 * k), ink)
    else:
        size = (56 if rank == "A" else 40) * k
        _suit(big, suit, (middle_x - size // 2, middle_y - size // 2, size), ink)
    return pygame.transform.smoothscale(big, (L.CARD_W, L.CARD_H))


def _card_back():
    k = SUPERSAMPLE
    big = pygame.Surface((L.CARD_W * k, L.CARD_H * k), pygame.SRCALPHA)
    pygame.draw.rect(big, (255, 255, 255), big.get_rect(), border_radius=9 * k)
    pygame.draw.rect(big, CARD_EDGE, big.get_rect(), k + 1, border_radius=9 * k)
    inner = big.get_rect().inflate(-12 * k, -12 * k)
    pattern = pygame.Surface(inner.size, pygame.SRCALPHA)
    pygame.draw.rect(pattern, BACK_BLUE, pattern.get_rect(), border_radius=5 * k)
    step = 10 * k
    for offset in range(-inner.height, inner.width + inner.height, step):
        pygame.draw.line(pattern, BACK_LIGHT, (offset, 0), (offset + inner.height, inner.height), k)
        pygame.draw.line(pattern, BACK_LIGHT, (offset, inner.height), (offset + inner.height, 0), k)
    mask = pygame.Surface(inner.size, pygame.SRCALPHA)
    pygame.draw.rect(mask, (255, 255, 255, 255), mask.get_rect(), border_radius=5 * k)
    pattern.blit(mask, (0, 0), special_flags=pygame.BLEND_RGBA_MIN)
    big.blit(pattern, inner.topleft)
    emblem = pygame.Rect(0, 0, 40 * k, 40 * k)
    emblem.center = big.get_rect().center
    pygame.draw.ellipse(big, BACK_BLUE, emblem)
    pygame.draw.ellipse(big, (255, 255, 255), emblem, 2 * k)
    _suit(big, "S", (emblem.centerx - 10 * k, emblem.centery - 10 * k, 20 * k), (255, 255, 255))
    return pygame.transform.smoothscale(big, (L.CARD_W, L.CARD_H))


def _card_shadow():
    k = SUPERSAMPLE
    big = pygame.Surface(((L.CARD_W + 4) * k, (L.CARD_H + 4) * k), pygame.SRCALPHA)
    for grow, alpha in ((0, 28), (2, 24), (4, 20)):
        rect = big.get_rect().inflate(-grow * k, -grow * k)
        pygame.draw.rect(big, (0, 0, 0, alpha), rect, border_radius=11 * k)
    return pygame.transform.smoothscale(big, (L.CARD_W + 4, L.CARD_H + 4))


def _suit(surface, suit: str, box: tuple[int, int, int], color) -> None:
    """Draw the suit symbol into the square ``box = (left, top, size)`` from circles and polygons."""
    left, top, size = box

    def at(u: float, v: float) -> tuple[float, float]:
        return (left + u * size, top + v * size)

    def circle(u: float, v: float, r: float) -> None:
        pygame.draw.circle(surface, color, at(u, v), r * size)

    if suit == "D":
        pygame.draw.polygon(surface, color, [at(0.5, 0.0), at(0.88, 0.5), at(0.5, 1.0), at(0.12, 0.5)])
    elif suit == "H":
        circle(0.29, 0.33, 0.25)
        circle(0.71, 0.33, 0.25)
        pygame.draw.polygon(surface, color, [at(0.05, 0.42), at(0.95, 0.42), at(0.5, 0.96)])
    elif suit == "S":
        circle(0.29, 0.58, 0.23)
        circle(0.71, 0.58, 0.23)
        pygame.draw.polygon(surface, color, [at(0.07, 0.52), at(0.93, 0.52), at(0.5, 0.02)])
        pygame.draw.polygon(surface, color, [at(0.5, 0.6), at(0.3, 1.0), at(0.7, 1.0)])
    elif suit == "C":
        circle(0.5, 0.27, 0.21)
        circle(0.26, 0.6, 0.21)
        circle(0.74, 0.6, 0.21)
        circle(0.5, 0.52, 0.14)
        pygame.draw.polygon(surface, color, [at(0.5, 0.5), at(0.3, 1.0), at(0.7, 1.0)])
    else:
        raise ValueError(f"unknown suit {suit!r}: expected one of C, D, H, S")


def _ring(share: float):
    """The turn timer: a ring that empties clockwise from the top (green, then amber, then red)."""
    k = SUPERSAMPLE
    outer = L.RING_RADIUS * k
    inner = (L.RING_RADIUS - L.RING_WIDTH) * k
    size = 2 * outer + 4 * k
    big = pygame.Surface((size, size), pygame.SRCALPHA)
    center = (size / 2, size / 2)
    pygame.draw.circle(big, RING_TRACK, center, outer, outer - inner)
    if share > 0:
        steps = max(2, int(90 * share))
        angles = [-math.pi / 2 + 2 * math.pi * share * i / steps for i in range(steps + 1)]
        points = [(center[0] + outer * math.cos(a), center[1] + outer * math.sin(a)) for a in angles]
        points += [(center[0] + inner * math.cos(a), center[1] + inner * math.sin(a)) for a in reversed(angles)]
        pygame.draw.polygon(big, _timer_color(share), points)
    return pygame.transform.smoothscale(big, (size // k, size // k))


def _timer_color(share: float):
    if share > 0.5:
        return (74, 222, 128)
    if share > 0.25:
        return (251, 191, 36)
    return (239, 68, 68)


def _slot(surface, rect) -> None:
    """An empty place on the felt: a faint outline."""
    overlay = pygame.Surface(rect[2:], pygame.SRCALPHA)
    pygame.draw.rect(overlay, (255, 255, 255, 46), overlay.get_rect(), 2, border_radius=9)
    surface.blit(overlay, rect[:2])


def _panel(surface, rect, alpha: int = PANEL[3]) -> None:
    overlay = pygame.Surface(rect[2:], pygame.SRCALPHA)
    pygame.draw.rect(overlay, (*PANEL[:3], alpha), overlay.get_rect(), border_radius=14)
    surface.blit(overlay, rect[:2])


def _wrap(font, text: str, width: int) -> list[str]:
    """``text`` in lines no wider than ``width`` pixels (words are never split)."""
    lines: list[str] = []
    for word in text.split():
        if lines and font.size(f"{lines[-1]} {word}")[0] <= width:
            lines[-1] += f" {word}"
        else:
            lines.append(word)
    return lines


def _mix(a, b, share: float):
    return tuple(round(x + (y - x) * share) for x, y in zip(a, b))
