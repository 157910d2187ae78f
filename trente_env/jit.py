"""How the hot kernels are compiled.

:data:`hot` compiles the small functions called on every coup of every table or session (dealing
one coup, settling a table, a strategy's step): they read and write the arrays they are given and
allocate none. They are compiled without numba's reference counting (``_nrt=False``): with it,
every call pays atomic increments and decrements on each array argument wherever numba cannot
prove them useless (nested branches), which cost more than the game's logic itself.
"""

from __future__ import annotations

import numba

#: Compile a helper that allocates no arrays (cached, no reference counting).
hot = numba.njit(cache=True, _nrt=False)
