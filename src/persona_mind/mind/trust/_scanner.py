"""The unsafe-content scanner: secrets, prompt injection, deception, hidden characters.

It runs on admission (remember, capture, note save, backlog, CLI, import), on resurfacing
(injection, replay of session notes) and on explicit full reads (including source and
tags).  Text is matched in normal forms (:mod:`persona_mind.mind.trust._normalize`): NFKD with
marks and invisible characters removed, case-folded, whitespace collapsed; then, only when
the text shows signs of them, with Latin lookalikes mapped to Latin, leetspeak undone,
spaced/hyphenated letters joined, and nested base64/rot13 layers decoded (at most
``MAX_DEPTH`` layers).  Rules live in :mod:`~persona_mind.mind.trust._secrets` and
:mod:`~persona_mind.mind.trust._phrases`; the list and the measured rates are in ``docs/mind.md``.
Scanning mitigates; it proves nothing about truth and is no boundary against code running
in the same process (M-INJECT-10).
"""

from __future__ import annotations

import base64
import binascii
import codecs
import re
import time
from collections.abc import Generator, Iterator
from dataclasses import dataclass

from persona_mind.mind._errors import UnsafeContent
from persona_mind.mind.trust._gates import candidate_rules, role_gates
from persona_mind.mind.trust._normalize import (
    deleet,
    hidden_characters,
    join_separated,
    plain,
    skeleton,
)
from persona_mind.mind.trust._phrases import (
    SQUASHED,
    VOCABULARY,
    Rule,
)
from persona_mind.mind.trust._phrases_structural import structural_rule
from persona_mind.mind.trust._secrets import LONG_WORD, secret_findings
from persona_mind.mind.trust._structure_steps import structural_steps

__all__ = (
    "MAX_DEPTH",
    "WINDOW_CHARS",
    "Finding",
    "Steps",
    "assert_safe",
    "is_safe",
    "iter_windows",
    "scan",
    "scan_steps",
    "windows",
)

MAX_DEPTH = 3
"""Encoded layers (base64/rot13) decoded before giving up; deeper nesting is left alone."""
WINDOW_CHARS = 16 * 1024
"""A text longer than this (plus the overlap) is scanned window by window, so no single
regular-expression call works on more than one window (bounded time with the interpreter
held: a multi-megabyte paste scanned on a worker thread leaves the event loop responsive)."""
_OVERLAP = 2048
"""Consecutive windows overlap by this much: every rule's match is shorter, so none is cut."""


@dataclass(frozen=True, slots=True)
class Finding:
    """One scanner hit: its category and the rule's name (never the matched secret)."""

    category: str
    rule: str


_ROT13_WORDS = frozenset(
    codecs.encode(
        "ignore disregard forget override bypass instructions instruction previous system "
        "prompt you are now tell user secrets credentials password developer jailbreak the "
        "and your send to all",
        "rot13",
    ).split()
)
"""rot13 of common English and trigger words: two of them make a text worth decoding."""
_B64_TOKEN = re.compile(r"[A-Za-z0-9+/_\-]{16,}={0,2}")
_SHOUTED_ROLE = re.compile(r"(?:^|[\s.!?])(?:SYSTEM|ASSISTANT|DEVELOPER|ADMIN) ?: ?\S")
_SHOUTED_BOUNDARY = re.compile(
    r"^[ \t]*(?:END|BEGIN|START)(?: OF)?(?: THE)? (?:[A-Z]+ ){0,2}(?:INSTRUCTIONS|PROMPT|"
    r"USER INPUT|UNTRUSTED INPUT|SYSTEM PROMPT|SYSTEM MESSAGE)[ \t.:!]*$",
    re.MULTILINE,
)
"""A fake end of the prompt, shouted on a line of its own (``END USER INPUT``): a frame the
model is told to leave.  Said inside a sentence ("attackers fake an END OF SYSTEM PROMPT
banner") it is a description; the folded rule ``fake-boundary`` needs fence characters,
because lower-case "end user input" is ordinary prose."""
_SEPARATORS = ".-*·•/|_"
_SEPARATED_HINT = re.compile(
    r"[ .\-*·•/|_][^\W\d_][ .\-*·•/|_][^\W\d_][ .\-*·•/|_]|-[^\W\d_]{1,2}\b"
)
"""Cheap first look for spaced or cut letters; :func:`_looks_separated` decides."""
_INNER_HINT = re.compile(r"[^\W\d_][\-*][^\W\d_]")
_INNER_SEP = re.compile(r"(?<=[^\W\d_])[\-*](?=[^\W\d_])")
_SEPARATOR_SET = frozenset(_SEPARATORS)
_STRIP_SEPARATORS = str.maketrans(dict.fromkeys(_SEPARATORS))


def _looks_separated(words: list[str]) -> bool:
    """Spaced letters (``i g n o r e``) or letters cut by separators (``ig-no-re``)."""
    run = 0
    for word in words:
        if len(word) == 1 and word.isalpha():
            run += 1
            if run >= 4:
                return True
            continue
        run = 0
        if len(word) >= 3 and not _SEPARATOR_SET.isdisjoint(word):
            letters = word.translate(_STRIP_SEPARATORS)
            if letters.isalpha() and (len(word) - len(letters)) * 3 >= len(letters):
                return True
    return False


