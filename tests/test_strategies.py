"""Betting systems worked by hand: a scripted table, the stakes each system must produce.

The table is scripted coup by coup ("N" Noir wins, "R" Rouge wins, "A" après, "F" refait; a
trailing "c"/"i" says whether Couleur or Inverse won, Couleur by default) and settled with the
engine's own :func:`trente_env.settle.settle`, so prisoners and money behave as in the env.
"""

from __future__ import annotations

import numpy as np
import pytest

from strategies import make_strategy
from strategies.base import Strategy, read_observation
from trente_env.codes import COULEUR_WINS, INVERSE_WINS, NO_COUP, UNDECIDED
from trente_env.coup import Result
from trente_env.rules import RuleSet, get_rules
from trente_env.settle import settle

CODES = {"N": Result.NOIR, "R": Result.ROUGE, "A": Result.APRES, "F": Result.REFAIT}


class ScriptedTable:
    """One table whose coups are written by hand, observed as the env's dict observation."""

    def __init__(self, rules: RuleSet, bankroll: float = 1000.0, history: int = 10) -> None:
        self.rules = rules
        self.bankroll = float(bankroll)
        self.prison = np.zeros((4, 2))
        self.coups = 0
        self.results = np.full(history, NO_COUP)
        self.couleurs = np.full(history, UNDECIDED)

    def observation(self) -> dict[str, np.ndarray]:
        return {
            "bankroll": np.array([[self.bankroll]], dtype=np.float32),
            "coups": np.array([[self.coups]], dtype=np.float32),
            "couleur": self.couleurs[None].copy(),
            "prison": np.concatenate([self.prison[:, 0], self.prison[:, 1]])[None].astype(np.float32),
            "results": self.results[None].copy(),
        }

    def play(self, action: np.ndarray, token: str) -> None:
        result = CODES[token[0]]
        couleur = not token.endswith("i")
        stakes, insured = action[:4].astype(float), action[4:8] > 0
        s = settle(self.rules, stakes, result, couleur, insured=insured, prison=self.prison, to_prison=action[8:] > 0)
        premium = self.rules.insurance_rate * stakes[insured].sum()
        self.bankroll += s.back.sum() - stakes.sum() - premium
        self.prison = s.prison
        self.coups += 1
        self.results = np.roll(self.results, 1)
        self.couleurs = np.roll(self.couleurs, 1)
        self.results[0] = result
        decided = result in (Result.NOIR, Result.ROUGE)
        self.couleurs[0] = (COULEUR_WINS if couleur else INVERSE_WINS) if decided else UNDECIDED


def run(strategy: Strategy, tokens: str, bankroll: float = 1000.0) -> tuple[list[tuple[str, int]], object]:
    """The bets (box letter, stake) before each coup of ``tokens``, then the bet after the last one."""
    table = ScriptedTable(strategy.rules, bankroll)
    state = None
    bets = []
    for token in [*tokens.split(), None]:
        action, state = strategy.act(table.observation(), state)
        action = action[0]
        boxes = np.flatnonzero(action[:4])
        assert boxes.size <= 1
        bets.append(("NRCI"[boxes[0]], int(action[boxes[0]])) if boxes.size else ("-", 0))
        if token is not None:
            table.play(action, token)
    return bets, state


def stakes(spec: str, tokens: str, rules: RuleSet | str = "classic", bankroll: float = 1000.0) -> list[int]:
    return [s for _, s in run(make_strategy(spec, rules), tokens, bankroll)[0]]


# -- progressions: hand-worked sequences ------------------------------------------------------------


def test_martingale_doubles_after_losses_and_resets_after_a_win() -> None:
    # R R R lose 1+2+4, N wins 8: +1 overall, back to 1; après repeats; refait counts as a loss
    assert stakes("martingale", "R R R N A F N R") == [1, 2, 4, 8, 1, 1, 2, 1, 2]


