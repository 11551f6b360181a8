"""Ticks, turn timers and takeover: the card game of ``engine`` played against a clock.

One ``tick()`` is one step of game time. Within a tick, in this order: seat 0's action is applied,
then seat 1's (a bot seat presses draw when its turn is open and its reaction time has passed), then
timers expire (a seat whose turn has been open for ``turn_ticks`` ticks without a draw is taken over:
the takeover bot draws for it in that tick and plays the seat for the rest of the round), then a
completed step is revealed and resolved, then the end of the round is checked. (Only one seat's turn
is ever open at a time, so resolving a step right at its second draw is the same order.)

A turn opens on the tick *after* the event that allows it: after the starter drew (for the other
seat), after a trick or a tie was revealed (for the starter); the starter's first turn opens on tick 1.

With action latency (``WarConfig.latency``) a press from outside is *sent* in the tick it is made and
*lands* d ticks later (d = 0: in the same tick, which is the game without latency, bit for bit); where
"seat 0's action is applied" above, read "seat 0's presses landing in this tick are applied", one after
another, each exactly as an undelayed press: a draw if the seat's turn is open, else a false start (so of
several landing together at most the first draws). The k-th press a seat sends in a round is delayed by
``sample_delay(cdf, hash_uniform(round_key, STREAM_LATENCY[seat], k))`` (a fixed latency draws no hash).
Presses in flight when the seat is taken over, or when the round ends, do nothing; bots and the takeover
bot have no latency.
"""

from __future__ import annotations

from war_env.core.bots import TAKEOVER_BOT, Bot, sample_reaction
from war_env.core.engine import Game
from war_env.core.latency import latency_cdf, sample_delay
from war_env.core.randomness import STREAM_LATENCY, STREAM_REACTION, hash_uniform
from war_env.core.rewards import tick_reward
from war_env.core.round_info import RoundInfo
from war_env.core.rules import WarConfig


def times_out(elapsed: int, turn_ticks: int) -> bool:
    """The timer rule: a seat whose turn opened ``elapsed`` ticks before this tick and that does not draw in
    it is taken over in this tick, the last of its ``turn_ticks`` (``elapsed = turn_ticks - 1``)."""
    return elapsed >= turn_ticks - 1


