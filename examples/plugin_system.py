"""A betting system of your own, as a plugin, in a tournament beside the built-in systems.

``Triple`` triples its stake after a loss and goes back to one unit after a win. It subclasses
``strategies.progressions.Progression`` (one box, a stake of ``base`` times a count of units kept
in ``state.memory["units"]``) and writes one hook, ``_update``; the rules every system shares
(table limits, bankroll, refait, après, stop-win/stop-loss) still apply. The tournament names it
by its spec ``module:Class`` with parameters, here ``plugin_system:Triple:box=rouge``: running this
file puts its folder on ``sys.path``, so the module ``plugin_system`` can be imported. Loading a
plugin runs its code: name only modules you trust.

    python examples/plugin_system.py                        # 2,000 sessions of 100 coups
    python examples/plugin_system.py --sessions 100 --coups 30
"""

import argparse
import tempfile
from dataclasses import dataclass

import numpy as np

from strategies.base import SessionState
from strategies.progressions import Progression


@dataclass(frozen=True)
class Triple(Progression):
    """Triple the stake after a loss, one unit again after a win."""

    def _update(self, state: SessionState, win: np.ndarray, loss: np.ndarray, amount: np.ndarray) -> None:
        state.memory["units"][win] = 1
        state.memory["units"][loss] *= 3


def main() -> None:
    from experiments.tournament.config import make_config
    from experiments.tournament.runner import run_tournament

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=2000)
    parser.add_argument("--coups", type=int, default=100)
    args = parser.parse_args()

    config = make_config(
        ["flat:box=rouge", "martingale:box=rouge", "plugin_system:Triple:box=rouge"],
        sessions=args.sessions,
        coups=args.coups,
        bankroll=1000,
        seed=0,
    )
    with tempfile.TemporaryDirectory(prefix="plugin-tournament-") as out:
        results = run_tournament(config, out=out, plots=False)
    print(f"exact house edge: {results['house_edge']:.4%}")
    for label in results["order"]:
        s = results["strategies"][label]
        print(
            f"{label:34} return per unit staked {s['return_per_unit']:+.4%} "
            f"(95% CI {s['ci_low']:+.3%} to {s['ci_high']:+.3%}), P(ruin) {s['p_ruin']:.1%}"
        )


if __name__ == "__main__":
    main()
