"""The share a partage takes has one table of words (``trente_env.settle.SHARE_WORDS``), read by the
engine's sentences and by the report's glossary: every refait rule has its words on every page, so a
new rule variant that forgets them fails here rather than in ``trente-lab report``."""

from __future__ import annotations

import pytest

from experiments.teaching import page
from trente_env.rules import Refait, get_rules
from trente_env.settle import SHARE_WORDS, partage_share, partage_words, refait_code, share_words


@pytest.mark.parametrize("rule", list(Refait))
def test_every_refait_rule_has_its_share_in_english_and_french_on_every_page(rule: Refait) -> None:
    rules = get_rules("classic", refait=rule)
    english, french = share_words(rules)
    assert partage_words(rules) == f"{english} of each stake"
    words = " ".join(" ".join(row) for row in page.glossary(rules))
    if rule is not Refait.PRISON:  # under prison no stake is shared
        assert f"loses {english} of itself" in words and f"perd {french} d'elle-même" in words
    assert page.rules_text(rules)


def test_the_words_are_those_of_the_share_the_rule_takes() -> None:
    assert set(SHARE_WORDS) == {partage_share(int(refait_code(get_rules("classic", refait=r)))) for r in Refait}
    assert share_words(get_rules("classic", refait=Refait.QUARTER)) == ("a quarter", "le quart")
    assert not hasattr(page, "SHARE_WORDS")  # the report reads the engine's table, it keeps no copy
