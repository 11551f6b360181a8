"""What a person at the table sees, from deals of known piles (the painters draw only this)."""

from __future__ import annotations

import dataclasses

import pytest

from war_env.core.bots import Fixed
from war_env.core.cards import parse_piles
from war_env.core.clock import TimedRound
from war_env.core.rules import WarConfig
from war_env.core.scoreboard import Scoreboard
from war_env.envs.war import WarEnv
from war_env.views.scene import POPUP_ROWS, build_scene


def dealt(piles, starter=0, opponent="instant", **rules) -> WarEnv:
    env = WarEnv(opponent=opponent, **rules)
    env.reset(seed=0, options={"piles": piles, "starter": starter})
    return env


def scene_of(env: WarEnv):
    return build_scene(env.round, env.scoreboard)


def faces(scene):
    return tuple(view.face_up for view in scene.seats)


def test_a_fresh_deal_shows_both_piles_no_cards_and_the_starters_full_timer():
    scene = scene_of(dealt([["KC", "2C", "5H"], ["7D", "3D", "8S"]], starter=1))
    assert [view.pile for view in scene.seats] == [3, 3]
    assert faces(scene) == (None, None)
    assert [view.laid for view in scene.seats] == [0, 0]
    assert scene.turn == 1 and scene.seats[1].timer_share == 1.0 and scene.seats[1].seconds_left == pytest.approx(3.0)
    assert not scene.seats[0].turn and scene.seats[0].timer_share == 0.0
    assert scene.seats[1].starter and not scene.seats[0].starter
    assert not any(view.war_bubble or view.taken_over for view in scene.seats)
    assert scene.popup is None and scene.round_number == 1


def test_a_drawn_card_lies_face_down_until_both_have_drawn_then_both_are_face_up():
    env = dealt([["KC", "2C", "5H"], ["7D", "3D", "8S"]])
    env.step(1)
    scene = scene_of(env)
    assert scene.seats[0].laid == 1 and faces(scene) == (None, None)
    assert "KC" not in repr(scene)  # the laid card's rank reaches no painter
    assert scene.seats[0].pile == 2 and scene.pot == 1
    assert scene.turn == 1  # the bot may draw now
    env.step(0)  # the instant bot draws: both revealed
    scene = scene_of(env)
    assert faces(scene) == ("KC", "7D")
    assert [view.laid for view in scene.seats] == [0, 0]
    assert scene.seats[0].won_last_trick and not scene.seats[1].won_last_trick
    assert [view.pile for view in scene.seats] == [4, 2] and [view.points for view in scene.seats] == [1, 0]


def test_only_the_last_revealed_card_of_each_player_is_face_up():
    env = dealt([["KC", "2C", "5H"], ["7D", "3D", "8S"]])
    env.step(1), env.step(0)  # KC beats 7D
    env.step(1)  # 2C laid face down on top: KC is still the last revealed card
    scene = scene_of(env)
    assert faces(scene) == ("KC", "7D") and scene.seats[0].laid == 1
    env.step(0)  # 3D revealed against 2C
    assert faces(scene_of(env)) == ("2C", "3D")


def test_a_double_war_shows_bubbles_and_the_face_down_war_cards_under_the_new_face_up_cards():
    env = dealt([["9C", "2C", "JC", "3C", "KC", "4H"], ["9D", "2D", "JD", "3D", "5D", "4S"]])
    env.step(1), env.step(0)  # nines tie
    scene = scene_of(env)
    assert scene.at_war and all(view.war_bubble for view in scene.seats)
    assert faces(scene) == ("9C", "9D") and [view.backs_under for view in scene.seats] == [0, 0]
    env.step(1)  # a war move: one face-down card and one face-up card, both face down until revealed
    scene = scene_of(env)
    assert scene.seats[0].laid == 2 and faces(scene) == ("9C", "9D")
    env.step(0)  # jacks tie again: a double war
    scene = scene_of(env)
    assert faces(scene) == ("JC", "JD")
    assert [view.backs_under for view in scene.seats] == [1, 1]
    assert all(view.war_bubble for view in scene.seats) and scene.pot == 6
    assert "2C" not in repr(scene) and "2D" not in repr(scene)  # the face-down war cards stay hidden
    env.step(1), env.step(0)  # KC beats 5D and takes all ten cards
    scene = scene_of(env)
    assert faces(scene) == ("KC", "5D") and [view.backs_under for view in scene.seats] == [2, 2]
    assert not any(view.war_bubble for view in scene.seats) and scene.pot == 0
    assert scene.seats[0].won_last_trick and [view.pile for view in scene.seats] == [11, 1]


def test_a_seat_whose_timer_ran_out_shows_the_bot_badge_and_the_bot_draws_for_it():
    config = WarConfig(turn_seconds=0.5)
    timed = TimedRound(config, parse_piles([["KC", "2C", "5H"], ["7D", "3D", "8S"]]), 0, 1, (None, Fixed(ticks=2)))
    for _ in range(config.turn_ticks - 1):
        timed.tick(False, False)
    scene = build_scene(timed, Scoreboard())
    assert scene.seats[0].turn and scene.seats[0].ticks_left == 1 and not scene.seats[0].taken_over
    timed.tick(False, False)  # the last tick of the turn: taken over, the bot draws at once
    scene = build_scene(timed, Scoreboard())
    assert scene.seats[0].taken_over and not scene.seats[1].taken_over
    assert scene.seats[0].laid == 1 and scene.turn == 1 and scene.popup is None


