"""``python -m trente_env.odds``: rebuild the first-coup cache (:data:`trente_env.odds.first.CACHE`),
with a progress bar on stderr (a few minutes)."""

from __future__ import annotations

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from trente_env.odds.first import CACHE, write_cache


def rebuild_cache() -> None:
    """Recompute the first coup of full shoes of 1 to 8 packs and store it, a progress bar on stderr."""
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        decks = range(1, 9)
        task = bar.add_task("exact odds of the first coup, 1 to 8 decks", total=len(decks))
        write_cache(decks, lambda d: bar.advance(task))
    print(f"wrote {CACHE}")


if __name__ == "__main__":
    rebuild_cache()
