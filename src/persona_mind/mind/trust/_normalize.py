"""Normal forms the scanner matches on, and the hidden-character check.

Attackers dress the same instruction in many clothes: fullwidth or mathematical letters,
Cyrillic/Greek lookalikes inside Latin words, combining marks, invisible joiners and
variation selectors between letters, spaced or hyphenated letters, leetspeak.  Rules are
written once against a *folded* form and the scanner tries a few cheap variants of it, so
a rule covers a family instead of one spelling.

Lookalikes come from Unicode TR39's confusables table as the maintained
``confusable-homoglyphs`` package ships it (every character TR39 lists as confusable with a
single Latin letter), plus the few lower-case Cyrillic letters that fonts draw like Latin
but TR39 leaves out, and the Latin small capitals.  Everything else (fullwidth,
mathematical alphanumerics, ligatures) is handled by NFKD.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

__all__ = (
    "deleet",
    "fold",
    "hidden_characters",
    "join_separated",
    "plain",
    "skeleton",
    "strip_marks",
    "tr39_confusables",
)

_WS = re.compile(r"\s+")
_MARKS = re.compile(
    "[\u0300-\u036f\u0483-\u0489\u0591-\u05c7\u0610-\u061a\u064b-\u065f\u0670"
    "\u06d6-\u06ed\u0e31\u0e34-\u0e3a\u0e47-\u0e4e\u1ab0-\u1aff\u1dc0-\u1dff"
    "\u20d0-\u20ff\u3099\u309a\ufe20-\ufe2f]"
)
"""Combining marks of the scripts whose accents hide trigger words (Latin, Greek, Cyrillic,
Hebrew, Arabic, Thai, kana voicing) and the generic combining blocks."""

# Invisible or zero-width code points removed before matching (they hide inside words).
_INVISIBLE_RANGES: tuple[tuple[int, int], ...] = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x2800, 0x2800),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFFB),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
_DROP: dict[int, None] = {cp: None for lo, hi in _INVISIBLE_RANGES for cp in range(lo, hi + 1)}
_QUOTES = {0x2018: "'", 0x2019: "'", 0x02BC: "'", 0x2032: "'", 0x201C: '"', 0x201D: '"'}
_DROP_AND_QUOTES: dict[int, str | None] = {**_DROP, **_QUOTES}
_DROPPED = re.compile(
    "["
    + "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in _INVISIBLE_RANGES)
    + "".join(map(chr, _QUOTES))
    + "]"
)

# Lookalikes that Unicode TR39's confusables table omits but fonts render like a Latin
# letter (lower-case Cyrillic п н к м т в ь): kept beside the table, mixed-script words only.
_FONT_LOOKALIKES = {"n": "пη", "h": "н", "k": "кκ", "m": "м", "t": "тτ", "b": "вьβ", "u": "υц"}
# Latin small capitals and other Latin-script lookalikes: no language writes words in them,
# so they are mapped wherever they occur (Cyrillic/Greek only inside mixed-script words).
_ALWAYS_SRC = {
    "a": "ᴀɑ", "b": "ʙ", "c": "ᴄ", "d": "ᴅ", "e": "ᴇ", "f": "ꜰ", "g": "ɢɡ", "h": "ʜ", "i": "ɪı",
    "j": "ᴊ", "k": "ᴋ", "l": "ʟ", "m": "ᴍ", "n": "ɴ", "o": "ᴏ", "p": "ᴘ", "q": "ǫ", "r": "ʀ",
    "s": "ꜱ", "t": "ᴛ", "u": "ᴜ", "v": "ᴠ", "w": "ᴡ", "y": "ʏ", "z": "ᴢ",
}  # fmt: skip
_ALWAYS = {ord(ch): latin for latin, chars in _ALWAYS_SRC.items() for ch in chars}
_ALWAYS_RE = re.compile("[" + "".join(sorted(map(chr, _ALWAYS))) + "]")


def tr39_confusables() -> dict[str, tuple[str, ...]]:
    """TR39's confusables as ``confusable-homoglyphs`` ships them: each character to the
    characters (or sequences) it can be confused with.  Read on first use (the table is
    ~1 MB of JSON, ~0.1 s to load; :func:`persona_mind.mind.trust._verdict.warm` loads it
    off the event loop)."""
    return _tr39()


@cache
def _tr39() -> dict[str, tuple[str, ...]]:
    """The table read from the package's data file, not through its ``confusables`` module.

    Why: that module (with its ``categories`` table) keeps the parsed JSON alive for the
    life of the process — ~23,000 lists and dicts that every full collection walks while it
    holds the GIL (~3 ms a collection on this machine type, in any process that warmed the
    scanner).  The parse here is dropped once the table is built, and tuples of strings
    are untracked by the collector, so the table the scanner keeps costs a collection
    nothing.  Same data file, same entries, same order.
    """
    import json  # noqa: PLC0415 - loaded on first use
    from importlib.resources import files  # noqa: PLC0415

    import confusable_homoglyphs  # noqa: PLC0415 - the package only: a version string

    raw = files(confusable_homoglyphs).joinpath("confusables.json").read_text("utf-8")
    parsed: dict[str, list[dict[str, str]]] = json.loads(raw)
    return {k: tuple(str(e["c"]) for e in v) for k, v in parsed.items()}


@cache
def _skeleton_tables() -> tuple[dict[int, str], re.Pattern[str]]:
    """Every non-ASCII character TR39 lists as confusable with a single Latin letter, mapped
    to that letter (lower case), plus the font lookalikes above and the small capitals."""
    table: dict[int, str] = {}
    for ch, similar in _tr39().items():
        if len(ch) != 1 or ch.isascii():
            continue
        latin = next((c for c in similar if len(c) == 1 and c.isascii() and c.isalpha()), None)
        if latin is not None:
            table[ord(ch)] = latin.lower()
            folded = ch.casefold()
            if len(folded) == 1 and not folded.isascii():
                table.setdefault(ord(folded), latin.lower())
    for latin, chars in _FONT_LOOKALIKES.items():
        for ch in chars:
            table.setdefault(ord(ch), latin)
    table.update(_ALWAYS)
    # The detector class keeps to the Basic Multilingual Plane: with astral characters in
    # it the regex engine tests every listed character in turn (tens of ms per 8 KiB) instead
    # of one bitmap lookup.  Astral lookalikes (mathematical letters) are folded by NFKD.
    bmp = "".join(sorted(chr(cp) for cp in table if cp <= 0xFFFF))
    lookalikes = re.escape(bmp)
    return table, re.compile(f"[a-z][{lookalikes}]|[{lookalikes}][a-z]")


_LEET = str.maketrans(
    {
        "0": "o",
        "1": "i",
        "3": "e",
        "4": "a",
        "5": "s",
        "7": "t",
        "8": "b",
        "@": "a",
        "$": "s",
        "|": "i",
        "!": "i",
        "+": "t",
    }
)
_LEET_L = {**_LEET, ord("1"): "l"}
_LEET_SET = frozenset("0134578@$|!+")
_LEET_ADJACENT = re.compile(r"[a-z][0134578@$|!+]|[0134578@$|!+][a-z]")
_SEPARATED = re.compile(r"(?<![^\W\d_])(?:[^\W\d_][ .\-_*·•/|]{1,2}){3,}[^\W\d_](?![^\W\d_])")
_INNER_SEP = re.compile(r"(?<=[^\W\d_])[\-*·•_.](?=[^\W\d_])")


def strip_marks(text: str) -> str:
    """NFKD without combining marks: fullwidth/math letters become ASCII, accents go."""
    if text.isascii():
        return text
    decomposed = unicodedata.normalize("NFKD", text)
    if decomposed.isascii():
        return decomposed
    return _MARKS.sub("", decomposed)


def plain(text: str) -> str:
    """Case kept, compatibility forms and marks folded, invisibles dropped, spaces collapsed."""
    if text.isascii():
        return " ".join(text.split())
    if _DROPPED.search(text):
        text = text.translate(_DROP_AND_QUOTES)
    return " ".join(strip_marks(text).split())


def fold(text: str) -> str:
    """:func:`plain`, case-folded: the form every phrase rule is written against."""
    return plain(text).casefold()


def skeleton(folded: str) -> str:
    """Latin lookalikes (Cyrillic ``о``, Greek ``ο`` …) mapped to their Latin letter.

    Only text where a lookalike touches a Latin letter inside a word is mapped: that is
    how a spoofed trigger word looks, while Russian or Greek prose stays as it is.
    """
    if folded.isascii():
        return folded
    table, mixed_script = _skeleton_tables()
    if mixed_script.search(folded):
        return folded.translate(table)
    if _ALWAYS_RE.search(folded):
        return folded.translate(_ALWAYS)
    return folded


def deleet(folded: str, vocabulary: frozenset[str]) -> str:
    """Digits/symbols standing for letters inside words (``1gn0r3`` → ``ignore``).

    Only words that become a ``vocabulary`` word are rewritten, so code, versions and
    random tokens stay as they are (and cost no second matching pass).  ``1`` stands for
    ``i`` or ``l`` (``ru135`` → ``rules``).
    """
    if _LEET_SET.isdisjoint(folded) or not _LEET_ADJACENT.search(folded):
        return folded
    changed = False
    words = folded.split(" ")
    for i, word in enumerate(words):
        if _LEET_SET.isdisjoint(word):
            continue  # most words: nothing to undo, not even stripped
        core = word.strip(".,;:?()[]\"'")
        if 2 <= len(core) <= 16 and not core.isalpha() and not _LEET_SET.isdisjoint(core):
            for table in (_LEET, _LEET_L):
                plain_word = core.translate(table)
                if plain_word in vocabulary:
                    words[i] = word.replace(core, plain_word)
                    changed = True
                    break
    return " ".join(words) if changed else folded


def join_separated(folded: str) -> str:
    """Spaced or hyphenated letters joined (``i g n o r e``, ``ig-no-re`` → ``ignore``).

    A run of single letters becomes one word; separators inside words go.  Word boundaries
    inside a spaced run are lost, so the phrase rules accept both spaced and squashed forms.
    """
    out = _SEPARATED.sub(lambda m: re.sub(r"[ .\-_*·•/|]", "", m.group()) + " ", folded)
    return _INNER_SEP.sub("", out)


# -- hidden characters -----------------------------------------------------------------

_SUSPECT = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f"
    + "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in _INVISIBLE_RANGES)
    + "\ue000-\uf8ff\U000f0000-\U0010ffff\ud800-\udfff\u0600-\u0605\u06dd\u070f\u08e2"
    + "\U000110bd\U000110cd\U00013430-\U0001343f]"
)
_RTL = re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff]")
_JOINING_SCRIPT_MIN = 0x0590  # Hebrew onwards: scripts that use ZWJ/ZWNJ in ordinary text


def _emojiish(ch: str) -> bool:
    cp = ord(ch)
    return (
        unicodedata.category(ch) in ("So", "Sk")
        or 0x1F000 <= cp <= 0x1FAFF
        or 0x2190 <= cp <= 0x2BFF
        or cp in (0xFE0F, 0x20E3, 0x200D)
    )


def _joining_letter(ch: str) -> bool:
    return ord(ch) >= _JOINING_SCRIPT_MIN and unicodedata.category(ch)[0] in "LM"


def _braille(ch: str) -> bool:
    return bool(ch) and 0x2801 <= ord(ch) <= 0x28FF


def _no_space_letter(ch: str) -> bool:
    """A letter or mark of a script written without spaces (Thai onwards, CJK)."""
    return bool(ch) and ord(ch) >= 0x0E00 and unicodedata.category(ch)[0] in "LM"


def _allowed(text: str, i: int) -> bool:
    """Whether the suspect character at ``i`` is an ordinary part of the text."""
    ch = text[i]
    cp = ord(ch)
    prev = text[i - 1] if i else ""
    nxt = text[i + 1] if i + 1 < len(text) else ""
    if cp in (0x200D, 0x200C):  # ZWJ/ZWNJ: emoji sequences and joining scripts
        if prev and nxt and _emojiish(prev) and _emojiish(nxt):
            return True
        return bool(prev and nxt and _joining_letter(prev) and _joining_letter(nxt))
    if 0xFE00 <= cp <= 0xFE0F:  # variation selectors: after symbols/emoji, not inside words
        return bool(prev) and not prev.isspace() and not (prev.isalpha() and ord(prev) < 0x2000)
    if cp == 0x00AD:  # soft hyphen: a hyphenation hint between letters (German, Dutch …)
        return bool(prev) and prev.isalpha() and nxt.isalpha()
    if cp == 0x2800:  # braille blank: a space inside braille text, a hidden gap elsewhere
        return _braille(prev) or _braille(nxt)
    if cp == 0x200B:  # zero-width space: the word separator of Thai, Lao, Khmer, Myanmar …
        return _no_space_letter(prev) and _no_space_letter(nxt)
    if 0xE0100 <= cp <= 0xE01EF:  # ideographic variation selectors after Han
        return bool(prev) and unicodedata.name(prev, "").startswith("CJK")
    if 0xE0020 <= cp <= 0xE007F:  # emoji tag sequences (subdivision flags) only
        j = i
        while j > 0 and 0xE0020 <= ord(text[j - 1]) <= 0xE007F:
            j -= 1
        return j > 0 and ord(text[j - 1]) == 0x1F3F4
    if cp in (0x200E, 0x200F, 0x061C):  # direction marks in right-to-left text
        return bool(_RTL.search(text))
    return cp == 0xFEFF and i == 0  # a byte-order mark at the very start


def hidden_characters(text: str) -> bool:
    """True when ``text`` hides characters: controls, zero-widths inside words, bidi
    overrides, tag characters, private use, fillers — but not emoji ZWJ sequences,
    keycaps, flags or the joiners of scripts that need them."""
    if text.isascii():
        return not text.isprintable() and bool(_SUSPECT.search(text))
    return any(not _allowed(text, m.start()) for m in _SUSPECT.finditer(text))
