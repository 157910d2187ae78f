"""THE seeds of trente-lab: every seed and random stream derived from a run's seed, in one place.

Every derivation goes through numpy's :class:`~numpy.random.SeedSequence` (no other module builds
one; a test scans the tree), one documented function each, so a reader finds here what feeds which
shoe:

* **Sessions** (the tournament, ``evaluate``, ``train``'s evaluations, the fallacy companion):
  session ``i`` of a run seeded ``s`` plays a table seeded :func:`session_seed` ``(s, i)``, the
  ``i``-th child of ``SeedSequence(s)``; its table shuffles with ``numpy.random.default_rng`` of that
  seed (:func:`shuffling_generators`, :func:`session_shuffle_seeds`), and the random system draws
  with the session's key (:func:`session_keys`).
* **Shards** of long jobs (``simulate``, ``fallacy``): :func:`shard_generator` ``(s, index)``.
* **Batches and blocks of shoes** (``count``, the levels' counting figure): :func:`batch_seeds`,
  :func:`block_seed`.
* **The classroom's tables and their fast-forwards**: :func:`table_generator`, :func:`fast_forward_seed`.
* **The whole-shoe reference of ``simulate``**: :func:`reference_generator`, and the dealt reference
  stored with the package: :func:`reference_shard_generator`.
* **Fresh entropy** (a vector env reset without a seed): :func:`fresh_generators`.
* **A trained agent's own evaluation shoes** (``benchmark``: each training seed evaluated on shoes
  of its own): :func:`evaluation_seed`.

numpy reads an integer seed as its 32-bit words, least significant first (:func:`seed_words`);
reading them once here for many seeds gives the same pools, hence the same streams, without one
Python step per word.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

#: The 32-bit words of a SeedSequence's pool (an entropy shorter than this is padded with zero words).
POOL_WORDS = 4
#: Seeds drawn at once from a table's generator (the seeds of its next shuffles, used in order).
SEED_BATCH = 64
#: A table that has used this many of its batch of seeds is refilled with the others
#: (:meth:`trente_env.tables.Tables._draw_seeds`).
REFILL_FROM = SEED_BATCH * 3 // 4


def seed_words(seeds: Sequence[int], width: int = POOL_WORDS) -> np.ndarray:
    """(len(seeds), width) uint32: each seed as :class:`~numpy.random.SeedSequence` reads an integer,
    its 32-bit words least significant first, padded with zero words to ``width``.

    Padded to at least the pool's :data:`POOL_WORDS`, the words give the pool numpy builds from the
    integer itself (it pads a shorter entropy with zero words), so the same children and streams.

    :param seeds: integers from 0 to ``2**(32 * width) - 1``.
    """
    data = b"".join(int(s).to_bytes(4 * width, "little") for s in seeds)
    return np.frombuffer(data, dtype="<u4").reshape(-1, width)


def session_seed(seed: int, i: int) -> int:
    """The table seed of session ``i``: the ``i``-th child of ``SeedSequence(seed)`` as a 128-bit int."""
    words = np.random.SeedSequence(seed, spawn_key=(i,)).generate_state(2, np.uint64)
    return int(words[0]) | (int(words[1]) << 64)


def session_seeds(seed: int, sessions: int, first: int = 0) -> list[int]:
    """The table seeds of ``sessions`` sessions of a run with seed ``seed``, from session ``first`` on:
    :func:`session_seed` of each.

    The run's seed is read into its 32-bit words once (:func:`seed_words`, at least the pool's
    length), and each child's four words are read as one 128-bit integer.
    """
    seed = int(seed)
    if seed < 0:  # SeedSequence's own error
        return [session_seed(seed, i) for i in range(first, first + sessions)]
    entropy = seed_words([seed], max(POOL_WORDS, -(-seed.bit_length() // 32)))[0]
    words = b"".join(
        np.random.SeedSequence(entropy, spawn_key=(i,)).generate_state(4, np.uint32).astype("<u4").tobytes()
        for i in range(first, first + sessions)
    )
    return [int.from_bytes(words[k : k + 16], "little") for k in range(0, len(words), 16)]


def shuffling_generators(seeds: Sequence[int]) -> list[np.random.BitGenerator]:
    """The bit generators of ``numpy.random.default_rng(seed)`` for each seed: the same streams, the
    same shoes.

    For seeds below ``2**128`` (a session seed) the words of every seed are read in one pass
    (:func:`seed_words`) and handed to :class:`~numpy.random.SeedSequence` as an array, which gives
    the same pool. The :class:`~numpy.random.Generator` around each bit generator is left out: a
    table draws only raw outputs. Other seeds (negative, larger) go through ``default_rng`` itself.
    """
    seeds = [int(s) for s in seeds]
    if not all(0 <= s < 2**128 for s in seeds):
        return [np.random.default_rng(s).bit_generator for s in seeds]
    return [np.random.PCG64(np.random.SeedSequence(w)) for w in seed_words(seeds)]


def session_shuffle_seeds(session_seeds: Sequence[int], shuffles: int) -> np.ndarray:
    """(sessions, shuffles) uint64: the seeds of each session's first shuffles, as its table draws
    them (the raw outputs of ``numpy.random.default_rng(session seed)``)."""
    out = np.empty((len(session_seeds), shuffles), dtype=np.uint64)
    for i, generator in enumerate(shuffling_generators(session_seeds)):
        out[i] = generator.random_raw(shuffles)
    return out


def session_keys(session_seeds: Sequence[int]) -> np.ndarray:
    """(sessions,) int64: each session's key for the random system's draws, from its seed alone
    (its first shuffle seed, halved to fit int64), so a session draws the same numbers in whatever
    block, batch or row it is played."""
    return (session_shuffle_seeds(session_seeds, 1)[:, 0] >> np.uint64(1)).astype(np.int64)


def shard_generator(seed: int, index: int) -> np.random.Generator:
    """The random generator of shard ``index`` of a job seeded ``seed``: from these two numbers only.

    Shard 0 draws from the root seed's own stream (``numpy.random.default_rng(seed)``), so a job of
    one shard deals what it dealt before jobs were cut into shards; shard ``i > 0`` draws from the
    ``i``-th child of the root's :class:`~numpy.random.SeedSequence` (``spawn_key=(i,)``), a stream
    numpy makes independent of the root's and of every other child's.
    """
    return np.random.default_rng(seed if index == 0 else np.random.SeedSequence(seed, spawn_key=(index,)))


def batch_seeds(seed: int, batches: int) -> np.ndarray:
    """(batches,) uint64: the seeds of a job's batches of shoes (``trente-lab count``'s shards): the
    first ``batches`` 64-bit words of ``SeedSequence(seed)``'s state, batch ``b`` seeded by word ``b``."""
    return np.random.SeedSequence(seed).generate_state(batches, np.uint64)


