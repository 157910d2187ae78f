"""The betting systems mode: each student picks a system, which plays the coups the teacher deals.

A system is one of :data:`SYSTEMS`, made by the lab's registry
(:func:`strategies.registry.make_strategy`) at the table's rules: the very policy the tournament
plays. It sits down with :data:`BANKROLL` units on the next coup dealt after the student picks it (a
new pick sits down afresh) and plays every coup from then on, as a session of the session runner
would (:mod:`strategies.runner`): its policy reads what a table's observation shows (the money in
hand, exact; the coups of its session; the last coup's result and Couleur; its prisoners) through
:meth:`strategies.base.Strategy.act`, an observation written by the environments' own kernel
(:meth:`trente_env.layout.Layout.observe_state`), and the croupier takes and settles its stakes as at
every table of the lab (:func:`trente_env.croupier.bet_and_settle`: the stakes made legal, their cost
with the premium, :func:`~trente_env.settle.settle_box`). Nothing here decides what a coup pays or what
a seat sees; tests check every system's observation, money and prisoners, coup by coup, against the
vector env's and the session runner's on the same coups. A system whose money falls below the table minimum with
nothing in prison is ruined and stakes no more: the ruin rule of every session loop
(:func:`trente_env.croupier.is_ruined`).

Beside each bankroll stands the exact expectation of the very stakes placed, ``-edge x staked``:
each unit's edge is :func:`trente_env.odds.stake_weighted_edge` of one unit on its box (insured or
not; on a rigged table, with the rig's pattern showing or not), the edge the tournament shows, and
the expectation of many stakes is the sum of theirs.

Only each student's pick and the coup it sat down at are kept in the session file: the money is
computed again from the coups, which are themselves dealt again and checked on a restart.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from trente_env.codes import ACTION_WIDTH, NO_COUP, NOIR, UNDECIDED, Result, scoreboard_couleur
from trente_env.rules import RuleSet

#: The systems a student may pick (the registry's names), in the order the pages offer them.
SYSTEMS = ("flat", "martingale", "paroli", "dalembert", "fibonacci")
BANKROLL = 100.0  #: units a system sits down with (one-unit base stakes at a 1-1000 table)


@dataclass
class Seat:
    """A student's system: its row in :class:`Books`, and the coup (index) it sat down at."""

    student: int
    system: str
    start: int
    row: int


def coup_codes(record: dict[str, Any]) -> tuple[int, bool]:
    """A coup as the engine reads it, from the classroom's record: its result code and whether
    Couleur (rather than Inverse) won."""
    return int(Result[record["result"].upper()]), record["couleur"] == "couleur"


def unit_edges(rules: RuleSet) -> np.ndarray:
    """(2, 2, 4): the exact edge of one unit staked [rig pattern showing?][uninsured, insured][box],
    each :func:`~trente_env.odds.stake_weighted_edge` of that one unit (a fair table's two halves are
    the same). Boxes closed or insurance not sold at the table are never staked: their edge is 0."""
    from trente_env.odds import stake_weighted_edge

    edges = np.zeros((2, 2, 4))
    for held in (0, 1):
        for insured in range(2 if rules.insurance else 1):
            for box in range(len(rules.boxes)):
                unit = np.zeros((2, 4))
                unit[insured, box] = 1.0
                rig = float(held and box == NOIR)
                edges[held, insured, box] = stake_weighted_edge(rules, unit, rig_staked=rig)
    return edges