def test_martingale_on_rouge_with_a_base_unit() -> None:
    assert stakes("martingale:base=5,box=rouge", "N N R") == [5, 10, 20, 5]


def test_martingale_breaks_at_the_table_maximum_and_counts_it() -> None:
    rules = get_rules("classic", table_max=10)
    bets, state = run(make_strategy("martingale", rules), "R R R R R")
    assert [s for _, s in bets] == [1, 2, 4, 8, 1, 2]  # 16 > 10: the run is abandoned
    assert state.table_max_hits.tolist() == [1] and state.bankroll_hits.tolist() == [0]
    capped = stakes("martingale:on_limit=cap", "R R R R R N", rules)
    assert capped == [1, 2, 4, 8, 10, 10, 1]


def test_martingale_breaks_at_the_end_of_the_bankroll() -> None:
    bets, state = run(make_strategy("martingale"), "R R R R", bankroll=10)
    assert [s for _, s in bets] == [1, 2, 4, 1, 2]  # 3 left: 8 is out of reach, restart at 1
    assert state.bankroll_hits.tolist() == [1]
    assert stakes("martingale:on_limit=cap", "R R R", bankroll=10) == [1, 2, 4, 3]


def test_martingale_waiting_for_the_prisoner() -> None:
    # refait: the stake goes to prison, no new bet; freed (Noir wins) = no change; lost = a loss
    assert stakes("martingale:refait=wait", "F N F R") == [1, 0, 1, 0, 2]
    # a second refait loses the prisoner (classic rules): a loss
    assert stakes("martingale:refait=wait", "F F N") == [1, 0, 2, 1]
    # second-prison rules: the prisoner must win twice; the system waits all along
    assert stakes("martingale:refait=wait", "F F N N", "second-prison") == [1, 0, 0, 0, 1]
    # partage: half is lost at once, nothing to wait for: under wait, no change
    assert stakes("martingale:refait=wait", "F R", "partage") == [1, 1, 2]
    assert stakes("martingale", "F R", "partage") == [1, 2, 4]


def test_an_insured_stake_comes_back_whole_on_a_refait() -> None:
    strategy = make_strategy("martingale:insure=true")
    bets, _ = run(strategy, "F R")
    assert [s for _, s in bets] == [1, 1, 2]
    table = ScriptedTable(strategy.rules)
    action, _ = strategy.act(table.observation())
    assert action[0].tolist() == [1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]


def test_prison_choice_flag_under_the_choice_rule() -> None:
    action, _ = make_strategy("flat:to_prison=true,box=inverse", "choice").act(ScriptedTable(get_rules()).observation())
    assert action[0].tolist() == [0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1]


def test_grand_martingale_adds_a_unit() -> None:
    assert stakes("grand-martingale", "R R R N") == [1, 3, 7, 15, 1]


def test_reverse_martingale_lets_wins_ride_until_a_loss_or_the_maximum() -> None:
    assert stakes("reverse-martingale", "N N R N") == [1, 2, 4, 1, 2]
    assert stakes("reverse-martingale", "N N N", get_rules("classic", table_max=3)) == [1, 2, 1, 2]


def test_paroli_banks_the_run_after_three_wins() -> None:
    bets, state = run(make_strategy("paroli"), "N N N N R A")
    assert [s for _, s in bets] == [1, 2, 4, 1, 2, 1, 1]
    assert state.cycles.tolist() == [1]
    assert stakes("paroli:steps=2", "N N N") == [1, 2, 1, 2]
    assert stakes("paroli", "N F N") == [1, 2, 1, 2]  # a refait is a loss


def test_one_three_two_six() -> None:
    assert stakes("1-3-2-6", "N N N N N R") == [1, 3, 2, 6, 1, 3, 1]
    assert stakes("1-3-2-6:sequence=1-3-2-4", "N N N N") == [1, 3, 2, 4, 1]


