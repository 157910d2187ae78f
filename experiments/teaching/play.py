"""``trente-lab play``: sit at the table. Place bets with short commands, watch the croupier deal.

The student types commands (``r 10``, ``n 5``, ``c 2``, ``i 2``, ``ins``, ``deal``, ``help``,
``quit``) and sees the rows dealt card by card, the croupier's announcement, the scoreboard of
recent coups, the bankroll and any stakes in prison. Quitting prints what was staked, what was
lost, and what the house edge predicted for those stakes.

Nothing about the game is decided here: the coups come from :class:`trente_env.dealer.Shoe` and
every stake is settled by :func:`trente_env.settle.settle`, the engine the environments use. This
module only keeps the player's money and talks.

The session reads commands from any text stream (``sys.stdin`` by default), so it can be scripted
and tested without a terminal: :func:`play_session` takes the stream and a rich console.
"""

from __future__ import annotations

import shlex
import sys
import time
from dataclasses import dataclass, field
from typing import Any, TextIO

import numpy as np
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from experiments.console import out
from experiments.errors import LabError
from experiments.rules import load_rules
from trente_env.cards import card_name, is_black
from trente_env.codes import BOXES, COULEUR, INVERSE, NOIR, ROUGE
from trente_env.coup import Result
from trente_env.croupier import is_ruined
from trente_env.dealer import Shoe
from trente_env.odds import house_edges, insured_edges
from trente_env.rules import MAX_MONEY, Refait, RuleSet
from trente_env.settle import imprisoned, partage_words, refait_code, refait_words, settle

#: What a student may type for each box.
BOX_WORDS = {
    "n": NOIR, "noir": NOIR, "black": NOIR, "b": NOIR,
    "r": ROUGE, "rouge": ROUGE, "red": ROUGE,
    "c": COULEUR, "couleur": COULEUR, "colour": COULEUR, "color": COULEUR,
    "i": INVERSE, "inverse": INVERSE, "inv": INVERSE,
}  # fmt: skip
SCOREBOARD = 16  #: coups shown on the scoreboard

HELP = """\
[bold]Bets[/bold] (whole units, placed before the deal):
  [cyan]r 10[/cyan] Rouge   [cyan]n 5[/cyan] Noir   [cyan]c 2[/cyan] Couleur   [cyan]i 2[/cyan] Inverse
  [cyan]r 0[/cyan] takes a stake back, [cyan]clear[/cyan] takes them all back
  [cyan]again[/cyan] repeats the last coup's bets
  [cyan]ins[/cyan] insures your stakes against the refait (premium {rate}); [cyan]ins off[/cyan]
  [cyan]choose prison[/cyan] / [cyan]choose half[/cyan]: your pick for a refait, under the choice rule
[bold]Play[/bold]:
  [cyan]deal[/cyan] (or [cyan]pass[/cyan], or an empty line): the croupier deals the coup
  [cyan]table[/cyan] shows your money, stakes, prisoners and the scoreboard
  [cyan]help[/cyan] this text; [cyan]quit[/cyan] leave the table and see the summary
[bold]The game[/bold]: the Noir row is dealt until it passes 30, then the Rouge row; the lower \
total wins (31 is best). Couleur wins when the first card has the colour of the winning row. \
Equal rows (après) change nothing; 31-31 (refait) is the bank's edge: {refait}."""


