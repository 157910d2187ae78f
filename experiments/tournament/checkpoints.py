"""The run's identity and its checkpoints: what a block file must prove before it is summed in.

Every block file (``OUT/blocks/b{block}-s{strategy}.npz``, ``docs/tournament-files.md``) records
the run it belongs to (:class:`RunIdentity`), its block, its system, the type and shape of every
array and a sha256 of the arrays bound to that block and system (:func:`arrays_digest`);
:class:`Checkpoints` reads one back only when its note matches this block of this run and its
arrays are whole. The hash guards against accidents (a torn write, a flipped byte, another run's
file in the folder), not against forgery: anyone who can write the folder can write a matching note.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import io
import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numba
import numpy as np

from experiments import version
from experiments.console import say
from experiments.errors import TournamentError
from experiments.files import MODEL_BYTES, atomic_write_bytes, file_kind, json_default, open_input
from experiments.tournament.config import TournamentConfig, trajectory_sessions
from experiments.workers import first_line
from strategies.registry import STRATEGIES, StrategyError, parse_spec, strategy_class
from strategies.runner import SESSION_FIELDS

# -- the run's identity --------------------------------------------------------------------------

#: The source files whose code computes a block's numbers (globs under the project's root).
#: The card counters' numbers come from the counting code and its stored nodes as well.
SOURCE_FILES = (
    "trente_env/*.py", "trente_env/counting/*.py", "trente_env/data/counting_nodes.json", "strategies/*.py",
    "experiments/tournament/*.py",
)  # fmt: skip


@dataclass(frozen=True)
class RunIdentity:
    """What a checkpoint must match to be summed into a run.

    :param config_hash: sha256 of the configuration (every field of :class:`TournamentConfig`).
    :param code_hash: sha256 of ``code``.
    :param code: what computes the numbers (:func:`code_version`), and a sha256 of the files behind
        each system that is not built in, by spec (a plugin's module; a model's ``.zip`` and
        ``model.json``).
    """

    config_hash: str
    code_hash: str
    code: Mapping[str, Any]

    def as_dict(self) -> dict[str, Any]:
        return {"config_hash": self.config_hash, "code_hash": self.code_hash, "code": dict(self.code)}


def run_identity(config: TournamentConfig) -> RunIdentity:
    """The identity of a run of ``config`` with the code of this process."""
    code = {**code_version(), "systems": _system_files(config)}
    return RunIdentity(_digest(config.as_dict()), _digest(code), code)


@functools.lru_cache(maxsize=4)
def source_digest(patterns: tuple[str, ...] = SOURCE_FILES) -> str:
    """A sha256 of the source files ``patterns`` name (globs from the project's root), paths included."""
    root = Path(__file__).resolve().parents[2]
    digest = hashlib.sha256()
    for pattern in patterns:
        for path in sorted(root.glob(pattern)):
            digest.update(
                path.relative_to(root).as_posix().encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest()
            )
    return digest.hexdigest()


@functools.lru_cache(maxsize=1)
def code_version() -> dict[str, str]:
    """trente-lab's, numpy's and numba's versions, and a sha256 of the :data:`SOURCE_FILES` (read
    once a process: a run's numbers come from the code it started with)."""
    return {
        "trente_lab": version(),
        "numpy": np.__version__,
        "numba": numba.__version__,
        "sources": source_digest(SOURCE_FILES),
    }


def _system_files(config: TournamentConfig) -> dict[str, str]:
    """sha256 of the files behind each system that is not built in, by spec."""
    hashes = {}
    for spec in config.specs:
        name, _ = parse_spec(spec.removeprefix("model:"))
        if name in STRATEGIES:
            continue
        if name.endswith(".zip"):
            paths = [Path(name), Path(name).with_suffix(".json")]
        else:
            try:
                paths = [Path(inspect.getsourcefile(strategy_class(name)) or "")]
            except (StrategyError, TypeError) as exc:
                raise TournamentError(f"cannot find the code of {spec!r}: {exc}") from None
        hashes[spec] = _digest({str(p): _file_hash(p) for p in paths})
    return hashes


def _file_hash(path: Path) -> str | None:
    """The sha256 of the model or plugin file ``path`` (read by the one reader), None if it cannot be read."""
    try:
        with open_input(path, "file", MODEL_BYTES, TournamentError) as f:
            return hashlib.file_digest(f, "sha256").hexdigest()
    except TournamentError:
        return None


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=json_default).encode()).hexdigest()