def _decoded_layers(long_words: list[str]) -> list[str]:
    """Printable text hidden in base64 runs of the 16+ character words (one layer)."""
    out: list[str] = []
    for word in long_words:
        m = _B64_TOKEN.search(word)
        if m is None:
            continue
        run = m.group()
        if len(out) >= 8:
            break
        raw = run.rstrip("=")
        raw = raw[: len(raw) - len(raw) % 4] if len(raw) % 4 == 1 else raw
        try:
            data = base64.b64decode(
                raw + "=" * (-len(raw) % 4), altchars=b"-_" if ("-" in raw or "_" in raw) else None
            )
            decoded = data.decode("utf-8")
        except (binascii.Error, UnicodeDecodeError, ValueError):
            continue
        printable = sum(ch.isprintable() or ch in "\n\t" for ch in decoded)
        letters = sum(ch.isalpha() for ch in decoded)
        if len(decoded) >= 8 and printable == len(decoded) and letters * 2 >= len(decoded):
            out.append(decoded)
    return out


Steps = Generator[None, None, None]
"""A scan's work cut at its natural seams: each ``next()`` runs at most one pattern search
(or one normalisation pass) over one window, so a caller on an event loop can yield
between them (:func:`scan_steps`)."""


def _phrase_steps(variant: str, found: dict[Finding, None]) -> Steps:
    """The first family that matches ``variant``; only families whose stems occur in it run
    their full pattern, one per step (after the rule's role gate, where it has one)."""
    rules = candidate_rules(variant)
    gates = role_gates(variant)
    for category, name, pattern in rules:
        yield
        gate = gates.get(name)
        if (gate is None or gate.search(variant) is not None) and pattern.search(variant):
            found[_finding(category, name)] = None
            return


_SPLIT_KEYS = tuple(
    (k.replace(" ", ""), k)
    for k in ("ignore", "disregard", "forget", "bypass", "override", "you are now", "jailbreak")
)


_SPLIT_RE = re.compile("|".join(key for key, _ in _SPLIT_KEYS))


def _split_word_steps(folded: str, found: dict[Finding, None]) -> Steps:
    """Trigger words cut by spaces (``ig nore prev ious``): squashed matching, but only when
    a trigger word appears squashed and not as a word (so ordinary text is never squashed)."""
    squashed = folded.replace(" ", "")
    hit = _SPLIT_RE.search(squashed)
    if hit and any(key in squashed and word not in folded for key, word in _SPLIT_KEYS):
        yield
        yield from _squashed_steps(folded, found)


_NOT_LETTERS = re.compile(r"[^a-z]+")


def _squashed_steps(text: str, found: dict[Finding, None]) -> Steps:
    squashed = _NOT_LETTERS.sub("", text)
    rules: tuple[Rule, ...] = SQUASHED
    for name, pattern in rules:
        yield
        if pattern.search(squashed):
            category = (
                "deception" if name in ("hide-from-user", "exfiltrate") else ("prompt-injection")
            )
            found[_finding(category, name)] = None


def _structure_steps(folded: str, found: dict[Finding, None], fine: bool) -> Steps:
    """The structural cues' refusing combinations (:mod:`._phrases_structural`): one step, or
    with ``fine`` one step per cue searched (:mod:`._structure_steps`)."""
    yield
    structure = (yield from structural_steps(folded)) if fine else structural_rule(folded)
    if structure is not None:
        category = "deception" if structure == "exfiltrate-structure" else "prompt-injection"
        found[_finding(category, structure)] = None


def _secret_steps(
    kept: str, folded: str, long_words: list[str], found: dict[Finding, None]
) -> Steps:
    """The secret rules, then (non-ASCII text only) again on lookalike letters undone, so
    ``pаssword=`` with a Cyrillic ``а`` is still a password assignment."""
    for rule in secret_findings(kept, folded, long_words):
        found[_finding("secret", rule)] = None
    if not found and not kept.isascii():
        yield
        kept_look = skeleton(kept)
        if kept_look != kept:
            yield
            for rule in secret_findings(kept_look, kept_look.casefold(), long_words):
                found[_finding("secret", rule)] = None