@dataclass
class Summary:
    """What a session came to. Money in units."""

    start: float  #: bankroll at the start
    bankroll: float  #: money in hand at the end
    coups: int = 0  #: coups dealt
    coups_bet: int = 0  #: coups with at least one stake of the player's on them
    staked: float = 0.0  #: new stakes, summed over the coups (a stake left on after an après counts again)
    premiums: float = 0.0  #: insurance premiums paid
    predicted_loss: float = 0.0  #: house edge x each stake (premiums included for insured stakes)
    prisoners: float = 0.0  #: stakes still in prison when the player left
    prisoner_value: float = 0.0  #: what a unit in prison is worth on average
    refaits: int = 0  #: refaits dealt
    apres: int = 0  #: après dealt
    refaits_caught: int = 0  #: refaits that caught a stake of the player's
    best: float = 0.0  #: the most the player ever held
    reason: str = "quit"  #: why the session ended: quit, end of input, ruined

    @property
    def lost(self) -> float:
        """What the session cost, counting prisoners still on the table at their average value."""
        return self.start - self.bankroll - self.prisoners * self.prisoner_value

    def as_dict(self) -> dict[str, Any]:
        return {**self.__dict__, "lost": self.lost}


@dataclass
class Player:
    """The player's side of the table: money, stakes on the layout, prisoners, the record."""

    bankroll: float
    stakes: np.ndarray = field(default_factory=lambda: np.zeros(len(BOXES)))
    insured: np.ndarray = field(default_factory=lambda: np.zeros(len(BOXES), dtype=bool))
    to_prison: bool = False  #: the choice rule: prison (True) or half (False) on a refait
    prison: np.ndarray = field(default_factory=lambda: np.zeros((len(BOXES), 2)))
    last_stakes: np.ndarray = field(default_factory=lambda: np.zeros(len(BOXES)))
    last_insured: np.ndarray = field(default_factory=lambda: np.zeros(len(BOXES), dtype=bool))


