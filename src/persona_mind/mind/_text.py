"""Text units shared by every Mind budget: normalisation, tokens, the planning estimate.

Units (ARCHITECTURE "Storage"): characters are Unicode code points (``len``); the token
*planning* estimate is ``ceil(utf8_bytes / 3)`` — not a provider tokenizer.  Lexical
tokens for ranking are lower-cased runs of letters/digits, so ranking is deterministic
and locale-free; *index terms* are those tokens reduced by the English Snowball stemmer
(PyStemmer, a C extension), so "testing databases" meets "test database".
"""

from __future__ import annotations

import math
import re
import unicodedata

import Stemmer

__all__ = (
    "collapse_ws",
    "estimate_tokens",
    "identity_text",
    "index_terms",
    "lexical_tokens",
    "normalize_tags",
    "normalize_text",
    "stem",
)

_WS = re.compile(r"\s+")
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_STEMMER = Stemmer.Stemmer("english")
_STEMS: dict[str, str] = {}
_STEM_MEMO = 200_000
"""Distinct words remembered by :func:`stem`; past it the memo starts again (bounded memory)."""


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
    """Stemmed lexical tokens: what BM25 indexes and what a prompt is matched on."""
    get = _STEMS.get
    return [get(tok) or stem(tok) for tok in _WORD.findall(text.casefold())]
