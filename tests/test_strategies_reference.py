"""The vectorised strategies stake exactly as a plain one-session Python loop, over many random sessions.

The reference below is written from the systems' rules, one session at a time, with plain Python
numbers and lists; it shares no code with :mod:`strategies`. Both watch the same sessions of the
native vector env (small bankrolls and a low table maximum, so limits, ruin, prisoners and
walk-aways all happen), and every stake of every session must agree.
"""

from __future__ import annotations

import zlib

import gymnasium as gym
import numpy as np
import pytest

import trente_env  # noqa: F401  (registers the ids)
from strategies import make_strategy
from trente_env.rules import get_rules

NOIR, ROUGE, APRES, REFAIT = 0, 1, 2, 3
BOX = {"noir": 0, "rouge": 1, "couleur": 2, "inverse": 3}
FIB = [1, 1]
while len(FIB) < 60:
    FIB.append(FIB[-1] + FIB[-2])
M64 = 2**64 - 1


def box_won(box: int, result: int, couleur: int) -> bool:
    if box == 0:
        return result == NOIR
    if box == 1:
        return result == ROUGE
    return couleur == (0 if box == 2 else 1)


class Reference:
    """One session of one system, in plain Python."""

    def __init__(self, system: str, rules, row: int, **p) -> None:
        self.system, self.rules, self.row, self.p = system, rules, row, p
        self.base = p.get("base", 1)
        self.box = BOX[p.get("box", "noir")]
        self.episode = 0
        self.start: float | None = None  # the session starts at the first observation

    def new_session(self, bankroll: float | None) -> None:
        self.start = bankroll
        self.last_box, self.last_stake = -1, 0
        self.jail_box, self.jail = -1, 0
        self.walked = False
        self.side, self.run = -1, 0
        self.episode += 1
        self.restart()

    def restart(self) -> None:
        self.units, self.level, self.step, self.profit = 1, 0, 0, 0
        self.line = list(self.p.get("line", (1, 2, 3, 4)))

    # the systems ------------------------------------------------------------------------------
    def nominal(self) -> int:
        s = self.system
        if s == "paroli":
            return 2**self.level
        if s == "1-3-2-6":
            return list(self.p.get("sequence", (1, 3, 2, 6)))[self.level]
        if s == "fibonacci":
            return FIB[self.step]
        if s == "labouchere":
            return self.line[0] + self.line[-1] if len(self.line) > 1 else self.line[0]
        return self.units

    def update(self, win: bool, loss: bool, amount: int) -> None:
        s, cap = self.system, 2**40
        if not (win or loss):
            return
        if s == "martingale":
            self.units = 1 if win else min(self.units * 2, cap)
        elif s == "grand-martingale":
            self.units = 1 if win else min(self.units * 2 + 1, cap)
        elif s == "reverse-martingale":
            self.units = min(self.units * 2, cap) if win else 1
        elif s in ("paroli", "1-3-2-6"):
            n = self.p.get("steps", 3) if s == "paroli" else len(self.p.get("sequence", (1, 3, 2, 6)))
            self.level = self.level + 1 if win else 0
            if self.level >= n:
                self.level = 0
        elif s in ("dalembert", "contra-dalembert"):
            up = loss if s == "dalembert" else win
            self.units = self.units + 1 if up else max(1, self.units - 1)
        elif s == "fibonacci":
            self.step = max(0, self.step - 2) if win else min(self.step + 1, 59)
        elif s == "labouchere":
            if loss:
                self.line.append(self.nominal())
            else:
                self.line = self.line[1:-1]
                if not self.line:
                    self.restart()
        elif s == "oscars-grind":
            self.profit += amount if win else -amount
            goal = self.p.get("goal", 1) * self.base
            if win and self.profit >= goal:
                self.restart()
            elif win:
                left = -(-(goal - self.profit) // self.base)
                self.units = max(1, min(self.units + 1, left))

    def see(self, result: int, couleur: int) -> None:
        column = self.p.get("column", "colour")
        side = (result if result in (NOIR, ROUGE) else -1) if column == "colour" else (couleur if couleur < 2 else -1)
        if side >= 0:
            self.run = self.run + 1 if side == self.side else 1
            self.side = side

    def want(self, coups: int) -> tuple[int, int]:
        s = self.system
        if s == "never":
            return -1, 0
        if s in ("streak", "anti-streak"):
            first = 0 if self.p.get("column", "colour") == "colour" else 2
            if self.run < self.p.get("k", 3):
                return -1, self.base
            return first + (self.side if s == "streak" else 1 - self.side), self.base
        if s == "random":
            pick = splitmix_uniform(self.p.get("seed", 0), self.row, self.episode, coups, 0)
            go = splitmix_uniform(self.p.get("seed", 0), self.row, self.episode, coups, 1) < self.p.get("p_bet", 1.0)
            boxes = [BOX[b] for b in self.p.get("boxes", ("noir", "rouge"))]
            return (boxes[min(int(pick * len(boxes)), len(boxes) - 1)] if go else -1), self.base
        return self.box, self.base * self.nominal()

    # one coup ----------------------------------------------------------------------------------
    def act(self, bankroll: float, coups: int, result: int, couleur: int, prison: list[float]) -> tuple[int, int]:
        if coups == 0 or self.start is None:
            self.new_session(bankroll)
        else:
            self.see(result, couleur)
            win = loss = False
            amount = self.last_stake
            if self.last_stake > 0:
                won = box_won(self.last_box, result, couleur)
                win = result in (NOIR, ROUGE) and won
                loss = result in (NOIR, ROUGE) and not won
                spared = self.p.get("insure", False) or (self.rules.refait_spares_couleur and self.last_box >= 2)
                if result == REFAIT and not spared:
                    if self.p.get("refait", "loss") == "loss":
                        loss = True
                    elif prison[self.last_box] + prison[4 + self.last_box] > 0:
                        self.jail_box, self.jail = self.last_box, self.last_stake
            elif self.jail > 0 and prison[self.jail_box] + prison[4 + self.jail_box] == 0:
                if not box_won(self.jail_box, result, couleur):
                    loss, amount = True, self.jail
                self.jail_box, self.jail = -1, 0
            self.update(win, loss, amount)
        profit = bankroll - self.start
        if self.p.get("stop_win") is not None and profit >= self.p["stop_win"]:
            self.walked = True
        if self.p.get("stop_loss") is not None and -profit >= self.p["stop_loss"]:
            self.walked = True
        box, stake = self.want(coups)
        rate = self.rules.insurance_rate if self.p.get("insure") else 0.0
        money = bankroll * (1 - 1e-6) / (1 + rate) if rate else bankroll
        afford = int(np.floor(money))
        table_max = int(self.rules.table_max)
        if box >= 0 and stake > 0 and not self.walked and self.jail == 0:
            if (stake > table_max or stake > afford) and self.p.get("on_limit", "reset") == "reset":
                self.restart()
                box, stake = self.want(coups)
            stake = min(stake, table_max, afford)
            if stake < self.rules.table_min:
                stake = 0
        else:
            stake = 0
        self.last_box, self.last_stake = (box, stake) if stake > 0 else (-1, 0)
        return self.last_box, stake


def splitmix_uniform(seed: int, row: int, episode: int, coup: int, stream: int) -> float:
    """The counter-based draw of the random bettor, in Python integers."""

    def mix(x: int) -> int:
        x ^= x >> 30
        x = (x * 0xBF58476D1CE4E5B9) & M64
        x ^= x >> 27
        x = (x * 0x94D049BB133111EB) & M64
        return x ^ (x >> 31)

    golden = 0x9E3779B97F4A7C15
    x = (seed * golden) & M64
    for part in (row, episode, coup, stream):
        x = mix(x ^ ((part + golden) & M64))
    return (x >> 11) * 2.0**-53


CASES = [
    ("flat", {"base": 2, "box": "couleur"}),
    ("martingale", {}),
    ("martingale", {"on_limit": "cap", "box": "rouge"}),
    ("martingale", {"refait": "wait", "stop_loss": 30}),
    ("martingale", {"insure": True, "base": 2}),
    ("grand-martingale", {"stop_win": 10}),
    ("reverse-martingale", {"box": "inverse"}),
    ("paroli", {"steps": 4, "refait": "wait"}),
    ("1-3-2-6", {}),
    ("dalembert", {"base": 3}),
    ("contra-dalembert", {"on_limit": "cap"}),
    ("fibonacci", {"refait": "wait"}),
    ("labouchere", {"line": (1, 2, 3)}),
    ("labouchere", {"on_limit": "cap", "refait": "wait"}),
    ("oscars-grind", {"base": 2, "goal": 2}),
    ("oscars-grind", {"refait": "wait", "stop_win": 20}),
    ("streak", {"k": 2}),
    ("anti-streak", {"k": 2, "column": "couleur", "refait": "wait"}),
    ("random", {"seed": 5, "p_bet": 0.7, "boxes": ("noir", "rouge", "couleur", "inverse")}),
    ("never", {}),
]


def spec_of(system: str, params: dict) -> str:
    def text(v: object) -> str:
        return "-".join(map(str, v)) if isinstance(v, tuple) else str(v).lower()

    return system + (":" + ",".join(f"{k}={text(v)}" for k, v in params.items()) if params else "")


@pytest.mark.parametrize("preset", ["classic", "partage", "second-prison"])
@pytest.mark.parametrize(("system", "params"), CASES, ids=[spec_of(*c) for c in CASES])
def test_vectorised_stakes_equal_the_one_session_loop(system: str, params: dict, preset: str) -> None:
    rules = get_rules(preset, table_max=40)
    n, coups = 48, 250
    venv = gym.make_vec(
        "TrenteEtQuarante-v0", num_envs=n, rules=rules, bankroll=60, max_episode_steps=120, coup_info=True
    )  # short sessions: autoreset and new sessions are exercised too
    policy = make_strategy(spec_of(system, params), rules)
    refs = [Reference(system, rules, i, **params) for i in range(n)]
    obs, _ = venv.reset(seed=zlib.crc32(f"{system}{params}{preset}".encode()) % 10_000)
    state = None
    betting = 0
    for _ in range(coups):
        actions, state = policy.act(obs, state)
        for i, ref in enumerate(refs):
            box, stake = ref.act(
                float(obs["bankroll"][i, 0]), int(obs["coups"][i, 0]), int(obs["results"][i, 0]),
                int(obs["couleur"][i, 0]), obs["prison"][i].tolist(),
            )  # fmt: skip
            expected = np.zeros(4, dtype=np.int64)
            if stake > 0:
                expected[box] = stake
            assert actions[i, :4].tolist() == expected.tolist(), (i, int(obs["coups"][i, 0]))
        betting += int((actions[:, :4] > 0).any(axis=1).sum())
        obs, _, _, _, info = venv.step(actions)
        assert not info["clipped"][info["_clipped"]].any()  # the strategy's own stakes are always legal
    if system != "never":
        assert betting > n * coups // 10
