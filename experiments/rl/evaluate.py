"""What a policy does at the table, and what it earns per unit staked (``trente-lab evaluate``).

The policy is a trained agent (a model file saved by ``trente-lab train``) or any strategy spec
(``martingale``, ``streak:k=3``, a plugin): a serious evaluation scores any policy the same way.
It plays the whole sessions of an evaluation plan (:class:`~trente_env.plan.EvalPlan`: sessions,
coups, seed) through the session runner shared by every command (:mod:`strategies.runner`, which
states the accounting convention): session ``i`` is a table seeded
:func:`~strategies.runner.session_seed` ``(seed, i)``; after the last coup, ruin or walk-away no new
stake is placed and prisoners settle on the following coups. Per session we add up the new stakes
``x_i`` and the net result ``y_i``; the headline is ``R = sum(y) / sum(x)``
(:func:`experiments.stats.ratio_estimate`) with the lab's one honest 95% interval
(``SessionResults.return_per_unit``): its standard error ``s`` is
:func:`trente_env.estimate.honest_se`, the larger of the delta-method standard error over sessions
and the noise the stakes themselves imply, the very ``s`` the verdict's p-value uses; with fewer
than :data:`MIN_STAKES` stakes, or units staked not distinguishable from 0, there is no interval. It
is set beside what exact odds expect for the very stakes the policy placed
(``SessionResults.expected_return``). Where the odds of a stake depend on the cards left (a policy
that reads the shoe, as the card counters), that is the
expected gain of each stake given the cards unseen when it was placed, summed over the stakes and
divided by the units staked (:class:`~strategies.runner.ExactGains`): a counter that stakes only
when the count favours it expects a gain, and its return is judged against that. Elsewhere it is
``-edge`` of :func:`trente_env.odds.stake_weighted_edge`, each box's edge at the first coup of a
full shoe (on the positive control the Noir units staked right after a Noir win count at their own
payout), the same in expectation for a policy blind to the cards. The same system on the same shoes
gives the same numbers here as in ``trente-lab tournament`` and in the fallacy companion game (the
tournament and the fallacy game set every system beside the stake-weighted edge).

**The verdict** says how unlikely the result is, never "bug" for sampling noise: with
``z = (R - expected) / se``, a return above 0 on a fair table whose stakes expect a loss comes with
the one-sided p-value of a result at least that far above the exact expectation, any other miss of
the 95% interval with the two-sided p-value; a return inside the interval of stakes that expect a gain
reads "as its stakes' exact odds say"; only below :data:`SUSPICIOUS_P` is a result called suspicious.

A model saved by ``trente-lab train`` is read without unpickling; **any other model file is unpickled,
which runs its code**, only when trusted (:class:`~strategies.model.ModelPolicy`), and loading a
plugin runs its code: evaluate only files you trust.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
from rich.table import Table

from experiments.console import out, progress_bar
from experiments.errors import RLError
from experiments.rl.config import set_threads
from experiments.rl.rig import Venue, parse_venue
from experiments.stats import ratio_estimate, z_pvalue
from strategies.model import ModelPolicy
from strategies.registry import StrategyError, make_strategy
from strategies.results import SessionResults
from strategies.runner import CoupView, play_on_env, session_seeds
from trente_env.codes import BOXES, NO_COUP, NOIR, RESULT_CODES, Result
from trente_env.estimate import honest_se
from trente_env.odds import house_edges, rig_expectations
from trente_env.plan import EVAL_PLAN, EvalPlan
from trente_env.tables import TooManyTables

#: Starting bankroll of a strategy's sessions (a model plays with the bankroll it was trained with).
DEFAULT_BANKROLL = 1000.0
#: A result is called suspicious when chance alone gives one at least as far from the exact
#: expectation less often than this (the p-value is shown either way).
SUSPICIOUS_P = 0.001
#: Below this many stakes placed, the return per unit staked gets no interval ("too few stakes to
#: estimate"): a handful of stakes says nothing about a policy's return, whatever a formula prints.
MIN_STAKES = 100

#: How the report names the scoreboard's result codes (the last coup before a bet).
RESULT_NAMES = {
    Result.NOIR: "noir", Result.ROUGE: "rouge", Result.APRES: "après", Result.REFAIT: "refait", Result.VOID: "void",
    NO_COUP: "none yet",
}  # fmt: skip


@dataclass
class Behaviour:
    """What a policy did at the table, gathered coup by coup over the coups its sessions were on
    (an observer of :func:`strategies.runner.play_on_env`)."""

    box_bets: np.ndarray = field(default_factory=lambda: np.zeros(len(BOXES), dtype=np.int64))  #: coups staked, per box
    sat_out: int = 0  #: coups with no new stake
    stakes: dict[float, int] = field(default_factory=dict)  #: stake size (per box) -> times placed
    after: np.ndarray = field(default_factory=lambda: np.zeros((RESULT_CODES, 2), dtype=np.int64))
    """(result codes, 2) per previous result: coups, coups with a stake"""
    noir_after: np.ndarray = field(default_factory=lambda: np.zeros(RESULT_CODES, dtype=np.int64))
    """per previous result: coups with a stake on Noir"""

    def __call__(self, view: CoupView) -> None:
        on = view.playing
        if not on.any():
            return
        stakes = view.stakes[on]
        placed = stakes.sum(axis=1)
        before = view.last_result[on]
        self.box_bets += (stakes > 0).sum(axis=0)
        self.sat_out += int((placed == 0).sum())
        np.add.at(self.after, (before, 0), 1)
        np.add.at(self.after, (before, 1), (placed > 0).astype(np.int64))
        np.add.at(self.noir_after, before, (stakes[:, NOIR] > 0).astype(np.int64))
        sizes, counts = np.unique(stakes[stakes > 0], return_counts=True)
        for s, c in zip(sizes.tolist(), counts.tolist()):
            self.stakes[s] = self.stakes.get(s, 0) + c


class Watched(NamedTuple):
    """What ``n`` sessions of one policy did: the runner's per-session results and the behaviour."""

    results: SessionResults  #: what the sessions did (:func:`strategies.runner.play_on_env`)
    behaviour: Behaviour


