"""``trente-lab edge``: exact odds of the coup and the house edge of every box (:mod:`experiments.game.edge`)."""

from __future__ import annotations

from experiments.cli.options import DecksOption, JsonOption, RulesOption
from experiments.console import print_json


def command(
    rules: RulesOption = "classic",
    decks: DecksOption = None,
    as_json: JsonOption = False,
) -> None:
    """Exact odds of the first coup of a full shoe, and the house edge of every box.

    `--rules all` compares the house edges of every preset.
    """
    from experiments.game import edge
    from experiments.rules import load_rules

    if rules == "all":
        reports = edge.all_presets()
        if as_json:
            print_json(reports)
        else:
            edge.print_presets(reports)
        return
    report = edge.edge_report(load_rules(rules), decks, name=rules)
    if as_json:
        print_json(report)
    else:
        edge.print_report(report)
