"""Files: atomic writes (a reader sees the old file or the new one, never a part), figures, JSON for
numpy values, enums, dataclasses and paths, the check of an output path before any work, and the
lock of an output folder. Every file trente-lab writes goes through :func:`atomic_write` (a journal
line by line through :func:`append_line`); every file it reads through :mod:`strategies.inputs`
(re-exported here)."""

from __future__ import annotations

import contextlib
import csv
import dataclasses
import errno
import io
import json
import math
import os
import stat
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from experiments.errors import LabError

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _umask()


def atomic_write(path: Path, write: Callable[[io.BufferedWriter], None], private: bool = False) -> None:
    """Write ``path`` atomically: ``write(f)`` fills a temporary file in the same folder, which then
    replaces ``path`` (``os.replace``). A reader sees the old file or the new one, never a part.
    ``private``: readable by its owner only (0600) from the first byte, whatever the umask (a file
    that holds a token or students' keys); else the umask's usual mode.

    Only a regular file or a new path is written: anything else at ``path`` (a folder, a symbolic
    link, a FIFO, a socket, a device) is a :class:`~experiments.errors.LabError` and is left as it
    is, checked before and again just before the replace. An error names ``path``, never the
    temporary file."""
    path = Path(path)
    _check_replaceable(path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:  # a folder we may not write in, a full disk: name the file, not the temporary one
        exc.filename, exc.filename2 = str(path), None
        raise
    try:
        os.chmod(tmp, 0o600 if private else 0o666 & ~_UMASK)
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        _check_replaceable(path)  # something else may have been put there while we wrote
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError) and exc.filename in (None, tmp):  # name the file, not our temporary one
            exc.filename, exc.filename2 = str(path), None
        raise


def append_line(path: Path, line: str, private: bool = True) -> None:
    """Append one line of text to ``path`` (a journal), created if missing, and flush it to the disk
    (``fsync``) before returning: a line written is kept whatever happens to the process next.
    ``private``: the file is readable by its owner only (0600), made so if it was not; else a new
    file gets the umask's usual mode. ``line``'s newline is added when missing.

    Only a regular file or a new path is appended to: anything else at ``path`` (a folder, a symbolic
    link, even to a regular file, a FIFO, a socket, a device) is a :class:`~experiments.errors.LabError`,
    found without blocking and left as it is; so is a line break inside ``line`` (it would be two)."""
    path = Path(path)
    if "\n" in line.removesuffix("\n") or "\r" in line:
        raise LabError(f"{str(path)!r}: one line at a time (the text holds a line break)")
    _appendable(path, file_kind(path))
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags | getattr(os, "O_NONBLOCK", 0), 0o600 if private else 0o666)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENXIO):  # made a link, or a FIFO with no reader, meanwhile
            _appendable(path, file_kind(path))
        raise
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):  # something else put there between the check and the open
            _appendable(path, file_kind(path) or "not a regular file")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        if private and stat.S_IMODE(status.st_mode) != 0o600:
            os.fchmod(fd, 0o600)
        data = (line.removesuffix("\n") + "\n").encode("utf-8")
        while data:
            data = data[os.write(fd, data) :]
        os.fsync(fd)
    finally:
        os.close(fd)


def _appendable(path: Path, kind: str | None) -> None:
    """Refuse ``path`` when it is ``kind`` (what :func:`file_kind` says: not a regular file or a new path)."""
    if kind is not None:
        raise LabError(
            f"{str(path)!r} is {kind}, not a regular file: trente-lab appends only to a regular file or a new path"
        )


def file_kind(path: Path) -> str | None:
    """What ``path`` is when it exists and is not a regular file ("a folder", "a symbolic link",
    "a FIFO (named pipe)", "a socket", "a device"...); None for a regular file or a new path. A
    symbolic link is not followed: it is a link, whatever it points to."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return None
    except OSError:  # a path through a file, a name too long: the write says why
        return None
    if stat.S_ISREG(mode):
        return None
    from strategies.inputs import input_kind

    return input_kind(mode)


def _check_replaceable(path: Path, option: str | None = None) -> None:
    kind = file_kind(path)
    if kind is not None:
        where = f"{option} {str(path)!r}" if option else str(path)
        raise LabError(f"{where} is {kind}, not a regular file: trente-lab writes only a regular file or a new path")


def atomic_write_bytes(path: Path, data: bytes, private: bool = False) -> None:
    atomic_write(path, lambda f: f.write(data), private)


def atomic_write_text(path: Path, text: str, private: bool = False) -> None:
    atomic_write_bytes(path, text.encode("utf-8"), private)


def atomic_write_json(path: Path, document: Any, strict: bool = False, private: bool = False) -> None:
    """``document`` as JSON, written atomically. ``strict``: standard JSON, which has no NaN or
    infinity: every non-finite number is written ``null`` (:func:`finite_or_null`). ``private``:
    readable by its owner only (:func:`atomic_write`)."""
    if strict:
        document = finite_or_null(json.loads(json.dumps(document, default=json_default)))
    text = json.dumps(document, indent=2, ensure_ascii=False, default=json_default, allow_nan=not strict)
    atomic_write_text(path, text + "\n", private)


def finite_or_null(value: Any) -> Any:
    """``value`` (plain JSON data) with every NaN or infinite number replaced by None."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite_or_null(v) for k, v in value.items()}
    if isinstance(value, list):
        return [finite_or_null(v) for v in value]
    return value


