"""The override families' role gates change no answer (issue 27, scanner cost).

English "ignore" is a stem of most Latin-script override rules (``override-es`` …), so an
ordinary note that ignores something ran a dozen of the costliest patterns.  Each rule now
has a second look first (``_phrases_i18n.I18N_GATES``): one search for a role every one of
its templates contains.  A gate that missed a role's spelling would silently drop a
detection, so each gate is compared with its full rule over every corpus text (and every
attack sentence of the i18n tests), in both compiled forms.
"""

from __future__ import annotations

from functools import cache

import pytest
from bench.scanner import CORPUS, load

from persona_mind.mind.trust._gates import candidate_rules, role_gates
from persona_mind.mind.trust._normalize import fold, plain
from persona_mind.mind.trust._phrases_i18n import I18N_GATES, I18N_RULES

from .test_scanner_i18n import ATTACKS


@cache
def _folded() -> tuple[str, ...]:
    texts = [plain(row["text"]).casefold() for row in load(CORPUS)]
    texts += [fold(text) for _, text in ATTACKS]
    return tuple(texts)


def test_every_override_rule_has_a_gate() -> None:
    assert set(I18N_GATES) == {name for name, _ in I18N_RULES}


@pytest.mark.parametrize("name", sorted(I18N_GATES))
def test_rule_never_matches_where_its_gate_finds_nothing(name: str) -> None:
    rule = dict(I18N_RULES)[name]
    hits = 0
    for text in _folded():
        if rule.search(text):
            hits += 1
            assert role_gates(text)[name].search(text) is not None, text
            assert I18N_GATES[name].search(text) is not None, text
    if name in {f"override-{code}" for code, _ in ATTACKS}:
        assert hits, "the corpus and the i18n attacks should exercise this rule"


@pytest.mark.parametrize("name", sorted(I18N_GATES))
def test_ascii_compiled_gate_answers_as_the_unicode_one(name: str) -> None:
    ascii_gate = role_gates("ascii")[name]
    for text in _folded():
        if text.isascii():
            assert (ascii_gate.search(text) is None) == (I18N_GATES[name].search(text) is None)


@pytest.mark.parametrize(
    "text",
    [
        "We ignore previous-year data in the report.",
        "feat: add --ignore-missing flag to the importer",
        "Please ignore the flaky test on CI for now.",
    ],
)
def test_english_ignore_note_skips_the_override_searches(text: str) -> None:
    """The notes the stems send to a dozen override rules: every gate finds nothing."""
    folded = fold(text)
    overrides = [n for _, n, _ in candidate_rules(folded) if n.startswith("override-")]
    assert len(overrides) >= 5
    gates = role_gates(folded)
    assert [n for n in overrides if gates[n].search(folded)] == []