# -- checkpoints ---------------------------------------------------------------------------------

BLOCK_SCHEMA = "trente-lab/tournament-block/4"
#: The schemas of the block files of older trente-labs (recomputed): no hash of their arrays (1), no
#: squares of the stakes (2), no expected gains given the cards (3).
OLD_BLOCK_SCHEMAS = tuple(f"trente-lab/tournament-block/{v}" for v in (1, 2, 3))
#: The arrays of a block file and their types: :data:`SESSION_FIELDS` (one value per session),
#: ``box_stakes`` (2, 4), ``rig_staked`` (a number: Noir units staked right after a Noir win),
#: ``trajectories`` (sessions kept, coups + 1), ``exact_gain`` (one value per session: the expected
#: gain of its stakes given the cards unseen, 0 where not computed) and ``exact_staked`` (a number:
#: the units it covers).
BLOCK_ARRAYS: dict[str, str] = {
    "net": "float64", "staked": "float64", "square_staked": "float64", "final_bankroll": "float64",
    "coups": "int64", "ahead": "bool", "ruined": "bool", "walked": "bool", "max_drawdown": "float64",
    "longest_losing_run": "int64",
    "table_max_hits": "int64", "bankroll_hits": "int64", "box_stakes": "float64", "rig_staked": "float64",
    "trajectories": "float32", "exact_gain": "float64", "exact_staked": "float64",
}  # fmt: skip
#: Damaged blocks reported one by one before the rest are counted in one line.
REPORT_BLOCKS = 10


class DamagedBlock(Exception):
    """A block file that is not the block it should be (its message says why, in one line)."""


#: The name of a block file (:func:`task_path`).
_BLOCK_NAME = re.compile(r"b\d+-s\d+\.npz")


def task_path(out: Path, b: int, s: int) -> Path:
    return Path(out) / "blocks" / f"b{b:05d}-s{s:03d}.npz"


def arrays_digest(note: Mapping[str, Any], arrays: Mapping[str, np.ndarray]) -> str:
    """The sha256 a block's note records of its arrays: every array of :data:`BLOCK_ARRAYS` (name,
    type, shape and bytes, in that order), bound to the run, block and system the note names, so that
    an array edited in place or another system's (or block's) arrays under this note do not match."""
    digest = hashlib.sha256()
    whose = {k: note.get(k) for k in ("config_hash", "code_hash", "block", "strategy", "spec", "first_session")}
    digest.update(json.dumps(whose, sort_keys=True).encode() + b"\0")
    for key in BLOCK_ARRAYS:
        array = np.ascontiguousarray(arrays[key])
        digest.update(f"{key}:{array.dtype.str}:{array.shape}".encode() + b"\0")
        digest.update(array.tobytes())
    return digest.hexdigest()


