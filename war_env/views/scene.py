"""What is on the table, derived once from the game state; every renderer only paints a ``Scene``.

A ``Scene`` is what a person at the table can see and nothing more: both piles face down with
their counts, at most one face-up card per seat (the last revealed one), cards laid but not yet
revealed as card backs, the face-down war cards under the face-up card, a "War!" bubble per seat
while a war is on, each seat's turn timer, a BOT badge on a seat the takeover bot plays, each seat's
false starts, a line that says who won the last battle (and with which card), the scoreboard, and
at the end of a round the result popup with the results of the rounds so far.
The order of the cards in the piles and the rank of a card laid face down never reach it.

The painters (``war_env.views.ansi``, ``war_env.views.render``) make no decision of their own about what is
visible, so the tests of this module are the tests of what a person sees.
"""

from __future__ import annotations

from dataclasses import dataclass

from war_env.core.cards import RANK_NAMES, card_code, rank_of
from war_env.core.clock import TimedRound
from war_env.core.round_info import ALL_CARDS, BATTLE_LIMIT, POINTS, WAR_SHORTAGE, RoundResult
from war_env.core.scoreboard import Scoreboard

SEAT_NAMES = ("You", "Bot")
"""Default seat names: seat 0 is the agent (or the person playing), seat 1 the opponent."""

POPUP_ROWS = 8
"""The popup lists at most this many rounds (the latest ones); older ones are summed up."""


@dataclass(frozen=True)
class SeatView:
    """One seat as the table shows it."""

    seat: int
    name: str
    pile: int
    """Cards in the face-down pile (always shown)."""
    points: int
    face_up: str | None
    """Code of the last revealed card of the seat (e.g. ``"10H"``), the only face-up card; ``None``
    before the first reveal."""
    backs_under: int
    """Face-down war cards lying under the face-up card."""
    laid: int
    """Cards laid in the current step and not yet revealed, shown as card backs on top: 1 in a
    battle, ``war_face_down + 1`` in a war step, 0 before the seat has drawn."""
    war_bubble: bool
    """A "War!" speech bubble next to the seat (while a war is on)."""
    turn: bool
    """The seat's turn is open: its timer runs."""
    ticks_left: int
    timer_share: float
    """Share of the turn timer left, 1.0 when the turn has just opened, 0.0 when no turn is open."""
    seconds_left: float
    taken_over: bool
    """The takeover bot plays the seat (its timer ran out): the BOT badge."""
    starter: bool
    """The seat draws first in every step of this round."""
    won_last_trick: bool
    """The seat's face-up card won the trick that was revealed last (the painters frame it in gold)."""
    false_starts: int
    """Draws the seat pressed this round while its turn was not open (nothing moves; they are counted)."""
    in_flight: tuple[bool, ...] = ()
    """With action latency: for each age a = 0 .. max_delay - 1, whether the seat's press sent a ticks ago
    is still in flight (the painters draw the slots as small marks, filled while a press flies); ``()``
    without latency and for a seat a bot plays."""


@dataclass(frozen=True)
class ResultRow:
    """One finished round in the popup's list."""

    number: int
    winner: int | None
    winner_name: str
    """The winner's name, or ``"Draw"``."""
    reason_text: str
    points: tuple[int, int]
    battles: int


@dataclass(frozen=True)
class Popup:
    """The result popup at the end of a round."""

    round_number: int
    headline: str
    """E.g. ``"You win round 3!"``, ``"Bot wins round 3"``, ``"Round 3 is a draw"``."""
    winner: int | None
    reason: str
    """The engine's reason code (``"all_cards"``, ``"points"``, ``"battle_limit"``, ``"war_shortage"``)."""
    reason_text: str
    """The reason in words, e.g. ``"Bot has no cards left"``."""
    details: str
    """Points, battles and wars of the round, in words."""
    takeover_note: str | None
    """Whose timer ran out, so that the computer played their cards, if anyone's."""
    rows: tuple[ResultRow, ...]
    """The latest rounds (at most ``POPUP_ROWS``), oldest first; the last row is this round."""
    earlier_rounds: int
    """Rounds played before the first row listed."""


@dataclass(frozen=True)
class ScoreView:
    rounds_won: tuple[int, int]
    draws: int
    rounds: int
    last_winner: int | None
    """Winner of the last finished round (``None``: a draw or no round finished yet)."""
    last_winner_name: str | None
    """The last finished round's winner by name, ``"Draw"``, or ``None`` before the first round ends."""


