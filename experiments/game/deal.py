"""Coups laid out the way the croupier lays them, to check the rules by eye (``trente-lab deal``)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Iterator

import numpy as np
from rich.text import Text

from experiments.files import json_default
from experiments.rules import load_rules
from trente_env.cards import card_name, is_black
from trente_env.coup import Coup
from trente_env.dealer import Shoe
from trente_env.rules import PRESETS, RuleSet

#: Bytes a coup takes on standard output, about (1,000 classic coups: 427,552 with ``--json``,
#: 146,162 as laid out): what ``deal`` checks the free space of a file it is sent to against.
JSON_BYTES_PER_COUP, TEXT_BYTES_PER_COUP = 420, 140


def coup_record(coup: Coup) -> dict:
    """A coup as plain data: cards by name, totals, result and the announcement."""
    return {
        "noir_cards": [card_name(c) for c in coup.noir_cards],
        "rouge_cards": [card_name(c) for c in coup.rouge_cards],
        "noir": coup.noir,
        "rouge": coup.rouge,
        "result": coup.result.name.lower(),
        "couleur": None if coup.couleur is None else ("couleur" if coup.couleur else "inverse"),
        "first_card_black": coup.first_black,
        "announcement": coup.announcement(),
        "shoe_position": coup.start,
        "reshuffle_after": coup.reshuffle,
    }


def deal_coups_from_shoe(
    rules: RuleSet = PRESETS["classic"],
    n_coups: int = 5,
    seed: int = 0,
    decks: int | None = None,
    cut_card: int | None = None,
) -> Iterator[Coup]:
    """The first ``n_coups`` coups of a table of ``rules`` (with ``decks`` and ``cut_card`` if given)
    seeded with ``seed``, dealt one at a time as they are asked for (the rules are checked before the
    first)."""
    shoe = Shoe(load_rules(rules, decks=decks, cut_card=cut_card), np.random.default_rng(seed))
    return (shoe.deal() for _ in range(n_coups))


def render_coup(coup: Coup, number: int | None = None) -> Text:
    """The croupier's layout: both rows with suit symbols in their colours, totals (in one column
    whatever the number of cards in each row), announcement."""
    text = Text()
    if number is not None:
        text.append(f"Coup {number}\n", style="bold")
    width = max(len(coup.noir_cards), len(coup.rouge_cards))
    for name, cards, total in (("Noir ", coup.noir_cards, coup.noir), ("Rouge", coup.rouge_cards, coup.rouge)):
        text.append(f"  {name}  ", style="bold")
        for c in cards:
            text.append(f"{card_name(c):>3} ", style="white" if is_black(c) else "red")
        text.append("    " * (width - len(cards)))
        text.append(f"  = {total}\n" if total else "  (shoe empty)\n", style="bold")
    text.append(f"  « {coup.announcement()} »", style="italic yellow")
    if coup.reshuffle:
        text.append("   (cut card out: the shoe is reshuffled)", style="dim")
    return text


def print_json_list(records: Iterable[dict]) -> None:
    """A JSON array on stdout written one element at a time: the text ``print_json(list(records))``
    would write, without holding the list."""
    write = sys.stdout.write
    write("[")
    empty = True
    for record in records:
        text = json.dumps(record, indent=2, ensure_ascii=False, default=json_default)
        write(("\n  " if empty else ",\n  ") + text.replace("\n", "\n  "))
        empty = False
    write("]\n" if empty else "\n]\n")


__all__ = ["coup_record", "deal_coups_from_shoe", "print_json_list", "render_coup"]
