"""Writing results: atomic files (a reader sees the old file or the new one, never a part) and
JSON for numpy values, enums, dataclasses and paths."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _umask()


def atomic_write(path: Path, write: Callable[[io.BufferedWriter], None]) -> None:
    """Write ``path`` atomically: ``write(f)`` fills a temporary file in the same folder, which then
    replaces ``path`` (``os.replace``). A reader sees the old file or the new one, never a part."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.chmod(tmp, 0o666 & ~_UMASK)
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError) and exc.filename is None:  # say which file could not be written
            exc.filename = str(path)
        raise


def atomic_write_bytes(path: Path, data: bytes) -> None:
    atomic_write(path, lambda f: f.write(data))


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_json(path: Path, document: Any) -> None:
    atomic_write_text(path, json.dumps(document, indent=2, ensure_ascii=False, default=json_default) + "\n")


def save_figure(fig: Any, path: Path, dpi: int = 110) -> Path:
    """Save a matplotlib figure as PNG, atomically, and close it."""
    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi)
    plt.close(fig)
    atomic_write_bytes(path, buffer.getvalue())
    return path


def json_default(value: Any) -> Any:
    """``json.dumps``'s ``default``: numpy arrays and scalars, dataclasses, enums and paths."""
    if hasattr(value, "tolist"):
        return value.tolist()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, Path):
        return str(value)
    if hasattr(value, "value"):
        return value.value
    raise TypeError(f"cannot write {type(value).__name__} as JSON")
