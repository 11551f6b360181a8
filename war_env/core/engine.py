"""The card game of one round, free of time and of Gymnasium.

``Game`` holds the two face-down piles, the cards on the table and the score, and changes only
through ``draw(seat)``: the starter draws first in every battle step, the other player after; when
both have drawn, the two face-up cards are revealed and compared, and the trick, the war, the
shortage rule and the end of the round follow. Who draws *when* is the clock's business
(``war_env.core.clock``); this module only knows the order.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from war_env.core.cards import rank_of
from war_env.core.randomness import Stream, hash64
from war_env.core.round_info import ALL_CARDS, BATTLE_LIMIT, POINTS, WAR_SHORTAGE, RoundResult
from war_env.core.rules import WarConfig

POT_POSITIONS = 4096
"""Counter stride of the pickup shuffle: counter = trick number * POT_POSITIONS + position."""


class Game:
    """One round of War as state transitions. Seats are 0 and 1; ``starter`` draws first."""

    def __init__(self, config: WarConfig, piles: tuple[list[int], list[int]], starter: int, round_key: int):
        if starter not in (0, 1):
            raise ValueError(f"starter must be 0 or 1, got {starter!r}")
        self.config = config
        self.round_key = round_key
        self.starter = starter
        self.piles = (deque(piles[0]), deque(piles[1]))
        self.pot: list[int] = []
        """Cards of the current trick on the table, in the order they were laid."""
        self.face_up: list[int | None] = [None, None]
        """The face-up card each seat laid in the current step, hidden until both have drawn."""
        self.face_down = [0, 0]
        """Face-down war cards each seat has on the table in the current trick."""
        self.drawn = [False, False]
        self.visible: list[int | None] = [None, None]
        """The last revealed card of each seat: the only face-up cards anyone can see."""
        self.under_visible = [0, 0]
        """Face-down war cards lying under each seat's visible card at the last reveal; like
        ``visible`` it stays after the trick is taken, so a viewer sees the war that decided it."""
        self.at_war = False
        """A tie is pending: the current step is a war step (the "War!" bubble is shown)."""
        self.points = [0, 0]
        self.moves = [0, 0]
        """Draws made by each seat this round (battle and war steps alike)."""
        self.battles = 0
        self.wars = 0
        self.tricks = 0
        self.result: RoundResult | None = None

    # --- queries -------------------------------------------------------------------------
    @property
    def over(self) -> bool:
        return self.result is not None

    def next_to_draw(self) -> int | None:
        """The seat allowed to draw now (starter first), or ``None`` once the round is over."""
        if self.result is not None:
            return None
        if not self.drawn[self.starter]:
            return self.starter
        return 1 - self.starter

    def cards_held(self, seat: int) -> int:
        return len(self.piles[seat])

    # --- the one transition --------------------------------------------------------------
    def draw(self, seat: int) -> None:
        """``seat`` lays its move: one face-up card in a battle, or ``war_face_down`` face-down
        cards then one face-up card in a war. When both have laid, the step is resolved."""
        if seat != self.next_to_draw():
            raise RuntimeError(f"seat {seat} may not draw now (next to draw: {self.next_to_draw()})")
        pile = self.piles[seat]
        if not self.at_war and seat == self.starter:
            self.battles += 1
        if self.at_war:
            for _ in range(self.config.war_face_down):
                self.pot.append(pile.popleft())
            self.face_down[seat] += self.config.war_face_down
        card = pile.popleft()
        self.pot.append(card)
        self.face_up[seat] = card
        self.drawn[seat] = True
        self.moves[seat] += 1
        if self.drawn[1 - seat]:
            self._reveal()

    def play_to_end(self, before_draw: Callable[[int], None] | None = None) -> RoundResult:
        """The card game alone, drawn in turn to its end, and its result. War has no choices and no draw
        depends on when it is made, so the rules play the cards by themselves: this is how every tool
        that needs a round's cards without its clock plays them. ``before_draw(seat)`` is called before
        each draw, with the seat about to draw (the game as it stands then)."""
        while self.result is None:
            seat = self.next_to_draw()
            if before_draw is not None:
                before_draw(seat)
            self.draw(seat)
        return self.result

    # --- resolution ----------------------------------------------------------------------
    def _reveal(self) -> None:
        first, second = self.face_up
        self.visible = [first, second]
        self.under_visible = list(self.face_down)
        self.face_up = [None, None]
        self.drawn = [False, False]
        if rank_of(first) == rank_of(second):
            self._start_war()
        else:
            self._take_trick(0 if rank_of(first) > rank_of(second) else 1)

    def _start_war(self) -> None:
        self.wars += 1
        short = [len(pile) < self.config.cards_for_war for pile in self.piles]
        if short[0] and short[1]:
            self._end(None, WAR_SHORTAGE)
        elif short[0] or short[1]:
            winner = 1 if short[0] else 0
            loser_pile = self.piles[1 - winner]
            self._pick_up(winner)
            self.piles[winner].extend(loser_pile)
            loser_pile.clear()
            self._end(winner, WAR_SHORTAGE)
        else:
            self.at_war = True

    def _take_trick(self, winner: int) -> None:
        self._pick_up(winner)
        self.points[winner] += 1
        self.tricks += 1
        self.at_war = False
        self.face_down = [0, 0]
        config = self.config
        if not self.piles[1 - winner]:
            self._end(winner, ALL_CARDS)
        elif config.target_points is not None and self.points[winner] >= config.target_points:
            self._end(winner, POINTS)
        elif config.max_battles is not None and self.battles >= config.max_battles:
            self._end(None, BATTLE_LIMIT)

    def _pick_up(self, winner: int) -> None:
        pot = self.pot
        if self.config.pickup == "shuffled":
            base = self.tricks * POT_POSITIONS
            keys = [hash64(self.round_key, Stream.PICKUP, base + position) for position in range(len(pot))]
            pot = [card for _, card in sorted(zip(keys, pot))]
        self.piles[winner].extend(pot)
        self.pot = []

    def _end(self, winner: int | None, reason: str) -> None:
        self.result = RoundResult(
            winner=winner,
            reason=reason,
            battles=self.battles,
            wars=self.wars,
            points=(self.points[0], self.points[1]),
            cards=(len(self.piles[0]), len(self.piles[1])),
        )
