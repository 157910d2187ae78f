"""The Gymnasium environment: one coup per step, bets as actions, bankroll and scoreboard as observation.

The table itself (shoe, dealing, settlement) is :class:`trente_env.tables.Tables`; the spaces, the
action forms and the observation forms are :class:`trente_env.layout.Layout` (shared with the vector
environment, so both read actions and write observations the same way). This module adds the
environment's life cycle, rendering and the manual.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from trente_env.codes import BOXES
from trente_env.coup import Coup
from trente_env.layout import DEFAULT_STAKE_LEVELS, ActionForm, Layout, ObservationForm
from trente_env.rules import RuleSet, get_rules


class TrenteEtQuaranteEnv(gym.Env[Any, Any]):
    """Trente et Quarante (Rouge et Noir) at one table: each step is one coup.

    ## Description

    The French banking game of the casinos of Monte Carlo and Spa. Before each coup the player may
    stake on four boxes: **Noir** and **Rouge** (which row wins), **Couleur** and **Inverse**
    (whether the very first card dealt has the colour of the winning row), each paying 1:1. The
    croupier then deals the Noir row, card by card, until its total passes 30 (it ends on 31 to 40),
    then the Rouge row the same way. The lower row wins. Equal rows on 32-40 are an *après*: the
    coup is void and every stake comes back. Equal rows on 31 are the *refait*, where the bank's whole
    edge lies: under *partage* (``half``) the player loses half of each stake (a quarter under
    ``quarter``); *en prison* the stakes wait on their box for the next coup (freed if the box then
    wins, lost if it loses; on a second refait the rule set's ``second_refait`` applies); under
    ``choice`` the player picks half or prison. Each rule in a sentence: ``trente_env.settle.refait_words(rules)``;
    what it is worth: ``trente_env.settle.refait_value``. A stake can be insured against the refait
    for a premium (1% by default).

    The shoe (6 decks by default) is shuffled, dealt coup after coup until the cut card comes out,
    then shuffled again. No betting system changes the odds: every stake loses about 1.1% of itself
    on average (see docs/rules.md#house-edges for the exact edge of each rule set).

    ## Action Space

    ``action_form="full"`` (default): ``MultiDiscrete`` of 12 numbers, easy to build with numpy::

        [stake Noir, stake Rouge, stake Couleur, stake Inverse,   # whole units, 0 = no bet
         insure Noir, insure Rouge, insure Couleur, insure Inverse,   # 1 = insured
         prison Noir, prison Rouge, prison Couleur, prison Inverse]   # choice rule: 1 = prison, 0 = half

    Stakes run from 0 to the table maximum. Dimensions a table does not offer have a single value 0:
    the Couleur/Inverse stakes under ``main-bets``, the insurance flags without insurance, the
    prison flags outside the ``choice`` rule. The half-or-prison choice is declared with the bets and
    matters only if a refait comes.

    ``action_form="discrete"``: ``Discrete(1 + boxes * len(stake_levels))``, accepted directly by
    PPO, A2C and DQN. Action 0 sits the coup out; action ``1 + box * len(stake_levels) + level``
    stakes ``stake_levels[level]`` units on box ``box`` (0 Noir, 1 Rouge, 2 Couleur, 3 Inverse), not
    insured, and takes *half* on a refait under ``choice`` (half is never worse than prison).

    ``action_form="factored"``: the same bets as the discrete form, in three parts,
    ``MultiDiscrete([2, boxes, len(stake_levels)])``: bet (1) or sit the coup out (0), the box, and
    the stake level. When the first part is 0 the other two say nothing. A policy over it chooses
    whether to bet, where and how much with one distribution per part, so what it learns about the
    size of a stake is shared by every box and weighs on the size only as often as it bets.

    **Illegal stakes** are made legal before the deal, box by box in the order Noir, Rouge, Couleur,
    Inverse: a stake over the table maximum is cut to the maximum; a stake (with its premium) over
    the money left is cut to the largest whole number of units that fits (compared exactly, so the
    bankroll never goes below 0); a stake left under the table minimum is refused (the box sits
    out); negative and NaN stakes count as 0. ``info["clipped"]`` says when this happened. A zero
    bet is always legal. :meth:`action_masks` gives the legal actions for sb3-contrib's
    MaskablePPO. A discrete action out of range, or an action of another shape or not made of
    numbers, raises ``ValueError``.

    ## Observation Space

    ``observation="dict"`` (default), a flat ``Dict`` (use SB3's ``MultiInputPolicy``):

    * ``bankroll``, Box(0, max, (1,)): money in hand, in units (stakes in prison not included).
    * ``coups``, Box(0, max, (1,)): coups played this session.
    * ``couleur``, MultiDiscrete([3] * history): the scoreboard's Couleur column: 0 Couleur won,
      1 Inverse won, 2 neither (après, refait, void, or no coup yet).
    * ``prison``, Box(0, max, (8,)): stakes in first prison on Noir, Rouge, Couleur, Inverse, then
      the stakes in second prison (``second-prison`` rules) on the same boxes.
    * ``results``, MultiDiscrete([6] * history): the scoreboard: the
      :class:`~trente_env.codes.Result` code of each coup (0 Noir, 1 Rouge, 2 après, 3 refait,
      4 void), 5 for no coup yet.
    * ``cards_left``, Box(0, n_cards, (1,)), only with ``observe_shoe``: cards still to deal.
    * ``shoe``, Box(0, ., (20,)), only with ``observe_shoe``: the unseen black cards of value 1..10,
      then the unseen red ones.

    ``max`` is float32's largest value (these quantities have no bound).

    Every part is float32 (the Box parts) or a code, by choice: it is what a network reads, and the
    bytes a trained model saw. float32 holds every whole unit up to ``2**24`` units (about
    16.8 million); above that the observed bankroll is rounded (to a multiple of 64 units at 1e9, of
    65,536 at the lab's limit of 1e12). The money itself is exact: the table keeps it in float64
    (``env.unwrapped.bankroll``, the vector env's ``bankroll``), as are the rewards. A betting
    system reads that exact figure for its stop rules and stake limits
    (``Strategy.act(obs, state, money=env.bankroll)``, which the session runner passes), so no
    decision of a system depends on the observation's rounding.

    The scoreboard lists the most recent coup first: ``obs["results"][0]`` is the last coup.
    The unseen cards include the burnt ones, which are never shown; after the cut card comes out
    the counts are those of a full shoe, since the next coup is dealt from a fresh shuffle.

    ``observation="flat"``: one float32 ``Box`` (use ``MlpPolicy``) holding the same values in the
    same key order, with the two scoreboard columns one-hot encoded; it equals
    ``gymnasium.spaces.flatten`` of the dict observation.

    ## Starting State

    ``bankroll`` units in hand, nothing in prison, an empty scoreboard, and a freshly shuffled shoe
    (the shuffle happens before the first coup, from ``self.np_random``).

    ## Rewards

    The change in bankroll over the coup, in units, unscaled: winnings, minus stakes lost, minus
    insurance premiums. A stake sent to prison counts as lost when it goes in (-stake) and as won
    back when it is freed (+stake); a prisoner lost costs nothing more. So the sum of the rewards of
    an episode is exactly the final bankroll minus the starting one. For learning, scale with
    ``gymnasium.wrappers.TransformReward`` or SB3's ``VecNormalize``.

    ## Episode End

    The episode terminates when the player is ruined (bankroll under the table minimum with nothing
    in prison) or, if ``target`` is set, when the bankroll reaches ``target`` with nothing in prison.
    It is truncated by the registration's ``max_episode_steps`` (1000 coups for the registered ids).

    ## Information

    Empty by default, so that a step builds nothing it was not asked for (as the vector
    environment's). With ``coup_info=True`` every ``step`` returns in ``info`` the details of the
    coup: ``noir_cards`` and ``rouge_cards`` (tuples of card codes, see
    :func:`trente_env.cards.card_name`), the totals ``noir`` and ``rouge``, ``result`` (a
    :class:`~trente_env.codes.Result` code), ``couleur`` (0 Couleur won, 1 Inverse won, 2 neither),
    ``reshuffle`` (the cut card came out), ``stakes`` (the stakes actually placed per box, after
    making them legal), ``insured`` (per box), ``back`` (what each box returned to the bankroll,
    stake and winnings, freed prisoners included) and ``clipped``. The same details of the last
    coup are always given by :meth:`coup_details`. ``reset`` returns an empty info.

    ## Arguments

    ```python
    import gymnasium as gym
    import trente_env  # registers the environments

    env = gym.make("TrenteEtQuarante-v0", rules="partage", bankroll=1000, action_form="discrete")
    ```

    * ``rules``: a preset name (``classic``, ``partage``, ``choice``, ``family``, ``main-bets``,
      ``lenient-couleur``, ``exhaustion``, ``second-prison``) or a :class:`~trente_env.rules.RuleSet`.
      Each preset is also registered as its own id, e.g. ``TrenteEtQuarante-Partage-v0``.
    * ``bankroll``: starting bankroll in units (default 1000).
    * ``target``: end the session once the bankroll reaches this (default None: no target).
    * ``action_form``: ``"full"`` (default), ``"discrete"`` or ``"factored"``.
    * ``observation``: ``"dict"`` (default) or ``"flat"``.
    * ``history``: coups kept on the scoreboard (default 10).
    * ``observe_shoe``: add the shoe's unseen cards to the observation (default False).
    * ``stake_levels``: the stakes of the discrete and factored forms, in units (default 1, 5, 25, 100).
    * ``coup_info``: put the details of every coup in ``info`` (see Information; default False).
    * ``render_mode``: ``"ansi"`` (the croupier's layout as text), ``"human"`` (printed in colour) or
      ``"rgb_array"`` (the table as a picture, ``(368, 640, 3)`` uint8: both rows of cards, the
      scoreboard, the stakes and the bankroll; what gymnasium's ``RecordVideo`` films).

    ``gymnasium.make_vec("TrenteEtQuarante-v0", num_envs=N)`` builds the native
    :class:`~trente_env.vector.TrenteEtQuaranteVectorEnv` with the same arguments (and its own:
    ``autoreset_mode``, ``coup_info`` for the coups' details in its ``info``, ``threads``, ``copy``
    for fresh arrays at every step instead of its own buffers).

    ## Version History

    * v0: initial version; ``info`` empty unless ``coup_info=True`` (it held the coup's details at
      every step before).
    """

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 2}

    def __init__(
        self,
        rules: str | RuleSet = "classic",
        bankroll: float = 1000.0,
        target: float | None = None,
        action_form: ActionForm = "full",
        observation: ObservationForm = "dict",
        history: int = 10,
        observe_shoe: bool = False,
        stake_levels: Sequence[float] = DEFAULT_STAKE_LEVELS,
        render_mode: str | None = None,
        coup_info: bool = False,
    ) -> None:
        self.rules = get_rules(rules)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            # a TypeError, as for an unexpected argument: SB3's make_vec_env asks for "rgb_array" and
            # falls back to no render mode on a TypeError
            raise TypeError(f"unsupported render_mode {render_mode!r}; choose one of {self.metadata['render_modes']}")
        if target is not None and not target > bankroll:
            raise ValueError(f"the target ({target}) must be above the starting bankroll ({bankroll})")
        self.render_mode = render_mode
        self.target = target
        self.coup_info = bool(coup_info)
        self.layout = Layout(self.rules, action_form, observation, history, observe_shoe, stake_levels)
        self.action_space = self.layout.single_action_space
        self.observation_space = self.layout.single_observation_space
        self._tables = self.layout.new_tables(1, bankroll, target)
        self._menu_size = self.layout.action_table.shape[0] if action_form == "discrete" else 0
        self._dealt = False  # a coup was dealt since the last reset (what render shows)
        self._bind()

    def _bind(self) -> None:
        """The step's shortcuts to the table's arrays: views of its rows and the observation's
        function, made once (a view costs about as much as a small copy), and the shoe's cards for
        ``info``, read once a shuffle (the shoe changes only then). Views are not pickled, and made
        again after unpickling (a pickled view would no longer share the table's memory)."""
        t = self._tables
        self._observe = self.layout.observer(t)
        # the row's methods the coup's details call: copies of its stakes, insurance flags and returns
        self._rows = (
            t.coup[0].tolist, t.shoes[0], t.placed[0].copy, t.insured[0].copy, t.back[0].copy, t.couleurs.item,
            t.clipped.item,
        )  # fmt: skip
        self._items = (t.needs_shuffle.item, t.reward.item, t.terminated.item)  # what every step reads
        self._cards: tuple[int, ...] | None = None  # the shoe's cards as numbers, read again after a shuffle

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        del state["_observe"], state["_rows"], state["_items"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._bind()

    @property
    def bankroll(self) -> float:
        """Money in hand, in units."""
        return float(self._tables.bankroll[0])

    @property
    def prison(self) -> np.ndarray:
        """Stakes in prison, shape (4, 2): box (Noir, Rouge, Couleur, Inverse) by prison level."""
        return self._tables.prison[0].copy()

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        """Sit down at the table: a fresh bankroll and a shoe to be shuffled before the first coup."""
        super().reset(seed=seed)
        self._tables.seed([self.np_random])
        self._tables.reset_rows()
        self._dealt = False
        if self.render_mode == "human":
            self.render()
        return self._observe(), {}

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Place the bets, deal one coup, settle every box."""
        tables = self._tables
        needs_shuffle, reward, terminated = self._items
        if self.coup_info and needs_shuffle(0):  # this coup is dealt from a fresh shuffle
            self._cards = None
        if self._menu_size and isinstance(action, (int, np.integer)) and 0 <= action < self._menu_size:
            tables.choose_one(action)  # the discrete form's usual action: its row of the menu
        else:
            tables.play_one(self.layout.action_row(action))
        self._dealt = True
        info = self.coup_details() if self.coup_info else {}
        if self.render_mode == "human":
            self.render()
        return self._observe(), reward(0), terminated(0), False, info

    def coup_details(self) -> dict[str, Any] | None:
        """The details of the last coup, what ``info`` holds with ``coup_info=True`` (see Information);
        None before the first coup of the session."""
        if not self._dealt:
            return None
        coup, shoe, placed, insured, back, couleur, clipped = self._rows
        noir, rouge, result, _, start, middle, end, reshuffle = coup()
        cards = self._cards
        if cards is None:  # kept only where every step sees the shuffles (coup_info): see step
            cards = tuple(shoe.tolist())  # the shoe as dealt until its next shuffle
            if self.coup_info:
                self._cards = cards
        return {
            "noir_cards": cards[start:middle],
            "rouge_cards": cards[middle:end],
            "noir": noir,
            "rouge": rouge,
            "result": result,
            "couleur": couleur(0),  # one table: the first entry is its last coup's
            "reshuffle": bool(reshuffle),
            "stakes": placed(),
            "insured": insured(),
            "back": back(),
            "clipped": clipped(0),
        }

    def action_masks(self) -> np.ndarray:
        """The legal actions now, for sb3-contrib's MaskablePPO (see the Action Space section)."""
        return self.layout.action_masks(self._tables.bankroll)[0]

    def render(self) -> str | np.ndarray | None:
        """The croupier's layout of the last coup: both rows, totals, the announcement, the money (as
        text for ``"ansi"``, printed for ``"human"``, a picture for ``"rgb_array"``)."""
        if self.render_mode is None:
            gym.logger.warn(
                "You are calling render method without specifying any render mode. "
                'You can specify the render_mode at initialization, e.g. gym.make("TrenteEtQuarante-v0", '
                'render_mode="ansi")'
            )
            return None
        if self.render_mode == "rgb_array":
            from trente_env.render import draw_table

            t = self._tables
            money = int(t.coups[0]), float(t.bankroll[0])
            return draw_table(*money, t.prison[0], t.results[0], t.couleurs[0], self.coup_details())
        text = self._render_text()
        if self.render_mode == "ansi":
            return text
        from rich.console import Console

        Console().print(_colour(text), highlight=False)
        return None

    def _render_text(self) -> str:
        t = self._tables
        prisoners = ", ".join(
            f"{BOXES[b].capitalize()} {t.prison[0, b, level]:g}{' (2nd)' if level else ''}"
            for level in range(2)
            for b in range(4)
            if t.prison[0, b, level] > 0
        )
        head = f"Coup {int(t.coups[0])} · bankroll {t.bankroll[0]:.2f}" + (
            f" · en prison: {prisoners}" if prisoners else ""
        )
        info = self.coup_details()
        if info is None:
            return f"{head}\nFaites vos jeux."
        coup = Coup(info["noir_cards"], info["rouge_cards"], info["noir"], info["rouge"])
        bets = " · ".join(
            f"{BOXES[b].capitalize()} {info['stakes'][b]:g}{' insured' if info['insured'][b] else ''}"
            f" → {info['back'][b]:g}"
            for b in range(4)
            if info["stakes"][b] > 0 or info["back"][b] > 0
        )
        lines = [head, coup.layout(), coup.announcement(), f"Bets: {bets or 'none'}"]
        if info["reshuffle"]:
            lines.append("The cut card is out: the shoe is shuffled before the next coup.")
        return "\n".join(lines)


def _colour(text: str) -> str:
    """Rich markup: hearts and diamonds in red."""
    return re.sub(r"(\S+[♥♦])", r"[red]\1[/red]", text)


__all__ = ["TrenteEtQuaranteEnv"]
