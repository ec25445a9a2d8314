"""Text units shared by every Mind budget: normalisation, tokens, the planning estimate.

Units (ARCHITECTURE "Storage"): characters are Unicode code points (``len``); the token
*planning* estimate is ``ceil(utf8_bytes / 3)`` — not a provider tokenizer.  Lexical
tokens for ranking are lower-cased runs of letters/digits, so ranking is deterministic
and locale-free; *index terms* are those tokens reduced by the English Snowball stemmer
(PyStemmer, a C extension), so "testing databases" meets "test database", with English
stop words dropped (:data:`STOP_WORDS`), so "the", "a" or "to" never count as a task match.
"""

from __future__ import annotations

import math
import re
import unicodedata

import Stemmer

__all__ = (
    "STOP_WORDS",
    "collapse_ws",
    "estimate_tokens",
    "identity_text",
    "index_terms",
    "lexical_tokens",
    "normalize_tags",
    "normalize_text",
    "plural",
    "stem",
)

_WS = re.compile(r"\s+")
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_STEMMER = Stemmer.Stemmer("english")
_STEMS: dict[str, str] = {}
_STEM_MEMO = 200_000
"""Distinct words remembered by :func:`stem`; past it the memo starts again (bounded memory)."""

_STOP_TEXT = """
    a an the this that these those some any each every all both either neither such
    no nor not only own same other another than too very so more most few many much
    i me my mine myself we our ours ourselves you your yours yourself yourselves
    he him his himself she her hers herself it its itself they them their theirs themselves
    what which who whom whose when where why how here there
    am is are was were be been being have has had having do does did doing
    will would shall should can could might must
    of to in on at by for from with into onto about as via per within without
    above below between among through during before after since until till
    and or but if then because while whereas although though unless whether
    also just again ever once yet
    s t d ll m re ve don doesn didn isn aren wasn weren hasn haven hadn won wouldn
    shouldn couldn
"""
STOP_WORDS = frozenset(_STOP_TEXT.split())
"""English function words that never count as a task match (matched on the lower-cased token,
before stemming).  Why: BM25 gives even "the" a positive weight, so a prompt's articles and
prepositions "matched" unrelated facts and pushed them ahead of the recency order (issue 16:
on a paraphrased set Mind's top entry was often a tie on "the").  Kept out on purpose, though
common in stop lists, because they carry meaning in a developer's memory: "may" (the month),
"us" (a region prefix), "up"/"down"/"out"/"off"/"over" (commands and particles: "compose up",
"scale down"), "else", "new", "use".  The contraction tails ("s", "t", "ll", "don"...) are
what the tokenizer leaves of "it's", "don't", "we'll".  Only English: the stemmer is English.
"""


def collapse_ws(text: str) -> str:
    """Runs of whitespace become one space; ends are stripped."""
    return _WS.sub(" ", text).strip()


def normalize_text(text: str) -> str:
    """The stored form of a fact's text: NFC, whitespace collapsed.

    Case is kept (it is the user's text); identity folds case separately.
    """
    return collapse_ws(unicodedata.normalize("NFC", text))


def identity_text(text: str) -> str:
    """The text part of content identity: normalised and case-folded."""
    return normalize_text(text).casefold()


def normalize_tags(tags: object) -> tuple[str, ...]:
    """Tags are trimmed, lower-cased, de-duplicated and sorted (identity uses sorted tags)."""
    if not isinstance(tags, (list, tuple)):
        return ()
    out = {normalize_text(str(t)).casefold() for t in tags if isinstance(t, str)}
    out.discard("")
    return tuple(sorted(out))


def estimate_tokens(text: str) -> int:
    """The planning estimate: ``ceil(len(utf8) / 3)``."""
    return math.ceil(len(text.encode("utf-8")) / 3)


def lexical_tokens(text: str) -> list[str]:
    """Lower-cased word tokens for ranking (letters and digits; punctuation splits)."""
    return _WORD.findall(text.casefold())


def stem(word: str) -> str:
    """The index term of one lower-cased token (memoised: a vocabulary repeats)."""
    hit = _STEMS.get(word)
    if hit is None:
        hit = _STEMMER.stemWord(word)
        if len(_STEMS) >= _STEM_MEMO:
            _STEMS.clear()
        _STEMS[word] = hit
    return hit


def index_terms(text: str) -> list[str]:
    """Stemmed lexical tokens without stop words: what BM25 indexes and a prompt matches on."""
    get = _STEMS.get
    stop = STOP_WORDS
    return [get(tok) or stem(tok) for tok in _WORD.findall(text.casefold()) if tok not in stop]


def plural(count: int, noun: str) -> str:
    """``1 live fact`` / ``2 live facts``: status lines read as English, not as a template."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"
