"""``trente-lab deal``: coups laid out the way the croupier lays them, to check the rules by eye."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from typing import Annotated

import typer
from rich.text import Text

from experiments.console import (
    MAX_COUPS,
    CutCardOption,
    DecksOption,
    JsonOption,
    RulesOption,
    SeedOption,
    load_rules,
    out,
)
from experiments.files import json_default


def coup_record(coup) -> dict:
    """A coup as plain data: cards by name, totals, result and the announcement."""
    from trente_env.cards import card_name

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
    preset: str = "classic", n_coups: int = 5, seed: int = 0, decks: int | None = None, cut_card: int | None = None
) -> Iterator:
    """The first ``n_coups`` coups of a table seeded with ``seed``, dealt one at a time as they are
    asked for (the rules are checked before the first)."""
    import numpy as np

    from trente_env.dealer import Shoe

    shoe = Shoe(load_rules(preset, decks=decks, cut_card=cut_card), np.random.default_rng(seed))
    return (shoe.deal() for _ in range(n_coups))


def render_coup(coup, number: int | None = None) -> Text:
    """The croupier's layout: both rows with suit symbols in their colours, totals, announcement."""
    from trente_env.cards import card_name, is_black

    text = Text()
    if number is not None:
        text.append(f"Coup {number}\n", style="bold")
    for name, cards, total in (("Noir ", coup.noir_cards, coup.noir), ("Rouge", coup.rouge_cards, coup.rouge)):
        text.append(f"  {name}  ", style="bold")
        for c in cards:
            text.append(f"{card_name(c):>3} ", style="white" if is_black(c) else "red")
        text.append(f"  = {total}\n" if total else "  (shoe empty)\n", style="bold")
    text.append(f"  « {coup.announcement()} »", style="italic yellow")
    if coup.reshuffle:
        text.append("   (cut card out: the shoe is reshuffled)", style="dim")
    return text


def command(
    coups: Annotated[int, typer.Option("--coups", "-n", min=0, max=MAX_COUPS, help="Number of coups to deal.")] = 5,
    seed: SeedOption = 0,
    rules: RulesOption = "classic",
    decks: DecksOption = None,
    cut_card: CutCardOption = None,
    as_json: JsonOption = False,
) -> None:
    """Deal a few coups and show them as the croupier lays them out (each printed as it is dealt)."""
    dealt = deal_coups_from_shoe(rules, coups, seed, decks, cut_card)
    if as_json:
        _print_json_list(coup_record(c) for c in dealt)
        return
    for i, coup in enumerate(dealt, start=1):
        out.print(render_coup(coup, i))


def _print_json_list(records: Iterator[dict]) -> None:
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
