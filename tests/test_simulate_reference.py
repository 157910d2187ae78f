"""simulate's whole-shoe reference: a long dealt count per way of dealing, kept with the package."""

from __future__ import annotations

import json

import numpy as np
import pytest

from experiments.game import reference
from experiments.game.reference import EVENTS, N_EVENTS, dealing_key, rates
from experiments.game.simulate import simulation_report
from trente_env.dealer import tally_coups
from trente_env.odds import first_coup
from trente_env.rules import PRESETS, get_rules
from trente_env.seeding import reference_shard_generator

STORED = json.loads(reference.DATA_FILE.read_text(encoding="utf-8"))


def test_every_presets_way_of_dealing_is_stored_with_its_provenance():
    assert {"generator", "seed", "stream", "shard_coups", "code"} <= set(STORED)
    assert {dealing_key(rules) for rules in PRESETS.values()} <= set(STORED["entries"])
    for entry in STORED["entries"].values():
        assert entry["coups"] == entry["shards"] * STORED["shard_coups"] and entry["shards"] >= 2


def test_the_classic_reference_is_far_below_the_error_of_a_long_run():
    """The stored classic reference's standard error against that of a run of 5e8 coups (the slow
    test's): at most a third of it, so it widens that run's z by at most 5% (sqrt(1 + 1/9))."""
    rate, se = rates(STORED["entries"][dealing_key(get_rules("classic"))])
    run_se = np.sqrt(rate * (1 - rate) / 5e8)
    assert np.all(se <= run_se / 3)


def test_the_whole_shoe_refait_rate_is_above_the_first_coups():
    """Over whole shoes the refait comes more often than on a full shoe's first coup (about 2.1933%
    against 2.1891%): a difference of about 4e-5, asked to stand more than 6 of the reference's
    standard errors clear (a few 1e-6 for the classic count)."""
    rate, se = rates(STORED["entries"][dealing_key(get_rules("classic"))])
    i = EVENTS.index("refait")
    assert rate[i] - first_coup(6).p_refait > 6 * se[i]


def test_the_stored_sums_are_the_dealers_counts():
    """Two shards of the reference stream, dealt again here, give the sums ``extend`` keeps; the
    rates add up (one total per row, one result per coup, Couleur/Inverse split the decided coups)."""
    rules = get_rules("family")
    entry = reference.extend(reference.empty_entry(), rules, 2)
    streams = [reference_shard_generator(reference.REFERENCE_SEED, i) for i in range(2)]
    shards = [reference.tally_events(tally_coups(rules, reference.SHARD, stream)) for stream in streams]
    assert entry["x"] == [int(a + b) for a, b in zip(shards[0][0], shards[1][0])]
    assert entry["x_sq"] == [int(a) ** 2 + int(b) ** 2 for a, b in zip(shards[0][0], shards[1][0])]
    rate, se = rates(entry)
    named = dict(zip(EVENTS, rate))
    assert np.isclose(rate[:10].sum(), 1.0) and np.isclose(rate[10:20].sum(), 1.0)
    assert np.isclose(named["refait"] + named["après"] + named["noir wins"] + named["rouge wins"], 1.0)
    assert np.isclose(named["couleur wins"] + named["inverse wins"], named["noir wins"] + named["rouge wins"])
    assert np.all(se > 0) and se.size == N_EVENTS
    # the delta method over two shards of equal size: the spread of the two shards' rates / 2
    x = np.array([shards[0][0], shards[1][0]], dtype=float) / reference.SHARD
    assert np.allclose(se, np.abs(x[0] - x[1]) / 2)


def test_the_reference_is_one_per_way_of_dealing_whatever_the_run():
    """The expected rates do not move with the run's seed or size (they did when each run dealt its
    own reference shoes through the counting engine's approximation)."""
    a = simulation_report(PRESETS["classic"], 20_000, seed=3)
    b = simulation_report(PRESETS["classic"], 40_000, seed=4)
    assert a["reference_source"] == "package" and a["reference_coups"] >= 1e9
    for name in EVENTS:
        assert a["frequencies"][name]["expected"] == b["frequencies"][name]["expected"]
        assert a["frequencies"][name]["expected_se"] < a["frequencies"][name]["se"] / 30


def test_a_way_of_dealing_not_stored_is_dealt_once_and_cached(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(reference, "FALLBACK_MIN", 2 * reference.SHARD)
    first = simulation_report(PRESETS["classic"], 10_000, seed=1, decks=3, cut_card=20)
    assert first["reference_source"] == "cache" and first["reference_coups"] == 2 * reference.SHARD
    cached = json.loads(reference.cache_file().read_text(encoding="utf-8"))
    assert list(cached["entries"]) == ["decks=3 cut_card=20 burn=0 dead_cards=0"]
    again = simulation_report(PRESETS["classic"], 10_000, seed=2, decks=3, cut_card=20)
    assert again["frequencies"]["refait"]["expected"] == first["frequencies"]["refait"]["expected"]


@pytest.mark.slow
def test_five_hundred_million_coups_agree_with_the_reference():
    """5e8 coups (seed 2026) against the stored reference: every |z| below 3, z counting both
    standard errors. 26 comparisons (many repeats) make a |z| above 3 by chance at most 26 x 0.27%."""
    report = simulation_report(PRESETS["classic"], 500_000_000, seed=2026)
    worst = {name: round(row["z"], 2) for name, row in report["frequencies"].items() if abs(row["z"]) >= 3}
    assert not worst, worst


def test_a_damaged_cache_is_dealt_again(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(reference, "FALLBACK_MIN", 2 * reference.SHARD)
    key = "decks=3 cut_card=20 burn=0 dead_cards=0"
    wrong = json.dumps({"entries": {key: {"shards": "x"}}})
    for damage in (wrong, "[1, 2]", '{"entries": 5}', "not json"):
        reference.cache_file().parent.mkdir(parents=True, exist_ok=True)
        reference.cache_file().write_text(damage, encoding="utf-8")
        report = simulation_report(PRESETS["classic"], 10_000, seed=1, decks=3, cut_card=20)
        assert report["reference_coups"] == 2 * reference.SHARD
