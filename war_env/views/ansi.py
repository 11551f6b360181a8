"""The text painter: one frame of the table (a ``war_env.views.scene.Scene``) as a string.

Marks: ``*`` before a name: that player draws first in every battle of the round; ``<won`` after a
face-up card: it took the last battle; ``[##]``: a card face down. The frame ends with a key that says so.
"""

from __future__ import annotations

from war_env.core.clock import TimedRound
from war_env.core.scoreboard import Scoreboard
from war_env.views.scene import SEAT_NAMES, Scene, SeatView, build_scene

TIMER_WIDTH = 10
KEY_LINE = "key: * draws first in every battle   <won took the last battle   [##] a card face down"


def render_ansi(timed: TimedRound | None, scoreboard: Scoreboard, names: tuple[str, str] = SEAT_NAMES) -> str:
    """The text frame of a round under its clock (what ``render_mode="ansi"`` returns)."""
    if timed is None:
        return "(no round yet: call reset())\n"
    return paint_ansi(build_scene(timed, scoreboard, names))


def paint_ansi(scene: Scene) -> str:
    lines = [f"tick {scene.tick}  battle {scene.battle}  pot {scene.pot}"]
    lines.extend(_seat_line(view) for view in scene.seats)
    if scene.trick_text:
        lines.append(scene.trick_text)
    if scene.takeover_note and scene.popup is None:  # the result box says it at the end
        lines.append(scene.takeover_note)
    lines.append(KEY_LINE)
    board = scene.scoreboard
    lines.append(
        f"Rounds won  {scene.names[0]}: {board.rounds_won[0]}  {scene.names[1]}: {board.rounds_won[1]}"
        f"  draws: {board.draws}"
    )
    if scene.popup is not None:
        lines.extend(_result_box(scene))
    return "\n".join(lines) + "\n"


def _seat_line(view: SeatView) -> str:
    shown = f"[{view.face_up:>3}]" if view.face_up is not None else "[   ]"
    won = " <won" if view.won_last_trick else ""
    under = f"+{view.backs_under}[##]" if view.backs_under else ""
    laid = " " + "[##]" * view.laid if view.laid else ""
    bubble = "  (War!)" if view.war_bubble else ""
    timer = "#" * round(TIMER_WIDTH * view.timer_share)
    timer_text = f"  timer |{timer:<{TIMER_WIDTH}}| {view.seconds_left:.1f}s" if view.turn else ""
    badge = "  [BOT]" if view.taken_over else ""
    false_starts = f"  false starts {view.false_starts}" if view.false_starts else ""
    starter = "*" if view.starter else " "
    return (
        f"{starter}{view.name:<4} pile {view.pile:>2}  points {view.points:>2}  "
        f"{shown}{under}{won}{laid}{bubble}{timer_text}{badge}{false_starts}"
    )


def _result_box(scene: Scene) -> list[str]:
    popup = scene.popup
    board = scene.scoreboard
    winner = "draw" if popup.winner is None else f"{scene.names[popup.winner]} won"
    body = [
        f"Round {popup.round_number}: {winner} ({popup.reason}): {popup.reason_text}",
        popup.details.replace(" · ", ", "),
    ]
    if popup.takeover_note:
        body.append(popup.takeover_note)
    if popup.earlier_rounds:
        body.append(f"  ... {popup.earlier_rounds} earlier rounds")
    for row in popup.rows:
        body.append(f"  {row.number:>3}. {row.winner_name:<5} {row.reason_text}")
    body.append(
        f"Rounds so far: {scene.names[0]} {board.rounds_won[0]}, {scene.names[1]} {board.rounds_won[1]}, "
        f"draws {board.draws}"
    )
    width = max(len(line) for line in body)
    return ["+" + "-" * (width + 2) + "+", *(f"| {line:<{width}} |" for line in body), "+" + "-" * (width + 2) + "+"]
