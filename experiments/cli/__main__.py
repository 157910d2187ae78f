"""``python -m experiments.cli``: the ``trente-lab`` command without the installed script."""

from experiments.cli import run

run()
