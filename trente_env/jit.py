"""The one compile policy: how every numba kernel of trente-lab is compiled and where it is cached.

Every kernel in the tree is compiled through the decorators of this module, never through
``numba.njit`` directly (a test greps the tree for it):

* :func:`kernel`: a compiled function, cached on disk;
* :func:`parallel`: the same, with its ``numba.prange`` loops shared among numba's threads;
* :func:`inline`: a tiny helper inlined into its callers;
* :func:`hot`: the small functions called on every coup of every table or session (dealing one coup,
  settling a table, a strategy's step). They read and write the arrays they are given and allocate
  none, so they are compiled without numba's reference counting: with it, every call pays atomic
  increments and decrements on each array argument wherever numba cannot prove them useless, which
  cost more than the game's logic itself;
* :func:`inner`: a :func:`hot` helper that only compiled code calls, built without an entry point
  for Python (small helpers called, not inlined, keep each kernel's first compile short).

No kernel has an entry point for C (numba's ``cfunc`` wrapper: :data:`NO_C_ENTRY`).

**The cache guard.** numba checks a cached function against its own source file only: a kernel
that calls a function of another file (the table's coup calls the settlement's rule for one box,
the tournament's loop calls the strategies' kernel) would keep running its cached machine code
after an edit of the callee. So the caches live in a folder named after a fingerprint of every
kernel source file (:data:`KERNEL_SOURCES`), of the numba, numpy and Python versions, and of the
options that change the compiled code (bounds checking, the private options in use): an edit of any
of them compiles every kernel afresh, into a new folder. The folder is
``$NUMBA_CACHE_DIR/trente-lab-<fingerprint>`` when the user sets ``NUMBA_CACHE_DIR``, otherwise
``$XDG_CACHE_HOME/trente-lab/numba-<fingerprint>`` (``~/.cache`` when ``XDG_CACHE_HOME`` is unset),
or a folder in the temporary directory if that one cannot be written; with no writable folder at
all nothing is cached (every run compiles). Folders of older fingerprints are left alone (several
checkouts may share the parent); delete them at will.

numba creates a function's cache when the decorator runs, so the policy is set when this module is
imported, and every kernel module imports its decorators from here.

**Private numba features live here only.** :data:`HOT_OPTIONS` asks for ``_nrt=False``, a private
option of numba's CPU target, only if the installed numba accepts it (checked without compiling);
otherwise :func:`hot` is a plain cached :func:`kernel`, which computes the same numbers, a little
slower. :func:`entry_point` (numba's compiled entry point of one signature) falls back to the
dispatcher the same way. numba is pinned in ``pyproject.toml`` to the releases that are tested.

**Threads.** The tables of a wide vector env and the tournament's sessions are shared among numba's
threads. numba's threading layer is chosen here, before any parallel call, by
:data:`THREADING_LAYERS` (numba takes the first that loads): Intel's TBB (the ``tbb`` package, a
dependency), else numba's own ``workqueue``, and GNU OpenMP (``omp``, what numba takes on Linux
when TBB is not found) last. OpenMP's idle threads spin after each parallel loop, and torch's OpenMP threads spin
too: on a 2-core host a process that had played on numba's OpenMP threads ran torch's work 10 to 35
times slower, and on a busy host a threaded step of 1,000 tables took 20 to 50 times one thread's. TBB's
threads and the workqueue's sleep when idle (TBB's after a short spin); TBB enters a parallel loop
in a few microseconds, the workqueue in tens (``python -m benchmarks.bench_kernel --layers``). A
layer named by the user (``NUMBA_THREADING_LAYER`` or ``NUMBA_THREADING_LAYER_PRIORITY``) is left
alone.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import platform
import site
import sys
import tempfile
import types
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numba
import numba.core.event
import numpy as np
from llvmlite import ir as llvm_ir
from numba.core import cgutils
from numba.extending import intrinsic

#: Every file whose code or constants a compiled kernel holds, relative to the folder holding the
#: packages: the modules that define kernels, and the modules whose functions (``coup.decide``) or
#: constants (``cards``: the card values and colours; ``codes``: the boxes, results and layouts) the
#: kernels compile in. A test greps the tree so that a new kernel module cannot be left out.
KERNEL_SOURCES: tuple[str, ...] = (
    "trente_env/cards.py",
    "trente_env/codes.py",
    "trente_env/counting/advantage.py",
    "trente_env/counting/counters.py",
    "trente_env/coup.py",
    "trente_env/croupier.py",
    "trente_env/dealer.py",
    "trente_env/jit.py",
    "trente_env/odds/approximate.py",
    "trente_env/odds/fast.py",
    "trente_env/odds/first.py",
    "trente_env/odds/joint.py",
    "trente_env/odds/prefixes.py",
    "trente_env/odds/rows.py",
    "trente_env/odds/shoe.py",
    "trente_env/settle.py",
    "trente_env/table_kernels.py",
    "strategies/kernel.py",
    "experiments/game/simulate.py",
    "experiments/streaks.py",
    "strategies/risk/__init__.py",
    "strategies/risk/grid.py",
    "strategies/risk/states.py",
    "strategies/sessions.py",
)
#: The folder holding the packages (``trente_env``, ``strategies``, ``experiments``).
ROOT = Path(__file__).resolve().parent.parent
#: The packages whose kernels this policy compiles.
PACKAGES: tuple[str, ...] = ("trente_env", "strategies", "experiments")

#: Private options of numba's CPU target asked for by :func:`hot` (used only if numba accepts them).
PRIVATE_OPTIONS: dict[str, Any] = {"_nrt": False}


def accepts(options: dict[str, Any]) -> bool:
    """Whether the installed numba's CPU target accepts ``options``, checked as numba itself parses
    them at compile time, without compiling anything. Any surprise means no."""
    try:
        from numba.core.compiler import Flags
        from numba.core.cpu import CPUTargetOptions

        CPUTargetOptions.parse_as_flags(Flags(), dict(options))
    except Exception:  # an unknown option (KeyError), or numba moved these classes
        return False
    return True


#: The options :func:`hot` compiles with beside ``cache``: the private ones if numba accepts them.
HOT_OPTIONS: dict[str, Any] = dict(PRIVATE_OPTIONS) if accepts(PRIVATE_OPTIONS) else {}
#: Options of numba's CPU target asked for by every kernel: no entry point for C (numba's ``cfunc``
#: wrapper, which lets a compiled function be passed to another as a first-class value; no kernel
#: is), code that each kernel's first compile would build and no call would run. Used only if numba
#: accepts it.
NO_C_ENTRY: dict[str, Any] = {"no_cfunc_wrapper": True}
ALL_OPTIONS: dict[str, Any] = dict(NO_C_ENTRY) if accepts(NO_C_ENTRY) else {}
#: Options asked for by :func:`inner` beside :data:`HOT_OPTIONS`: no entry point for Python either
#: (used only if numba accepts it).
NO_PYTHON_ENTRY: dict[str, Any] = {"no_cpython_wrapper": True}
INNER_OPTIONS: dict[str, Any] = {**HOT_OPTIONS, **(NO_PYTHON_ENTRY if accepts(NO_PYTHON_ENTRY) else {})}


def fingerprint(root: Path = ROOT, sources: Sequence[str] = KERNEL_SOURCES) -> str:
    """16 hex digits that change with any kernel source file, the numba, numpy and Python versions,
    bounds checking and the private options in use: the name of the cache folder."""
    digest = hashlib.sha256()
    for name in sorted(sources):
        path = root / name
        digest.update(name.encode() + b"\0")
        digest.update(path.read_bytes() if path.is_file() else b"<missing>")
        digest.update(b"\0")
    setting = (
        numba.__version__, np.__version__, sys.version, platform.machine(), numba.config.BOUNDSCHECK,
        numba.config.OPT, sorted(HOT_OPTIONS.items()), sorted(INNER_OPTIONS.items()), sorted(ALL_OPTIONS.items()),
    )  # fmt: skip
    digest.update(repr(setting).encode())
    return digest.hexdigest()[:16]


def _writable(folder: Path) -> bool:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
    except OSError:
        return False
    return True


def cache_folder(fp: str | None = None, user_folder: str | None = None) -> Path | None:
    """Where the kernels of fingerprint ``fp`` are cached (see the module docstring); None when no
    folder can be written. ``user_folder``: numba's ``NUMBA_CACHE_DIR`` (default: as numba read it)."""
    fp = fp or fingerprint()
    user_folder = numba.config.CACHE_DIR if user_folder is None else user_folder
    if user_folder:
        candidates = [Path(user_folder) / f"trente-lab-{fp}"]
    else:
        xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        candidates = [Path(xdg) / "trente-lab" / f"numba-{fp}"]
    user = getattr(os, "getuid", lambda: "user")()
    candidates.append(Path(tempfile.gettempdir()) / f"trente-lab-{user}" / f"numba-{fp}")
    return next((folder for folder in candidates if _writable(folder)), None)


