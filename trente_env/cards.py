"""Cards and shoes.

A card is an integer code ``0..51`` inside its deck: ``suit = code // 13`` (0 ♠, 1 ♥, 2 ♦, 3 ♣)
and ``rank = code % 13`` (0 is the ace, 12 the king). In Trente et Quarante only two things about
a card matter: its point value (ace 1, two to nine their pips, ten and the faces 10) and its colour
(♠♣ black, ♥♦ red). A shoe of ``decks`` packs is simply ``decks`` copies of the 52 codes.
"""

from __future__ import annotations

import numpy as np

SUITS = "♠♥♦♣"
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
CARDS_PER_DECK = 52

#: Point value of each card code (uint8, length 52).
CARD_VALUE = np.minimum(np.arange(CARDS_PER_DECK) % 13 + 1, 10).astype(np.uint8)
#: True for the black cards (♠ and ♣).
CARD_BLACK = np.isin(np.arange(CARDS_PER_DECK) // 13, (0, 3))


def new_shoe(decks: int) -> np.ndarray:
    """The card codes of ``decks`` fresh packs, unshuffled (uint8, length ``52 * decks``)."""
    return np.tile(np.arange(CARDS_PER_DECK, dtype=np.uint8), decks)


def composition(decks: int) -> np.ndarray:
    """How many cards of each point value 1..10 a full shoe holds (4 of each per deck, 16 tens)."""
    return np.bincount(CARD_VALUE, minlength=11)[1:].astype(np.int64) * decks


def card_name(code: int) -> str:
    """``'8♦'``, ``'K♠'``: rank then suit symbol."""
    return f"{RANKS[code % 13]}{SUITS[code // 13]}"


def is_black(code: int) -> bool:
    return bool(CARD_BLACK[code])


def card_code(name: str) -> int:
    """Inverse of :func:`card_name`; also takes the letters ``S H D C`` for the suits."""
    rank, suit = name[:-1].upper(), name[-1].upper()
    suit = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}.get(suit, suit)
    if rank == "1":
        rank = "A"
    if rank not in RANKS or suit not in SUITS:
        raise ValueError(f"not a card: {name!r} (expected a rank A,2..10,J,Q,K and a suit S,H,D,C)")
    return SUITS.index(suit) * 13 + RANKS.index(rank)