class Books:
    """Every student's system at one table, played coup by coup (:meth:`step`): one row of arrays a
    seat, and for each system its policy's state over its seats (in the order of their rows)."""

    def __init__(self, rules: RuleSet) -> None:
        from trente_env.croupier import table_rules
        from trente_env.layout import DEFAULT_STAKE_LEVELS, Layout
        from trente_env.settle import rig_codes

        self.rules = rules
        self.coups = 0  #: coups played so far (the index of the next)
        self.seats: dict[int, Seat] = {}  #: student -> their live seat
        self._strategies: dict[str, Any] = {}
        self._groups: dict[str, tuple[list[int], Any]] = {}  # system -> (its rows, its policy's state)
        self._edges = unit_edges(rules)
        self._history = max(1, rig_codes(rules).size)  # the scoreboard a seat keeps: what the rig reads
        self._layout = Layout(rules, "full", "dict", self._history, False, DEFAULT_STAKE_LEVELS)  # what a seat sees
        self._table = table_rules(rules)  # the rules as the croupier reads them
        n = 0
        self.money = np.zeros(n)
        self.prison = np.zeros((n, 4, 2))
        self.staked = np.zeros(n)
        self.expected = np.zeros(n)  #: the exact expectation of the stakes placed (negative: a loss)
        self.board = np.zeros((n, self._history), dtype=np.int64)  #: each seat's results, most recent first
        self.couleurs = np.zeros((n, self._history), dtype=np.int64)  #: each seat's Couleur codes, most recent first
        self.ruined = np.zeros(n, dtype=np.bool_)

    _ROWS = ("money", "prison", "staked", "expected", "board", "couleurs", "ruined")  # one row a seat

    def strategy(self, system: str) -> Any:
        """The registry's ``system`` at this table (made once). The caller checks the name first:
        nothing outside :data:`SYSTEMS` reaches the registry, which would import a module by its name."""
        if system not in SYSTEMS:
            raise ValueError(f"not a classroom system: {system!r}")
        if system not in self._strategies:
            from strategies.registry import make_strategy

            self._strategies[system] = make_strategy(system, self.rules)
        return self._strategies[system]

    def sit(self, student: int, system: str | None) -> Seat | None:
        """``student`` plays ``system`` from the next coup with :data:`BANKROLL` units (None: stands up)."""
        self.stand(student)
        if system is None:
            return None
        strategy = self.strategy(system)
        row = self.money.size
        self.money = np.append(self.money, BANKROLL)
        self.prison = np.concatenate([self.prison, np.zeros((1, 4, 2))])
        self.staked = np.append(self.staked, 0.0)
        self.expected = np.append(self.expected, 0.0)
        self.board = np.concatenate([self.board, np.full((1, self._history), NO_COUP, dtype=np.int64)])
        self.couleurs = np.concatenate([self.couleurs, np.full((1, self._history), UNDECIDED, dtype=np.int64)])
        self.ruined = np.append(self.ruined, False)
        rows, state = self._groups.get(system, ([], None))
        grown = strategy.initial_state(len(rows) + 1)
        if state is not None:  # the rows already seated keep their memory
            grown.ints[: state.n] = state.ints
            grown.start[: state.n] = state.start
        self._groups[system] = ([*rows, row], grown)
        seat = self.seats[student] = Seat(student, system, self.coups, row)
        return seat

    def stand(self, student: int) -> None:
        """``student``'s system (if any) leaves the table (its stakes in prison with it)."""
        seat = self.seats.pop(student, None)
        if seat is None:
            return
        gone = seat.row
        rows, state = self._groups.pop(seat.system)
        keep = [j for j, row in enumerate(rows) if row != gone]
        if keep:
            shrunk = self._strategies[seat.system].initial_state(len(keep))
            shrunk.ints[:] = state.ints[keep]
            shrunk.start[:] = state.start[keep]
            self._groups[seat.system] = ([rows[j] for j in keep], shrunk)
        for name in self._ROWS:
            setattr(self, name, np.delete(getattr(self, name), gone, axis=0))
        for other in self.seats.values():
            other.row -= other.row > gone
        self._groups = {s: ([r - (r > gone) for r in rows], st) for s, (rows, st) in self._groups.items()}

    def observe(self) -> dict[str, np.ndarray]:
        """Every seat's observation, one row a seat, as a table of the env shows it: written by the
        tables' own kernel from the seats' money, prisoners, coups since they sat down and scoreboard
        (:meth:`trente_env.layout.Layout.observe_state`)."""
        from trente_env.tables import TableState

        n = self.money.size
        starts = np.zeros(n, dtype=np.int64)
        for seat in self.seats.values():
            starts[seat.row] = seat.start
        state = TableState(
            shoes=np.zeros((n, 0), dtype=np.uint8), pos=np.zeros(n, dtype=np.int64),
            needs_shuffle=np.zeros(n, dtype=np.bool_), bankroll=self.money, prison=self.prison,
            coups=self.coups - starts,  # a seat that sits down now starts its session
            results=self.board, couleurs=self.couleurs, seen=np.zeros((n, 0), dtype=np.int64),
        )  # fmt: skip
        return self._layout.observe_state(state)

    def step(self, record: dict[str, Any]) -> None:
        """Play one coup (the classroom's record of it) with every live system: each policy acts on
        its seats' observations (:meth:`observe`), and the croupier takes and settles every seat's
        bets as at every table (:func:`trente_env.croupier.bet_and_settle`)."""
        from trente_env.croupier import bet_and_settle
        from trente_env.settle import rig_holds

        result, couleur = coup_codes(record)
        n = self.money.size
        actions = np.zeros((n, ACTION_WIDTH))
        observation = self.observe()
        for system, (rows, state) in self._groups.items():
            r = np.array(rows)
            seen = {part: value[r] for part, value in observation.items()}
            chosen, state = self._strategies[system].act(seen, state, money=self.money[r])
            self._groups[system] = (rows, state)
            actions[r] = chosen
        actions[self.ruined] = 0.0
        stakes, insured, back = np.zeros((n, 4)), np.zeros((n, 4), dtype=np.bool_), np.zeros((n, 4))
        held = rig_holds(self.rules, self.board).astype(np.int64)  # the scoreboard the stakes saw
        for t in range(n):
            self.money[t], _ = bet_and_settle(actions[t], self.money[t], self.prison[t], result, couleur, self.board[t],
                                              self._table, (stakes[t], insured[t], back[t]))  # fmt: skip
        self.staked += stakes.sum(axis=1)
        unit = self._edges[held]  # (n, 2, 4): each seat's unit edges on this coup
        self.expected -= (stakes * np.where(insured, unit[:, 1], unit[:, 0])).sum(axis=1)
        self.board[:, 1:] = self.board[:, :-1]
        self.board[:, 0] = result
        self.couleurs[:, 1:] = self.couleurs[:, :-1]
        self.couleurs[:, 0] = scoreboard_couleur(result, couleur)
        self.ruined |= self.now_ruined()
        self.coups += 1

    def now_ruined(self) -> np.ndarray:
        """(seats,) whether each seat's money and prisoners now meet the ruin rule of every session loop
        (:func:`trente_env.croupier.is_ruined`: below the table minimum, nothing in prison). A ruined
        seat stays ruined (:attr:`ruined`)."""
        from trente_env.croupier import is_ruined

        table_min = self.rules.table_min
        return np.array([is_ruined(money, table_min, prison) for money, prison in zip(self.money, self.prison)],
                        dtype=np.bool_)  # fmt: skip

    # -- what the pages show ---------------------------------------------------------------------

    def seat_view(self, student: int) -> dict[str, Any] | None:
        """A student's system: its name, the coup it sat down at (1 = the first), bankroll, stakes in
        prison, total staked, net, and the exact expectation of its stakes."""
        seat = self.seats.get(student)
        if seat is None:
            return None
        r = seat.row
        return {
            "system": seat.system,
            "from": seat.start + 1,
            "coups": self.coups - seat.start,
            "bankroll": float(self.money[r]),
            "prison": float(self.prison[r].sum()),
            "staked": float(self.staked[r]),
            "net": float(self.money[r] - BANKROLL),
            "expected": float(self.expected[r]),
            "ruined": bool(self.ruined[r]),
        }

    def summary(self) -> dict[str, Any]:
        """The class's systems: per system and for the whole class, the players, their bankrolls
        (mean, least, most), total staked, net, and the exact expectation of those stakes."""

        def totals(rows: list[int]) -> dict[str, Any]:
            r = np.array(rows, dtype=np.int64)
            money = self.money[r]
            return {
                "players": int(r.size),
                "mean": float(money.mean()) if r.size else None,
                "least": float(money.min()) if r.size else None,
                "most": float(money.max()) if r.size else None,
                "staked": float(self.staked[r].sum()),
                "net": float((money - BANKROLL).sum()),
                "expected": float(self.expected[r].sum()),
                "ruined": int(self.ruined[r].sum()),
            }

        by_system = {s: [seat.row for seat in self.seats.values() if seat.system == s] for s in SYSTEMS}
        edge = self._edges[0, 0, NOIR]
        return {
            "bankroll": BANKROLL,
            "choices": list(SYSTEMS),
            "edge": float(edge),
            "rows": [{"system": s, **totals(rows)} for s, rows in by_system.items()],
            "class": totals([seat.row for seat in self.seats.values()]),
        }


__all__ = ["BANKROLL", "SYSTEMS", "Books", "Seat", "coup_codes", "unit_edges"]