class Checkpoints:
    """The block files of one run, ``OUT/blocks/b{block}-s{strategy}.npz``.

    A block file holds one system's results over one block of sessions (:data:`BLOCK_ARRAYS`) and
    a note (:meth:`note`) of what they are: the run's :class:`RunIdentity`, the block, the system,
    its sessions, the type and shape of every array and their hash (:func:`arrays_digest`). A file
    is read back only when its note matches this block of this run, with every array whole, no NaN
    and the hash of its note (a check against accidents, not forgery).
    """

    def __init__(
        self, out: str | Path, config: TournamentConfig, identity: RunIdentity, in_memory: bool = False
    ) -> None:
        """``in_memory``: also keep each block this object saves, so that :meth:`take` hands it back
        without reading its file (a run sums up the blocks it has just played)."""
        self.out, self.config, self.identity = Path(out), config, identity
        self.kept: dict[tuple[int, int], dict[str, np.ndarray]] | None = {} if in_memory else None
        self._kept_digests: dict[tuple[int, int], str] = {}

    def note(self, b: int, s: int) -> dict[str, Any]:
        """What block ``b`` of system ``s`` of this run is."""
        config = self.config
        start, stop = config.block_range(b)
        keep = max(0, min(trajectory_sessions(config), stop) - start)
        shapes = {k: [stop - start] for k in SESSION_FIELDS} | {
            "box_stakes": [2, 4], "rig_staked": [], "trajectories": [keep, config.coups + 1],
            "exact_gain": [stop - start], "exact_staked": [],
        }  # fmt: skip
        return {
            "schema": BLOCK_SCHEMA,
            "config_hash": self.identity.config_hash,
            "code_hash": self.identity.code_hash,
            "block": b,
            "strategy": s,
            "spec": config.specs[s],
            "first_session": start,
            "sessions": stop - start,
            "arrays": {k: [dtype, shapes[k]] for k, dtype in BLOCK_ARRAYS.items()},
        }

    def save(self, b: int, results: Mapping[int, Mapping[str, np.ndarray]]) -> None:
        """Save block ``b`` of each system in ``results`` (system index -> its arrays), atomically."""
        for s, result in results.items():
            arrays = {k: np.asarray(result[k], dtype=dtype) for k, dtype in BLOCK_ARRAYS.items()}
            note = self.note(b, s)
            note["arrays_sha256"] = arrays_digest(note, arrays)
            buffer = io.BytesIO()
            np.savez(buffer, note=np.array(json.dumps(note)), **arrays)
            atomic_write_bytes(task_path(self.out, b, s), buffer.getvalue())
            if self.kept is not None:
                self.kept[b, s] = arrays
                self._kept_digests[b, s] = note["arrays_sha256"]

    def take(self, b: int, s: int) -> dict[str, np.ndarray] | None:
        """Block ``b`` of system ``s``: the one this object saved and kept (given up, not kept twice),
        checked as a file is (:meth:`load`'s checks but the reading), else read from its file."""
        arrays = self.kept.pop((b, s), None) if self.kept is not None else None
        if arrays is None:
            return self.load(b, s)
        note = {**self.note(b, s), "arrays_sha256": self._kept_digests.pop((b, s))}
        problem = self._problem(b, s, note, {"note", *arrays}, arrays)
        if problem:
            raise DamagedBlock(f"block {task_path(self.out, b, s).stem} {problem}")
        return arrays

    def load(self, b: int, s: int) -> dict[str, np.ndarray] | None:
        """Block ``b`` of system ``s``, or None when it is not saved yet.

        :raises DamagedBlock: the file is unreadable (truncated, corrupted), belongs to another run
            or another code version, is another block, holds a short, mistyped or NaN array, or
            arrays that do not match the hash in its note (edited, or another system's or block's).
        """
        path = task_path(self.out, b, s)
        if not path.is_file():
            return None
        try:
            with np.load(path, allow_pickle=False) as data:
                names = set(data.files)
                text = str(data["note"][()]) if "note" in names else ""
                arrays = {k: data[k] for k in BLOCK_ARRAYS if k in names}
        except Exception as exc:  # a damaged zip fails in many ways: BadZipFile, ValueError, EOFError, OSError...
            what, detail = type(exc).__name__, first_line(exc)  # (the name alone for an error without a message)
            why = what if detail == what else f"{what}: {detail}"
            raise DamagedBlock(f"block {path.stem} cannot be read ({why})") from None
        try:
            note = json.loads(text)
        except ValueError:
            note = None
        problem = self._problem(b, s, note, names, arrays)
        if problem:
            raise DamagedBlock(f"block {path.stem} {problem}")
        return arrays

    def _problem(self, b: int, s: int, note: Any, names: set[str], arrays: Mapping[str, np.ndarray]) -> str | None:
        expected = self.note(b, s)
        if isinstance(note, dict) and note.get("schema") in OLD_BLOCK_SCHEMAS:
            return f"was written by an older trente-lab ({note['schema']})"
        if not isinstance(note, dict) or note.get("schema") != BLOCK_SCHEMA:
            return "does not say which run it belongs to (written by an older trente-lab?)"
        for key, what in (("config_hash", "belongs to another run"), ("code_hash", "was computed by other code")):
            if note.get(key) != expected[key]:
                return f"{what} ({key.replace('_', ' ')} {str(note.get(key))[:12]}, this run's {expected[key][:12]})"
        for key in ("block", "strategy", "first_session", "sessions", "spec"):
            if note.get(key) != expected[key]:
                return f"says {key} {note.get(key)!r} where this block has {expected[key]!r}"
        if names != {"note", *BLOCK_ARRAYS}:
            return f"holds the arrays {', '.join(sorted(names - {'note'}))}; expected {', '.join(sorted(BLOCK_ARRAYS))}"
        for key, (dtype, shape) in expected["arrays"].items():
            array = arrays[key]
            if array.dtype != np.dtype(dtype) or list(array.shape) != shape:
                return f"has {key} as {array.dtype} {array.shape}, expected {dtype} {tuple(shape)}"
            if array.dtype.kind == "f" and not np.isfinite(array).all():
                return f"has NaN or infinite values in {key}"
        coups = arrays["coups"]
        if coups.size and not 0 <= coups.min() <= coups.max() <= self.config.coups:
            return f"has sessions of {coups.min()} to {coups.max()} coups, outside 0 to {self.config.coups}"
        if note.get("arrays_sha256") != arrays_digest(expected, arrays):
            return "has arrays that do not match the hash in its note (edited, or another system's or block's)"
        return None

    def scan(self, groups: Sequence[tuple[int, ...]]) -> np.ndarray:
        """(blocks, groups) flags: the tasks whose every file is saved and proves to be of this run.
        Each damaged or foreign file is reported in one line on stderr; its task is played again.

        :raises TournamentError: a block's place holds something that is not a regular file (a
            folder, a link...): it is not ours to remove, and a block cannot be written there; said
            before anything is written, so a complete run stays complete.
        """
        done = np.zeros((self.config.n_blocks, len(groups)), dtype=np.bool_)
        try:
            present = set(os.listdir(self.out / "blocks"))
        except OSError:
            present = set()
        self._check_kinds(present)
        problems = []
        for b in range(self.config.n_blocks if present else 0):
            for i, group in enumerate(groups):
                ok = True
                for s in group:
                    try:
                        saved = task_path(self.out, b, s).name in present and self.load(b, s) is not None
                    except DamagedBlock as exc:
                        problems.append(str(exc))
                        saved = False
                    ok = ok and saved
                done[b, i] = ok
        for problem in problems[:REPORT_BLOCKS]:
            say(f"{problem}; recomputing it")
        if len(problems) > REPORT_BLOCKS:
            say(f"{len(problems) - REPORT_BLOCKS} more blocks are damaged or not of this run; recomputing them")
        return done

    def _check_kinds(self, present: set[str]) -> None:
        """Every block file's name in ``present`` (the names in ``OUT/blocks``) is a regular file."""
        for name in sorted(n for n in present if _BLOCK_NAME.fullmatch(n)):
            path = self.out / "blocks" / name
            kind = file_kind(path)
            if kind is not None:
                raise TournamentError(
                    f"{path} is {kind}, not a block file: move it out of {self.out / 'blocks'} and run again "
                    "(its block is then played again)"
                )


__all__ = [
    "BLOCK_ARRAYS",
    "BLOCK_SCHEMA",
    "Checkpoints",
    "arrays_digest",
    "DamagedBlock",
    "RunIdentity",
    "code_version",
    "run_identity",
    "task_path",
]
