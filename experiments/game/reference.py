"""The whole-shoe rates ``simulate`` sets its counts beside: a long dealt count, stored with the package.

Over whole shoes dealt to the cut card the rates differ from a full shoe's first coup (a depleted
shoe deals differently), and no exact engine gives them in reasonable time. So they are counted
once per way of dealing (packs, cut card, burnt and dead cards: what the dealt coups depend on) by
the same bulk dealer, over a great many shards of :data:`SHARD` coups from their own stream
(:func:`trente_env.seeding.reference_shard_generator`), far more coups than a run deals.

The file ``trente_env/data/simulate_reference.json`` keeps, per way of dealing, the number of
shards, and for each event the sums over shards of its count ``x``, of ``x**2`` and of ``x * c``
(``c`` the shard's complete coups), beside the sums of ``c`` and ``c**2``: the rate is
``sum(x) / sum(c)`` and its standard error the delta method over shards (batch means: it holds
whatever the coups of a shoe have in common). Its provenance (seed, stream, generator, code) is in
the file. ``python -m experiments.game.reference`` grows it; a way of dealing that is not in it is
dealt on first use (:func:`reference_rates`: :data:`FALLBACK_TIMES` times the run's coups, at least
:data:`FALLBACK_MIN` coups) and kept in the user's cache folder.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import numpy as np

from trente_env.codes import Result
from trente_env.coup import ROW_TOTALS
from trente_env.dealer import TALLY_NOIR, TALLY_RESULTS, TALLY_ROUGE

#: Coups in a shard of a run and of the reference.
SHARD = 2_000_000
#: The seed of the stored reference's stream (:func:`trente_env.seeding.reference_shard_generator`).
REFERENCE_SEED = 45_045
DATA_FILE = Path(__file__).resolve().parents[2] / "trente_env" / "data" / "simulate_reference.json"
#: A way of dealing not in the data file is dealt on first use: this many times the run's coups.
FALLBACK_TIMES = 4
FALLBACK_MIN = 20_000_000  #: ... and at least this many coups

#: The events counted, in the order of the report: each row's total, then the results and Couleur/Inverse.
EVENTS: tuple[str, ...] = (
    *(f"noir row ends on {t}" for t in ROW_TOTALS),
    *(f"rouge row ends on {t}" for t in ROW_TOTALS),
    "refait",
    "après",
    "noir wins",
    "rouge wins",
    "couleur wins",
    "inverse wins",
)
N_EVENTS = len(EVENTS)


def dealing_key(rules) -> str:
    """What the dealt coups depend on, as the data file's key."""
    return f"decks={rules.decks} cut_card={rules.cut_card} burn={rules.burn} dead_cards={rules.dead_cards}"


def tally_events(tally: np.ndarray) -> tuple[np.ndarray, int]:
    """A dealer's tally (:func:`~trente_env.dealer.tally_coups`) as the counts of the :data:`EVENTS`
    (int64) and the number of void coups."""
    rows = [int(tally[first + t - ROW_TOTALS.start]) for first in (TALLY_NOIR, TALLY_ROUGE) for t in ROW_TOTALS]
    joint = tally[TALLY_RESULTS:]  # (result, couleur) pairs

    def wins(result: Result) -> int:
        return int(joint[2 * result] + joint[2 * result + 1])

    results = [
        wins(Result.REFAIT),
        wins(Result.APRES),
        wins(Result.NOIR),
        wins(Result.ROUGE),
        int(joint[2 * Result.NOIR + 1] + joint[2 * Result.ROUGE + 1]),
        int(joint[2 * Result.NOIR] + joint[2 * Result.ROUGE]),
    ]
    return np.array(rows + results, dtype=np.int64), wins(Result.VOID)


def empty_entry() -> dict[str, Any]:
    zeros = [0] * N_EVENTS
    return {"shards": 0, "coups": 0, "complete": 0, "complete_sq": 0, "x": zeros, "x_sq": zeros, "x_c": zeros}


def extend(entry: dict[str, Any], rules, shards: int, seed: int = REFERENCE_SEED) -> dict[str, Any]:
    """``entry`` grown by its next ``shards`` shards (shard ``i`` dealt from
    :func:`~trente_env.seeding.reference_shard_generator` ``(seed, i)``); sums kept as exact integers."""
    from trente_env.dealer import tally_coups
    from trente_env.seeding import reference_shard_generator

    entry = {k: (list(v) if isinstance(v, list) else v) for k, v in entry.items()}
    for i in range(entry["shards"], entry["shards"] + shards):
        events, void = tally_events(tally_coups(rules, SHARD, reference_shard_generator(seed, i)))
        c = SHARD - void
        xs = [int(x) for x in events]
        entry["x"] = [a + x for a, x in zip(entry["x"], xs)]
        entry["x_sq"] = [a + x * x for a, x in zip(entry["x_sq"], xs)]
        entry["x_c"] = [a + x * c for a, x in zip(entry["x_c"], xs)]
        entry["complete"] += c
        entry["complete_sq"] += c * c
        entry["coups"] += SHARD
        entry["shards"] = i + 1
    return entry