class Game:
    """One student at one table: parses commands, deals through the engine, keeps the books.

    :param rules: the table's rule set.
    :param bankroll: the student's money, in units.
    :param shoe: the table's shoe (a :class:`~trente_env.dealer.Shoe`, or anything with ``deal()``).
    :param console: where everything is printed.
    :param delay: seconds between two cards (0: no animation).
    """

    def __init__(self, rules: RuleSet, bankroll: float, shoe: Any, console: Console, delay: float = 0.0) -> None:
        self.rules = rules
        self.shoe = shoe
        self.console = console
        self.delay = delay
        self.player = Player(float(bankroll))
        self.edges = house_edges(rules)
        self.insured_edges = insured_edges(rules)  #: an insured stake's edge on each box
        self.summary = Summary(
            start=float(bankroll), bankroll=float(bankroll), best=float(bankroll),
            prisoner_value=self.edges.prisoner_value,
        )  # fmt: skip
        self.history: list[Any] = []  # the coups dealt, oldest first
        self.done = False

    # -- commands ---------------------------------------------------------------------------------

    def handle(self, line: str) -> None:
        """Carry out one command line; anything wrong gets one helpful line, never an exception."""
        try:
            words = shlex.split(line.strip().lower())
        except ValueError:
            words = line.strip().lower().split()
        if not words or words[0] in ("deal", "pass", "d", "p", "go"):
            self.deal()
            return
        word, args = words[0], words[1:]
        if word in BOX_WORDS:
            self.bet(BOX_WORDS[word], args)
        elif word in ("ins", "insure", "insurance", "assurance"):
            self.insure(args)
        elif word in ("clear", "cancel"):
            self.clear()
        elif word in ("again", "same", "rebet"):
            self.again()
        elif word == "choose":
            self.choose(args)
        elif word in ("table", "t", "board", "status", "s"):
            self.show_table()
        elif word in ("help", "h", "?"):
            self.help()
        elif word in ("quit", "q", "exit", "bye"):
            self.done = True
        else:
            self.say(f"I don't know '{escape(word)}'. Try [cyan]r 10[/cyan], [cyan]deal[/cyan] or [cyan]help[/cyan].")

    def say(self, message: str, style: str = "yellow") -> None:
        self.console.print(message, style=style)

    def bet(self, box: int, args: list[str]) -> None:
        rules, player = self.rules, self.player
        name = BOXES[box].capitalize()
        if box >= len(rules.boxes):
            self.say(f"The {name} box is closed at this table (open: {', '.join(rules.boxes)}).")
            return
        if len(args) != 1:
            self.say(f"How much on {name}? For example [cyan]{BOXES[box][0]} 10[/cyan].")
            return
        try:
            amount = float(args[0])
        except ValueError:
            self.say(f"'{escape(args[0])}' is not a stake: give a whole number of units, e.g. {BOXES[box][0]} 10.")
            return
        if not np.isfinite(amount) or amount != int(amount) or amount < 0:
            self.say(f"Stakes are whole, positive numbers of units; '{escape(args[0])}' is not one.")
            return
        if amount and amount < rules.table_min:
            self.say(f"The table minimum is {rules.table_min:g}.")
            return
        if amount > rules.table_max:
            self.say(f"The table maximum is {rules.table_max:g} per box: that is what stops a martingale.")
            return
        stakes = player.stakes.copy()
        stakes[box] = amount
        need = self._cost(stakes, player.insured)
        if need > player.bankroll:
            self.say(f"You have {player.bankroll:g} in hand; those bets would need {need:g}.")
            return
        player.stakes = stakes
        if amount == 0:
            player.insured[box] = False
        self.say(f"{name}: {amount:g}" if amount else f"{name}: stake taken back", style="green")

    def insure(self, args: list[str]) -> None:
        rules, player = self.rules, self.player
        if not rules.insurance:
            self.say("This table sells no insurance.")
            return
        if args and args[0] in ("off", "no", "0"):
            player.insured[:] = False
            self.say("Insurance off.", style="green")
            return
        boxes = [BOX_WORDS.get(a, -1) for a in args] if args else [b for b in range(len(BOXES)) if player.stakes[b] > 0]
        if -1 in boxes:
            self.say("Insure which box? [cyan]ins[/cyan] insures every stake, [cyan]ins r[/cyan] only Rouge.")
            return
        boxes = [b for b in boxes if player.stakes[b] > 0]
        if not boxes:
            self.say("Place a stake first: insurance is bought on top of a stake.")
            return
        insured = player.insured.copy()
        insured[boxes] = True
        need = self._cost(player.stakes, insured)
        if need > player.bankroll:
            self.say(f"You have {player.bankroll:g}; the stakes and premiums would need {need:g}.")
            return
        player.insured = insured
        names = ", ".join(BOXES[b].capitalize() for b in boxes)
        premium = rules.insurance_rate * player.stakes[boxes].sum()
        self.say(f"Insured against the refait: {names} (premium {premium:g}).", style="green")

    def clear(self) -> None:
        self.player.stakes[:] = 0
        self.player.insured[:] = False
        self.say("Stakes taken back.", style="green")

    def again(self) -> None:
        player = self.player
        if not player.last_stakes.any():
            self.say("No bets to repeat yet.")
            return
        if self._cost(player.last_stakes, player.last_insured) > player.bankroll:
            self.say(f"You have {player.bankroll:g} in hand: not enough to repeat the last bets.")
            return
        player.stakes, player.insured = player.last_stakes.copy(), player.last_insured.copy()
        self.say(f"Same bets again: {self._describe_stakes()}.", style="green")

    def choose(self, args: list[str]) -> None:
        if self.rules.refait is not Refait.CHOICE:
            self.say(f"Nothing to choose at this table: {refait_words(self.rules)}.")
            return
        if args not in (["prison"], ["half"]):
            self.say("Choose [cyan]prison[/cyan] or [cyan]half[/cyan], e.g. [cyan]choose prison[/cyan].")
            return
        self.player.to_prison = args[0] == "prison"
        self.say(f"On a refait your stakes go {'to prison' if self.player.to_prison else 'half back'}.", "green")

    def help(self) -> None:
        rate = f"{self.rules.insurance_rate:.0%}" if self.rules.insurance else "not sold here"
        self.console.print(HELP.format(rate=rate, refait=refait_words(self.rules)))

    # -- the coup -----------------------------------------------------------------------------------

    def deal(self) -> None:
        """Deal one coup from the shoe, settle it with the engine, show it and keep the books."""
        player, summary, rules = self.player, self.summary, self.rules
        stakes, insured = player.stakes.copy(), player.insured & (player.stakes > 0)
        premiums = rules.insurance_rate * stakes[insured].sum() if rules.insurance else 0.0
        player.bankroll -= stakes.sum() + premiums
        coup = self.shoe.deal()
        self.show_coup(coup, len(self.history) + 1)
        result = coup.result
        caught = result is Result.REFAIT and bool((stakes > 0).any() | (player.prison.sum() > 0))
        settled = settle(
            rules, stakes, int(result), bool(coup.couleur), insured=insured,
            prison=player.prison, to_prison=np.full(len(BOXES), player.to_prison),
        )  # fmt: skip
        # what happened to the prisoners alone (the same engine, with no new stakes), to tell the player
        alone = settle(rules, np.zeros(len(BOXES)), int(result), bool(coup.couleur), prison=player.prison)
        freed = float(alone.back.sum())
        prisoners_lost = float(player.prison.sum() - freed - alone.prison.sum())
        back = float(settled.back.sum())
        player.bankroll += back
        player.prison = np.array(settled.prison)
        self.history.append(coup)
        # the books
        summary.coups += 1
        summary.coups_bet += bool(stakes.any())
        summary.staked += float(stakes.sum())
        summary.premiums += premiums
        box_edges = np.array([getattr(self.edges, name) for name in BOXES])
        if rules.insurance and self.edges.insured is not None:
            box_edges = np.where(insured, self.insured_edges, box_edges)
        summary.predicted_loss += float((stakes * box_edges).sum())
        summary.refaits += result is Result.REFAIT
        summary.apres += result is Result.APRES
        summary.refaits_caught += caught
        summary.bankroll = player.bankroll
        summary.prisoners = float(player.prison.sum())
        summary.best = max(summary.best, player.bankroll)
        self._tell(stakes, back - freed, premiums, freed, prisoners_lost, result)
        player.last_stakes, player.last_insured = stakes, insured
        if result in (Result.APRES, Result.VOID) and stakes.any():
            # après: the stakes stay where they are for the next coup (docs/rules.md#equal-rows-on-32-to-40);
            # a void coup too
            player.stakes = stakes.copy()
            if self._cost(stakes, insured) > player.bankroll:
                player.stakes[:] = 0
                player.insured[:] = False
            else:
                player.insured = insured.copy()
        else:
            player.stakes[:] = 0
            player.insured[:] = False
        self.show_status()
        if is_ruined(player.bankroll, rules.table_min, player.prison):
            self.say("You have nothing left to stake. The bank thanks you.", style="bold red")
            summary.reason = "ruined"
            self.done = True

    def _tell(
        self, stakes: np.ndarray, back: float, premiums: float, freed: float, prisoners_lost: float, result: Any
    ) -> None:
        """A line on what the coup did to the player's money: ``back`` is what the new stakes
        brought back, ``freed`` what prisoners brought back, ``prisoners_lost`` what prisoners lost."""
        player = self.player
        lines = []
        if result is Result.APRES:
            if stakes.any():
                lines.append(("Après: nothing won or lost; your stakes stay on the table for the next coup.", "cyan"))
            if player.prison.any():
                lines.append(("Your prisoners stay in prison.", "magenta"))
        elif result is Result.VOID:
            if stakes.any():
                lines.append(("The shoe ran out: the coup is void and every bet is returned.", "cyan"))
        elif result is Result.REFAIT:
            total = stakes.sum()
            if total:
                shared = not imprisoned(int(refait_code(self.rules)), player.to_prison)
                text = f"Refait! {back:g} of your {total:g} comes back" if back else "Refait!"
                if back < total and shared:
                    text += f"; the bank takes {total - back:g} (partage: {partage_words(self.rules)})"
                elif back < total:
                    text += (
                        f"{';' if back else ''} {total - back:g} goes en prison: it waits on its box for the next coup"
                    )
                lines.append((text + ".", "bold magenta"))
        elif stakes.any():
            net = back - stakes.sum() - premiums
            verb = "win" if net > 0 else "lose" if net < 0 else "break even"
            lines.append((f"You {verb}: {net:+g}.", "bold green" if net > 0 else "bold red" if net < 0 else "cyan"))
        if freed:
            lines.append((f"A prisoner of {freed:g} is freed: it comes back to you, not paid.", "magenta"))
        if prisoners_lost:
            lines.append((f"A prisoner of {prisoners_lost:g} is lost.", "magenta"))
        for text, style in lines:
            self.say(text, style)

    # -- display --------------------------------------------------------------------------------------

    def show_coup(self, coup: Any, number: int) -> None:
        """Both rows, card by card with suit symbols, then the croupier's announcement."""
        console = self.console
        console.print(Text(f"Coup {number}", style="bold"))
        for name, cards, total in (("Noir ", coup.noir_cards, coup.noir), ("Rouge", coup.rouge_cards, coup.rouge)):
            console.print(Text(f"  {name}  ", style="bold"), end="")
            for c in cards:
                console.print(Text(f"{card_name(c):>3} ", style="white" if is_black(c) else "red"), end="")
                if self.delay:
                    console.file.flush()
                    time.sleep(self.delay)
            console.print(Text(f"  = {total}" if total else "  (shoe empty)", style="bold"))
        console.print(Text(f"  « {coup.announcement()} »", style="italic yellow"))
        if coup.reshuffle:
            console.print(Text("  (the cut card is out: the shoe will be shuffled)", style="dim"))

    def scoreboard(self) -> Text:
        """The last coups, oldest first, in two lines: who won (N, R, = après, 31 refait, · void),
        and Couleur or Inverse (c, i) below."""
        marks = {Result.NOIR: ("N", "bold white"), Result.ROUGE: ("R", "bold red"), Result.APRES: ("=", "cyan")}
        top, bottom = Text("  scoreboard ", style="dim"), Text("             ")
        for coup in self.history[-SCOREBOARD:]:
            mark, style = marks.get(coup.result, ("31" if coup.result is Result.REFAIT else "·", "bold magenta"))
            top.append(f"{mark:>3}", style=style)
            bottom.append(f"{'' if coup.couleur is None else 'c' if coup.couleur else 'i':>3}", style="dim")
        if not self.history:
            return top.append("(no coups yet)", style="dim")
        return top.append("\n").append_text(bottom)

    def show_status(self) -> None:
        player = self.player
        line = Text(f"  bankroll {player.bankroll:g}", style="bold")
        if player.stakes.any():
            line.append(f"   on the table: {self._describe_stakes()}")
        if player.prison.any():
            jailed = ", ".join(
                f"{BOXES[b].capitalize()} {player.prison[b].sum():g}"
                + (" (second prison)" if player.prison[b, 1] else "")
                for b in range(len(BOXES))
                if player.prison[b].any()
            )
            line.append(f"   en prison: {jailed}", style="magenta")
        self.console.print(line)
        self.console.print(self.scoreboard())

    def show_table(self) -> None:
        self.console.print(Text(self.rules.describe(), style="dim"))
        self.show_status()

    def _describe_stakes(self) -> str:
        player = self.player
        parts = [
            f"{BOXES[b].capitalize()} {player.stakes[b]:g}" + (" (insured)" if player.insured[b] else "")
            for b in range(len(BOXES))
            if player.stakes[b] > 0
        ]
        return ", ".join(parts) or "nothing"

    def _cost(self, stakes: np.ndarray, insured: np.ndarray) -> float:
        rate = self.rules.insurance_rate if self.rules.insurance else 0.0
        return float(stakes.sum() + rate * stakes[insured & (stakes > 0)].sum())

    # -- the end ----------------------------------------------------------------------------------

    def finish(self) -> Summary:
        """Print the summary and return it."""
        s = self.summary
        view = Table(title="Leaving the table", title_justify="left", show_header=False, box=None)
        view.add_column(style="bold")
        view.add_column(justify="right")
        view.add_row("coups dealt / with a bet of yours", f"{s.coups} / {s.coups_bet}")
        view.add_row("staked (every stake on every coup)", f"{s.staked:g}")
        if s.premiums:
            view.add_row("insurance premiums", f"{s.premiums:g}")
        view.add_row("bankroll: start → end", f"{s.start:g} → {s.bankroll:g}")
        if s.prisoners:
            view.add_row("still in prison (counted at its average value)", f"{s.prisoners:g} × {s.prisoner_value:.3f}")
        view.add_row("lost" if s.lost >= 0 else "won", f"{abs(s.lost):.2f}")
        view.add_row("the house edge predicted a loss of", f"{s.predicted_loss:.2f}")
        view.add_row("refaits / après dealt", f"{s.refaits} / {s.apres}")
        self.console.print(view)
        if s.staked:
            insured = f" ({self.edges.insured:.2%} when insured)" if self.edges.insured is not None else ""
            self.console.print(
                f"The bank keeps about {self.edges.rouge:.2%} of every stake in the long run{insured}, whatever "
                f"the system: that is what it predicted for your {s.staked:g} staked. Over a few coups luck swings "
                "far more than that; over many coups the edge wins.",
                style="dim",
            )
        return s


