"""Every script in examples/ runs as a user runs it (``python examples/NAME.py``), at a small size,
and prints what its docstring promises. The training example is slow and needs the rl extra."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
#: a printed result line: the label, then the return per unit staked and its interval
RESULT = re.compile(r"^(?P<label>\S+)\s+return per unit staked (?P<ret>[+-]\d+\.\d+)% \(95% CI", re.MULTILINE)


def run_example(name: str, *args: str, cwd: Path) -> str:
    """Run one example in a fresh interpreter, from ``cwd``, with this checkout first on the path."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / name), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, f"{name} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def test_every_example_has_a_docstring_and_a_test():
    scripts = sorted(p.name for p in EXAMPLES.glob("*.py"))
    assert scripts == ["custom_tournament.py", "fallacy_table.py", "plugin_system.py", "train_agent.py"]
    source = Path(__file__).read_text(encoding="utf-8")
    for name in scripts:
        text = (EXAMPLES / name).read_text(encoding="utf-8")
        assert text.startswith('"""'), f"{name} has no docstring"
        assert source.count(f'"{name}"') >= 2, f"{name}: no test runs it"  # the list above, and a run


def test_custom_tournament_prints_what_it_wrote(tmp_path):
    out = tmp_path / "t"
    stdout = run_example("custom_tournament.py", "--sessions", "60", "--coups", "20", "--out", str(out), cwd=tmp_path)
    results = json.loads((out / "results.json").read_text())
    printed = {m["label"]: float(m["ret"]) for m in RESULT.finditer(stdout)}
    assert set(printed) == set(results["strategies"]) and len(printed) == 4
    for label, value in printed.items():  # printed to 4 decimals of a percent
        assert value == pytest.approx(100 * results["strategies"][label]["return_per_unit"], abs=5e-5)
    assert results["sessions"] == 60 and results["coups"] == 20 and results["rules"] == "partage"


def test_plugin_system_plays_its_own_system_beside_the_built_ins(tmp_path):
    stdout = run_example("plugin_system.py", "--sessions", "60", "--coups", "20", cwd=tmp_path)
    printed = {m["label"]: float(m["ret"]) for m in RESULT.finditer(stdout)}
    assert set(printed) == {"flat:box=rouge", "martingale:box=rouge", "plugin_system:Triple:box=rouge"}


def test_plugin_triples_after_a_loss_and_restarts_after_a_win():
    sys.path.insert(0, str(EXAMPLES))
    try:
        from plugin_system import Triple
    finally:
        sys.path.remove(str(EXAMPLES))
    import numpy as np

    system = Triple()
    state = system.initial_state(3)
    state.memory["units"][:] = [1, 3, 9]
    system._update(state, np.array([False, True, False]), np.array([True, False, False]), np.ones(3))
    assert state.memory["units"].tolist() == [3, 1, 9]  # lost: tripled; won: one unit; no change: kept


def test_fallacy_table_prints_the_table_and_the_exact_half(tmp_path):
    stdout = run_example("fallacy_table.py", "--coups", "20000", "--sessions", "50", cwd=tmp_path)
    assert "exact P(Rouge wins a decided coup) = 0.5000" in stdout
    assert "intervals" in stdout and "miss" in stdout


@pytest.mark.slow
@pytest.mark.needs_rl
def test_train_agent_trains_saves_and_scores_the_agent_and_a_flat_bettor(tmp_path):
    out = tmp_path / "agent"
    stdout = run_example("train_agent.py", "--timesteps", "2048", "--episodes", "20", "--out", str(out), cwd=tmp_path)
    assert (out / "model.zip").is_file() and (out / "model.json").is_file()
    assert re.search(r"^trained [\d,]+ steps", stdout, re.MULTILINE)
    assert stdout.count("return per unit staked") == 2 and "flat: sat out 0.0% of coups" in stdout
