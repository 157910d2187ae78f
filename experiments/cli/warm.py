"""``trente-lab warm``: compile the first commands' kernels ahead of their first use (:mod:`experiments.warm`)."""

from __future__ import annotations

from typing import Annotated

import typer


def command(
    check: Annotated[
        bool, typer.Option("--check", help="Only say whether every first command finds its kernels cached.")
    ] = False,
) -> None:
    """Compile the kernels of the first commands (an env step, the tournament, fallacy, simulate) into the
    cache, so that their first use starts at once: what an editable install does when it is built, for a
    regular install or another NUMBA_CACHE_DIR (python -m experiments.warm)."""
    from experiments import warm

    warm.main(["--check"] if check else [])
