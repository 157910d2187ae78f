"""``--trust-model``: the option of every command that loads a model file a user names (evaluate,
tournament, strategies, train --from).

A model saved by ``trente-lab train`` (``model.json`` beside it) loads without unpickling anything;
any other SB3 file is unpickled by SB3's own loading, which runs any code it holds, and is refused
unless this option is given (:mod:`strategies.model`). Given, it prints one line of warning and
trusts such files until the command ends, in its process and the workers it starts.
"""

from __future__ import annotations

import os
from typing import Annotated, Any

import typer

#: The line printed when ``--trust-model`` is given.
WARNING = (
    "trente-lab: warning: --trust-model: model files without a model.json from train are unpickled, "
    "which runs any code they hold"
)


def _trust(ctx: Any, param: Any, given: bool) -> bool:
    """The option's callback: warn, and trust model files until the command's context closes."""
    if given:
        from experiments.console import err
        from strategies.model import TRUST_VARIABLE

        err.print(WARNING, soft_wrap=True, markup=False, highlight=False)
        before = os.environ.get(TRUST_VARIABLE)
        os.environ[TRUST_VARIABLE] = "1"  # worker processes inherit it

        def restore() -> None:
            if before is None:
                os.environ.pop(TRUST_VARIABLE, None)
            else:
                os.environ[TRUST_VARIABLE] = before

        ctx.call_on_close(restore)
    return given


TrustModelOption = Annotated[
    bool,
    typer.Option(
        "--trust-model",
        callback=_trust,
        help="Also load model files not saved by `trente-lab train` (no model.json beside them): SB3 unpickles "
        "them, which runs any code they hold. Without it such files are refused; train's own load safely.",
    ),
]

__all__ = ["WARNING", "TrustModelOption"]
