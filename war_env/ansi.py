"""The text renderer: one frame of the table as a string."""

from __future__ import annotations

from war_env.cards import card_code
from war_env.clock import TimedRound
from war_env.scoreboard import Scoreboard

SEAT_NAMES = ("You", "Bot")


def render_ansi(timed: TimedRound, scoreboard: Scoreboard) -> str:
    if timed is None:
        return "(no round yet: call reset())\n"
    game = timed.game
    lines = [f"tick {timed.tick_count}  battle {game.battles}  pot {len(game.pot)}"]
    for seat in (0, 1):
        lines.append(_seat_line(timed, seat))
    lines.append(
        f"Rounds won  {SEAT_NAMES[0]}: {scoreboard.rounds_won[0]}  {SEAT_NAMES[1]}: {scoreboard.rounds_won[1]}"
        f"  draws: {scoreboard.draws}"
    )
    if game.result is not None:
        lines.extend(_result_box(game.result, scoreboard))
    return "\n".join(lines) + "\n"


def _seat_line(timed: TimedRound, seat: int) -> str:
    game = timed.game
    card = game.visible[seat]
    shown = f"[{card_code(card):>3}]" if card is not None else "[   ]"
    laid = " [##]" if game.drawn[seat] else ""
    bubble = "  (War!)" if game.at_war else ""
    left = timed.ticks_left(seat)
    timer = "#" * round(10 * left / timed.config.turn_ticks)
    timer_text = f"  timer |{timer:<10}| {left * timed.config.tick_seconds:.1f}s" if left else ""
    badge = "  [BOT]" if timed.taken_over[seat] else ""
    starter = "*" if game.starter == seat else " "
    return (
        f"{starter}{SEAT_NAMES[seat]:<4} pile {len(game.piles[seat]):>2}  points {game.points[seat]:>2}  "
        f"{shown}{laid}{bubble}{timer_text}{badge}"
    )


def _result_box(result, scoreboard: Scoreboard) -> list[str]:
    winner = "draw" if result.winner is None else f"{SEAT_NAMES[result.winner]} won"
    body = [
        f"Round {scoreboard.rounds}: {winner} ({result.reason})",
        f"Points {result.points[0]}-{result.points[1]}, battles {result.battles}, wars {result.wars}",
        f"Rounds so far: {SEAT_NAMES[0]} {scoreboard.rounds_won[0]}, {SEAT_NAMES[1]} {scoreboard.rounds_won[1]}, "
        f"draws {scoreboard.draws}",
    ]
    width = max(len(line) for line in body)
    return ["+" + "-" * (width + 2) + "+", *(f"| {line:<{width}} |" for line in body), "+" + "-" * (width + 2) + "+"]
