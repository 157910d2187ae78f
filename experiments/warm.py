"""Compile the kernels of a newcomer's first commands ahead of their first use, into the cache.

Every compiled kernel is compiled on its first use and cached (:mod:`trente_env.jit`): a fresh
install would pay seconds on its first ``step`` or tournament. An editable install
(``pip install -e .``) runs this module once, from the project's build backend
(``build_backend/trente_build.py``), so the first commands load their kernels from the cache
instead. ``python -m experiments.warm`` runs it by hand: after a regular install (whose files move,
so its build cannot prepare their cache), or for another ``NUMBA_CACHE_DIR``;
``python -m experiments.warm --check`` says whether every first command finds its kernels cached.

Each first command (:data:`FIRST_COMMANDS`, also the rows of ``benchmarks/bench_cold.py``) runs in
a fresh interpreter, as a user would run it, under a lock in the cache folder (two installs at once
take turns; the second loads what the first compiled).
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

#: What a newcomer does first, as a Python snippet run in a fresh interpreter: (what, snippet).
FIRST_COMMANDS: dict[str, tuple[str, str]] = {
    "env": (
        'gym.make("TrenteEtQuarante-v0"), reset and first step',
        "import gymnasium as gym, trente_env\n"
        'env = gym.make("TrenteEtQuarante-v0"); env.reset(seed=0); env.step(env.action_space.sample())',
    ),
    "vec": (
        "gym.make_vec(..., num_envs=10_000), reset and first step",
        "import gymnasium as gym, trente_env\n"
        'envs = gym.make_vec("TrenteEtQuarante-v0", num_envs=10_000, vectorization_mode="vector_entry_point")\n'
        "envs.reset(seed=0); envs.step(envs.action_space.sample())",
    ),
    "tournament": (
        "trente-lab tournament --no-plots (default)",
        "import sys, tempfile; from experiments.cli import app\n"
        "folder = tempfile.TemporaryDirectory(); out = folder.name + '/run'\n"
        "sys.argv = ['trente-lab', 'tournament', '--no-plots', '--out', out]\n"
        "app(standalone_mode=False)",
    ),
    "fallacy": (
        "trente-lab fallacy --coups 100000",
        "import sys, tempfile; from experiments.cli import app\n"
        "sys.argv = ['trente-lab', 'fallacy', '--coups', '100000', '--json']\n"
        "app(standalone_mode=False)",
    ),
    "simulate": (
        "trente-lab simulate --coups 1000000",
        "import sys; from experiments.cli import app\n"
        "sys.argv = ['trente-lab', 'simulate', '--coups', '1000000', '--json']\n"
        "app(standalone_mode=False)",
    ),
}

ROOT = Path(__file__).resolve().parent.parent


@contextlib.contextmanager
def compiling_lock() -> Iterator[None]:
    """Held while one process of the machine compiles into the cache folder (none without a cache,
    or where the system has no file locks): the others wait, then load what it compiled."""
    from trente_env import jit

    with contextlib.ExitStack() as stack:
        if jit.CACHE:
            with contextlib.suppress(ImportError, OSError):
                import fcntl

                held = stack.enter_context(open(jit.CACHE_DIR / ".compiling.lock", "a"))  # noqa: SIM115
                fcntl.flock(held, fcntl.LOCK_EX)  # released when the file closes
        yield


def warm(names: list[str] | None = None, timeout: float = 900.0) -> dict[str, float]:
    """Run the first commands ``names`` (default: all) each in a fresh interpreter, so their kernels
    are compiled and cached; returns the seconds of each. A command that fails raises
    ``RuntimeError`` with its last line of error."""
    seconds = {}
    with compiling_lock():
        for name in names or list(FIRST_COMMANDS):
            start = time.perf_counter()
            done = subprocess.run(
                [sys.executable, "-c", FIRST_COMMANDS[name][1]],
                cwd=ROOT, capture_output=True, text=True, timeout=timeout, check=False,
            )  # fmt: skip
            if done.returncode != 0:
                last = (done.stderr.strip().splitlines() or ["no message"])[-1]
                raise RuntimeError(f"{name}: {last}")
            seconds[name] = time.perf_counter() - start
    return seconds


#: Put before a first command's snippet by :func:`still_compiled`: prints the kernels numba compiled.
COUNT_COMPILES = """
import atexit
import numba.core.event as event
compiled = []
class Count(event.Listener):
    def on_start(self, e): compiled.append(e.data["dispatcher"].py_func.__qualname__)
    def on_end(self, e): pass
event.register("numba:compile", Count())
atexit.register(lambda: print("\\nCOMPILED " + " ".join(compiled), flush=True))
"""


def still_compiled(name: str, timeout: float = 900.0) -> list[str]:
    """The kernels first command ``name`` compiles when run now, in a fresh interpreter: none when
    its cache is ready."""
    done = subprocess.run(
        [sys.executable, "-c", COUNT_COMPILES + FIRST_COMMANDS[name][1]],
        cwd=ROOT, capture_output=True, text=True, timeout=timeout, check=False,
    )  # fmt: skip
    lines = [line for line in done.stdout.splitlines() if line.startswith("COMPILED")]
    if done.returncode != 0 or not lines:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise RuntimeError(f"{name}: {last}")
    return lines[-1].split()[1:]


def main(argv: list[str] | None = None) -> None:
    """``python -m experiments.warm [--check]`` (``trente-lab warm [--check]``); ``argv`` default: ``sys.argv[1:]``."""
    from trente_env import jit

    argv = sys.argv[1:] if argv is None else argv
    if not jit.CACHE:
        raise SystemExit("experiments.warm: no folder can be written for numba's cache; nothing to prepare")
    if argv == ["--check"]:
        try:
            missing = {name: still_compiled(name) for name in FIRST_COMMANDS}
        except (RuntimeError, subprocess.TimeoutExpired) as exc:
            raise SystemExit(f"experiments.warm --check: {exc}") from None
        missing = {name: kernels for name, kernels in missing.items() if kernels}
        if missing:
            said = "; ".join(
                f"{name} compiled {len(k)} ({', '.join(sorted(set(k))[:3])}...)" for name, k in missing.items()
            )
            raise SystemExit(f"experiments.warm --check: not ready in {jit.CACHE_DIR}: {said}")
        print(f"every first command's kernels are cached in {jit.CACHE_DIR}")
        return
    if argv:
        raise SystemExit("usage: python -m experiments.warm [--check]")
    print(f"compiling the first commands' kernels into {jit.CACHE_DIR}", file=sys.stderr, flush=True)
    try:
        seconds = warm()
    except (RuntimeError, subprocess.TimeoutExpired) as exc:
        raise SystemExit(f"experiments.warm: {exc}") from None
    print(f"done in {sum(seconds.values()):.1f} s: " + ", ".join(f"{k} {v:.1f} s" for k, v in seconds.items()))


if __name__ == "__main__":
    main()
