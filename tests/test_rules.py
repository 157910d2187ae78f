"""Rule sets: every preset of docs/rules.md#rule-presets means what the table says, and impossible values are
refused."""

import pytest

from trente_env.rules import PRESETS, Refait, RuleSet, SecondRefait, get_rules


def test_classic_is_the_default_monte_carlo_table():
    rules = get_rules()
    assert rules == RuleSet()
    assert (rules.decks, rules.n_cards, rules.cut_card) == (6, 312, 52)
    assert rules.refait is Refait.PRISON and rules.second_refait is SecondRefait.LOST
    assert rules.insurance and rules.insurance_rate == 0.01
    assert (rules.table_min, rules.table_max) == (1, 1000)
    assert rules.boxes == ("noir", "rouge", "couleur", "inverse")


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("partage", {"refait": Refait.HALF, "decks": 6}),
        ("choice", {"refait": Refait.CHOICE}),
        ("family", {"decks": 2, "cut_card": 26, "refait": Refait.HALF, "insurance": False}),
        ("main-bets", {"couleur_inverse": False, "refait": Refait.PRISON}),
        ("lenient-couleur", {"refait_spares_couleur": True}),
        ("exhaustion", {"cut_card": 0, "decks": 6}),
        ("second-prison", {"second_refait": SecondRefait.SECOND_PRISON}),
    ],
)
def test_presets_match_the_spec_table(name, expected):
    rules = PRESETS[name]
    for option, value in expected.items():
        assert getattr(rules, option) == value, option


def test_main_bets_closes_couleur_and_inverse():
    assert get_rules("main-bets").boxes == ("noir", "rouge")


def test_rules_are_immutable_and_replace_validates():
    rules = get_rules()
    with pytest.raises(AttributeError):
        rules.decks = 2  # type: ignore[misc]
    assert rules.replace(decks=2, cut_card=20).decks == 2
    with pytest.raises(ValueError, match="decks"):
        rules.replace(decks=9)


def test_get_rules_applies_changes_and_accepts_strings_for_enums():
    rules = get_rules("classic", refait="half", second_refait="stays", decks=None)
    assert rules.refait is Refait.HALF and rules.second_refait is SecondRefait.STAYS and rules.decks == 6


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"decks": 0}, "decks must be between 1 and 8"),
        ({"decks": 9}, "decks must be between 1 and 8"),
        ({"decks": 2.5}, "whole number"),
        ({"cut_card": -1}, "cannot be negative"),
        ({"cut_card": 312}, "leave no cards"),
        ({"cut_card": 300, "burn": 12}, "leave no cards"),
        ({"table_min": 5, "table_max": 2}, "table_min <= table_max"),
        ({"table_min": 0}, "0 < table_min"),
        ({"insurance_rate": 1.0}, r"\[0, 1\)"),
        ({"insurance_rate": -0.01}, r"\[0, 1\)"),
        ({"refait": "sometimes"}, "half|prison|choice"),
        ({"second_refait": "maybe"}, "lost|second_prison|stays"),
    ],
)
def test_impossible_rules_are_refused_with_a_clear_message(options, message):
    with pytest.raises(ValueError, match=message):
        RuleSet(**options)


def test_unknown_preset_names_the_choices():
    with pytest.raises(ValueError, match="unknown rules preset 'vegas'; choose one of classic"):
        get_rules("vegas")


def test_every_preset_describes_itself():
    for name, rules in PRESETS.items():
        assert f"{rules.decks} decks" in rules.describe(), name