def test_dalembert_and_contra() -> None:
    assert stakes("dalembert", "R R N N N A") == [1, 2, 3, 2, 1, 1, 1]
    assert stakes("contra-dalembert", "N N R R R") == [1, 2, 3, 2, 1, 1]
    assert stakes("dalembert:step=2,base=5", "R N") == [5, 15, 5]


def test_fibonacci_walks_up_and_two_steps_back() -> None:
    assert stakes("fibonacci", "R R R R N N N") == [1, 1, 2, 3, 5, 2, 1, 1]


def test_labouchere_line_cancels() -> None:
    # line 1 2 3 4: stake 5; lose -> 1 2 3 4 5: stake 6; win -> 2 3 4: 6; win -> 3: 3; win -> done, 1 2 3 4
    bets, state = run(make_strategy("labouchere"), "R N N N")
    assert [s for _, s in bets] == [5, 6, 6, 3, 5]
    assert state.cycles.tolist() == [1]
    # 1 2: 6; refait = loss -> 1 2 3: 8; win -> 2: 4; win -> done, 1 2 again: 6
    assert stakes("labouchere:line=1-2,base=2", "F N N") == [6, 8, 4, 6]


def test_labouchere_line_grows_past_its_buffer() -> None:
    # line 1: stake 1; lose -> 1 1: 2; lose -> 1 1 2: 3; ... each loss adds one unit, 41 numbers at the end
    assert stakes("labouchere:line=1", "R " * 40) == list(range(1, 42))


def test_oscars_grind_completes_a_session() -> None:
    # -1, -2, -1 (stake grows to 2 after the win), +1: the cycle is complete, back to 1
    bets, state = run(make_strategy("oscars-grind"), "R R N N R")
    assert [s for _, s in bets] == [1, 1, 1, 2, 1, 1]
    assert state.cycles.tolist() == [1]
    # never more than what brings the cycle to its goal: -3, -2 (stake 2), 0: one unit is enough, +1
    assert stakes("oscars-grind", "R R R N N N") == [1, 1, 1, 1, 2, 1, 1]


def test_flat_and_never() -> None:
    assert stakes("flat:base=3,box=couleur", "Ni Nc F A") == [3, 3, 3, 3, 3]
    assert run(make_strategy("flat:box=couleur"), "N")[0][0] == ("C", 1)
    assert stakes("never", "N R F A") == [0, 0, 0, 0, 0]


def test_stop_win_and_stop_loss_walk_away_for_good() -> None:
    assert stakes("flat:base=10,stop_win=15", "N N R R") == [10, 10, 0, 0, 0]
    assert stakes("martingale:stop_loss=3", "R R N N") == [1, 2, 0, 0, 0]


# -- patterns -------------------------------------------------------------------------------------------


def test_streak_follows_a_run_of_k_and_skips_ties() -> None:
    bets, _ = run(make_strategy("streak:k=3"), "N N A N N R")
    assert bets == [("-", 0), ("-", 0), ("-", 0), ("-", 0), ("N", 1), ("N", 1), ("-", 0)]
    bets, _ = run(make_strategy("streak:k=2,column=couleur"), "Ri Ni F Nc")
    assert bets == [("-", 0), ("-", 0), ("I", 1), ("I", 1), ("-", 0)]


def test_anti_streak_bets_the_colour_that_is_due() -> None:
    bets, _ = run(make_strategy("anti-streak:k=2"), "R R R N")
    assert bets == [("-", 0), ("-", 0), ("N", 1), ("N", 1), ("-", 0)]
    bets, _ = run(make_strategy("anti-streak:k=1,column=couleur"), "Nc")
    assert bets[-1] == ("I", 1)


