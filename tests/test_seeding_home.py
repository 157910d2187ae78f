"""Every seed has one home, :mod:`trente_env.seeding`: no other module builds a SeedSequence, and each
derivation gives numpy's own numbers (the words an integer is read into, the states it generates)."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from trente_env import seeding

ROOT = Path(__file__).resolve().parent.parent
#: Where the library's and its tools' sources live.
SOURCES = ("trente_env", "strategies", "experiments", "benchmarks", "examples")
#: Modules that still build a SeedSequence, each with its reason (none may be added).
EXCEPTIONS = {
    "trente_env/seeding.py": "the home of every seed",
}


def _builds_a_seed_sequence(path: Path) -> bool:
    """Whether a module calls ``SeedSequence`` (``np.random.SeedSequence(...)`` or an imported name), or
    derives a stream by handing ``default_rng`` a list of numbers (numpy builds the SeedSequence then)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if name == "SeedSequence":
                return True
            if name == "default_rng" and node.args and isinstance(node.args[0], (ast.List, ast.Tuple)):
                return True
    return False


def test_no_module_but_seeding_builds_a_seed_sequence() -> None:
    found = {
        path.relative_to(ROOT).as_posix()
        for folder in SOURCES
        for path in sorted((ROOT / folder).rglob("*.py"))
        if _builds_a_seed_sequence(path)
    }
    assert found <= set(EXCEPTIONS), sorted(found - set(EXCEPTIONS))
    assert "trente_env/seeding.py" in found


@pytest.mark.parametrize("seed", [0, 1, 2**32 - 1, 2**32, 2**64 + 7, 2**127 + 3, 2**128 - 1])
def test_seed_words_give_the_pool_numpy_builds_from_the_integer(seed: int) -> None:
    words = seeding.seed_words([seed])[0]
    assert words.dtype == np.uint32 and words.shape == (seeding.POOL_WORDS,)
    assert int.from_bytes(words.astype("<u4").tobytes(), "little") == seed
    assert np.array_equal(np.random.SeedSequence(words).pool, np.random.SeedSequence(seed).pool)


def test_seed_words_of_a_long_seed_need_a_wider_row() -> None:
    seed = 2**200 + 3
    words = seeding.seed_words([seed], 7)[0]
    assert np.array_equal(np.random.SeedSequence(words).pool, np.random.SeedSequence(seed).pool)
    with pytest.raises(OverflowError):
        seeding.seed_words([seed])


def test_each_derivation_is_numpys_own_state() -> None:
    assert np.array_equal(seeding.batch_seeds(7, 5), np.random.SeedSequence(7).generate_state(5, np.uint64))
    assert seeding.block_seed(3, 2) == int(np.random.SeedSequence([3, 2]).generate_state(1)[0])
    assert seeding.block_seed(3, 2) < 2**32
    state = np.random.SeedSequence([4, 1, 3]).generate_state(1, np.uint64)[0]
    assert seeding.fast_forward_seed(4, 1, 2) == int(state) // 2 < 2**63
    assert seeding.shard_generator(5, 0).random() == np.random.default_rng(5).random()
    child = np.random.default_rng(np.random.SeedSequence(5, spawn_key=(3,)))
    assert seeding.shard_generator(5, 3).random() == child.random()


def test_the_session_keys_are_the_first_shuffle_seeds_halved() -> None:
    seeds = seeding.session_seeds(1, 4)
    first = np.array([np.random.default_rng(s).bit_generator.random_raw() for s in seeds], dtype=np.uint64)
    assert np.array_equal(seeding.session_keys(seeds), (first >> np.uint64(1)).astype(np.int64))


def test_fresh_generators_differ() -> None:
    a, b = seeding.fresh_generators(2)
    assert a.integers(2**62) != b.integers(2**62)