#: Coups between two reports of :func:`watch_sessions` to its ``told`` (a progress bar's update a coup
#: would cost more than a coup of a few sessions).
TELL_EVERY = 64


def watch_sessions(
    policy: Any,
    venue: Venue,
    plan: EvalPlan,
    bankroll: float = DEFAULT_BANKROLL,
    training_seed: int | None = None,
    told: Callable[[int], None] | None = None,
) -> Watched:
    """Play the sessions of ``plan`` with ``policy`` through the session runner
    (:func:`strategies.runner.play_on_env`), watching what it does coup by coup (:class:`Behaviour`),
    and add them up. ``told`` is given the coups played so far every :data:`TELL_EVERY` coups.

    :param policy: anything with ``act(observation, state) -> (full-form actions, state)``: a
        strategy, a :class:`~strategies.model.ModelPolicy`, a plugin.
    :param venue: where it plays (see :func:`experiments.rl.rig.parse_venue`).
    :param plan: session ``i`` of ``plan.sessions`` plays up to ``plan.coups`` coups at the table
        seeded :func:`~strategies.runner.session_seed` ``(plan.seed_for(training_seed), i)``.
    :param training_seed: the seed the policy was trained with (for a plan whose shoes derive from it).
    """
    behaviour = Behaviour()
    seeds = session_seeds(plan.seed_for(training_seed), plan.sessions)
    observer: Callable[[CoupView], None] = behaviour
    if told is not None:
        played = [0]

        def observer(view: CoupView) -> None:
            behaviour(view)
            played[0] += 1
            if played[0] % TELL_EVERY == 0:
                told(played[0])

    try:
        results = play_on_env(policy, venue.rules, bankroll, plan.coups, seeds, observer=observer)
    except TooManyTables as exc:  # the sessions are played at once, a table each
        raise RLError(f"{plan.sessions:,} sessions: {exc}; play fewer (--episodes)") from None
    return Watched(results, behaviour)