#: numba's threading layers in the order tried (see the module docstring); a permutation of all
#: three, as numba requires.
THREADING_LAYERS: tuple[str, ...] = ("tbb", "workqueue", "omp")


#: The file names of TBB's library that numba loads (Linux, macOS).
TBB_LIBRARIES = ("libtbb.so.12", "libtbb.12.dylib")


def load_tbb(prefixes: Sequence[str] | None = None) -> Path | None:
    """Load TBB's library from the ``tbb`` package, if installed: the file it puts in the ``lib``
    folder of the environment (else of the base interpreter's, or of the user's base). numba asks
    the dynamic linker for it by name, which searches none of these folders (a virtual environment's
    least of all); once loaded, the name is found. The library's path, or None (no package, or a
    library that does not load)."""
    if prefixes is None:
        prefixes = dict.fromkeys([sys.prefix, sys.base_prefix, site.getuserbase()])
    for prefix in prefixes:
        for name in TBB_LIBRARIES:
            path = Path(prefix) / "lib" / name
            if path.is_file():
                try:
                    ctypes.CDLL(str(path), mode=ctypes.RTLD_GLOBAL)
                except OSError:
                    continue
                return path
    return None


def choose_threading_layer(environ: dict[str, str] | None = None) -> bool:
    """Have numba take its threading layer from :data:`THREADING_LAYERS` (TBB's library loaded
    first: :func:`load_tbb`), unless the user named one (``NUMBA_THREADING_LAYER``,
    ``NUMBA_THREADING_LAYER_PRIORITY``); True when the choice is ours. Effective until numba's first
    parallel loop, which starts the threads of the process."""
    environ = os.environ if environ is None else environ
    if "NUMBA_THREADING_LAYER" in environ or "NUMBA_THREADING_LAYER_PRIORITY" in environ:
        return False
    load_tbb()
    numba.config.THREADING_LAYER = "default"
    numba.config.THREADING_LAYER_PRIORITY = list(THREADING_LAYERS)
    return True