def atomic_write_csv(path: Path, rows: Iterable[Mapping[str, Any]], columns: Sequence[str]) -> None:
    """``rows`` as a CSV table of ``columns`` (in that order; other keys of a row are left out),
    written atomically."""
    text = io.StringIO()
    writer = csv.DictWriter(text, columns, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    atomic_write_text(path, text.getvalue())


def pyplot() -> Any:
    """matplotlib's ``pyplot`` on the Agg backend (draws into files, no display needed), imported on
    first use: matplotlib takes longer to import than most commands take to run."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig: Any, path: Path, dpi: int = 110) -> Path:
    """Save a matplotlib figure as PNG, atomically, and close it."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi)
    pyplot().close(fig)
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


def check_output_folder(path: Path, option: str = "--out") -> Path:
    """Refuse, before any work, an output folder that cannot be one: an existing file, a path
    through a file, or a place we may not write (a :class:`~experiments.errors.LabError` naming
    ``option``). Nothing is created."""
    path = _given(path, option)
    if (path.exists() or path.is_symlink()) and not path.is_dir():  # a link to nothing too
        raise LabError(f"{option} {str(path)!r} is {file_kind(path) or 'a file'}, not a folder")
    _check_writable(path, option, str(path))
    return path


def check_output_file(path: Path, option: str = "--output") -> Path:
    """Refuse, before any work, an output file that cannot be written: an empty path, an existing
    folder, anything else that is not a regular file (a symbolic link, a FIFO, a socket, a device:
    :func:`atomic_write` would replace it), a path through a file, or a place we may not write.
    Nothing is created."""
    path = _given(path, option)
    if path.is_dir() and not path.is_symlink():
        raise LabError(f"{option} {str(path)!r} is a folder; give the file to write")
    _check_replaceable(path, option)
    _check_writable(path.absolute().parent, option, str(path))
    return path


def _given(path: str | Path, option: str) -> Path:
    """``path`` as a :class:`~pathlib.Path`; an empty string (an unset shell variable) is refused:
    ``Path("")`` would be the current folder."""
    if isinstance(path, str) and not path.strip():
        raise LabError(f"{option} is empty: give a path (an unset shell variable?)")
    return Path(path)


def _check_writable(path: Path, option: str, shown: str) -> None:
    """The nearest existing folder on the way to ``path`` (``path`` itself if it exists) must be a
    folder we may write in."""
    here = path.absolute()
    while not here.exists():
        here = here.parent
    if not here.is_dir():
        raise LabError(f"{option} {shown!r}: {str(here)!r} is a file, not a folder")
    if not os.access(here, os.W_OK | os.X_OK):
        raise LabError(f"{option} {shown!r}: cannot write in {str(here)!r} (permission denied)")


# -- the lock on an output folder -----------------------------------------------------------------

#: The lock file that claims an output folder for one run.
LOCK_FILE = ".lock"


@contextlib.contextmanager
def claim_folder(out: Path, what: str = "tournament", error: type[LabError] | None = None) -> Iterator[None]:
    """Hold the folder ``out`` (created if needed) for one run: an exclusive lock on ``OUT/.lock``,
    with this process's id written in it, taken before anything in the folder is read and kept
    until the run ends, when the file is removed. The system drops the lock when the process ends,
    however it ends (a ``.lock`` left by a killed run holds no lock).

    :param what: the kind of run, said to a second one (``tournament``, ``training run``).
    :raises LabError: (``error``, default :class:`~experiments.errors.TournamentError`) another run
        holds the folder, or it cannot be created.
    """
    if error is None:
        from experiments.errors import TournamentError as error
    out = Path(out)
    if (out.exists() or out.is_symlink()) and not out.is_dir():  # a file, a FIFO, a link to nothing
        raise error(f"{str(out)!r} is {file_kind(out) or 'a file'}, not a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise error(f"cannot create output folder {str(out)!r}: {exc.strerror or exc}") from None
    lock = out / LOCK_FILE
    while True:
        try:
            fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o666)
        except OSError as exc:
            raise error(f"cannot write in output folder {str(out)!r}: {exc.strerror or exc}") from None
        if not _lock(fd):
            try:
                holder = os.read(fd, 32).decode(errors="replace").strip()
            except OSError:
                holder = ""
            os.close(fd)
            raise error(
                f"{str(out)!r} is in use by another {what} (pid {holder or 'unknown'}): "
                "wait for it to end, or choose another --out"
            )
        if _same_file(fd, lock):
            break
        os.close(fd)  # the run that held it removed it as we opened it: lock the file there now
    try:
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        yield
    finally:
        with contextlib.suppress(OSError):  # removed while held: no other run can hold it meanwhile
            os.unlink(lock)
        os.close(fd)  # drops the lock


def _same_file(fd: int, path: Path) -> bool:
    """Whether the open file ``fd`` is still the file at ``path``."""
    try:
        here, there = os.fstat(fd), os.stat(path)
    except OSError:
        return False
    return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)


def _lock(fd: int) -> bool:
    """Lock the open file ``fd`` for this process, without waiting; False if another holds it."""
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        else:  # Windows: lock the first byte
            import msvcrt

            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
    except OSError:
        return False
    return True


#: The one reader (:mod:`strategies.inputs`: below every package that reads a file), re-exported here
#: beside the one writer. Loaded on first use: the command line's help loads no engine.
_READER = frozenset(
    ("CONFIG_BYTES", "MANIFEST_BYTES", "MODEL_BYTES", "RESULTS_BYTES", "SESSION_BYTES", "input_kind")
    + ("open_input", "parse_json", "read_input", "read_input_text", "read_json", "read_toml")
)


def __getattr__(name: str) -> Any:
    if name in _READER:
        from strategies import inputs

        return getattr(inputs, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
