"""The turn timer: when turns open, false starts, reactions and takeover, tick by tick."""

from war_env.bots import Absent, Fixed, Instant
from war_env.cards import parse_piles
from war_env.clock import TimedRound
from war_env.rules import WarConfig

LONG_DEAL = [["AC", "KC", "QC", "JC"], ["2D", "3D", "4D", "5D"]]


def timed_round(starter=0, opponent=Instant(), piles=LONG_DEAL, **rules) -> TimedRound:
    return TimedRound(WarConfig(**rules), parse_piles(piles), starter, round_key=99, controllers=(None, opponent))


def test_the_starters_first_turn_opens_on_the_first_tick():
    timed = timed_round(starter=0)
    assert timed.ticks_left(0) == 30 and timed.ticks_left(1) == 0
    timed.tick(True, False)
    assert timed.game.moves == [1, 0]


def test_the_other_seat_opens_on_the_tick_after_the_starter_drew():
    timed = timed_round(starter=0, opponent=Instant())
    timed.tick(True, False)  # tick 1: seat 0 draws; the instant bot may not draw in the same tick
    assert timed.game.moves == [1, 0] and timed.ticks_left(1) == 30
    timed.tick(False, False)  # tick 2: the bot draws, the step is revealed
    assert timed.game.moves == [1, 1] and timed.game.visible[0] is not None
    assert timed.ticks_left(0) == 30  # the starter's next turn opens on tick 3


def test_a_fixed_bot_draws_exactly_k_ticks_after_its_turn_opens():
    timed = timed_round(starter=1, opponent=Fixed(ticks=4))
    for _ in range(4):
        timed.tick(False, False)
    assert timed.game.moves[1] == 0
    timed.tick(False, False)  # tick 5 = opening tick 1 + 4
    assert timed.game.moves[1] == 1 and timed.reaction_ticks[1] == [4]


def test_a_never_drawing_starter_is_taken_over_at_exactly_its_turn_ticks_th_step():
    timed = timed_round(starter=0, turn_seconds=1.0)  # 10 ticks
    for _ in range(9):
        rewards = timed.tick(False, False)
        assert rewards[0] == -0.001 and not timed.taken_over[0]
    rewards = timed.tick(False, False)
    assert timed.taken_over[0] and timed.game.moves[0] == 1  # the takeover bot drew in that tick
    assert rewards[0] == -1.0 - 0.001
    assert timed.reaction_ticks[0] == []  # the bot's draw is not the seat's reaction


def test_after_a_takeover_the_bot_draws_at_once_for_the_rest_of_the_round():
    timed = timed_round(starter=0, turn_seconds=1.0)
    for _ in range(10):
        timed.tick(False, False)
    timed.tick(False, False)  # tick 11: the instant opponent draws, the step is revealed
    moves_before = timed.game.moves[0]
    timed.tick(False, False)  # tick 12: the takeover bot draws on the opening tick
    assert timed.game.moves[0] == moves_before + 1


def test_a_false_start_changes_nothing_but_the_counter_and_the_reward():
    waiting, eager = timed_round(starter=1, opponent=Fixed(ticks=3)), timed_round(starter=1, opponent=Fixed(ticks=3))
    rewards_waiting = [waiting.tick(False, False) for _ in range(3)]
    rewards_eager = [eager.tick(True, False) for _ in range(3)]
    assert eager.false_starts == [3, 0] and waiting.false_starts == [0, 0]
    assert [r[0] for r in rewards_eager] == [-0.1, -0.1, -0.1] and [r[0] for r in rewards_waiting] == [0.0] * 3
    for a, b in ((waiting.game, eager.game),):
        assert [list(p) for p in a.piles] == [list(p) for p in b.piles]
        assert (a.moves, a.visible, a.pot, a.drawn) == (b.moves, b.visible, b.pot, b.drawn)
    assert waiting.opens_at == eager.opens_at


def test_pressing_after_having_drawn_is_a_false_start():
    timed = timed_round(starter=0, opponent=Fixed(ticks=5))
    timed.tick(True, False)
    timed.tick(True, False)
    assert timed.false_starts[0] == 1 and timed.game.moves[0] == 1


def test_the_idle_penalty_counts_only_ticks_of_the_seats_own_open_turn():
    timed = timed_round(starter=0, opponent=Fixed(ticks=5))
    total = 0.0
    for press in (False, False, True):  # two idle ticks, then a draw
        total += timed.tick(press, False)[0]
    for _ in range(6):  # the opponent's turn: no penalty for seat 0
        total += timed.tick(False, False)[0]
    assert round(total, 9) == -0.002 and timed.reaction_ticks[0] == [2]


def test_an_absent_opponent_is_taken_over_and_its_takeover_is_recorded():
    timed = timed_round(starter=0, opponent=Absent())
    timed.tick(True, False)
    for _ in range(30):
        timed.tick(False, False)
    assert timed.taken_over == [False, True] and timed.game.moves[1] == 1


def test_reaction_times_are_fixed_by_the_round_key_not_by_the_presses():
    from war_env.bots import Human

    def opponent_reactions(agent_presses_early: bool) -> list[int]:
        timed = TimedRound(WarConfig(), parse_piles(LONG_DEAL), 1, round_key=2024, controllers=(None, Human()))
        while not timed.over:
            timed.tick(agent_presses_early or timed.ticks_left(0) == 1, False)
        return timed.reaction_ticks[1]

    assert opponent_reactions(True) == opponent_reactions(False)