choose_threading_layer()
FINGERPRINT = fingerprint()
#: The folder of this process's caches (None: nothing is cached).
CACHE_DIR = cache_folder(FINGERPRINT)
CACHE = CACHE_DIR is not None


#: Said once on stderr, when a terminal, before the first kernel this process compiles rather than
#: loads from the cache: the first use of a fresh install (or of edited code) takes seconds.
COMPILING = (
    "trente-lab: compiling the game's kernels for this machine, once: this first use waits some seconds to half "
    "a minute, later runs load them from {where}; `trente-lab warm` compiles every first command's kernels ahead"
)
#: Said instead when no folder for a cache could be written.
COMPILING_UNCACHED = (
    "trente-lab: compiling the game's kernels (no folder for a cache could be written: every run compiles)"
)


class _FirstCompile(numba.core.event.Listener):
    """Writes :data:`COMPILING` to ``stream`` before the first of our kernels that numba compiles
    (numba raises this event only when a kernel is not in its cache), once."""

    def __init__(self, stream: Any) -> None:
        self.stream, self.said = stream, False

    def on_start(self, event: Any) -> None:
        if self.said:
            return
        module = getattr(getattr(event.data.get("dispatcher"), "py_func", None), "__module__", None) or ""
        if module.partition(".")[0] not in PACKAGES:  # numba's own overloads, compiled inside ours, or a user's
            return
        self.said = True
        print(COMPILING.format(where=CACHE_DIR) if CACHE else COMPILING_UNCACHED, file=self.stream, flush=True)

    def on_end(self, event: Any) -> None:
        pass