@dataclass(frozen=True)
class Scene:
    """The whole table at one moment."""

    seats: tuple[SeatView, SeatView]
    names: tuple[str, str]
    tick: int
    battle: int
    """Battles begun so far in the round (the current one included)."""
    pot: int
    """Cards on the table in the current trick."""
    at_war: bool
    wars: int
    trick_text: str | None
    """What the last reveal did, in words: ``"You win the battle: K beats 7"``, ``"Bot wins the war: A
    beats 9"``, ``"Both laid a 9: War!"``; ``None`` before the first reveal."""
    takeover_note: str | None
    """Whose seat the takeover bot plays (their timer ran out), in words; ``None`` when nobody's."""
    turn: int | None
    """The seat whose timer runs, or ``None`` (between turns, or the round is over)."""
    round_number: int
    """The number of the round on the table (finished rounds, plus one while it runs)."""
    target_points: int | None
    max_battles: int | None
    scoreboard: ScoreView
    popup: Popup | None
    """The result popup, present exactly when the round is over."""

    @property
    def over(self) -> bool:
        return self.popup is not None


def build_scene(timed: TimedRound, scoreboard: Scoreboard, names: tuple[str, str] = SEAT_NAMES) -> Scene:
    """The scene of ``timed`` (a round under its clock) and the match's ``scoreboard``.

    At the end of a round the scoreboard is expected to hold the round already (the env records it
    on the last step), so the popup's last row is this round."""
    if timed is None:
        raise ValueError("no round on the table yet: call reset() before rendering")
    names = _check_names(names)
    game = timed.game
    seats = (_seat_view(timed, 0, names), _seat_view(timed, 1, names))
    turn = next((view.seat for view in seats if view.turn), None)
    popup = _popup(timed, scoreboard, names) if game.result is not None else None
    return Scene(
        seats=seats,
        names=names,
        tick=timed.tick_count,
        battle=game.battles,
        pot=len(game.pot),
        at_war=game.at_war,
        wars=game.wars,
        trick_text=trick_text(game.visible, game.under_visible, names),
        takeover_note=_takeover_note(timed, names, over=game.result is not None),
        turn=turn,
        round_number=popup.round_number if popup is not None else scoreboard.rounds + 1,
        target_points=timed.config.target_points,
        max_battles=timed.config.max_battles,
        scoreboard=_score_view(scoreboard, names),
        popup=popup,
    )


def _seat_view(timed: TimedRound, seat: int, names: tuple[str, str]) -> SeatView:
    game = timed.game
    config = timed.config
    ticks_left = timed.ticks_left(seat)
    visible = game.visible[seat]
    laid = 0
    if game.drawn[seat]:
        laid = 1 + (config.war_face_down if game.at_war else 0)
    return SeatView(
        seat=seat,
        name=names[seat],
        pile=len(game.piles[seat]),
        points=game.points[seat],
        face_up=card_code(visible) if visible is not None else None,
        backs_under=game.under_visible[seat] if visible is not None else 0,
        laid=laid,
        war_bubble=game.at_war,
        turn=ticks_left > 0,
        ticks_left=ticks_left,
        timer_share=ticks_left / config.turn_ticks,
        seconds_left=ticks_left * config.tick_seconds,
        taken_over=timed.taken_over[seat],
        starter=game.starter == seat,
        won_last_trick=_won_last_trick(game.visible, seat),
        false_starts=timed.false_starts[seat],
        in_flight=_in_flight(timed, seat),
    )


def _in_flight(timed: TimedRound, seat: int) -> tuple[bool, ...]:
    if timed.bot_controlled(seat):  # bots, and the takeover bot, press without latency
        return ()
    ages = set(timed.in_flight_ages(seat))
    return tuple(age in ages for age in range(timed.config.max_delay))


def _won_last_trick(visible: list[int | None], seat: int) -> bool:
    mine, theirs = visible[seat], visible[1 - seat]
    return mine is not None and theirs is not None and rank_of(mine) > rank_of(theirs)


