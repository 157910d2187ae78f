"""``trente-lab play`` driven by scripted input: a whole session with refaits, prisoners, an après
and insurance (money checked by hand), scripted shoes for the rarer rules, and bad commands."""

from __future__ import annotations

import io

import pytest
from rich.console import Console
from typer.testing import CliRunner

from experiments.cli import app
from experiments.teaching.play import Summary, play_session
from trente_env.cards import card_code
from trente_env.coup import Coup, Result

runner = CliRunner()

# Seed 189 with the classic rules deals: refait, Rouge, après, Noir, refait, Noir, Rouge, refait
# (checked below, so a change to the dealer shows up here first).
SESSION = [
    "r 10", "n 5", "deal",  # 1 refait: both stakes go to prison (bankroll 985)
    "c 4", "ins", "deal",  # 2 Rouge, couleur: +4 - 0.04 premium; Rouge prisoner freed (+10), Noir's lost
    "r 20", "deal",  # 3 après: the 20 comes back and stays on Rouge
    "deal",  # 4 Noir: the 20 left on Rouge is lost
    "i 6", "ins", "n 8", "deal",  # 5 refait: insured Inverse returned whole, Noir 8 to prison
    "pass",  # 6 Noir: the prisoner is freed (+8)
    "r 10", "deal",  # 7 Rouge: +10
    "r 10", "deal",  # 8 refait: 10 in prison when the student leaves
    "quit",
]  # fmt: skip


def _play(lines: list[str], preset: str = "classic", bankroll: float = 1000, seed: int | None = 189, shoe=None):
    screen = io.StringIO()
    console = Console(file=screen, width=100, color_system=None)
    summary = play_session(preset, bankroll, seed, io.StringIO("\n".join(lines) + "\n"), console, shoe=shoe)
    return summary, screen.getvalue()


def test_seed_189_deals_the_coups_the_session_expects() -> None:
    import numpy as np

    from trente_env.dealer import Shoe
    from trente_env.rules import get_rules

    shoe = Shoe(get_rules(), np.random.default_rng(189))
    results = [shoe.deal().result for _ in range(8)]
    assert results == [Result.REFAIT, Result.ROUGE, Result.APRES, Result.NOIR, Result.REFAIT, Result.NOIR,
                       Result.ROUGE, Result.REFAIT]  # fmt: skip


def test_a_whole_session_with_refaits_prisoners_an_apres_and_insurance() -> None:
    summary, screen = _play(SESSION)
    # by hand: 1000 - 15 | -4.04 +8 +10 | -20 +20 | -20 | -14.06 +6 | +8 | -10 +20 | -10  =  978.90
    assert summary.bankroll == pytest.approx(978.9)
    assert summary.coups == 8 and summary.coups_bet == 7
    assert summary.staked == 15 + 4 + 20 + 20 + 14 + 10 + 10  # the après stake counts again on coup 4
    assert summary.premiums == pytest.approx(0.10)
    assert summary.prisoners == 10 and summary.refaits == 3 and summary.apres == 1
    assert summary.lost == pytest.approx(1000 - 978.9 - 10 * summary.prisoner_value)
    # house edge x stakes: 83 uninsured at 1.1208%, 10 insured at 1.00% (the premium)
    assert summary.predicted_loss == pytest.approx(83 * 0.011208 + 10 * 0.01, abs=1e-4)
    for text in [
        "Refait trente et un",
        "en prison: Noir 5, Rouge 10",
        "A prisoner of 10 is freed",
        "A prisoner of 5 is lost",
        "Après (quatre et quatre)",
        "your stakes stay on the table",
        "6 of your 14 comes back; 8 goes en prison",
        "Rouge gagne et couleur gagne",
        "♦",
        "scoreboard  31  R  =  N 31  N  R 31",
        "the house edge predicted a loss of",
        "Leaving the table",
    ]:
        assert text in screen, text
    assert "went wrong" not in screen


def test_the_cli_plays_from_piped_input() -> None:
    result = runner.invoke(app, ["play", "--seed", "189"], input="\n".join(SESSION) + "\n")
    assert result.exit_code == 0, result.output
    assert "Refait trente et un" in result.output and "978.9" in result.output


BAD = [
    ("foo", "I don't know 'foo'"),
    ("c ten", "'ten' is not a stake"),
    ("r -5", "whole, positive"),
    ("r 1.5", "whole, positive"),
    ("r 2000", "table maximum is 1000"),
    ("r", "How much on Rouge?"),
    ("n 1 2", "How much on Noir?"),
    ("ins", "Place a stake first"),
    ("ins x", "Insure which box?"),
    ("again", "No bets to repeat yet"),
    ("choose prison", "Nothing to choose at this table"),
    ('r "10', "is not a stake"),  # an unbalanced quote: still one line
    ("[/red] [bold]", "I don't know '[/red]'"),  # not read as rich markup
    ("r nan", "whole, positive"),
    ("r inf", "whole, positive"),
]


