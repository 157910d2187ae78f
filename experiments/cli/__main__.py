"""``python -m experiments.cli``: the ``trente-lab`` command without the installed script."""

from experiments.cli import app

app(prog_name="trente-lab")
