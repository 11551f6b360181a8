"""Card codes, ranks and deck building.

A card is an ``int`` in ``0..51``: ``rank_index * 4 + suit_index``. Ranks run 2 < 3 < ... < 10 < J < Q
< K < A (rank index 0..12); suits (C, D, H, S) never matter for play and only tell cards apart.
Users meet cards as strings: rank then suit letter, ``"2C"``, ``"10H"``, ``"AS"``.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence, Set

RANK_NAMES = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SUIT_NAMES = ("C", "D", "H", "S")
DECK_SIZE = len(RANK_NAMES) * len(SUIT_NAMES)

CARD_CODES = tuple(rank + suit for rank in RANK_NAMES for suit in SUIT_NAMES)
_CARD_BY_CODE = {code: card for card, code in enumerate(CARD_CODES)}


def rank_of(card: int) -> int:
    """Rank index 0 (two) .. 12 (ace); a higher index beats a lower one."""
    return card >> 2


def rank_value(card: int) -> int:
    """The printed value of a card's rank: 2..10, J=11, Q=12, K=13, A=14."""
    return (card >> 2) + 2


def card_code(card: int) -> str:
    return CARD_CODES[card]


def parse_card(code: str) -> int:
    """``"10H"`` -> card int; an unknown code raises ``ValueError`` naming it."""
    try:
        return _CARD_BY_CODE[code.strip().upper()]
    except (KeyError, AttributeError):
        raise ValueError(
            f"unknown card code {code!r}: expected rank (2..10, J, Q, K, A) then suit (C, D, H, S), e.g. '10H'"
        ) from None


def parse_piles(piles: Sequence[Iterable[str]]) -> tuple[list[int], list[int]]:
    """Two piles of card codes (top card first) -> two lists of card ints.

    Any distinct cards and any sizes >= 1 are allowed; duplicates, unknown codes and empty piles
    raise ``ValueError`` naming the problem.
    """
    if not _is_collection(piles) or len(piles) != 2:
        raise ValueError(f"piles must be a pair of card-code lists (top card first), got {piles!r}")
    parsed: list[list[int]] = []
    seen: dict[int, int] = {}
    for seat, pile in enumerate(piles):
        if not _is_collection(pile):
            raise ValueError(f"pile {seat} must be a list of card codes, got {pile!r}")
        cards = [parse_card(code) for code in pile]
        if not cards:
            raise ValueError(f"pile {seat} is empty: every player needs at least one card")
        for card in cards:
            if card in seen:
                raise ValueError(f"duplicate card {card_code(card)!r} (in pile {seen[card]} and pile {seat})")
            seen[card] = seat
        parsed.append(cards)
    return parsed[0], parsed[1]


def _is_collection(value) -> bool:
    """A list, tuple or array: items in an order, but not a string (nor a set or dict, whose order is not
    the order of a pile)."""
    return isinstance(value, Collection) and not isinstance(value, (str, bytes, Set, Mapping))


def deal_from_permutation(permutation: Sequence[int]) -> tuple[list[int], list[int]]:
    """A shuffled deck -> two face-down piles of 26, top card first: seat 0 gets the first half."""
    half = len(permutation) // 2
    return [int(c) for c in permutation[:half]], [int(c) for c in permutation[half:]]
