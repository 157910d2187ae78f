"""The project's build backend: setuptools' own, and an editable install compiles the kernels.

A fresh install would otherwise compile every kernel on its first use (seconds on the first ``step``,
the first tournament, the first classroom demo). An editable install (``pip install -e .``, the
README's) leaves the sources where they are, so their compiled kernels can be cached now, under the
very paths and fingerprint the first use looks for: after setuptools has built the editable wheel,
this runs ``python -m experiments.warm`` in the build environment, which holds the project's own
dependencies for it (:func:`get_requires_for_build_editable`). Best effort: if it fails, the install
goes on and the kernels compile on first use, as before. ``TRENTE_LAB_NO_PRECOMPILE=1`` skips it.

A regular install (a wheel) copies the sources elsewhere: its kernels compile on first use (or by
``python -m experiments.warm`` after it).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F403 (every hook this module does not change)

ROOT = Path(__file__).resolve().parent.parent


def _precompile() -> bool:
    return os.environ.get("TRENTE_LAB_NO_PRECOMPILE", "") in ("", "0")


def get_requires_for_build_editable(config_settings=None):
    """setuptools' requirements, and the project's dependencies when the kernels are to be compiled."""
    needs = list(_setuptools.get_requires_for_build_editable(config_settings))
    if _precompile():
        project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
        needs += project["dependencies"]
    return needs


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """setuptools' editable wheel, then the kernels of the first commands compiled into the cache."""
    name = _setuptools.build_editable(wheel_directory, config_settings, metadata_directory)
    if _precompile():
        print("trente-lab: compiling the kernels of the first commands (about a minute)", file=sys.stderr, flush=True)
        try:
            done = subprocess.run(
                [sys.executable, "-m", "experiments.warm"],
                cwd=ROOT, capture_output=True, text=True, timeout=1800, check=False,
            )  # fmt: skip
            said = (done.stdout + done.stderr).strip().splitlines()
            print(f"trente-lab: {said[-1] if said else 'no output'}", file=sys.stderr, flush=True)
        except (OSError, subprocess.SubprocessError) as exc:
            print(f"trente-lab: kernels not compiled ahead ({exc}); they compile on first use", file=sys.stderr)
    return name
