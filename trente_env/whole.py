"""THE check of a whole number given from outside (a count, a seed, a size, a number of units): a
Python or numpy integer, never a bool, within its bounds; anything else is one clear error.

Every package checks its inputs with :func:`is_whole` or :func:`checked_whole`, each caller with its
own message (what the number is and what it may be), so the rule itself is written once.
"""

from __future__ import annotations

import numpy as np


def is_whole(value: object, low: int | None = None, high: int | None = None, *, numpy: bool = True) -> bool:
    """Whether ``value`` is a whole number from ``low`` to ``high`` (both included; ``None``: no
    bound). A bool is never one; a numpy integer is one unless ``numpy`` is false (where the number
    goes on to JSON or TOML as it is)."""
    kinds = (int, np.integer) if numpy else int
    if isinstance(value, bool | np.bool_) or not isinstance(value, kinds):
        return False
    return (low is None or value >= low) and (high is None or value <= high)


def checked_whole(
    value: object,
    message: str,
    low: int | None = None,
    high: int | None = None,
    *,
    numpy: bool = True,
    error: type[Exception] = ValueError,
) -> int:
    """``value`` as an ``int`` if :func:`is_whole`, else ``error(message)``."""
    if not is_whole(value, low, high, numpy=numpy):
        raise error(message)
    return int(value)  # type: ignore[call-overload]


__all__ = ["checked_whole", "is_whole"]
