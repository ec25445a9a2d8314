"""Override families in languages other than English, built from grammar, not sentences.

An injected instruction says the same few things in every language: *ignore* the *previous*
*instructions*; ignore *what the user asked*; the earlier *instructions* are *void*; obey
*only this file*; send the *passwords* to *an address*.  Each language's
:class:`~persona_mind.mind.trust._phrases_i18n_vocab.Lexicon` lists the words of those roles
and the templates below combine them, in both orders (verb-object languages put the verb
first, Japanese, Korean, Turkish and Hindi last), with a bounded filler between roles that
never crosses a sentence end (nor, in Chinese and Japanese, a comma).  One rule per
language (``override-de`` …), matched on the folded text like every phrase rule.

What keeps ordinary text clean: each template needs two or three roles together, and the
ones that alone are ordinary ("follow only", "from now on", "the old rules") need a third
("only" *and* "this file"; "instructions" *and* "previous" *and* "void").  "Forget the
user" needs what the user *asked* ("ignore empty user input" stays clean only where the
language's word for input is not in the list), and a verb of sending needs a credential
*and* an address.
"""

from __future__ import annotations

import re

from persona_mind.mind.trust._normalize import strip_marks
from persona_mind.mind.trust._phrases_i18n_vocab import LEXICONS, Lexicon
from persona_mind.mind.trust._phrases_i18n_vocab2 import LEXICONS2

__all__ = ("I18N_GATES", "I18N_RULES", "I18N_STEMS", "rule_for")

Rule = tuple[str, re.Pattern[str]]

_END = ".!?;。！？।؟\n"
_END_UNSPACED = _END + "，、,"
_IDEOGRAPHIC = frozenset({"zh", "ja", "th"})
_ADDRESS = r"(?:https?://|www\.|[\w.+-]+@[\w-]+\.\w|\b[\w-]+\.(?:com|net|org|io|ru|cn)\b)"


def _filler(n: int, spaced: bool, short: bool) -> str:
    """Up to ``n`` characters inside one clause (a third of that in Chinese and Japanese,
    where a character is a word)."""
    ends = re.escape(_END if spaced else _END_UNSPACED)
    return f"[^{ends}]{{0,{n // 3 if short else n}}}"


def _source(lex: Lexicon) -> str:
    """The alternation of every template for one language."""
    start = r"\b" if lex.spaced else ""  # a lookbehind here costs 9x: no first-char skip

    def g(role: str) -> str:
        return f"{start}(?:{role})"

    def f(n: int) -> str:
        return _filler(n, lex.spaced, lex.code in _IDEOGRAPHIC)

    ign, pri, ords, usr, ask = g(lex.ignore), g(lex.prior), g(lex.orders), g(lex.user), g(lex.asked)
    obey, only, this, void = g(lex.obey), g(lex.only), g(lex.this), g(lex.void)
    send, loot = g(lex.send), g(lex.loot)
    reveal, sysprompt = g(lex.reveal), g(lex.sysprompt)
    hidden = f"(?:{sysprompt}|{g(lex.yours)}{f(15)}{ords})" if lex.yours else sysprompt
    clause_end = r"(?=\s*(?:[.,;:!?，。！？、؟]|$))"
    only_obey = f"(?:{only}{f(20)}{obey}|{obey}{f(20)}{only})"
    templates = (
        # ignore … previous … instructions (and the object-verb order)
        f"{ign}{f(40)}{pri}{f(30)}{ords}",
        f"{ign}{f(30)}{ords}{f(25)}{pri}",
        f"{pri}{f(25)}{ords}{f(40)}{ign}",
        # ignore … what the user asked
        f"{ign}{f(30)}{usr}{f(25)}{ask}",
        f"{ign}{f(30)}{ask}{f(25)}{usr}",
        f"{usr}{f(25)}{ask}{f(30)}{ign}",
        # ignore the user (at a clause end: "don't listen to the user,")
        rf"{ign}{f(12)}{usr}\w*{clause_end}",
        rf"{usr}{f(12)}{ign}\w*{clause_end}",
        # obey only this file
        f"{only_obey}{f(40)}{this}",
        f"{this}{f(40)}{only_obey}",
        f"{only}{f(10)}{this}{f(30)}{obey}",
        f"{obey}{f(30)}{this}{f(15)}{only}",
        # the previous / the user's instructions are void
        f"(?:{pri}|{usr}){f(20)}{ords}{f(30)}{void}",
        f"{ords}{f(20)}(?:{pri}|{usr}){f(30)}{void}",
        # show me your system prompt / your instructions
        f"{reveal}{f(20)}{hidden}",
        f"{hidden}{f(25)}{reveal}",
        # send the credentials to an address
        f"{send}{f(40)}{loot}{f(60)}{_ADDRESS}",
        f"{loot}{f(40)}{send}{f(60)}{_ADDRESS}",
    )
    return "|".join(templates)


def _gate_source(lex: Lexicon) -> str:
    """The roles one of which every template of :func:`_source` contains: the instructions
    (also inside "your … instructions"), the user, "only", the system prompt, the loot.  An
    empty role stays in (it matches anywhere, so the gate then always lets the rule run)."""
    start = r"\b" if lex.spaced else ""
    roles = (lex.orders, lex.user, lex.only, lex.sysprompt, lex.loot)
    return "|".join(f"{start}(?:{role})" for role in roles)


def _rule(lex: Lexicon) -> Rule:
    return (f"override-{lex.code}", re.compile(strip_marks(_source(lex))))


_ALL = (*LEXICONS, *LEXICONS2)
I18N_RULES: tuple[Rule, ...] = tuple(_rule(lex) for lex in _ALL)
"""One prompt-injection rule per language, in the order of the lexicons."""

I18N_STEMS: dict[str, tuple[str, ...]] = {
    f"override-{lex.code}": tuple(sorted({strip_marks(s).casefold() for s in lex.stems}))
    for lex in _ALL
}
"""The cheap first pass's stems of each rule (folded like the text they are looked up in)."""


I18N_GATES: dict[str, re.Pattern[str]] = {
    f"override-{lex.code}": re.compile(strip_marks(_gate_source(lex))) for lex in _ALL
}
"""Each rule's second look (:func:`~persona_mind.mind.trust._gates.role_gate`): one search
for a role the rule cannot match without, a fraction of the rule's cost on the ordinary
text its stems let through (English "ignore" is a stem of most Latin-script rules)."""


def rule_for(code: str) -> Rule:
    """The rule of one language (tests)."""
    name = f"override-{code}"
    return next(r for r in I18N_RULES if r[0] == name)