def test_the_round_end_popup_lists_the_rounds_so_far_with_the_last_winner_and_the_reason():
    env = WarEnv(opponent="instant", max_battles=1)
    for piles in ([["AS"], ["2C"]], [["3C"], ["KH"]], [["AH", "2D"], ["2H", "3D"]]):
        env.reset(options={"piles": piles, "starter": 0})
        terminated = False
        while not terminated:
            _, _, terminated, _, _ = env.step(1)
    scene = scene_of(env)
    popup = scene.popup
    assert popup.round_number == 3 == scene.round_number
    assert popup.headline == "Round 3 is a draw" and popup.reason == "battle_limit"
    assert popup.reason_text == "Battle limit reached (1 battle)"
    assert [row.winner_name for row in popup.rows] == ["You", "Bot", "Draw"]
    assert [row.reason_text for row in popup.rows][:2] == ["Bot has no cards left", "You have no cards left"]
    assert scene.scoreboard.rounds_won == (1, 1) and scene.scoreboard.draws == 1
    assert scene.scoreboard.last_winner is None and scene.scoreboard.last_winner_name == "Draw"
    assert scene.turn is None and not any(view.turn for view in scene.seats)


def test_the_popup_keeps_the_latest_rounds_and_counts_the_earlier_ones():
    env = WarEnv(opponent="instant")
    for _ in range(POPUP_ROWS + 2):
        env.reset(options={"piles": [["AS"], ["2C"]], "starter": 1})
        env.step(0), env.step(1)
    popup = scene_of(env).popup
    assert len(popup.rows) == POPUP_ROWS and popup.earlier_rounds == 2
    assert [row.number for row in popup.rows] == list(range(3, POPUP_ROWS + 3))
    assert popup.headline == f"You win round {POPUP_ROWS + 2}!"


@pytest.mark.parametrize(
    "piles, winner, text",
    [
        ([["9C"], ["9D"]], None, "Both ran short of cards in a war"),
        ([["9C", "2C", "3C"], ["9D"]], 0, "Bot could not finish a war"),
        ([["5C"], ["KD", "2D"]], 1, "You have no cards left"),
    ],
)
def test_the_reason_a_round_ended_is_put_in_words(piles, winner, text):
    env = dealt(piles)
    env.step(1), env.step(0)
    popup = scene_of(env).popup
    assert popup.winner == winner and popup.reason_text == text


def test_after_a_takeover_the_popup_says_whose_seat_the_bot_played():
    env = dealt([["KC", "2C", "5H", "6H"], ["7D", "3D", "8S", "9S"]], turn_seconds=0.3)
    terminated = False
    while not terminated:
        _, _, terminated, _, _ = env.step(0)  # never draw: taken over, the env plays the rest
    scene = scene_of(env)
    assert (
        scene.seats[0].taken_over and scene.popup.takeover_note == "Your timer ran out: the computer played your cards"
    )
    assert scene.takeover_note == scene.popup.takeover_note


def test_while_the_round_runs_the_table_says_whose_cards_the_computer_plays():
    config = WarConfig(turn_seconds=0.5)
    timed = TimedRound(config, parse_piles([["KC", "2C", "5H"], ["7D", "3D", "8S"]]), 1, 1, (Fixed(ticks=2), None))
    assert build_scene(timed, Scoreboard()).takeover_note is None
    while not timed.taken_over[1]:
        timed.tick(False, False)  # seat 1 never draws (seat 0 is a bot here)
    scene = build_scene(timed, Scoreboard(), names=("Ann", "Bob"))
    assert scene.takeover_note == "Bob's timer ran out: the computer plays Bob's cards"


def test_the_table_says_who_won_each_battle_and_with_which_rank():
    env = dealt([["KC", "9C", "2C", "JC", "5H"], ["7D", "9D", "3D", "QD", "8S"]])
    assert scene_of(env).trick_text is None  # nothing revealed yet
    env.step(1), env.step(0)
    assert scene_of(env).trick_text == "You win the battle: K beats 7"
    env.step(1), env.step(0)
    assert scene_of(env).trick_text == "Both laid a 9: War!"
    env.step(1), env.step(0)  # 2C and 3D face down, then JC against QD
    assert scene_of(env).trick_text == "Bot wins the war: Q beats J"


def test_a_press_outside_the_turn_is_counted_as_a_false_start_on_the_table():
    timed = TimedRound(WarConfig(), parse_piles([["KC", "2C"], ["7D", "3D"]]), 1, 1, (None, Fixed(ticks=5)))
    timed.tick(True, False)  # the bot draws first: seat 0's press is early
    scene = build_scene(timed, Scoreboard())
    assert scene.seats[0].false_starts == 1 and scene.seats[0].laid == 0 and scene.seats[1].false_starts == 0


def test_the_same_state_gives_the_same_scene_and_scenes_are_frozen():
    first, second = (dealt([["KC", "2C"], ["7D", "3D"]]) for _ in range(2))
    for env in (first, second):
        env.step(1)
    assert scene_of(first) == scene_of(second)
    with pytest.raises(dataclasses.FrozenInstanceError):
        scene_of(first).tick = 3


def test_bad_names_and_a_missing_round_are_named_in_the_error():
    env = dealt([["KC"], ["7D"]])
    with pytest.raises(ValueError, match="names must be two"):
        build_scene(env.round, env.scoreboard, names=("You",))
    with pytest.raises(ValueError, match="call reset"):
        build_scene(None, Scoreboard())
