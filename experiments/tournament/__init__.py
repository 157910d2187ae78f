"""Every betting system on the same shoes, and an honest verdict (``trente-lab tournament``).

**What it does.** Each system plays ``sessions`` sessions of at most ``coups`` coups, starting with
``bankroll`` units, at tables with the chosen rules, through the session runner shared by every
command (:mod:`strategies.runner`, which states the accounting convention: a session ends after
``coups`` coups, at ruin or when the system walks away; stakes still in prison then settle, with
no new stake; the return per unit staked is net result / new stakes over the sessions).

**Common random numbers.** Session ``i`` is one table of the native vector env
(:class:`~trente_env.vector.TrenteEtQuaranteVectorEnv`) seeded with
:func:`~strategies.runner.session_seed` ``(seed, i)``, the ``i``-th child of
``numpy.random.SeedSequence(seed)`` (what ``SeedSequence(seed).spawn(n)[i]`` gives), as in every
command. Bets never change the cards, so every system sees exactly the same coups in session ``i``:
differences between systems come from staking alone. The seed of a session does not depend on how
the work is split, so the numbers are identical for any ``--workers``.

**Two ways to play, one set of numbers.** The built-in systems play together on the compiled
session loop of :mod:`strategies.sessions`: each session is dealt once and every system plays it,
through the same compiled dealing, settlement and strategy code as the environments and
:meth:`~strategies.base.Strategy.act`. A trained model or a plugin written as Python hooks plays
on the vector env through its ``act`` (:func:`strategies.runner.play_on_env`). For a built-in
system both give identical numbers to the last chip (``tests/test_sessions.py``).

**Card counters.** ``counter`` (the perfect counter of ``trente-lab count``) and ``linear-counter``
(:mod:`strategies.counters`) read the cards, so they play on the shoe-observing vector env, on the
same shoes and with the same statistics, each alone; they are not in the default line-up and play
only when named (``--strategies all,counter,linear-counter``). Their edge is minus the expected gain
of their stakes given the cards unseen when each was placed (:class:`strategies.runner.ExactGains`),
not the full shoe's house edge. That path is slower, and the run says
so before it starts: a Python step a coup (the linear counter still plays some 600,000
session-coups a second), and the perfect counter computes the odds of every coup (about 2,000
session-coups a second on ``exhaustion``, 7,000 with the cut card, one process: README).

**Work and checkpoints.** Sessions are cut into blocks of ``block`` sessions (a fixed part of the
configuration, recorded in the manifest). One task is one block of one group of systems (every
built-in system together; each other policy alone: :meth:`.config.TournamentConfig.groups`); each
finished task is saved atomically to ``OUT/blocks/`` at once, one file per system. Tasks are
made one at a time as they are played: nothing proportional to the number of sessions is held
but the results themselves. Ctrl-C or a crash keeps every finished task, and ``--resume OUT``
runs only the missing ones, with the same result as an uninterrupted run.

**Files that prove what they are.** Every block file records the run it belongs to
(:class:`.checkpoints.RunIdentity`: a hash of the configuration, and of the code that computed it:
trente-lab's, numpy's and numba's versions, the engine's source files, a plugin's module or a
model's file), its block, its system and the type and shape of every array
(:class:`.checkpoints.Checkpoints`). Before a block is summed in, it is checked against the run: a
block of another run or of other code, a truncated or corrupted file, a short, mistyped or NaN
array is reported in one line and played again, never summed in. The configuration of a manifest
is validated like a fresh one (:func:`.folder.manifest_config`).

**One run per folder.** A run holds its output folder from before it reads the manifest to its
last file: an exclusive lock on ``OUT/.lock`` (:func:`experiments.files.claim_folder`), removed at the end,
which the system drops if the process dies. A second run on the same folder is refused in one line. Running again
into a folder that holds the same configuration reuses its checkpoints (a resume); a folder
holding another configuration is refused. A run that cannot fit in the machine's memory
(:func:`.runner.memory_needed`) is refused before any work. ``--workers`` defaults to the CPU count
(one for short runs). When every system is built in, the workers are threads of the compiled loop
in this process; otherwise they are processes started with ``spawn``, one numba thread each.

**Statistics**: :mod:`experiments.stats` (ratio estimator over sessions, delta-method 95%
interval, Holm's correction over the systems).

**Default run**: the line-up of :data:`strategies.LINEUP` (19 entries, 18 that stake), 16,000
sessions of 200 coups, bankroll 1,000, unit 1, classic rules, seed 0: about 61 million
session-coups, every 95% interval (and every Bonferroni-simultaneous one) below 0. On the project's
2-core machine the play takes about 3 s (over 20 million session-coups a second) and the whole
command, files and plots included, about 10 s (``benchmarks/bench_tournament.py``).

**Where things are.**

* :mod:`.defaults`: the size of a default run;
* :mod:`.config`: :class:`~.config.TournamentConfig`, :func:`~.config.make_config` (validation),
  config files and the shipped ones;
* :mod:`.runner`: tasks, threads and worker processes, the size check, the run and its resume
  (:func:`~.runner.run_tournament`, :func:`~.runner.resume_tournament`);
* :mod:`.checkpoints`: the run's identity and the block files;
* :mod:`.folder`: the output folder's lock and the manifest;
* :mod:`.summary`: the statistics per system, the verdicts and the conclusion;
* :mod:`.output`: the results files and the table on the terminal;
* :mod:`.plots`: the three pictures.

**The files it writes** (``manifest.json``, ``results.json``, ``results.csv``, ``sessions.parquet``
or ``sessions.csv.gz``, ``trajectories.csv``, the plots, ``blocks/`` until the run is complete,
``.lock`` while it runs) are described field by field in
``docs/tournament-files.md``.
"""