def evaluation_report(watched: Watched, venue: Venue) -> dict[str, Any]:
    """The evaluation as plain data: behaviour, return per unit staked with its interval, verdict,
    all judged at ``venue``'s table (the one the sessions were played at, or another)."""
    b = watched.behaviour
    results = replace(watched.results, rules=venue.rules)
    if watched.results.rules != venue.rules:  # the expected gains given the cards are the table played's
        results = replace(results, exact_staked=np.float64(0.0))
    estimate = results.session_estimate()
    coups = int(results.coups.sum())
    edge = house_edges(venue.rules).noir
    box_stakes = results.box_stakes
    staked = float(results.staked.sum())
    expected = results.expected_return()
    box_staked = box_stakes.sum(axis=0)
    behaviour = {
        "coups": coups,
        "sat_out": b.sat_out / coups if coups else float("nan"),
        "box_share": {name: float(box_staked[i] / staked) if staked else 0.0 for i, name in enumerate(BOXES)},
        "box_bet_rate": {name: float(b.box_bets[i] / coups) if coups else 0.0 for i, name in enumerate(BOXES)},
        "stakes": {f"{s:g}": c for s, c in sorted(b.stakes.items())},
        "mean_stake_per_coup": staked / coups if coups else 0.0,
        "insured_share": float(box_stakes[1].sum()) / staked if staked else 0.0,
        "bet_rate_after": {
            RESULT_NAMES[r]: float(b.after[r, 1] / b.after[r, 0]) for r in range(RESULT_CODES) if b.after[r, 0] > 0
        },
        **noir_dependence(b),
    }
    reward_per_coup = float(results.net.sum() / coups) if coups else float("nan")
    per_coup_se = ratio_estimate(results.net, results.coups).se if coups else float("nan")
    noise = results.stake_noise()
    n_stakes = sum(b.stakes.values())
    honest = results.return_per_unit()  # the lab's one interval: never narrower than the stakes' noise
    nan = float("nan")
    se, low, high = (honest.se, honest.ci_low, honest.ci_high) if n_stakes >= MIN_STAKES else (nan, nan, nan)
    judged = verdict(estimate.ratio, estimate.se, low, high, expected, staked, venue, noise, n_stakes)
    always_noir = rig_expectations(venue.rules).always_noir
    return {
        "table": venue.name,
        "rules": venue.rules.describe(),
        "positive_control": venue.rules.describe() if venue.rigged else None,
        "sessions": results.n,
        "ruined": int(results.ruined.sum()),
        "behaviour": behaviour,
        "total_staked": staked,
        "net": float(results.net.sum()),
        "rig_staked": results.rig_staked,
        "return_per_unit_staked": {
            "ratio": estimate.ratio,
            "se": se,
            "se_sessions": estimate.se,
            "se_stakes": noise,
            "ci_low": low,
            "ci_high": high,
            "level": estimate.level,
            "stakes": n_stakes,
            "estimable": n_stakes >= MIN_STAKES,
            "note": honest.note if n_stakes >= MIN_STAKES else "too few stakes to estimate",
        },
        "house_edge": edge,
        "edge": results.edge(),
        "expected_return_per_unit": expected,
        "reward_per_coup": {
            "agent": reward_per_coup,
            "agent_se": per_coup_se,
            "never_bet": 0.0,
            "flat_1_noir": always_noir,
            "flat_same_stakes": always_noir * staked / coups if coups else float("nan"),
        },
        **judged,
    }


def noir_dependence(b: Behaviour) -> dict[str, float]:
    """How often the policy staked on Noir right after a coup won by Noir, and on the other coups
    (after Rouge, a tie, a void coup, or none yet): a policy blind to the scoreboard has both equal
    (up to chance); the ideal rule of the rigged table has 1 and 0."""
    after_noir, total = b.after[Result.NOIR, 0], b.after[:, 0].sum()
    other = total - after_noir
    noir_bets = b.noir_after[Result.NOIR]
    return {
        "p_noir_after_noir": float(noir_bets / after_noir) if after_noir else float("nan"),
        "p_noir_otherwise": float((b.noir_after.sum() - noir_bets) / other) if other else float("nan"),
    }


