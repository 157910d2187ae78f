"""Reinforcement-learning agents at the table, and the positive control that shows they could learn.

* :mod:`experiments.rl.algorithms`: the algorithms ``trente-lab train`` builds;
* :mod:`experiments.rl.config`: an RL run's settings (``configs/rl.toml``) and the algorithm's class;
* :mod:`experiments.rl.rig`: where an agent plays, a :class:`~experiments.rl.rig.Venue` (a preset,
  fair or the rigged table of the positive control) and its vector environments;
* :mod:`experiments.rl.features`: the input layer's former address (:mod:`strategies.features`), for saved models;
* :mod:`experiments.rl.train`: training, the learning curve and the model files (``trente-lab train``);
* :mod:`experiments.rl.evaluate`: what a policy bets and earns, and the verdict (``trente-lab evaluate``);
* :mod:`experiments.rl.control`: the headline result, the same agent on the fair and the rigged
  table (``trente-lab control``);
* :mod:`experiments.rl.sweep`: many runs, seeds x algorithms x tables x hyper-parameters, locally
  or on Dask (``trente-lab sweep``).

Stable-baselines3, sb3-contrib and torch (the ``rl`` extra) are imported only to train or load an
agent: evaluating a betting system needs none of them.
"""
