import pytest

from war_env.core.cards import CARD_CODES, DECK_SIZE, card_code, deal_from_permutation, parse_card, parse_piles, rank_of


def test_the_deck_has_52_distinct_codes_rank_then_suit():
    assert DECK_SIZE == 52 == len(set(CARD_CODES))
    assert CARD_CODES[0] == "2C" and CARD_CODES[-1] == "AS" and "10H" in CARD_CODES


def test_ranks_run_two_to_ace_and_suits_do_not_matter():
    order = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
    ranks = [rank_of(parse_card(rank + "H")) for rank in order]
    assert ranks == sorted(ranks) and len(set(ranks)) == 13
    assert rank_of(parse_card("9C")) == rank_of(parse_card("9S"))


def test_codes_round_trip_and_tolerate_case_and_spaces():
    for card in range(DECK_SIZE):
        assert parse_card(card_code(card)) == card
    assert parse_card(" 10h ") == parse_card("10H")


@pytest.mark.parametrize("code", ["1H", "11C", "AX", "", "KK", None, 5])
def test_an_unknown_card_code_is_named_in_the_error(code):
    with pytest.raises(ValueError, match="unknown card code"):
        parse_card(code)


def test_piles_accept_any_distinct_cards_and_sizes():
    first, second = parse_piles([["AS"], ["2C", "3C", "4C"]])
    assert [card_code(c) for c in first] == ["AS"] and len(second) == 3


@pytest.mark.parametrize(
    "piles, message",
    [
        ([["AS"], []], "pile 1 is empty"),
        ([["AS", "KD"], ["KD"]], "duplicate card 'KD'"),
        ([["AS"], ["ZZ"]], "unknown card code 'ZZ'"),
        ([["AS"]], "pair"),
        ("AS KD", "pair"),
        ([["AS"], "KD"], "pile 1 must be a list"),
        (None, "pair"),
        (5, "pair"),
        ({"AS": 1, "KD": 2}, "pair"),
        ([{"AS", "KD"}, ["2C"]], "pile 0 must be a list"),
        ([["AS"], 5], "pile 1 must be a list"),
        ([["AS"], [None]], "unknown card code None"),
    ],
)
def test_bad_piles_raise_a_value_error_naming_the_problem(piles, message):
    with pytest.raises(ValueError, match=message):
        parse_piles(piles)


def test_a_permutation_is_dealt_26_and_26_top_card_first():
    first, second = deal_from_permutation(list(range(52)))
    assert first == list(range(26)) and second == list(range(26, 52))