def rates(entry: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """The rates of the :data:`EVENTS` in ``entry`` and their standard errors (the delta method over
    shards: ``sum_i (x_i - r c_i)**2`` computed exactly from the integer sums)."""
    n, big_c = entry["shards"], entry["complete"]
    rate = np.array([x / big_c for x in entry["x"]])
    if n < 2:
        return rate, np.full(N_EVENTS, np.nan)
    se = []
    for x, x_sq, x_c in zip(entry["x"], entry["x_sq"], entry["x_c"]):
        # sum_i (x_i C - X c_i)^2 = C^2 sum x^2 - 2 X C sum x c + X^2 sum c^2, exact in integers
        scaled = big_c * big_c * x_sq - 2 * x * big_c * x_c + x * x * entry["complete_sq"]
        se.append(np.sqrt(scaled / (n - 1) * n) / big_c**2)
    return rate, np.array(se)


def _read(path: Path) -> dict[str, Any]:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return document if isinstance(document, dict) and isinstance(document.get("entries", {}), dict) else {}


def _valid(entry: Any) -> bool:
    """Whether ``entry`` holds the sums :func:`extend` keeps (a damaged cache is dealt again)."""
    if not isinstance(entry, dict) or entry.keys() != empty_entry().keys():
        return False
    sums = [entry[k] for k in ("x", "x_sq", "x_c")]
    counts = [entry[k] for k in ("shards", "coups", "complete", "complete_sq")]
    return all(isinstance(v, list) and len(v) == N_EVENTS and all(type(a) is int for a in v) for v in sums) and all(
        type(v) is int and v >= 0 for v in counts
    )


def cache_file() -> Path:
    """Where references dealt on first use are kept (``$XDG_CACHE_HOME/trente-lab``)."""
    home = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(home) / "trente-lab" / "simulate_reference.json"


def reference_rates(rules, n_coups: int) -> tuple[np.ndarray, np.ndarray, int, str]:
    """The whole-shoe rates for ``rules``' way of dealing, their standard errors, the coups they were
    counted on and where they come from (``"package"`` or ``"cache"``). Not stored: dealt now from the
    reference stream, :data:`FALLBACK_TIMES` times ``n_coups`` (at least :data:`FALLBACK_MIN`), kept in
    :func:`cache_file` and grown when a longer run needs more."""
    key = dealing_key(rules)
    stored = _read(DATA_FILE).get("entries", {}).get(key)
    if stored is not None:
        return (*rates(stored), stored["coups"], "package")
    path = cache_file()
    cached = _read(path)
    entry = cached.get("entries", {}).get(key)
    entry = entry if _valid(entry) else empty_entry()
    need = -(-max(FALLBACK_MIN, FALLBACK_TIMES * n_coups) // SHARD)
    if entry["shards"] < need:
        from experiments.files import atomic_write_json

        entry = extend(entry, rules, need - entry["shards"])
        cached.setdefault("entries", {})[key] = entry
        cached.update(_provenance())
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_json(path, cached)
        except OSError:
            pass  # no cache folder: dealt again next time
    return (*rates(entry), entry["coups"], "cache")


def _provenance() -> dict[str, Any]:
    return {
        "generator": "python -m experiments.game.reference (experiments/game/reference.py)",
        "seed": REFERENCE_SEED,
        "stream": "shard i: numpy.random.default_rng(SeedSequence([seed, 0x5EF], spawn_key=(i,))), "
        "dealt by trente_env.dealer.tally_coups",
        "shard_coups": SHARD,
        "sums": "per way of dealing, over shards: x (event count), x_sq, x_c (c: complete coups), complete, "
        "complete_sq",
    }


def _commit() -> str:
    try:
        done = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, cwd=DATA_FILE.parent)
        return done.stdout.strip() or "unknown"
    except OSError:
        return "unknown"


def main() -> None:
    """Grow the stored reference: every preset's way of dealing, in rounds that double the coups, the
    classic shoe to ``--coups`` and the others to ``--others`` times that; written after every block."""
    from experiments.files import atomic_write_json
    from trente_env.rules import PRESETS

    parser = argparse.ArgumentParser(description=main.__doc__.splitlines()[0])
    parser.add_argument("--coups", type=float, default=1e11, help="coups of the classic shoe at the end")
    parser.add_argument("--others", type=float, default=0.25, help="the other ways of dealing, this share of it")
    parser.add_argument("--block", type=int, default=25, help="shards between two writes of the file")
    parser.add_argument("--path", type=Path, default=DATA_FILE)
    args = parser.parse_args()
    document = _read(args.path)
    document.update(_provenance())
    document.setdefault("code", _commit())
    entries = document.setdefault("entries", {})
    ways = {dealing_key(rules): rules for rules in PRESETS.values()}
    classic = dealing_key(PRESETS["classic"])
    target = 1e9
    while True:
        target = min(2 * target, args.coups)
        for key, rules in ways.items():
            want = int(target * (1.0 if key == classic else args.others)) // SHARD
            while (have := entries.get(key, empty_entry())["shards"]) < want:
                start = time.perf_counter()
                entries[key] = extend(entries.get(key, empty_entry()), rules, min(args.block, want - have))
                atomic_write_json(args.path, document)
                done = entries[key]["coups"]
                print(f"{key}: {done:,} coups ({time.perf_counter() - start:.1f} s a block)", flush=True)
        if target >= args.coups:
            break


if __name__ == "__main__":
    main()