def announce_compiling(stream: Any = None) -> _FirstCompile | None:
    """Say :data:`COMPILING` on ``stream`` (default: stderr) once, before the first kernel this
    process compiles, if ``stream`` is a terminal (pipes, files and tests see nothing). The
    listener, or None."""
    stream = sys.stderr if stream is None else stream
    if not getattr(stream, "isatty", lambda: False)():
        return None
    listener = _FirstCompile(stream)
    numba.core.event.register("numba:compile", listener)
    return listener


announce_compiling()


def _njit(fn: Callable, **options: Any) -> Callable:
    """``numba.njit`` under the policy: numba's cache folder is ours while the decorator creates
    the function's cache, and the user's again afterwards."""
    options = {**ALL_OPTIONS, **options}
    if not CACHE:
        return numba.njit(cache=False, **options)(fn)
    before = numba.config.CACHE_DIR
    numba.config.CACHE_DIR = str(CACHE_DIR)
    try:
        return numba.njit(cache=True, **options)(fn)
    finally:
        numba.config.CACHE_DIR = before


def kernel(fn: Callable) -> Callable:
    """Compile ``fn`` (cached)."""
    return _njit(fn)


def released(fn: Callable) -> Callable:
    """Compile ``fn`` to run without Python's global lock (cached): Python threads then run it side
    by side on their own parts of the work, with one compiled variant (a :func:`parallel` loop
    compiles its body again, in a variant of its own, which a first use pays for)."""
    return _njit(fn, nogil=True)


def parallel(fn: Callable) -> Callable:
    """Compile ``fn`` with its ``numba.prange`` loops run on numba's threads (cached).

    **Named tuples in a parallel loop**: numba (0.68) silently loses a write made in the body of a
    ``prange`` loop straight into an array of a named tuple (an argument bundle), or into an array
    unpacked with ``a, b = ...`` (even ``a, b = bundle.a, bundle.b``), and takes no named tuple
    nested in another. Take each array written in the loop from its bundle before the loop, one
    attribute a statement (``a = bundle.a``: :func:`trente_env.table_kernels._play_rows`), or make the body a
    call to a function that does the work, where such a write is an ordinary one.
    ``tests/test_vector.py`` plays the parallel and the serial kernel of the tables side by side, and
    fails if a write is lost.

    numba names a cache file after the function and keys its entries by signature only, not by the
    options: a function compiled both ways (:func:`kernel` and :func:`parallel`, as the tables'
    coup) would share one cache file, and whichever variant was cached first would be served for
    both. So the parallel variant is compiled from a copy of the function with its own name.
    """
    return _njit(_renamed(fn, "parallel"), parallel=True)


def _renamed(fn: Callable, suffix: str) -> Callable:
    """A copy of the plain function ``fn`` whose qualified name ends in ``suffix``."""
    copy = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)
    copy.__kwdefaults__ = fn.__kwdefaults__
    copy.__doc__ = fn.__doc__
    copy.__module__ = fn.__module__
    copy.__qualname__ = f"{fn.__qualname__}.{suffix}"
    return copy


def inline(fn: Callable) -> Callable:
    """Compile ``fn`` to be inlined into the kernels that call it (cached)."""
    return _njit(fn, inline="always")


