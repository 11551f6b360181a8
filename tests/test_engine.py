"""The card game by hand-built deals: piles are listed top card first, the starter draws first."""

import pytest

from war_env.core.cards import card_code, parse_piles
from war_env.core.engine import Game
from war_env.core.rules import WarConfig


def play_out(piles, starter=0, **rules) -> Game:
    game = Game(WarConfig(**rules), parse_piles(piles), starter, round_key=12345)
    game.play_to_end()
    return game


def codes(cards) -> list[str]:
    return [card_code(card) for card in cards]


DEALS = [
    # name, piles, starter, rules, (winner, reason, battles, wars, points, cards)
    (
        "no war: ace then king beat two and three",
        [["AC", "KC"], ["2D", "3D"]],
        0,
        {},
        (0, "all_cards", 2, 0, (2, 0), (4, 0)),
    ),
    ("one card each", [["AC"], ["2D"]], 1, {}, (0, "all_cards", 1, 0, (1, 0), (2, 0))),
    (
        "the guide's example: nines tie, king beats seven",
        [["9C", "2C", "KC"], ["9D", "3D", "7D"]],
        0,
        {},
        (0, "all_cards", 1, 1, (1, 0), (6, 0)),
    ),
    (
        "double war: nines tie, fives tie, ace beats two",
        [["9C", "2C", "5C", "3C", "AC"], ["9D", "3D", "5D", "4D", "2D"]],
        0,
        {},
        (0, "all_cards", 1, 2, (1, 0), (10, 0)),
    ),
    (
        "tie on the last card: seat 0 cannot finish the war",
        [["9C"], ["9D", "3D", "2D", "KD"]],
        0,
        {},
        (1, "war_shortage", 1, 1, (0, 0), (0, 5)),
    ),
    (
        "tie with one card left each: equal shortage is a draw",
        [["9C", "2C"], ["9D", "3D"]],
        1,
        {},
        (None, "war_shortage", 1, 1, (0, 0), (1, 1)),
    ),
    ("both short with nothing left", [["9C"], ["9D"]], 0, {}, (None, "war_shortage", 1, 1, (0, 0), (0, 0))),
    (
        "second war short: seat 1 has one card after the first war",
        [["9C", "2C", "5C", "3C", "AC"], ["9D", "3D", "5D", "4D"]],
        0,
        {},
        (0, "war_shortage", 1, 2, (0, 0), (9, 0)),
    ),
    (
        "no face-down cards: the next face-up card decides",
        [["9C", "KC"], ["9D", "2D"]],
        0,
        {"war_face_down": 0},
        (0, "all_cards", 1, 1, (1, 0), (4, 0)),
    ),
    (
        "three face-down cards need four in hand",
        [["9C", "2C", "3C", "4C"], ["9D", "2D", "3D", "4D", "5D"]],
        0,
        {"war_face_down": 3},
        (1, "war_shortage", 1, 1, (0, 0), (0, 9)),
    ),
    (
        "target points end the round",
        [["AC", "AD", "2C"], ["2D", "3D", "4D"]],
        0,
        {"target_points": 2},
        (0, "points", 2, 0, (2, 0), (5, 1)),
    ),
    (
        "all cards is checked before points",
        [["AC"], ["2D"]],
        0,
        {"target_points": 1},
        (0, "all_cards", 1, 0, (1, 0), (2, 0)),
    ),
    (
        "the battle limit is a draw",
        [["AC", "2C"], ["2D", "3D"]],
        0,
        {"max_battles": 1},
        (None, "battle_limit", 1, 0, (1, 0), (3, 1)),
    ),
    (
        "points are checked before the battle limit",
        [["AC", "2C"], ["2D", "3D"]],
        0,
        {"target_points": 1, "max_battles": 1},
        (0, "points", 1, 0, (1, 0), (3, 1)),
    ),
    (
        "a war counts as one battle against the limit",
        [["9C", "2C", "KC", "4C"], ["9D", "3D", "7D", "5D"]],
        0,
        {"max_battles": 1},
        (None, "battle_limit", 1, 1, (1, 0), (7, 1)),
    ),
]


