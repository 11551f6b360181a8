"""What ``info["round"]`` says about a round that ended, written once for every front end.

``round_info(...)`` is the one dict form (Python types: ``winner`` 0, 1 or ``None`` for a draw, pairs
as tuples, each seat's reaction ticks as a list); War-v0 and the two-seat env make it from the scalar
reference (``describe_round``), the vector env and the fast path from their arrays.
"""

from __future__ import annotations

from war_env.clock import TimedRound

ROUND_INFO_KEYS = ("winner", "reason", "battles", "wars", "points", "cards", "takeover", "false_starts",
                   "reaction_ticks", "steps", "ticks")
NO_WINNER = -1
"""How arrays say that a round was a draw (the dict says ``None``)."""


def round_info(*, winner, reason, battles, wars, points, cards, takeover, false_starts, reaction_ticks, steps,
               ticks) -> dict:
    """The ``info["round"]`` dict: ``winner`` the seat that won (``None`` or ``NO_WINNER``: a draw),
    ``reason`` why the round ended (``None`` while it runs), ``battles``, ``wars`` (ties, each war step
    counted), ``points``, ``cards`` (pile sizes), ``takeover``, ``false_starts`` (pairs by seat),
    ``reaction_ticks`` (each seat's own draws, ticks after its turn opened), ``steps`` (env steps)
    and ``ticks`` (game ticks, a played-out rest included)."""
    return {
        "winner": None if winner is None or winner == NO_WINNER else int(winner),
        "reason": reason,
        "battles": int(battles),
        "wars": int(wars),
        "points": (int(points[0]), int(points[1])),
        "cards": (int(cards[0]), int(cards[1])),
        "takeover": (bool(takeover[0]), bool(takeover[1])),
        "false_starts": (int(false_starts[0]), int(false_starts[1])),
        "reaction_ticks": ([int(tick) for tick in reaction_ticks[0]], [int(tick) for tick in reaction_ticks[1]]),
        "steps": int(steps),
        "ticks": int(ticks),
    }


def describe_round(timed: TimedRound, steps: int) -> dict:
    """The ``info["round"]`` dict of a (ended or running) round of the scalar reference; ``steps`` is
    the env steps taken."""
    game = timed.game
    result = game.result
    return round_info(
        winner=result.winner if result else None, reason=result.reason if result else None, battles=game.battles,
        wars=game.wars, points=game.points, cards=(len(game.piles[0]), len(game.piles[1])),
        takeover=timed.taken_over, false_starts=timed.false_starts, reaction_ticks=timed.reaction_ticks,
        steps=steps, ticks=timed.tick_count,
    )