def verdict(
    ratio: float,
    se: float,
    low: float,
    high: float,
    expected: float,
    staked: float,
    venue: Venue,
    noise: float = 0.0,
    stakes: int | None = None,
) -> dict[str, Any]:
    """The return per unit staked judged against 0 and against exact odds, with how unlikely it is.

    The p-values come from ``z = (ratio - expected) / s``, with ``s`` the larger of the ratio
    estimate's standard error ``se`` and the ``noise`` the stakes imply (``SessionResults.stake_noise``), so a
    few lucky sessions cannot make a small run look impossible.

    :return: ``verdict`` (one sentence), ``p_value`` (the one the sentence quotes, or None),
        ``p_value_test`` (what it measures), ``p_value_se`` (``s``) and ``suspicious``
        (``p_value`` < :data:`SUSPICIOUS_P`).
    """
    s = honest_se(se, noise)

    def judged(text: str, p: float | None = None, test: str | None = None, fair: bool = True) -> dict[str, Any]:
        suspicious = fair and p is not None and p < SUSPICIOUS_P  # finding the rig is the point, not a bug
        return {
            "verdict": text, "p_value": p, "p_value_test": test, "p_value_se": s if p is not None else None,
            "suspicious": suspicious,
        }  # fmt: skip

    if staked <= 0:
        return judged("sits out every coup: a return of 0, the best any policy can do on a fair table")
    if stakes is not None and stakes < MIN_STAKES:
        text = f"too few stakes to estimate ({stakes:,} placed, fewer than {MIN_STAKES}): nearly always sits out"
        return judged(text if not venue.rigged else f"too few stakes to estimate ({stakes:,} placed)")
    if not se > 0:
        return judged("too few sessions for an interval")
    ci = f"95% CI {low:+.2%} to {high:+.2%}"
    z = (ratio - expected) / s
    if venue.rigged:  # the best policy blind to the scoreboard returns 0 (never betting; every box loses)
        p = z_pvalue(ratio / s, "greater")
        test = "one-sided: a return at least this far above 0, the best a policy blind to the scoreboard expects"
        if low > 0:
            text = f"finds the rigged edge: above 0, which no policy blind to the scoreboard reaches ({ci})"
            return judged(text, p, test, False)
        return judged(f"does NOT show the rigged edge: the {ci} reaches 0 or below", p, test, False)
    if ratio > 0 and expected <= 0:  # a policy whose stakes the odds favour may well end above 0
        p = z_pvalue(z, "greater")
        test = f"one-sided: a return at least this far above the exact expectation {expected:+.3%}"
        text = (
            f"above 0 on a fair table ({ratio:+.2%}, {ci}); an honest table ends at least this far above "
            f"the exact expectation {expected:+.2%} with probability p = {p:.2g} (one-sided)"
        )
        if p < SUSPICIOUS_P:
            return judged(text + f": below {SUSPICIOUS_P:g}, suspicious: look for a bug", p, test)
        return judged(text + f": chance does this often enough (suspicious only below p = {SUSPICIOUS_P:g})", p, test)
    p = z_pvalue(z)
    test = f"two-sided: a return at least this far from the exact expectation {expected:+.3%}"
    if low <= expected <= high and expected > 0:
        text = f"as its stakes' exact odds say: they expect {expected:+.2%}, placed when the cards left favoured them"
        return judged(f"{text} (inside the {ci})", p, test)
    if low <= expected <= high:
        return judged(f"loses what the house edge says ({expected:+.2%}, inside the {ci})", p, test)
    text = f"differs from the exact expectation of its stakes {expected:+.2%} ({ci}; p = {p:.2g}, two-sided)"
    if p < SUSPICIOUS_P:
        return judged(text + f": below {SUSPICIOUS_P:g}, suspicious: look for a bug", p, test)
    return judged(text + ": a 95% interval misses about one run in twenty", p, test)


