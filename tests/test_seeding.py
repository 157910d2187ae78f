"""Seeding sessions without one Python conversion per integer changes no shoe: the session seeds and
the tables' shuffling streams are numpy's own, number for number."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from strategies.runner import session_seed, session_seeds
from strategies.sessions import session_shuffle_seeds
from trente_env.dealer import deal_coups
from trente_env.tables import REFILL_FROM, SEED_BATCH, shuffling_generators
from trente_env.vector import TrenteEtQuaranteVectorEnv

#: Seeds at the edges of the 32-bit words a SeedSequence reads an integer into.
EDGES = [0, 1, 2**32 - 1, 2**32, 2**64 - 1, 2**64, 2**96 + 5, 2**127, 2**128 - 1, 2**128, 2**200 + 3]


@settings(max_examples=60, deadline=None)
@given(seed=st.one_of(st.sampled_from(EDGES), st.integers(0, 2**300)), first=st.integers(0, 2**40))
def test_session_seeds_are_each_sessions_seed(seed: int, first: int) -> None:
    assert session_seeds(seed, 5, first) == [session_seed(seed, i) for i in range(first, first + 5)]


def test_session_seeds_refuse_a_negative_seed_as_numpy_does() -> None:
    with pytest.raises(ValueError):
        session_seeds(-1, 3)


@settings(max_examples=40, deadline=None)
@given(seeds=st.lists(st.one_of(st.sampled_from(EDGES), st.integers(0, 2**128 - 1)), min_size=1, max_size=6))
def test_shuffling_generators_are_default_rng_streams(seeds: list[int]) -> None:
    for seed, generator in zip(seeds, shuffling_generators(seeds), strict=True):
        assert np.array_equal(generator.random_raw(70), np.random.default_rng(seed).bit_generator.random_raw(70))


def test_shuffling_generators_of_other_seeds_go_through_default_rng() -> None:
    big = [2**128, 2**300 + 1]
    for seed, generator in zip(big, shuffling_generators(big + [5])[:2], strict=True):
        assert np.array_equal(generator.random_raw(8), np.random.default_rng(seed).bit_generator.random_raw(8))
    with pytest.raises(ValueError):
        shuffling_generators([3, -1])


def test_the_compiled_loop_draws_the_session_streams() -> None:
    seeds = session_seeds(9, 12)
    expected = np.stack([np.random.default_rng(s).bit_generator.random_raw(7) for s in seeds])
    assert np.array_equal(session_shuffle_seeds(seeds, 7), expected)


def test_tables_deal_the_same_coups_from_a_generator_or_its_bit_generator() -> None:
    # Three tables betting nothing for long enough that each draws a second batch of shuffle seeds:
    # tables seeded with the bit generators of the vector env's reset deal, coup for coup, what tables
    # seeded with numpy's Generators deal.
    seeds = session_seeds(2, 3)
    envs = [TrenteEtQuaranteVectorEnv(3, threads=False) for _ in range(2)]
    envs[0].reset(seed=seeds)
    envs[1].reset()
    envs[1].tables.seed([np.random.default_rng(s) for s in seeds])
    envs[1].tables.reset_rows()
    idle = np.zeros((3, 12), dtype=np.int64)
    shuffles = np.zeros(3, dtype=np.int64)
    while shuffles.min() <= SEED_BATCH:
        for env in envs:
            env.step(idle)
        assert np.array_equal(envs[0].tables.coup, envs[1].tables.coup)
        shuffles += envs[0].tables.coup[:, 7].astype(np.int64)


def test_tables_refilled_before_their_seeds_run_out_deal_each_generators_shoes_in_order() -> None:
    # Tables betting nothing (sessions never end) through more than two batches of shuffle seeds each:
    # every table deals, coup for coup, what deal_coups deals from numpy.random.default_rng(seed + i),
    # though tables nearly out of seeds are refilled with those of a table that ran out (the seeds not
    # yet used kept first). The spy proves that such early refills happened.
    env = TrenteEtQuaranteVectorEnv(4, threads=False)
    env.reset(seed=11)
    tables = env.tables
    early = []
    draw = tables._draw_seeds

    def spy() -> None:
        early.extend(u for u in tables._used.tolist() if REFILL_FROM <= u < SEED_BATCH)
        draw()

    tables._draw_seeds = spy
    idle = np.zeros((4, 12), dtype=np.int64)
    dealt = []
    shuffles = np.zeros(4, dtype=np.int64)
    while shuffles.min() <= 2 * SEED_BATCH + 2:
        env.step(idle)
        dealt.append(tables.coup[:, [0, 1, 4, 6, 7]].copy())
        shuffles += tables.coup[:, 7].astype(np.int64)
    assert early  # some table was refilled before it had used its whole batch
    dealt = np.stack(dealt)  # (coups, tables, columns)
    for i in range(4):
        coups = deal_coups(env.rules, dealt.shape[0], np.random.default_rng(11 + i))
        expected = np.stack([coups.noir, coups.rouge, coups.start, coups.start + coups.n_noir + coups.n_rouge,
                             coups.reshuffle], axis=1)  # fmt: skip
        assert np.array_equal(dealt[:, i], expected)
