"""Shared test settings: hypothesis profiles (CI runs the same examples every time), and the skip of
tests marked ``needs_rl`` when the ``rl`` extra is not installed."""

import importlib.util
import os

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, deadline=None, max_examples=60)
settings.register_profile("dev", deadline=None, max_examples=60)
settings.load_profile("ci" if os.environ.get("CI") else "dev")

#: The packages of the ``rl`` extra (pyproject.toml).
RL_PACKAGES = ("stable_baselines3", "sb3_contrib")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    missing = [name for name in RL_PACKAGES if importlib.util.find_spec(name) is None]
    if not missing:
        return
    skip = pytest.mark.skip(reason=f"needs the rl extra ({', '.join(missing)} not installed): pip install -e '.[rl]'")
    for item in items:
        if item.get_closest_marker("needs_rl"):
            item.add_marker(skip)