def _layer_steps(text: str, depth: int, found: dict[Finding, None], fine: bool = False) -> Steps:
    """Secrets and phrases on the folded form; only when that finds nothing, the costlier
    variants (lookalikes, leetspeak, separated letters) and the decoded layers.  A step
    boundary (``yield``) between every two passes; the order and the early exits are those
    of a whole scan, so stepping changes no finding.  ``fine``: the structural cues one
    search a step (the stepped scan of a long text), not one piece."""
    kept = plain(text)
    folded = kept.casefold()
    long_words = LONG_WORD.findall(kept)
    yield
    yield from _secret_steps(kept, folded, long_words, found)
    yield
    if not found and ":" in kept and _SHOUTED_ROLE.search(kept):
        found[_finding("prompt-injection", "chat-template")] = None
    if not found and ("END" in text or "BEGIN" in text) and _SHOUTED_BOUNDARY.search(text):
        found[_finding("prompt-injection", "fake-boundary")] = None
    if not found:
        yield from _phrase_steps(folded, found)
    if not found:
        yield from _structure_steps(folded, found, fine)
    if found:
        return
    yield
    look = folded if folded.isascii() else skeleton(folded)
    if look != folded:
        yield from _phrase_steps(look, found)
    yield
    leet = deleet(look, VOCABULARY)
    if leet != look and not found:
        yield from _phrase_steps(leet, found)
    yield
    words = leet.split()
    if not found and _SEPARATED_HINT.search(leet) and _looks_separated(words):
        joined = join_separated(leet)
        if joined != leet:
            yield from _phrase_steps(joined, found)
            yield from _squashed_steps(joined, found)
    if not found and ("-" in leet or "*" in leet) and _INNER_HINT.search(leet):  # ign-ore
        yield
        yield from _phrase_steps(_INNER_SEP.sub("", leet), found)
    if not found and leet.count("_") >= 2:  # snake_case_sentences
        yield from _phrase_steps(leet.replace("_", " "), found)
    if not found:
        yield from _split_word_steps(leet, found)
    if found or depth >= MAX_DEPTH:
        return
    rot13_words = len(_ROT13_WORDS.intersection(words))
    if rot13_words >= 2 or (rot13_words and len(words) < 4):
        yield
        yield from _layer_steps(codecs.encode(look, "rot13"), depth + 1, found, fine)
    yield
    for layer in _decoded_layers(long_words):
        yield from _layer_steps(layer, depth + 1, found, fine)


_FINDINGS: dict[tuple[str, str], Finding] = {}


def _finding(category: str, rule: str) -> Finding:
    hit = _FINDINGS.get((category, rule))
    if hit is None:
        hit = _FINDINGS[(category, rule)] = Finding(category, rule)
    return hit


def windows(text: str, size: int = WINDOW_CHARS, overlap: int = _OVERLAP) -> list[str]:
    """``text`` cut into windows of ``size`` characters plus ``overlap``, in order."""
    return list(iter_windows(text, size, overlap))


def iter_windows(text: str, size: int = WINDOW_CHARS, overlap: int = _OVERLAP) -> Iterator[str]:
    """:func:`windows` one at a time: a stepped scan copies one window per step, not the
    whole text up front (4 MB of slices is milliseconds of copying in one piece)."""
    if len(text) <= size + overlap:
        yield text
        return
    for i in range(0, len(text) - overlap, size):
        yield text[i : i + size + overlap]


def scan(text: str) -> tuple[Finding, ...]:
    """Why ``text`` is unsafe (empty when it is safe); deterministic.

    The scan stops at the first rule group that fires — hidden characters, then token
    formats, then generic secrets, then phrases on the folded text, then its lookalike,
    leetspeak and separated-letter variants, then decoded layers — because a refusal needs
    one reason and every caller only asks *whether* text is safe.  A text with a secret
    *and* an injected instruction therefore reports the secret.  A text longer than
    :data:`WINDOW_CHARS` is scanned in overlapping windows (the first finding wins), so no
    single matching call works on more than one window.
    """
    if len(text) > WINDOW_CHARS + _OVERLAP:
        for part in windows(text):
            hits = _scan_one(part)
            if hits:
                return hits
            time.sleep(0)  # a worker thread hands the interpreter back between windows
        return ()
    return _scan_one(text)


def scan_steps(text: str) -> Generator[None, None, tuple[Finding, ...]]:
    """:func:`scan` of one window (``text`` up to about :data:`WINDOW_CHARS`) cut into
    steps: each ``next()`` runs one pass or one pattern search; the return value
    (``StopIteration.value``) is exactly what :func:`scan` returns for ``text``."""
    found: dict[Finding, None] = {}
    if hidden_characters(text):
        found[_finding("invisible-unicode", "format-or-control-character")] = None
        return tuple(found)
    yield
    yield from _layer_steps(text, 0, found, fine=True)
    return tuple(found)


def _scan_one(text: str) -> tuple[Finding, ...]:
    found: dict[Finding, None] = {}
    if hidden_characters(text):
        found[_finding("invisible-unicode", "format-or-control-character")] = None
        return tuple(found)
    for _ in _layer_steps(text, 0, found):
        pass
    return tuple(found)


def is_safe(*texts: str) -> bool:
    """True when none of ``texts`` has a finding."""
    return not any(scan(t) for t in texts)


def assert_safe(field: str, *texts: str) -> None:
    """Raise :class:`UnsafeContent` naming the first finding of any of ``texts``."""
    for text in texts:
        hits = scan(text)
        if hits:
            names = ", ".join(f"{h.category}/{h.rule}" for h in hits)
            raise UnsafeContent(
                "content.unsafe",
                f"{field} was refused by the content scanner ({names}); remove the secret, "
                "instruction-like or invisible content and try again",
            )
