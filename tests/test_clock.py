"""The turn timer: when turns open, false starts, reactions and takeover, tick by tick."""

from war_env.core.bots import Absent, Fixed, Instant
from war_env.core.cards import parse_piles
from war_env.core.clock import TimedRound
from war_env.core.rules import WarConfig

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
    from war_env.core.bots import Human

    def opponent_reactions(agent_presses_early: bool) -> list[int]:
        timed = TimedRound(WarConfig(), parse_piles(LONG_DEAL), 1, round_key=2024, controllers=(None, Human()))
        while not timed.over:
            timed.tick(agent_presses_early or timed.ticks_left(0) == 1, False)
        return timed.reaction_ticks[1]

    assert opponent_reactions(True) == opponent_reactions(False)


# --- action latency: a press is sent now and lands later ----------------------------------------------------
def latency_round(latency, starter=0, opponent=Instant(), piles=LONG_DEAL, round_key=99, **rules) -> TimedRound:
    return TimedRound(WarConfig(latency=latency, **rules), parse_piles(piles), starter, round_key, (None, opponent))


def test_a_delayed_press_draws_in_the_tick_it_lands_and_the_ticks_before_are_idle():
    timed = latency_round("fixed:ticks=2", starter=0)
    rewards = [timed.tick(True, False)[0], timed.tick(False, False)[0]]
    assert timed.game.moves == [0, 0] and timed.in_flight_ages(0) == [1]
    rewards.append(timed.tick(False, False)[0])  # tick 3: the press of tick 1 lands
    assert timed.game.moves == [1, 0] and timed.reaction_ticks[0] == [2]
    assert rewards == [-0.001, -0.001, 0.0] and timed.in_flight_ages(0) == []


def test_a_press_sent_before_the_turn_opens_draws_if_it_lands_after_the_opening():
    timed = latency_round("fixed:ticks=1", starter=1, opponent=Instant())
    timed.tick(True, False)  # tick 1: the bot draws; the press lands in tick 2, the opening tick of seat 0
    timed.tick(False, False)
    assert timed.game.moves == [1, 1] and timed.reaction_ticks[0] == [0] and timed.false_starts == [0, 0]


def test_a_press_landing_while_the_turn_is_closed_is_a_false_start_charged_as_it_lands():
    timed = latency_round("fixed:ticks=2", starter=1, opponent=Fixed(ticks=5))
    rewards = [timed.tick(press, False)[0] for press in (True, False, False)]
    assert rewards == [0.0, 0.0, -0.1] and timed.false_starts == [1, 0] and timed.game.moves == [0, 0]


def test_presses_landing_in_the_same_tick_act_one_after_another_so_only_the_first_draws():
    config = WarConfig(latency="uniform:low=1,high=2")
    # a round key whose first press is delayed 2 ticks and second 1: both land in tick 3
    key = next(
        key
        for key in range(1000)
        if [TimedRound(config, parse_piles(LONG_DEAL), 0, key, (None, Instant()))._delay(0, k) for k in (0, 1)]
        == [2, 1]
    )
    timed = latency_round("uniform:low=1,high=2", starter=0, round_key=key)
    timed.tick(True, False)
    timed.tick(True, False)
    assert timed.in_flight_ages(0) == [1, 0]
    reward = timed.tick(False, False)[0]
    assert timed.game.moves == [1, 0] and timed.false_starts == [1, 0] and reward == -0.1


def test_the_delay_of_the_kth_press_is_hashed_from_the_round_key_and_k_alone():
    from war_env.core.latency import latency_cdf, sample_delay
    from war_env.core.randomness import STREAM_LATENCY, hash_uniform

    def delays(press_every: int) -> list[int]:
        timed = latency_round("uniform:low=1,high=4", starter=0, round_key=2024)
        sent = []
        for tick in range(1, 13):
            press = tick % press_every == 0
            timed.tick(press, False)
            if press:  # delays are >= 1: the newest press in flight is this one
                sent.append(timed.in_flight[0][-1][1] - tick)
        return sent

    expected = [
        sample_delay(latency_cdf("uniform:low=1,high=4"), hash_uniform(2024, STREAM_LATENCY[0], k)) for k in range(12)
    ]
    assert delays(1) == expected[:12] and delays(3) == expected[:4]


def test_a_taken_over_seats_presses_in_flight_do_nothing():
    timed = latency_round("fixed:ticks=4", starter=0, turn_seconds=0.5)  # 5 ticks: taken over in tick 5
    timed.tick(False, False)
    timed.tick(True, False)  # lands in tick 6, after the takeover
    for _ in range(3):
        timed.tick(False, False)
    assert timed.taken_over[0] and timed.in_flight_ages(0) == []
    timed.tick(False, False)  # tick 6: the opponent's turn; the press would have been a false start
    assert timed.false_starts == [0, 0]


def test_presses_in_flight_when_the_round_ends_do_nothing():
    timed = latency_round("fixed:ticks=2", starter=0, piles=[["AC"], ["2D"]])
    presses = [True, False, True, True]  # the first lands in tick 3; the round ends in tick 4 (instant bot)
    for press in presses:
        timed.tick(press, False)
    assert timed.over and timed.game.result.winner == 0
    assert timed.false_starts == [0, 0] and timed.in_flight_ages(0) == [1, 0]


def test_bots_have_no_latency():
    timed = latency_round("fixed:ticks=3", starter=1, opponent=Fixed(ticks=2))
    for _ in range(3):
        timed.tick(False, False)
    assert timed.game.moves == [0, 1] and timed.reaction_ticks[1] == [2]


def test_against_a_pool_the_cards_never_depend_on_timing():
    """The pool's member is drawn from the round key, not from anything timing changes: two very different
    press schedules play the same card game against it."""
    from war_env.core.bots import make_bot

    config = WarConfig(latency="fixed:ticks=3")
    outcomes = []
    for press_every in (1, 7):
        timed = TimedRound(config, ([0, 1, 2, 3, 4, 5], [6, 7, 8, 9, 10, 11]), 0, 99, (None, make_bot("pool")))
        tick = 0
        while not timed.over:
            tick += 1
            timed.tick(tick % press_every == 0, False)
        outcomes.append(timed.game.result)
    assert outcomes[0] == outcomes[1]