@pytest.mark.parametrize("line, message", BAD)
def test_bad_commands_get_a_helpful_line(line: str, message: str) -> None:
    summary, screen = _play([line, "quit"])
    assert message in screen
    assert summary.bankroll == 1000 and summary.coups == 0


def test_bad_commands_then_a_coup_in_one_session_via_the_cli() -> None:
    lines = [line for line, _ in BAD] + ["r 600", "n 600", "r 10", "help", "deal", "table", "quit"]
    result = runner.invoke(app, ["play", "--seed", "3"], input="\n".join(lines) + "\n")
    assert result.exit_code == 0
    assert "Traceback" not in result.output and "went wrong" not in result.output
    assert "You have 1000 in hand; those bets would need 1200" in result.output
    assert "Coup 1" in result.output and "Leaving the table" in result.output


def test_closed_boxes_and_missing_insurance() -> None:
    _, screen = _play(["c 2", "quit"], preset="main-bets")
    assert "The Couleur box is closed" in screen
    _, screen = _play(["r 2", "ins", "quit"], preset="family")
    assert "sells no insurance" in screen


def test_end_of_input_leaves_the_table_with_a_summary() -> None:
    summary, screen = _play(["r 10", "deal"])
    assert summary.reason == "end of input" and summary.coups == 1
    assert "Leaving the table" in screen


# -- scripted shoes: rules and cases a seed would make slow to reach --------------------------------


class ScriptedShoe:
    """Deals the given coups in order (the test's croupier)."""

    def __init__(self, coups: list[Coup]) -> None:
        self.coups = list(coups)

    def deal(self) -> Coup:
        return self.coups.pop(0)


def _coup(noir: str, rouge: str) -> Coup:
    from trente_env.cards import CARD_VALUE

    n, r = [card_code(c) for c in noir.split()], [card_code(c) for c in rouge.split()]
    return Coup(tuple(n), tuple(r), int(CARD_VALUE[n].sum()), int(CARD_VALUE[r].sum()))


REFAIT = _coup("KS QS JS AS", "KH QH JH AH")  # 31-31
NOIR_WINS = _coup("KS QS JS AC", "KH QH JH 2H")  # 31-32, first card black: Noir and Couleur win
ROUGE_WINS = _coup("KS QS JS 3C", "KH QH JH AH")  # 33-31: Rouge and Inverse win


def test_a_second_refait_loses_the_prisoner() -> None:
    summary, screen = _play(["n 10", "deal", "deal", "quit"], shoe=ScriptedShoe([REFAIT, REFAIT]))
    assert "A prisoner of 10 is lost" in screen
    assert summary.bankroll == 990 and summary.prisoners == 0


def test_second_prison_and_freedom_after_two_wins() -> None:
    shoe = ScriptedShoe([REFAIT, REFAIT, NOIR_WINS, NOIR_WINS])
    summary, screen = _play(["n 10", "deal", "deal", "deal", "deal", "quit"], "second-prison", shoe=shoe)
    assert "(second prison)" in screen
    assert "A prisoner of 10 is freed" in screen
    assert summary.bankroll == 1000 and summary.prisoners == 0


def test_partage_and_the_choice_rule() -> None:
    summary, screen = _play(["r 10", "deal", "quit"], "partage", shoe=ScriptedShoe([REFAIT]))
    assert "the bank takes 5 (partage" in screen and summary.bankroll == 995
    lines = ["choose prison", "r 10", "deal", "choose half", "n 10", "deal", "quit"]
    summary, screen = _play(lines, "choice", shoe=ScriptedShoe([REFAIT, REFAIT]))
    assert "10 goes en prison" in screen
    assert "the bank takes 5" in screen
    assert "A prisoner of 10 is lost" in screen  # the Rouge prisoner, caught by the second refait
    assert summary.bankroll == 1000 - 10 - 5


def test_a_winning_stake_is_paid_and_a_ruined_player_leaves() -> None:
    summary, screen = _play(
        ["c 10", "deal", "r 20", "deal", "r 5"], bankroll=10, shoe=ScriptedShoe([NOIR_WINS, NOIR_WINS])
    )
    assert "You win: +10" in screen and "You lose: -20" in screen
    assert "nothing left to stake" in screen
    assert isinstance(summary, Summary) and summary.reason == "ruined" and summary.bankroll == 0


@pytest.mark.parametrize("args", [["--bankroll", "0"], ["--rules", "nope"], ["--bankroll", "lots"]])
def test_bad_options_are_one_line(args: list[str]) -> None:
    result = runner.invoke(app, ["play", *args], input="quit\n")
    assert result.exit_code == 2 and "error" in result.output and "Traceback" not in result.output
