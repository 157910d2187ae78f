"""The nodes of the fast paths' finite-shoe correction: balanced shoes of 13 k cards (k quarter-packs;
every full shoe of 1..8 packs is one), their exact odds stored in ``data/counting_nodes.json``
(rebuilt by :func:`write_nodes`, checked when loaded), the corrections recomputed from them by this
code (exact minus approximation at the node, linear in the cards removed from it).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from trente_env.odds.approximate import coupled, with_replacement
from trente_env.odds.exact import exact_values
from trente_env.odds.prefixes import compact_prefixes
from trente_env.odds.shoe import COUPLED, COUPLED_MAX, N_OUT, N_VALUES, PACK, REPLACEMENT

QUARTER = PACK // 4  #: a quarter of a pack: one card of each value, four tens
#: The nodes: 13 k cards, k quarter-packs; every full shoe of 1..8 packs is one (k = 4 d).
NODE_QUARTERS = (1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 16, 20, 24, 28, 32)
NODES_FILE = Path(__file__).resolve().parent.parent / "data" / "counting_nodes.json"
LAYOUT = "pair[10x10], first_edge[10], void, cards_per_coup"


def node_odds(quarters: int) -> dict[str, object]:
    """The exact odds (:data:`N_OUT` numbers) of a node, ``quarters`` quarter-packs, and of the node
    less one card of each value: what the corrections of the fast paths are built from."""
    ref = QUARTER * quarters
    removed = [exact_values(ref - np.eye(N_VALUES, dtype=np.int64)[v]).tolist() for v in range(N_VALUES)]
    return {
        "cards": int(ref.sum()), "composition": ref.tolist(), "odds": exact_values(ref).tolist(), "removed": removed,
    }  # fmt: skip


def write_nodes(quarters: tuple[int, ...] = NODE_QUARTERS, path: Path = NODES_FILE) -> None:
    """Compute the nodes (about a minute each on two cores for the larger ones) and store them in
    ``path``, keeping the nodes already there; the file is rewritten after each node."""
    table = json.loads(path.read_text()) if path.exists() else {"layout": LAYOUT, "nodes": {}}
    for k in quarters:
        table["nodes"][str(k)] = node_odds(k)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(table, indent=0) + "\n")
        tmp.replace(path)


@dataclass(frozen=True)
class Nodes:
    """The nodes' exact odds and the corrections built from them, as arrays for compiled code."""

    cards: np.ndarray  #: (K,) cards of each node
    composition: np.ndarray  #: (K, 10) value counts of each node
    exact: np.ndarray  #: (K, N_OUT) the exact odds of each node
    exact_removed: np.ndarray  #: (K, 10, N_OUT) the exact odds of each node less one card of each value
    replacement_correction: np.ndarray  #: (K, N_OUT) exact minus with-replacement odds
    replacement_removal: np.ndarray  #: (K, 10, N_OUT) how that correction changes as one card goes
    coupled_correction: np.ndarray  #: (K, N_OUT) exact minus coupled-rows odds (0 at the 13-card node)
    coupled_removal: np.ndarray  #: (K, 10, N_OUT)

    def model(self) -> tuple:
        """Everything :func:`evaluate_into` needs besides the shoe (the prefix states and the nodes)."""
        return (
            compact_prefixes(), self.cards, self.composition, self.replacement_correction, self.replacement_removal,
            self.coupled_correction, self.coupled_removal,
        )  # fmt: skip


@cache
def nodes(path: Path = NODES_FILE) -> Nodes:
    """The stored nodes, checked: the layout of the numbers and each node's composition must be what
    this code computes, else a :class:`ValueError` (rebuild with :func:`write_nodes`). The corrections
    are recomputed here from the exact odds, so they always match the approximations of this code."""
    try:
        table = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise ValueError(f"cannot read the counting nodes {path}: {exc}") from None
    if table.get("layout") != LAYOUT or sorted(map(int, table.get("nodes", {}))) != list(NODE_QUARTERS):
        raise ValueError(f"{path} does not hold the nodes this code expects; rebuild it with write_nodes()")
    pre = compact_prefixes()
    arrays: list[list[np.ndarray]] = [[] for _ in range(8)]
    eye = np.eye(N_VALUES, dtype=np.int64)
    for k in NODE_QUARTERS:
        node = table["nodes"][str(k)]
        ref = QUARTER * k
        if node["composition"] != ref.tolist() or node["cards"] != 13 * k:
            raise ValueError(f"{path}: node {k} is not {k} quarter-packs; rebuild it with write_nodes()")
        exact = np.array(node["odds"], dtype=float)
        removed = np.array(node["removed"], dtype=float)
        if exact.shape != (N_OUT,) or removed.shape != (N_VALUES, N_OUT):
            raise ValueError(f"{path}: node {k} does not have {N_OUT} numbers per shoe; rebuild it")
        wr = [_base(ref, REPLACEMENT, pre)] + [_base(ref - eye[v], REPLACEMENT, pre) for v in range(N_VALUES)]
        if k == NODE_QUARTERS[0]:  # too short for the coupled rows' correction: none
            cp = [exact] + list(removed)
        elif 13 * k <= COUPLED_MAX:
            cp = [_base(ref, COUPLED, pre)] + [_base(ref - eye[v], COUPLED, pre) for v in range(N_VALUES)]
        else:  # never bracketing a shoe the coupled rows may take: NaN makes any misuse visible
            cp = [exact + np.nan] + [r + np.nan for r in removed]
        for i, value in enumerate((13 * k, ref, exact, removed)):
            arrays[i].append(value)
        for i, base in ((4, wr), (6, cp)):
            corr = exact - base[0]
            arrays[i].append(corr)
            arrays[i + 1].append(np.array([removed[v] - base[1 + v] - corr for v in range(N_VALUES)]))
    return Nodes(*(np.array(a) for a in arrays))


def _base(shoe: np.ndarray, method: int, pre) -> np.ndarray:
    """The uncorrected fast-path odds of a shoe (value counts), every card dealable."""
    out = np.zeros(N_OUT)
    n = int(shoe.sum())
    if method == COUPLED:
        coupled(shoe, n, pre, out)
    else:
        with_replacement(shoe, n, out)
    return out
