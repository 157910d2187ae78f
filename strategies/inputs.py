"""The one reader: every file trente-lab reads (a config, a manifest, a classroom session, a plugin, a
model) is opened here, refused in one line before a byte is read when it is not a regular file (a FIFO
would block forever, ``/dev/zero`` fill memory) or is too large for what it should be, and parsed with
its depth errors caught. Each caller names the exception its part raises (``error``), which the command
line shows as one line. It lives below every package that reads a file; :mod:`experiments.files`
re-exports it beside the one writer."""

from __future__ import annotations

import io
import json
import os
import stat
import tomllib
from pathlib import Path
from typing import Any

#: What a path that is not a regular file is, by its ``stat`` type: said in refusals.
_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISLNK, "a symbolic link"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)

#: The most bytes each kind of input file may hold: a config or a description is kilobytes, a
#: manifest, a run's results (its tables, a plot) or a classroom session a little more, a model's
#: weights megabytes.
CONFIG_BYTES = 1 << 20
MANIFEST_BYTES = 16 << 20
RESULTS_BYTES = 16 << 20
SESSION_BYTES = 64 << 20
MODEL_BYTES = 1 << 30


def input_kind(mode: int) -> str:
    """What a file of ``stat`` mode ``mode`` is, said in refusals ("a folder", "a FIFO (named pipe)"...)."""
    return next((kind for test, kind in _KINDS if test(mode)), "not a regular file")


def open_input(path: str | Path, what: str, limit: int, error: type[Exception]) -> io.BufferedReader:
    """``path`` opened for reading, binary, if it is a regular file of at most ``limit`` bytes: the one
    way trente-lab opens a file it reads (a config, a manifest, a session, a plugin, a model).

    Anything else is an ``error`` with one line naming ``what`` and ``path``, found before a byte is
    read: a missing file, a folder, a FIFO (which would block the read forever), a device (which
    ``/dev/zero`` would fill memory from), a file too large for what it should be. A symbolic link
    to a regular file is read. The file is opened without blocking and checked again once open
    (something else may have been put there meanwhile)."""
    shown = f"{what} {str(path)!r}"
    try:
        mode = os.stat(path).st_mode
        if not stat.S_ISREG(mode):
            raise error(f"{shown} is {input_kind(mode)}, not a regular file")
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except FileNotFoundError:
        raise error(f"cannot read {shown}: it does not exist") from None
    except OSError as exc:
        raise error(f"cannot read {shown}: {exc.strerror or exc}") from None
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise error(f"{shown} is {input_kind(status.st_mode)}, not a regular file")
        if status.st_size > limit:
            raise error(f"{shown} holds {status.st_size:,} bytes: too large for a {what} (at most {limit:,})")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_input(path: str | Path, what: str, limit: int, error: type[Exception]) -> bytes:
    """The bytes of the input file ``path`` (:func:`open_input`), at most ``limit`` of them: a file that
    grew past it while being read is refused too."""
    with open_input(path, what, limit, error) as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise error(f"{what} {str(path)!r} holds more than {limit:,} bytes: too large for a {what}")
    return data


def read_input_text(path: str | Path, what: str, limit: int, error: type[Exception]) -> str:
    """The text of the input file ``path`` (:func:`read_input`), UTF-8."""
    try:
        return read_input(path, what, limit, error).decode("utf-8")
    except UnicodeDecodeError:
        raise error(f"{what} {str(path)!r} is not a text file (UTF-8)") from None


def read_json(path: str | Path, what: str, limit: int, error: type[Exception]) -> Any:
    """The JSON document in the input file ``path`` (:func:`read_input`); a document that is not JSON,
    or is nested too deep for the parser, is an ``error`` with one line."""
    text = read_input_text(path, what, limit, error)
    return parse_json(text, f"{what} {str(path)!r}", error)


def parse_json(text: str | bytes, where: str, error: type[Exception]) -> Any:
    """``json.loads(text)``; invalid JSON, or JSON nested too deep to parse, is an ``error`` ``malformed <where>``."""
    try:
        return json.loads(text)
    except RecursionError:
        raise error(f"malformed {where}: nested too deep") from None
    except ValueError as exc:
        raise error(f"malformed {where}: {str(exc).splitlines()[0]}") from None


def read_toml(path: Path, error: type[Exception], what: str = "config") -> dict[str, Any]:
    """The TOML document in ``path`` (read by :func:`read_input`: a regular file of at most
    :data:`CONFIG_BYTES`); a file that cannot be read, is not text, is not TOML or holds nothing is an
    ``error`` with one line naming it."""
    text = read_input_text(path, what, CONFIG_BYTES, error)
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise error(f"malformed {what} {str(path)!r}: {str(exc).splitlines()[0]}") from None
    except RecursionError:
        raise error(f"malformed {what} {str(path)!r}: nested too deep") from None
    if not document:
        raise error(f"{what} {str(path)!r} is empty: it holds no table")
    return document
