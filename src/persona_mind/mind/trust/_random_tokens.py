"""Bare random keys: whether a run of letters and digits reads as a credential.

A key pasted without its name (``n0rsfta3vmx8fgdnvx6qmzlfbzr1ras2``) or after a provider
prefix the port does not know (``ntn_…``, ``sgp_…``) has no keyword to find it by; what
gives it away is that it looks random.  Developer notes are full of *other* random-looking
runs — commit ids, checksums, digests, identifiers, links to documents, base64 payloads,
request and object ids — so each of those is set aside first (see ``docs/mind.md``,
"Scanner on public data", for the figures that tuned this on public data).
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from collections import Counter

__all__ = ("RANDOM_MIN", "named_id", "placeholder_token", "random_token")

RANDOM_MIN = 24
"""Shortest run counted as a bare key (request and object ids are shorter)."""
_RUN = re.compile(r"[A-Za-z0-9]{24,}(?![A-Za-z0-9]|\.[A-Za-z0-9]{1,5}\b)")
_DIGEST = re.compile(
    r"(?:sha\d{1,3}|md5|blake2b?|sri|integrity)[-:=]|data:[\w/+.\-]*;base64,", re.IGNORECASE
)
_ID_BEFORE = re.compile(
    r"\b(?:ids?|identifier|uuid|guid|digest|checksum|hash|commit|etag|fingerprint|nonce|file|"
    r"doc|document|sheet|folder|page|video|playlist|build|run|job|trace|span|request|ticket)\b"
    r"[\s:=#'\"]*$|;base64,$",
    re.IGNORECASE,
)


def named_id(plain_text: str, token: str) -> bool:
    """The text calls the random run an id (``playlist id PLrAXt…``, ``request-id: …``,
    ``Drive file 1Bxi…``) or inlines data (``data:image/png;base64,…``): random ids and
    payloads are everywhere in developer notes and are not credentials."""
    at = plain_text.find(token)
    return at > 0 and _ID_BEFORE.search(plain_text[max(0, at - 24) : at]) is not None


_HEX = re.compile(r"[0-9a-f]+|[0-9A-F]+")
_DIGIT_LETTER = re.compile(r"(?<=\d)[A-Za-z]|(?<=[A-Za-z])\d")


def _entropy(run: str) -> float:
    """Shannon entropy in bits per character."""
    n = len(run)
    return -sum(c / n * math.log2(c / n) for c in Counter(run).values())


def random_token(token: str) -> bool:
    """A run of 24+ letters and digits that reads as random — a bare API key such as
    ``n0rsfta3vmx8fgdnvx6qmzlfbzr1ras2``, or the body after a provider prefix
    (``ntn_…``, ``sgp_…``) — and not an identifier, a word or a hash.

    Hex runs (commit ids, checksums, digests) are left alone: a memory names them far more
    often than it leaks a hex key; so are digests (``sha512-…``) and file names
    (``a8f3…9p1.png``), and shorter runs (request and object ids such as ``req_…``, ``cus_…``).
    Random means: letters *and* digits interleaved (at
    least one switch per eight characters) and a character entropy near that of random
    text of the same length.  ``python_version_3_11_compatibility`` or
    ``getElementsByTagName`` switch too rarely; ``sha256`` is too short.
    """
    if _DIGEST.match(token):
        return False  # sha512-…, sha256:…: a content digest, published on purpose
    for m in _RUN.finditer(token):
        run = m.group()
        if _HEX.fullmatch(run) or placeholder_token(run):
            continue
        n = len(run)
        if _wordy(run) * 2 >= n:
            continue  # base64UrlEncodeV2HelperFactory: an identifier made of words
        if len(_DIGIT_LETTER.findall(run)) * 8 < n and not _mixed_case_random(run):
            continue  # also rejects runs without digits or letters
        if _entropy(run) >= min(3.9, math.log2(n) - 1.0) and not _encoded_text(run):
            return True
    return False


_WORD = re.compile(r"[A-Za-z][a-z]{3,}")
_VOWELS = frozenset("aeiouyAEIOUY")


def _wordy(run: str) -> int:
    """Characters of ``run`` inside word-like pieces: four or more letters (a capital may
    lead) of which at least a quarter are vowels — ``Encode``, ``Helper``, not ``Nubbkxt``."""
    total = 0
    for w in _WORD.findall(run):
        if sum(ch in _VOWELS for ch in w) * 4 >= len(w):
            total += len(w)
    return total


_CASE_SWITCH = re.compile(r"(?<=[a-z])[A-Z0-9]|(?<=[A-Z])[a-z0-9]|(?<=[0-9])[A-Za-z]")


def _mixed_case_random(run: str) -> bool:
    """Base62 with few digits (``PuSytH1SevUgOXXeRuDN…``): upper, lower and a digit, the
    character class switching at least every third character (identifiers made of words
    were set aside before, by :func:`_wordy`)."""
    if run.islower() or run.isupper() or run.isalpha():
        return False
    n = len(run)
    return len(_CASE_SWITCH.findall(run)) * 3 >= n


def _encoded_text(run: str) -> bool:
    """Base64 of readable text is encoded *content* (the scanner decodes and scans it as a
    layer of its own), not a key."""
    try:
        decoded = base64.b64decode(run[: len(run) - len(run) % 4], validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return False
    letters = sum(ch.isalpha() or ch == " " for ch in decoded)
    return len(decoded) >= 12 and decoded.isprintable() and letters * 4 >= len(decoded) * 3


_REPEAT = re.compile(r"(.)\1{5,}")


def placeholder_token(token: str) -> bool:
    """A token-shaped placeholder: ``ghp_xxxxxxxx…``, ``glpat-XXXX…``, ``sk-…000000`` — one
    character repeated six times, which a real random key practically never contains.
    Alphabet runs (``AKIAABCDEFGHIJKLMNOP``) still count as secrets: hand-made fake keys
    look like that, and a scanner that waved them through would wave through a pasted
    test key in a real format."""
    return _REPEAT.search(token) is not None
