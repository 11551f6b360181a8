"""A round's result, declared once (war_env.core.round_info): its JSON form is checked field by field, and
a reaction tick is a whole number >= 0 (not a bool, a float or a negative number)."""

import pytest

from war_env.core.round_info import RoundInfo, RoundResult


def _round() -> dict:
    return {
        "winner": 0,
        "reason": "all_cards",
        "battles": 3,
        "wars": 0,
        "points": [2, 1],
        "cards": [30, 22],
        "ticks": 40,
        "steps": 20,
        "false_starts": [0, 1],
        "takeover": [False, False],
        "reaction_ticks": [[0, 2, 5], [1, 1]],
    }


def test_a_round_read_from_json_is_the_round_written():
    info = RoundInfo.from_json_dict(_round())
    assert info.reaction_ticks == ((0, 2, 5), (1, 1)) and RoundInfo.from_json_dict(info.to_json_dict()) == info
    assert isinstance(info.card_outcome(), RoundResult)


@pytest.mark.parametrize("ticks", [[True], [-1], [1.0], ["1"], [None], (1, 2), [[1]]])
def test_a_reaction_tick_that_is_not_a_whole_number_is_named(ticks):
    record = {**_round(), "reaction_ticks": [ticks, [1]]}
    with pytest.raises(ValueError, match="reaction_ticks must be a pair of lists of whole numbers >= 0"):
        RoundInfo.from_json_dict(record)


def test_empty_and_large_tick_lists_are_whole_numbers():
    record = {**_round(), "reaction_ticks": [[], [10**6, 0]]}
    assert RoundInfo.from_json_dict(record).reaction_ticks == ((), (10**6, 0))