def block_seed(seed: int, block: int) -> int:
    """The seed of block ``block`` of shoes of a study seeded ``seed`` (the levels' counting
    figure): the first 32-bit word of ``SeedSequence([seed, block])``'s state."""
    return int(np.random.SeedSequence([seed, block]).generate_state(1)[0])


#: The whole-shoe reference's own stream beside a run's seed (:func:`reference_generator`).
REFERENCE_STREAM = 0x5EF


def reference_generator(seed: int) -> np.random.Generator:
    """The generator of the shoes that ``simulate``'s whole-shoe reference deals for a run seeded
    ``seed``: a stream apart from the run's own shards (``default_rng([seed, 0x5EF])``)."""
    return np.random.default_rng([seed, REFERENCE_STREAM])


def reference_shard_generator(seed: int, index: int) -> np.random.Generator:
    """The generator of shard ``index`` of the dealt whole-shoe reference stored with the package
    (:mod:`experiments.game.reference`, seeded ``seed``): the ``index``-th child of
    ``SeedSequence([seed, 0x5EF])``, a stream apart from every run's shards."""
    return np.random.default_rng(np.random.SeedSequence([seed, REFERENCE_STREAM], spawn_key=(index,)))


def table_generator(seed: int, table: int) -> np.random.Generator:
    """The generator of the live shoes of the classroom's table ``table`` in a room seeded ``seed``
    (``default_rng([seed, table])``)."""
    return np.random.default_rng([seed, table])


def fast_forward_seed(seed: int, table: int, run: int) -> int:
    """The seed of the ``run``-th fast-forward of the classroom's table ``table`` in a room seeded
    ``seed``: the first 64-bit word of ``SeedSequence([seed, table, 1 + run])``'s state, halved to fit
    int64; apart from the live shoe's stream (:func:`table_generator`)."""
    return int(np.random.SeedSequence([seed, table, 1 + run]).generate_state(1, np.uint64)[0] >> np.uint64(1))


#: The evaluation shoes' own stream beside a training seed (:func:`evaluation_seed`).
EVALUATION_STREAM = 0xE7A1


def evaluation_seed(training_seed: int) -> int:
    """The evaluation seed of an agent trained with seed ``training_seed``: the first 64-bit word of
    ``SeedSequence([training_seed, 0xE7A1])``'s state, halved to fit int64. Its sessions (session ``i``
    seeded :func:`session_seed` ``(evaluation_seed, i)``) are apart from the training tables' streams
    and from every other training seed's evaluation, so seeds evaluated this way are independent draws
    of both the training and the shoes."""
    words = np.random.SeedSequence([int(training_seed), EVALUATION_STREAM]).generate_state(1, np.uint64)
    return int(words[0] >> np.uint64(1))


def fresh_generators(n: int) -> list[np.random.Generator]:
    """``n`` independent generators from fresh entropy (the children of an unseeded
    :class:`~numpy.random.SeedSequence`): tables reset without a seed."""
    return [np.random.default_rng(s) for s in np.random.SeedSequence().spawn(n)]


__all__ = [
    "POOL_WORDS",
    "REFILL_FROM",
    "SEED_BATCH",
    "EVALUATION_STREAM",
    "batch_seeds",
    "block_seed",
    "evaluation_seed",
    "fast_forward_seed",
    "fresh_generators",
    "seed_words",
    "session_keys",
    "session_seed",
    "session_seeds",
    "session_shuffle_seeds",
    "shard_generator",
    "shuffling_generators",
]