class TimedRound:
    """A round of War under the turn timer. ``controllers[seat]`` is a ``Bot`` that times the seat
    by itself, or ``None`` when the seat's presses come from outside (an agent, a policy)."""

    def __init__(
        self,
        config: WarConfig,
        piles: tuple[list[int], list[int]],
        starter: int,
        round_key: int,
        controllers: tuple[Bot | None, Bot | None],
    ):
        self.config = config
        self.game = Game(config, piles, starter, round_key)
        self.round_key = round_key
        self.tick_count = 0
        self.controllers = list(controllers)
        self._cdfs = [bot.reaction_cdf(config) if bot is not None and not bot.varies else None for bot in controllers]
        """Each bot seat's reaction CDF; ``None`` for a bot that varies (asked as each turn opens: ``Bot.turn_cdf``)."""
        self.opens_at: list[int | None] = [None, None]
        """Tick on which the seat's current turn opens (or opened); ``None`` when it has no turn."""
        self.opens_at[starter] = 1
        self._reaction: list[int | None] = [None, None]
        self.taken_over = [False, False]
        self.false_starts = [0, 0]
        self.reaction_ticks: tuple[list[int], list[int]] = ([], [])
        """Ticks from a turn's opening to the seat's own draw (draws made by the takeover bot are
        not reactions of the seat and are not listed)."""
        self.presses_sent = [0, 0]
        """Presses each seat has sent from outside this round (counted only with latency)."""
        self.in_flight: tuple[list[tuple[int, int]], list[tuple[int, int]]] = ([], [])
        """Each seat's presses sent but not landed: (tick sent, tick it lands)."""
        self._delayed = config.has_latency
        random_delay = sum(p > 0 for p in config.latency_probabilities) > 1
        self._latency_cdf = latency_cdf(config.latency) if random_delay else None

    # --- what a seat can see about time -------------------------------------------------
    def turn_open(self, seat: int, tick: int) -> bool:
        opens = self.opens_at[seat]
        return opens is not None and opens <= tick

    def ticks_left(self, seat: int) -> int:
        """Ticks the seat still has to draw, counting the next tick; 0 when its turn is not open then."""
        next_tick = self.tick_count + 1
        opens = self.opens_at[seat]
        if opens is None or opens > next_tick:  # turn_open, inlined: this runs every step
            return 0
        return self.config.turn_ticks - (next_tick - opens)

    def in_flight_ages(self, seat: int) -> list[int]:
        """Ticks since each of the seat's presses still in flight was sent (0: sent in the last tick)."""
        return [self.tick_count - sent for sent, _ in self.in_flight[seat]]

    def bot_controlled(self, seat: int) -> bool:
        return self.controllers[seat] is not None

    @property
    def over(self) -> bool:
        return self.game.result is not None

    def info(self, steps: int) -> RoundInfo:
        """The round (ended or running) as ``info["round"]`` reports it; ``steps`` is seat 0's env steps."""
        game = self.game
        result = game.result
        return RoundInfo(
            winner=result.winner if result else None,
            reason=result.reason if result else None,
            battles=game.battles,
            wars=game.wars,
            points=tuple(game.points),
            cards=(len(game.piles[0]), len(game.piles[1])),
            takeover=tuple(self.taken_over),
            false_starts=tuple(self.false_starts),
            reaction_ticks=(tuple(self.reaction_ticks[0]), tuple(self.reaction_ticks[1])),
            steps=steps,
            ticks=self.tick_count,
        )

    # --- the one transition --------------------------------------------------------------
    def tick(self, press0: bool, press1: bool) -> tuple[float, float]:
        """Advance one tick with the external presses of seat 0 and seat 1 (ignored for bot seats).
        Returns each seat's timing reward of this tick (``rewards.tick_reward``: false starts, an idle
        tick, a takeover)."""
        config = self.config
        tick = self.tick_count = self.tick_count + 1
        false_starts = [0, 0]
        pressed = (press0, press1)
        opens_at = self.opens_at
        for seat in (0, 1):
            opens = opens_at[seat]
            is_open = opens is not None and opens <= tick  # turn_open, inlined: this runs every tick
            if self.controllers[seat] is not None:
                presses = is_open and tick - opens >= self._reaction_of(seat)
            elif self._delayed:
                presses = self._landing(seat, tick, pressed[seat])
            else:
                presses = pressed[seat]
            if not presses:
                continue
            for _ in range(int(presses)):  # True is one press
                opens = opens_at[seat]  # a draw closes the turn: the next press landing with it is false
                if opens is not None and opens <= tick:
                    if not self.taken_over[seat]:
                        self.reaction_ticks[seat].append(tick - opens)
                    self._draw(seat, tick)
                    if self.game.result is not None:
                        break
                else:
                    false_starts[seat] += 1
        idle = [False, False]
        takeover = [False, False]
        for seat in (0, 1):
            opens = opens_at[seat]
            if opens is None or opens > tick:
                continue
            idle[seat] = True
            if times_out(tick - opens, config.turn_ticks):
                takeover[seat] = True
                self._take_over(seat, tick)
        self.false_starts[0] += false_starts[0]
        self.false_starts[1] += false_starts[1]
        return (
            tick_reward(config, false_starts[0], idle[0], takeover[0]),
            tick_reward(config, false_starts[1], idle[1], takeover[1]),
        )

    def _take_over(self, seat: int, tick: int) -> None:
        """The takeover bot plays the seat from now on, starting with a draw in this tick."""
        self.taken_over[seat] = True
        self.in_flight[seat].clear()  # the seat's own presses no longer act
        self.controllers[seat] = TAKEOVER_BOT
        self._cdfs[seat] = TAKEOVER_BOT.reaction_cdf(self.config)
        self._draw(seat, tick)

    def _landing(self, seat: int, tick: int, press: bool) -> int:
        """Send the seat's press of this tick (if any); the number of its presses that land in this tick."""
        landing = 0
        if press:
            delay = self._delay(seat, self.presses_sent[seat])
            self.presses_sent[seat] += 1
            if delay == 0:
                landing = 1
            else:
                self.in_flight[seat].append((tick, tick + delay))
        flying = self.in_flight[seat]
        landed = sum(lands == tick for _, lands in flying)
        if landed:
            flying[:] = [sent_lands for sent_lands in flying if sent_lands[1] != tick]
        return landing + landed

    def _delay(self, seat: int, press: int) -> int:
        if self._latency_cdf is None:
            return self.config.max_delay
        return sample_delay(self._latency_cdf, hash_uniform(self.round_key, STREAM_LATENCY[seat], press))

    def _reaction_of(self, seat: int) -> int:
        if self._reaction[seat] is None:
            move = self.game.moves[seat]
            uniform = hash_uniform(self.round_key, STREAM_REACTION[seat], move)
            cdf = self._cdfs[seat]
            if cdf is None:  # asked on the turn's first tick: the table is as it was when the turn opened
                cdf = self.controllers[seat].turn_cdf(self.config, self.round_key, seat, self.game)
            self._reaction[seat] = sample_reaction(cdf, uniform)
        return self._reaction[seat]

    def _draw(self, seat: int, tick: int) -> None:
        game = self.game
        self.opens_at[seat] = None
        self._reaction[seat] = None
        game.draw(seat)
        if game.result is not None:
            return
        if game.drawn[seat]:  # the other seat may now draw
            self.opens_at[1 - seat] = tick + 1
        else:  # the step was revealed: the starter opens the next one
            self.opens_at[game.starter] = tick + 1