def play_session(
    rules: RuleSet | str = "classic",
    bankroll: float = 1000.0,
    seed: int | None = None,
    stream: TextIO | None = None,
    console: Console | None = None,
    delay: float = 0.0,
    shoe: Any = None,
) -> Summary:
    """Play one session at the table ``rules`` (a rule set the command line resolved, or a preset's
    name): read commands from ``stream`` until ``quit``, the end of the input, or ruin.

    :param shoe: the shoe to deal from (default: a :class:`~trente_env.dealer.Shoe` seeded ``seed``);
        tests may pass a scripted one (anything with ``deal() -> Coup``).
    :raises LabError: an unknown preset, or a bankroll below the table minimum or above the most money.
    """
    rules = load_rules(rules)
    if not rules.table_min <= bankroll <= MAX_MONEY:
        raise LabError(
            f"--bankroll must be from the table minimum {rules.table_min:g} to {MAX_MONEY:g}, got {bankroll:g}"
        )
    stream = stream if stream is not None else sys.stdin
    console = console or out
    shoe = shoe or Shoe(rules, np.random.default_rng(seed))
    game = Game(rules, bankroll, shoe, console, delay)
    interactive = bool(getattr(stream, "isatty", lambda: False)())
    console.print(Text(f"Trente et Quarante — {rules.describe()}", style="bold"))
    console.print(f"You sit down with {bankroll:g} units. Type [cyan]help[/cyan] for the commands.")
    while not game.done:
        console.print(Text("> ", style="bold cyan"), end="")
        line = stream.readline()
        if not line:  # end of input: leave as if by quit
            console.print()
            game.summary.reason = "end of input"
            break
        if not interactive:
            console.print(line.rstrip("\n"), style="cyan", highlight=False, markup=False)
        try:
            game.handle(line)
        except Exception as exc:  # a slip of ours must not throw the student out of the game
            game.say(
                f"Sorry, that went wrong ({escape(type(exc).__name__)}: {escape(str(exc))}); try again or type help."
            )
    return game.finish()


__all__ = ["BOX_WORDS", "Game", "Player", "Summary", "play_session"]