def hot(fn: Callable) -> Callable:
    """Compile a helper that allocates no arrays (cached; no reference counting where numba allows)."""
    return _njit(fn, **HOT_OPTIONS)


def inner(fn: Callable) -> Callable:
    """Compile a :func:`hot` helper that only compiled code calls (cached): numba builds no entry point
    for Python (which unboxes every argument, every array of a bundle) nor for C, code that each
    kernel's first compile would pay for and no call would run."""
    return _njit(fn, **INNER_OPTIONS)


@intrinsic
def prefetch(typingctx: Any, array: Any, index: Any) -> Any:
    """Ask the processor to bring the cache line holding ``array[index]`` (an integer or a tuple of
    integers, one per dimension) into its nearest cache, for writing, without waiting for it: a hint
    that changes no value. The index is checked like any other under ``NUMBA_BOUNDSCHECK`` and must
    be in range (never wrapped around). LLVM's ``llvm.prefetch``, through numba's extension API."""
    if not isinstance(array, numba.types.Array) or not (
        isinstance(index, numba.types.Integer)
        or (isinstance(index, numba.types.BaseTuple) and all(isinstance(i, numba.types.Integer) for i in index))
    ):
        return None
    sig = numba.types.void(array, index)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        aryty, idxty = signature.args
        ary = context.make_array(aryty)(context, builder, args[0])
        if isinstance(idxty, numba.types.BaseTuple):
            idx = [context.cast(builder, v, t, numba.types.intp) for v, t in
                   zip(cgutils.unpack_tuple(builder, args[1]), idxty)]  # fmt: skip
        else:
            idx = [context.cast(builder, args[1], idxty, numba.types.intp)]
        ptr = cgutils.get_item_pointer(
            context, builder, aryty, ary, idx, wraparound=False, boundscheck=context.enable_boundscheck
        )
        i8p, i32 = llvm_ir.IntType(8).as_pointer(), llvm_ir.IntType(32)
        fn = cgutils.get_or_insert_function(
            builder.module, llvm_ir.FunctionType(llvm_ir.VoidType(), [i8p, i32, i32, i32]), "llvm.prefetch.p0"
        )
        builder.call(fn, [builder.bitcast(ptr, i8p), i32(1), i32(3), i32(1)])  # write, keep close, data
        return context.get_dummy_value()

    return sig, codegen


def entry_point(dispatcher: Callable, args: tuple) -> Callable:
    """The compiled code ``dispatcher`` runs for the types of ``args`` (already compiled), to be
    called later with arguments of exactly those types: it skips numba's type dispatch, about 1 µs a
    call. The dispatcher itself if numba keeps it elsewhere."""
    try:
        return dispatcher.overloads[tuple(numba.typeof(a) for a in args)].entry_point
    except (AttributeError, KeyError, TypeError):
        return dispatcher


def compiled_entry(dispatcher: Callable, args: tuple) -> Callable:
    """:func:`entry_point` for the types of ``args``, compiled (or loaded from the cache) now if
    need be, without running the kernel."""
    try:
        dispatcher.compile(tuple(numba.typeof(a) for a in args))
    except AttributeError:  # not a numba dispatcher
        return dispatcher
    return entry_point(dispatcher, args)


__all__ = [
    "CACHE",
    "CACHE_DIR",
    "COMPILING",
    "COMPILING_UNCACHED",
    "FINGERPRINT",
    "ALL_OPTIONS",
    "HOT_OPTIONS",
    "INNER_OPTIONS",
    "KERNEL_SOURCES",
    "NO_C_ENTRY",
    "NO_PYTHON_ENTRY",
    "PACKAGES",
    "PRIVATE_OPTIONS",
    "TBB_LIBRARIES",
    "THREADING_LAYERS",
    "accepts",
    "announce_compiling",
    "cache_folder",
    "choose_threading_layer",
    "compiled_entry",
    "entry_point",
    "fingerprint",
    "hot",
    "inline",
    "inner",
    "kernel",
    "load_tbb",
    "parallel",
    "prefetch",
]