def names_a_model(target: str) -> bool:
    """Whether ``target`` names a model file (``PATH.zip``, ``model:PATH``, or an existing file)
    rather than a strategy spec."""
    target = target.strip()
    return target.startswith("model:") or target.split(":", 1)[0].endswith(".zip") or Path(target).is_file()


def evaluate_model(
    model: str,
    plan: EvalPlan = EVAL_PLAN,
    venue: Venue | None = None,
    algo: str | None = None,
    training_seed: int | None = None,
    progress: bool = False,
) -> dict[str, Any]:
    """Evaluate ``model`` on the sessions of ``plan`` (see the module docstring), with a progress bar
    (loading, then the coups played) when ``progress`` (:func:`~experiments.console.progress_bar`).

    :param model: a model file saved by ``trente-lab train`` (any other is unpickled, which runs its code:
        only when trusted, see :class:`~strategies.model.ModelPolicy`), or a strategy spec.
    :param venue: the table (:func:`~experiments.rl.rig.parse_venue` of ``--rules``); default: the one
        a model was trained on (its ``model.json``), else ``classic``.
    :param plan: the sessions: how many, how long, on which shoes (default :data:`~trente_env.plan.EVAL_PLAN`:
        200 sessions x 1,000 coups on seed 10,000, away from training seeds).
    :param training_seed: the seed the model was trained with, for a plan whose shoes derive from it.
    :raises RLError: bad input; :class:`strategies.model.ModelError`: a model file that cannot be used.
    """
    with progress_bar(progress) as bar:
        task = bar.add_task(f"loading {model}", total=None)
        policy, meta, trained_on, bankroll, venue = _policy_and_table(model, venue, algo)
        bar.update(task, description=f"playing {plan.sessions:,} sessions with {model}", total=plan.coups)
        watched = watch_sessions(policy, venue, plan, bankroll, training_seed, lambda c: bar.update(task, completed=c))
    report = evaluation_report(watched, venue)
    from experiments.rl.score import optimum, score  # the exact optimum of the table, for its stakes
    from trente_env.levels import LEVEL_STAKES

    stake = max(meta.get("env", {}).get("stake_levels") or LEVEL_STAKES)
    report["score"] = {**score(report, optimum(venue, float(stake))), "stake": float(stake)}
    report.update(
        {
            "policy": model,
            "spec": policy.spec(),
            "model": str(model) if isinstance(policy, ModelPolicy) else None,
            "algo": getattr(policy, "algo", None),
            "trained_on": trained_on,
            "seed": plan.seed_for(training_seed),
            "coups": plan.coups,
            "bankroll": bankroll,
        }
    )
    return report


def _policy_and_table(model: str, venue: Venue | None, algo: str | None) -> tuple[Any, dict, Any, float, Venue]:
    """:func:`evaluate_model`'s policy for ``model`` (a model file or a strategy spec), its
    ``model.json`` (empty for a strategy), the table it was trained on, its bankroll and the table
    it plays at (``venue``, else the one it was trained on, else ``classic``)."""
    is_model = names_a_model(model)
    if is_model:
        policy = ModelPolicy(model.strip().removeprefix("model:"), algo=algo)  # unpickled only if trusted
        meta = policy.meta
        trained_on = meta.get("table")
        recorded = trained_on or "classic"
        bankroll = float(meta.get("bankroll", DEFAULT_BANKROLL))
    else:
        if algo is not None:
            raise RLError(f"--algo is for a model file; {model!r} is a strategy")
        policy, meta, trained_on, bankroll, recorded = None, {}, None, DEFAULT_BANKROLL, "classic"
    venue = venue if venue is not None else parse_venue(recorded)
    if policy is None:
        try:
            policy = make_strategy(model, venue.rules)
        except StrategyError:
            if ("/" in model or "\\" in model) and not Path(model.split(":")[0]).exists():  # a file not there
                raise RLError(f"model file {model!r} does not exist (nor is it a strategy spec)") from None
            raise
    else:
        set_threads(1)
    return policy, meta, trained_on, bankroll, venue


