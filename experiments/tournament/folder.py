"""The output folder of a run: the lock that gives it to one run at a time, the manifest that says
what the run is and how far it got, and a new folder when none is given."""

from __future__ import annotations

import functools
import itertools
import json
import platform
import subprocess
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from experiments import version
from experiments.errors import TournamentError
from experiments.files import (
    LOCK_FILE,
    MANIFEST_BYTES,
    atomic_write_text,
    claim_folder,
    file_kind,
    json_default,
    read_json,
)
from experiments.tournament.checkpoints import RunIdentity
from experiments.tournament.config import TournamentConfig, check_ranges, make_config

MANIFEST_SCHEMA = "trente-lab/tournament-manifest/1"


# -- the output folder ---------------------------------------------------------------------------

# -- the manifest --------------------------------------------------------------------------------


def write_manifest(
    out: Path,
    config: TournamentConfig,
    identity: RunIdentity,
    workers: int,
    done: int,
    total: int,
    complete: bool = False,
    files: Sequence[str] = (),
    extra: Mapping[str, Any] | None = None,
) -> None:
    """Write ``OUT/manifest.json`` (atomically): the configuration, the run's identity, how many
    tasks are done, whether the run is complete, the output files written so far and their sizes
    in bytes (``sizes``: every file but the manifest itself)."""
    manifest = {
        "schema": MANIFEST_SCHEMA,
        "command": "trente-lab tournament",
        "version": version(),
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "git_commit": _git_commit(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "config": config.as_dict(),
        "identity": identity.as_dict(),
        "workers": workers,
        "complete": complete,
        "tasks_done": done,
        "tasks_total": total,
        "files": list(files),
        "sizes": {name: _size(Path(out) / name) for name in files if name != "manifest.json"},
        **(extra or {}),
    }
    atomic_write_text(Path(out) / "manifest.json", json.dumps(manifest, indent=2, default=json_default) + "\n")


def _size(path: Path) -> int | None:
    try:
        return path.stat().st_size
    except OSError:
        return None


def read_manifest(folder: str | Path) -> dict[str, Any]:
    path = Path(folder) / "manifest.json"
    kind = file_kind(path)
    if kind is not None:
        raise TournamentError(f"{path} is {kind}, not a manifest: move it away (or choose another folder)")
    if not path.exists():
        raise TournamentError(f"nothing to resume in {str(folder)!r}: no readable manifest.json")
    manifest = read_json(path, "manifest", MANIFEST_BYTES, TournamentError)
    if not isinstance(manifest, dict) or manifest.get("schema") != MANIFEST_SCHEMA or "config" not in manifest:
        raise TournamentError(f"{str(path)!r} is not a tournament manifest")
    return manifest


def manifest_config(folder: str | Path) -> TournamentConfig:
    """The configuration in ``folder/manifest.json``, validated like a fresh one: each number in the
    range of its command-line option (:func:`~experiments.tournament.config.check_ranges`), rebuilt
    by :func:`make_config` from its values, which must give it back exactly (so a hand-edited seed is
    a new run, whose blocks then do not match, but ``coups = 0``, a spec without its label or an
    unknown key is refused). Rebuilding loads the plugins and models it names: that runs their code.
    """
    where = f"{Path(folder) / 'manifest.json'}"
    data = read_manifest(folder)["config"]
    names = list(TournamentConfig((), ()).as_dict())
    if not isinstance(data, dict):
        raise TournamentError(f"{where}: config is not a table")
    unknown, missing = sorted(set(data) - set(names)), [k for k in names if k not in data]
    if unknown or missing:
        what = [f"unknown key(s) {', '.join(unknown)}"] * bool(unknown) + [f"no {', '.join(missing)}"] * bool(missing)
        raise TournamentError(f"{where}: config has {' and '.join(what)}")
    strategies, rule_values = data["strategies"], data["rule_values"]
    if not isinstance(strategies, list) or not all(isinstance(x, str) for x in strategies):
        raise TournamentError(f"{where}: strategies must be a list of spec strings, got {strategies!r}")
    if not isinstance(rule_values, dict):
        raise TournamentError(f"{where}: rule_values must be a table, got {rule_values!r}")
    if not strategies:
        raise TournamentError(f"{where}: no strategies")
    check_ranges({k: data[k] for k in ("sessions", "coups", "unit", "seed", "block", "trajectories")}, where)
    try:
        config = make_config(
            strategies, data["sessions"], data["coups"], data["bankroll"], data["unit"], None, data["seed"],
            data["block"], data["trajectories"], rule_values, name=data["rules"],
        )  # fmt: skip  # the table is its every value (on the classic preset's), named as recorded
    except TournamentError as exc:
        raise TournamentError(f"{where}: {exc}") from None
    rebuilt = json.loads(json.dumps(config.as_dict(), default=json_default))
    changed = [k for k in names if rebuilt[k] != data[k]]
    if changed:
        k = changed[0]
        raise TournamentError(
            f"{where}: config does not hold together: {k} is {data[k]!r}, its values give {rebuilt[k]!r}"
        )
    return config


def default_out_dir() -> Path:
    """A new folder ``runs/tournament-<date>-<time>[-k]``, created here: two runs started in the same
    second each get their own."""
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    for k in itertools.count(1):
        path = Path("runs") / (f"tournament-{stamp}" + (f"-{k}" if k > 1 else ""))
        try:
            path.mkdir(parents=True)
        except FileExistsError:
            continue
        except OSError as exc:
            raise TournamentError(f"cannot create output folder {str(path)!r}: {exc.strerror or exc}") from None
        return path
    raise AssertionError("unreachable")


@functools.lru_cache(maxsize=1)
def _git_commit() -> str | None:
    try:
        result = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=Path(__file__).parent,
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    commit = result.stdout.strip()
    return commit if result.returncode == 0 and commit else None


__all__ = [
    "LOCK_FILE",
    "MANIFEST_SCHEMA",
    "claim_folder",
    "default_out_dir",
    "manifest_config",
    "read_manifest",
    "write_manifest",
]
