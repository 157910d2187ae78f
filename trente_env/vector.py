"""The native vector environment: N tables in lockstep, batched in numpy and numba.

``gymnasium.make_vec("TrenteEtQuarante-v0", num_envs=N)`` builds :class:`TrenteEtQuaranteVectorEnv`
through the registration's ``vector_entry_point`` (as gymnasium's ``CartPoleVectorEnv``). It plays
every table with the same compiled kernel as the single environment (:class:`~trente_env.tables.Tables`),
so table ``i`` seeded with ``seed + i`` plays exactly the coups of a ``TrenteEtQuaranteEnv`` reset
with ``seed + i`` — which is also what ``gymnasium.vector.SyncVectorEnv`` would do.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from trente_env.layout import DEFAULT_STAKE_LEVELS, MENU_FORMS, ActionForm, Layout, ObservationForm
from trente_env.rules import RuleSet, get_rules
from trente_env.seeding import fresh_generators, shuffling_generators
from trente_env.tables import NEXT_STEP, SAME_STEP, Tables
from trente_env.whole import is_whole

_AUTORESET_MODES = (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP)


class TrenteEtQuaranteVectorEnv(VectorEnv):
    """Trente et Quarante at ``num_envs`` tables at once, each with its own shoe and player.

    Everything about one table (actions, observations, rewards, episode end) is as in
    :class:`~trente_env.env.TrenteEtQuaranteEnv`; actions and observations carry a leading table
    axis. With the full action form an action is an ``(N, 12)`` integer array, with the discrete
    form an ``(N,)`` array, with the factored form an ``(N, 3)`` one; a dict observation is a dict
    of ``(N, ...)`` arrays.

    **Seeding.** ``reset(seed=s)`` gives table ``i`` the generator ``numpy.random.default_rng(s + i)``
    (a list of seeds gives one per table; the tables keep only its bit generator, see
    :func:`~trente_env.tables.shuffling_generators`); ``reset(seed=None)`` keeps the tables' generators, or
    draws fresh entropy on the first reset. Each generator serves only its table's shuffles.

    **Autoreset** (``autoreset_mode``, recorded in ``metadata["autoreset_mode"]``):

    * ``AutoresetMode.NEXT_STEP`` (default, as ``CartPoleVectorEnv``): on the step after a table's
      episode ended, that table ignores its action and starts a new session: it returns the
      starting observation with reward 0 and ``terminated = truncated = False``. Its ``info``
      entries are masked out (``info["_result"][i]`` is False).
    * ``AutoresetMode.SAME_STEP``: a table whose episode ends starts its new session in the same
      step; the returned observation is the new session's first, the last observation of the old
      one is in ``info["final_obs"]`` (the same structure as the observation, with rows meaningful
      where ``info["_final_obs"]`` is True). This is the mode of :func:`trente_env.wrappers.sb3_vec_env`.

    A new session restores the bankroll, clears prisoners and scoreboard and shuffles a fresh shoe,
    exactly as ``TrenteEtQuaranteEnv.reset()``. Truncation comes from ``max_episode_steps``
    (passed in by ``gymnasium.make_vec`` from the registration).

    **Buffers.** One step is one call of a compiled kernel that plays the coup, writes the
    observation in place and starts the sessions due to start (autoreset included). By default
    (``copy=False``) ``step`` and ``reset`` return the env's own arrays: the observation (a float32
    array, or a dict of views of the tables' arrays), the rewards and the two flags are overwritten
    by the next ``step`` or ``reset``, as with ``gymnasium.vector.SyncVectorEnv(copy=False)``. Copy
    what you keep across steps (``obs.copy()``), or pass ``copy=True`` for fresh arrays each time.
    ``info["final_obs"]`` is a buffer of its own, meaningful on the rows of ``info["_final_obs"]``
    until those tables end a session again.

    **Information**: empty by default (``SAME_STEP`` autoreset adds ``final_obs``), so a step copies
    nothing it was not asked for. With ``coup_info=True`` every step's ``info`` holds the details of
    each table's coup, in Gymnasium's vector convention (arrays with one entry per table, each with
    its ``_key`` mask, False for a table that started a new session instead of playing): ``noir``,
    ``rouge`` (totals), ``result``, ``couleur`` (0 Couleur, 1 Inverse, 2 neither), ``reshuffle``,
    ``clipped``, and per box ``stakes``, ``insured``, ``back``. The same numbers are always in
    :attr:`tables` (its :attr:`~trente_env.tables.Tables.record`, updated in place), and the cards
    of table ``i``'s last coup are available from :meth:`cards`.

    :param num_envs: the number of tables (tens of thousands are fine).
    :param max_episode_steps: coups per session before truncation (None: no limit).
    :param autoreset_mode: ``NEXT_STEP`` or ``SAME_STEP``.
    :param coup_info: put the details of every coup in ``info`` (see Information; off by default).
    :param threads: play the tables on numba's threads (True), on one thread (False), or on threads
        from 1,000 tables on (None, the default; ``trente_env.tables.PARALLEL_FROM``). Threads pay on
        idle cores only; on a machine busy with other work pass False.
    :param copy: return fresh arrays at every step and reset (see Buffers); by default the env's own.

    The other arguments are those of :class:`~trente_env.env.TrenteEtQuaranteEnv`.
    """

    metadata = {"render_modes": [], "autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(
        self,
        num_envs: int = 1,
        rules: str | RuleSet = "classic",
        bankroll: float = 1000.0,
        target: float | None = None,
        action_form: ActionForm = "full",
        observation: ObservationForm = "dict",
        history: int = 10,
        observe_shoe: bool = False,
        stake_levels: Sequence[float] = DEFAULT_STAKE_LEVELS,
        max_episode_steps: int | None = None,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        coup_info: bool = False,
        threads: bool | None = None,
        copy: bool = False,
        render_mode: str | None = None,
    ) -> None:
        autoreset_mode = AutoresetMode(autoreset_mode)
        if autoreset_mode not in _AUTORESET_MODES:
            raise ValueError(f"autoreset_mode must be NEXT_STEP or SAME_STEP, got {autoreset_mode}")
        if render_mode is not None:
            raise ValueError("the vector environment does not render; render one TrenteEtQuaranteEnv instead")
        if max_episode_steps is not None and max_episode_steps < 1:
            raise ValueError(f"max_episode_steps must be at least 1, got {max_episode_steps}")
        self.rules = get_rules(rules)
        if target is not None and not target > bankroll:
            raise ValueError(f"the target ({target}) must be above the starting bankroll ({bankroll})")
        if not is_whole(num_envs, 1):
            raise ValueError(f"num_envs must be a whole number of tables, at least one, got {num_envs!r}")
        self.num_envs = int(num_envs)
        self.target = target
        self.max_episode_steps = max_episode_steps
        self.autoreset_mode = autoreset_mode
        self.coup_info = bool(coup_info)
        self.metadata = {**self.metadata, "autoreset_mode": autoreset_mode}
        self.render_mode = render_mode
        self.layout = Layout(self.rules, action_form, observation, history, observe_shoe, stake_levels)
        # the tables first: they refuse a number of tables beyond the memory before the spaces fill it
        self.tables: Tables = self.layout.new_tables(self.num_envs, bankroll, target, threads)
        self.single_action_space = self.layout.single_action_space
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.single_observation_space = self.layout.single_observation_space
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.copy = bool(copy)
        tables = self.tables
        self._obs = self.layout.views(tables.flat, tables.results, tables.couleurs)
        self._final_obs = self.layout.views(tables.final.flat, tables.final.results, tables.final.couleurs)
        self._autoreset = NEXT_STEP if autoreset_mode is AutoresetMode.NEXT_STEP else SAME_STEP

    @property
    def _done(self) -> np.ndarray:
        """The tables whose session ended at the last step and start a new one at the next (``NEXT_STEP``)."""
        return self.tables.record.pending

    def reset(
        self, *, seed: int | Sequence[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Start a new session at every table (or at the tables in ``options["reset_mask"]``)."""
        if seed is None or isinstance(seed, (int, np.integer)):
            super().reset(seed=None if seed is None else int(seed))
        if seed is not None:
            seeds = [int(seed) + i for i in range(self.num_envs)] if np.isscalar(seed) else [int(s) for s in seed]
            if len(seeds) != self.num_envs:
                raise ValueError(f"need {self.num_envs} seeds, got {len(seeds)}")
            self.tables.seed(shuffling_generators(seeds))  # the bit generators of default_rng(s)
        elif not self.tables.generators:
            self.tables.seed(fresh_generators(self.num_envs))
        mask = None if options is None else options.get("reset_mask")
        if mask is not None:
            mask = np.asarray(mask, dtype=np.bool_)
            if mask.shape != (self.num_envs,):
                raise ValueError(f"reset_mask must be {self.num_envs} booleans, got shape {mask.shape}")
        self.tables.reset_rows(mask)
        return self._observation(), {}

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Play one coup at every table (a table whose session ended starts a new one: see Autoreset)."""
        tables = self.tables
        if not tables.generators:
            raise RuntimeError("call reset() before step()")
        layout = self.layout
        if layout.action_form in MENU_FORMS:
            choices = layout.choices(actions, self.num_envs)  # their range is checked by the kernel
            try:
                tables.step(layout.action_table, choices, autoreset=self._autoreset, limit=self.max_episode_steps)
            except ValueError:  # raised before any table played
                layout.check_range(actions)  # the actions out of range, in the layout's words
                raise
        else:
            tables.step(layout.actions(actions, self.num_envs), autoreset=self._autoreset, limit=self.max_episode_steps)
        record = tables.record
        info = self._info(record.played) if self.coup_info else {}
        if self._autoreset == SAME_STEP and record.ended.any():
            info["final_obs"] = self._copied(self._final_obs) if self.copy else self._final_obs
            info["_final_obs"] = record.ended.copy()
        if self.copy:
            return self._observation(), record.reward.copy(), record.terminated.copy(), record.truncated.copy(), info
        return self._obs, record.reward, record.terminated, record.truncated, info

    def _observation(self) -> Any:
        return self._copied(self._obs) if self.copy else self._obs

    @staticmethod
    def _copied(obs: Any) -> Any:
        if isinstance(obs, dict):
            return {key: value.copy() for key, value in obs.items()}
        return obs.copy()

    def _info(self, played: np.ndarray) -> dict[str, Any]:
        t = self.tables
        coup = t.coup
        columns = {
            "noir": coup[:, 0].copy(),
            "rouge": coup[:, 1].copy(),
            "result": coup[:, 2].copy(),
            # a table restarted in the same step has its last coup's scoreboard in tables.final
            "couleur": np.where(t.ended, t.final.couleurs[:, 0], t.couleurs[:, 0]),
            "reshuffle": coup[:, 7].astype(np.bool_),
            "clipped": t.clipped.copy(),
            "stakes": t.placed.copy(),
            "insured": t.insured.copy(),
            "back": t.back.copy(),
        }
        info: dict[str, Any] = {}
        for key, value in columns.items():
            info[key] = value
            info[f"_{key}"] = played
        return info

    def action_masks(self) -> np.ndarray:
        """The legal actions of every table, one row per table (see ``TrenteEtQuaranteEnv.action_masks``).

        A table about to start a new session (``NEXT_STEP`` autoreset) is masked with the starting
        bankroll, though its action is ignored.
        """
        bankroll = np.where(self._done, self.tables.initial_bankroll, self.tables.bankroll)
        return self.layout.action_masks(bankroll)

    def cards(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """The Noir and Rouge rows (card codes) of table ``i``'s last coup."""
        return self.tables.cards(i)

    @property
    def bankroll(self) -> np.ndarray:
        """Money in hand at every table, in units."""
        return self.tables.bankroll.copy()

    def render(self) -> None:
        """Not supported: render a single :class:`~trente_env.env.TrenteEtQuaranteEnv`."""
        return None


__all__ = ["TrenteEtQuaranteVectorEnv"]