def trick_text(visible, under_visible, names: tuple[str, str] = SEAT_NAMES) -> str | None:
    """Who took the last revealed trick and with which rank (suits never matter), or the tie that
    began a war. A trick whose face-up cards lie on face-down war cards was won in a war."""
    first, second = visible
    if first is None or second is None:
        return None
    ranks = (rank_of(first), rank_of(second))
    if ranks[0] == ranks[1]:
        return f"Both laid a {RANK_NAMES[ranks[0]]}: War!"
    winner = 0 if ranks[0] > ranks[1] else 1
    verb = "win" if names[winner] == "You" else "wins"
    fight = "war" if under_visible[winner] else "battle"
    return f"{names[winner]} {verb} the {fight}: {RANK_NAMES[ranks[winner]]} beats {RANK_NAMES[ranks[1 - winner]]}"


def _takeover_note(timed: TimedRound, names: tuple[str, str], over: bool) -> str | None:
    """Whose timer ran out, for a person: "Your timer ran out: the computer plays your cards"."""
    taken = [seat for seat in (0, 1) if timed.taken_over[seat]]
    if not taken:
        return None
    plays = "played" if over else "plays"
    if len(taken) == 2:
        return f"Both timers ran out: the computer {plays} both seats"
    name = names[taken[0]]
    if name == "You":
        return f"Your timer ran out: the computer {plays} your cards"
    return f"{name}'s timer ran out: the computer {plays} {name}'s cards"


def _score_view(scoreboard: Scoreboard, names: tuple[str, str]) -> ScoreView:
    last_name = None
    if scoreboard.results:
        last_name = _winner_name(scoreboard.last_winner, names)
    return ScoreView(
        rounds_won=(scoreboard.rounds_won[0], scoreboard.rounds_won[1]),
        draws=scoreboard.draws,
        rounds=scoreboard.rounds,
        last_winner=scoreboard.last_winner,
        last_winner_name=last_name,
    )


def _popup(timed: TimedRound, scoreboard: Scoreboard, names: tuple[str, str]) -> Popup:
    result = timed.game.result
    results = list(scoreboard.results)
    if not results or results[-1] is not result:
        results.append(result)  # not recorded (yet): the popup still ends with this round
    number = len(results)
    first = max(0, number - POPUP_ROWS)
    rows = tuple(_row(index + 1, results[index], names) for index in range(first, number))
    if result.winner is None:
        headline = f"Round {number} is a draw"
    elif result.winner == 0:
        headline = f"{names[0]} win round {number}!" if names[0] == "You" else f"{names[0]} wins round {number}!"
    else:
        headline = f"{names[1]} wins round {number}"
    return Popup(
        round_number=number,
        headline=headline,
        winner=result.winner,
        reason=result.reason,
        reason_text=reason_text(result, names),
        details=f"Points {result.points[0]}-{result.points[1]} · {_count(result.battles, 'battle')} · "
        f"{_count(result.wars, 'war')}",
        takeover_note=_takeover_note(timed, names, over=True),
        rows=rows,
        earlier_rounds=first,
    )


def _row(number: int, result: RoundResult, names: tuple[str, str]) -> ResultRow:
    return ResultRow(
        number=number,
        winner=result.winner,
        winner_name=_winner_name(result.winner, names),
        reason_text=reason_text(result, names),
        points=result.points,
        battles=result.battles,
    )


def _winner_name(winner: int | None, names: tuple[str, str]) -> str:
    return "Draw" if winner is None else names[winner]


def reason_text(result: RoundResult, names: tuple[str, str] = SEAT_NAMES) -> str:
    """Why the round ended, in words a player reads in the popup."""
    winner = result.winner
    loser = names[1 - winner] if winner is not None else None
    has = "have" if loser == "You" else "has"
    if result.reason == ALL_CARDS:
        return f"{loser} {has} no cards left"
    if result.reason == POINTS:
        return f"{names[winner]} reached {result.points[winner]} points"
    if result.reason == BATTLE_LIMIT:
        return f"Battle limit reached ({_count(result.battles, 'battle')})"
    if result.reason == WAR_SHORTAGE:
        if winner is None:
            return "Both ran short of cards in a war"
        return f"{loser} could not finish a war"
    raise ValueError(f"unknown round-end reason {result.reason!r}")


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _check_names(names) -> tuple[str, str]:
    if isinstance(names, str) or len(names) != 2 or not all(isinstance(name, str) and name for name in names):
        raise ValueError(f"names must be two non-empty strings (seat 0, seat 1), got {names!r}")
    return (names[0], names[1])