@pytest.mark.parametrize("name, piles, starter, rules, expected", DEALS, ids=[deal[0] for deal in DEALS])
def test_a_dealt_round_ends_exactly_as_the_rules_say(name, piles, starter, rules, expected):
    result = play_out(piles, starter, **rules).result
    assert (result.winner, result.reason, result.battles, result.wars, result.points, result.cards) == expected


def test_play_to_end_draws_in_turn_and_shows_each_draw_before_it_is_made():
    # the guide's example with seat 1 starting: nines tie, then each lays one face down and one face up (a war
    # step is one draw a seat), and the king takes the war
    game = Game(WarConfig(), parse_piles([["9C", "2C", "KC"], ["9D", "3D", "7D"]]), 1, round_key=12345)
    seen = []
    result = game.play_to_end(before_draw=lambda seat: seen.append((seat, game.moves[seat], game.at_war)))
    assert seen == [(1, 0, False), (0, 0, False), (1, 1, True), (0, 1, True)]
    assert result is game.result and (result.winner, result.reason, result.wars) == (0, "all_cards", 1)


def test_the_starter_draws_first_and_the_other_only_after():
    game = Game(WarConfig(), parse_piles([["AC"], ["2D"]]), starter=1, round_key=0)
    assert game.next_to_draw() == 1
    with pytest.raises(RuntimeError, match="seat 0 may not draw now"):
        game.draw(0)
    game.draw(1)
    assert game.next_to_draw() == 0


def test_drawn_cards_stay_hidden_until_both_have_drawn():
    game = Game(WarConfig(), parse_piles([["AC", "3C"], ["2D", "4D"]]), starter=0, round_key=0)
    game.draw(0)
    assert game.visible == [None, None] and game.drawn == [True, False]
    game.draw(1)
    assert codes(game.visible) == ["AC", "2D"] and game.drawn == [False, False]


def test_the_pot_goes_under_the_winner_in_the_order_it_was_laid():
    game = Game(WarConfig(), parse_piles([["AC", "2C"], ["KD", "3D"]]), starter=1, round_key=0)
    game.draw(1)
    game.draw(0)
    assert codes(game.piles[0]) == ["2C", "KD", "AC"]  # the starter's card first


def test_a_war_pot_is_laid_starter_first_face_down_before_face_up():
    game = play_out([["9C", "2C", "KC", "4C"], ["9D", "3D", "7D", "5D"]], starter=1, max_battles=1)
    assert codes(game.piles[0]) == ["4C", "9D", "9C", "3D", "7D", "2C", "KC"]


def test_a_shuffled_pickup_is_a_permutation_fixed_by_the_round_key():
    piles = [["9C", "2C", "KC", "4C"], ["9D", "3D", "7D", "5D"]]
    orders = set()
    for key in range(20):
        game = Game(WarConfig(pickup="shuffled", max_battles=1), parse_piles(piles), 0, round_key=key)
        game.play_to_end()
        pile = codes(game.piles[0])
        assert pile[0] == "4C" and sorted(pile[1:]) == sorted(["9C", "2C", "KC", "9D", "3D", "7D"])
        again = Game(WarConfig(pickup="shuffled", max_battles=1), parse_piles(piles), 0, round_key=key)
        again.play_to_end()
        assert codes(again.piles[0]) == pile
        orders.add(tuple(pile))
    assert len(orders) > 10  # the key really changes the order


def test_the_war_state_is_visible_while_the_tie_is_pending():
    game = Game(WarConfig(), parse_piles([["9C", "2C", "KC"], ["9D", "3D", "7D"]]), starter=0, round_key=0)
    game.draw(0)
    game.draw(1)
    assert game.at_war and len(game.pot) == 2 and game.wars == 1
    game.draw(0)
    assert game.face_down == [1, 0] and len(game.pot) == 4
    game.draw(1)
    assert not game.at_war and game.over


def test_no_draws_after_the_round_is_over():
    game = play_out([["AC"], ["2D"]])
    assert game.next_to_draw() is None
    with pytest.raises(RuntimeError):
        game.draw(0)