def test_random_bettor_is_seeded_and_batch_independent() -> None:
    import gymnasium as gym

    import trente_env  # noqa: F401

    a, b = make_strategy("random:seed=7"), make_strategy("random:seed=8")
    venv = gym.make_vec("TrenteEtQuarante-v0", num_envs=6)
    obs, _ = venv.reset(seed=0)
    first, _ = a.act(obs)
    assert not np.array_equal(first, b.act(obs)[0])
    small = {key: value[:3] for key, value in obs.items()}
    assert np.array_equal(a.act(small)[0], first[:3])  # rows do not depend on the batch size


def test_random_bettor_picks_boxes_uniformly() -> None:
    # 20,000 sessions' first draws among 4 boxes: each share is 1/4 with standard error
    # sqrt(1/4 * 3/4 / 20000) = 0.0031; 4 standard errors (0.0125) fail a fair die about 1 run in 16,000
    policy = make_strategy("random:boxes=noir-rouge-couleur-inverse,p_bet=0.5,seed=3")
    n = 20_000
    table = ScriptedTable(get_rules())
    obs = {key: np.repeat(value, n, axis=0) for key, value in table.observation().items()}
    actions, _ = policy.act(obs)
    placed = actions[:, :4] > 0
    assert abs(placed.any(axis=1).mean() - 0.5) < 4 * np.sqrt(0.25 / n)
    shares = placed.sum(axis=0) / placed.sum()
    assert np.all(np.abs(shares - 0.25) < 4 * np.sqrt(0.25 * 0.75 / placed.sum()))


# -- the interface --------------------------------------------------------------------------------------


def test_flat_and_dict_observations_read_the_same() -> None:
    import gymnasium as gym
    from gymnasium.spaces import flatten

    import trente_env  # noqa: F401

    for shoe in (False, True):
        env = gym.make("TrenteEtQuarante-v0", observe_shoe=shoe, history=4)
        obs, _ = env.reset(seed=1)
        for _ in range(20):
            obs, *_ = env.step(np.array([1, 0, 0, 0] + [0] * 8))
        flat = flatten(env.observation_space, obs)
        a, _ = read_observation(obs, get_rules())
        b, _ = read_observation(flat, get_rules())
        for field in ("bankroll", "coups", "result", "couleur", "prison"):
            assert np.array_equal(np.asarray(getattr(a, field)), np.asarray(getattr(b, field))), field


def test_a_new_session_restarts_the_progression() -> None:
    strategy = make_strategy("martingale")
    table = ScriptedTable(get_rules())
    action, state = strategy.act(table.observation())
    table.play(action[0], "R")
    action, state = strategy.act(table.observation(), state)
    assert action[0, 0] == 2
    action, state = strategy.act(table.observation(), state, episode_start=np.array([True]))
    assert action[0, 0] == 1 and state.episodes.tolist() == [2]
    fresh = ScriptedTable(get_rules())  # coups == 0 also means a new session
    action, state = strategy.act(fresh.observation(), state)
    assert action[0, 0] == 1 and state.episodes.tolist() == [3]


def test_an_unbatched_observation_gets_an_unbatched_action() -> None:
    obs = {key: value[0] for key, value in ScriptedTable(get_rules()).observation().items()}
    action, _ = make_strategy("flat:box=rouge").predict(obs)
    assert action.shape == (12,) and action[1] == 1


@pytest.mark.parametrize(
    ("spec", "rules", "message"),
    [
        ("flat:base=0", "classic", "base"),
        ("flat:base=2000", "classic", "table limits"),
        ("flat:box=couleur", "main-bets", "closed"),
        ("flat:insure=true", "family", "insurance"),
        ("paroli:steps=0", "classic", "steps"),
        ("labouchere:line=1-0", "classic", "line"),
        ("streak:k=0", "classic", "k"),
        ("random:p_bet=2", "classic", "p_bet"),
        ("flat:stop_win=-5", "classic", "stop_win"),
    ],
)
def test_bad_parameters_are_refused_with_a_message(spec: str, rules: str, message: str) -> None:
    from strategies import StrategyError

    with pytest.raises(StrategyError, match=message):
        make_strategy(spec, rules)