def print_report(report: dict[str, Any]) -> None:
    """The evaluation as rich tables."""
    if report["positive_control"]:
        out.print(f"[bold magenta]{report['positive_control']}[/]")
    b = report["behaviour"]
    view = Table(title=f"{report.get('policy', 'policy')} on {report['table']}", title_justify="left")
    view.add_column("behaviour")
    view.add_column("value", justify="right")
    view.add_row("sessions (ruined)", f"{report['sessions']} ({report['ruined']})")
    view.add_row("coups played", f"{b['coups']:,}")
    view.add_row("coups sat out", f"{b['sat_out']:.1%}")
    for box, rate in b["box_bet_rate"].items():
        if rate:
            view.add_row(f"bets on {box}", f"{rate:.1%} of coups, {b['box_share'][box]:.1%} of units")
    view.add_row("mean stake per coup", f"{b['mean_stake_per_coup']:.2f}")
    view.add_row("stakes placed (size: times)", ", ".join(f"{s}: {c:,}" for s, c in b["stakes"].items()) or "none")
    if b["insured_share"]:
        view.add_row("insured", f"{b['insured_share']:.1%} of units")
    if b["p_noir_after_noir"] == b["p_noir_after_noir"]:
        view.add_row("Noir after a Noir win / else", f"{b['p_noir_after_noir']:.1%} / {b['p_noir_otherwise']:.1%}")
    view.add_row(
        "bets after last coup", ", ".join(f"{k} {v:.0%}" for k, v in b["bet_rate_after"].items() if k != "none yet")
    )
    out.print(view)
    r = report["return_per_unit_staked"]
    title = "Return per unit staked (95% CI: the larger of the sessions' and the stakes' noise)"
    money = Table(title=title, title_justify="left")
    for col in ("policy", "95% CI", "exact for its stakes", "house edge"):
        money.add_column(col, justify="right")
    ci = f"{r['ci_low']:+.3%} to {r['ci_high']:+.3%}" if r["ci_low"] == r["ci_low"] else "-"
    if report["total_staked"] and not r.get("estimable", True):
        ci = f"too few stakes to estimate ({r['stakes']} < {MIN_STAKES})"
    elif r.get("note") and r["ci_low"] != r["ci_low"]:
        ci = r["note"]
    ratio = f"{r['ratio']:+.3%}" if r["ratio"] == r["ratio"] else "nothing staked"
    money.add_row(ratio, ci, f"{report['expected_return_per_unit']:+.3%}", f"-{report['house_edge']:.3%}")
    out.print(money)
    rpc = report["reward_per_coup"]
    out.print(
        f"Reward per coup: policy {rpc['agent']:+.3f} units · never bet 0 · flat 1 unit on Noir "
        f"{rpc['flat_1_noir']:+.4f} · flat at its mean stake {rpc['flat_same_stakes']:+.3f}"
    )
    sc = report.get("score")
    if sc is not None:
        if sc["share_of_optimum"] is None:
            out.print(
                f"Score: sat out {sc['sat_out']:.1%} of coups (the optimum here: all of them, 0 a coup); "
                f"loss per coup {sc['loss_vs_flat']:.2f}x a 1-unit flat bettor's"
            )
        else:
            per_unit = "-" if sc["share_per_unit"] is None else f"{sc['share_per_unit']:.1%}"
            out.print(
                f"Score: {sc['share_of_optimum']:.1%} of the optimum per coup ({rpc['agent']:+.3f} of "
                f"{sc['optimum_per_coup']:+.3f} units: the best uninsured policy staking up to {sc['stake']:g}); "
                f"{per_unit} of the optimum's return per unit staked"
            )
    out.print(f"[bold]Verdict:[/] {report['verdict']}")


__all__ = [
    "MIN_STAKES",
    "SUSPICIOUS_P",
    "Behaviour",
    "Watched",
    "evaluate_model",
    "evaluation_report",
    "names_a_model",
    "print_report",
    "verdict",
    "watch_sessions",
]
