"""Normal forms the scanner matches on, and the hidden-character check.

Attackers dress the same instruction in many clothes: fullwidth or mathematical letters,
Cyrillic/Greek lookalikes inside Latin words, combining marks, invisible joiners and
variation selectors between letters, spaced or hyphenated letters, leetspeak.  Rules are
written once against a *folded* form and the scanner tries a few cheap variants of it, so
a rule covers a family instead of one spelling.

Why a ported rule set instead of a dependency: the confusable skeleton of Unicode TR39 is
a large table, but only lookalikes of Latin letters matter for matching English trigger
words; the small map below covers the Cyrillic, Greek, Armenian and Latin-extended letters
that render like ASCII (checked by ``tests/mind/test_scanner_normalize.py``).  Everything
else (fullwidth, mathematical alphanumerics, ligatures) is handled by NFKD.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = (
    "deleet",
    "fold",
    "hidden_characters",
    "join_separated",
    "plain",
    "skeleton",
    "strip_marks",
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

# Lookalikes of Latin letters (TR39 confusables, restricted to what renders like a-z).
_CONFUSABLE_SRC = {
    "a": "аɑαа𝖺ａ",
    "b": "ЬьвβБ",
    "c": "сϲϛᴄⅽ",
    "d": "ԁɗⅾ",
    "e": "еєҽεѐё",
    "g": "ɡցǥ",
    "h": "һнհ",
    "i": "іїɩιıӏⅰ",
    "j": "јϳ",
    "k": "кκ",
    "l": "ӏⅼǀ",
    "m": "мⅿ",
    "n": "пոηռ",
    "o": "оοօσ০๐",
    "p": "рρ",
    "q": "ԛզ",
    "r": "гᴦ",
    "s": "ѕʂ",
    "t": "тτ",
    "u": "υսц",
    "v": "νѵ",
    "w": "ԝωѡ",
    "x": "хχ",
    "y": "уүγ",
    "z": "ᴢ",
}
# Latin small capitals and other Latin-script lookalikes: no language writes words in them,
# so they are mapped wherever they occur (Cyrillic/Greek only inside mixed-script words).
_ALWAYS_SRC = {
    "a": "ᴀɑ", "b": "ʙ", "c": "ᴄ", "d": "ᴅ", "e": "ᴇ", "f": "ꜰ", "g": "ɢɡ", "h": "ʜ", "i": "ɪı",
    "j": "ᴊ", "k": "ᴋ", "l": "ʟ", "m": "ᴍ", "n": "ɴ", "o": "ᴏ", "p": "ᴘ", "q": "ǫ", "r": "ʀ",
    "s": "ꜱ", "t": "ᴛ", "u": "ᴜ", "v": "ᴠ", "w": "ᴡ", "y": "ʏ", "z": "ᴢ",
}  # fmt: skip
_ALWAYS = {ord(ch): latin for latin, chars in _ALWAYS_SRC.items() for ch in chars}
_SKELETON = {
    **{ord(ch): latin for latin, chars in _CONFUSABLE_SRC.items() for ch in chars},
    **_ALWAYS,
}
_ALWAYS_RE = re.compile("[" + "".join(sorted(map(chr, _ALWAYS))) + "]")
_LOOKALIKES = "".join(sorted(map(chr, _SKELETON)))
_MIXED_SCRIPT = re.compile(f"[a-z][{_LOOKALIKES}]|[{_LOOKALIKES}][a-z]")

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
    if _MIXED_SCRIPT.search(folded):
        return folded.translate(_SKELETON)
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
    out: list[str] = []
    for word in folded.split(" "):
        core = word.strip(".,;:?()[]\"'")
        new = word
        if 2 <= len(core) <= 16 and not core.isalpha() and not _LEET_SET.isdisjoint(core):
            for table in (_LEET, _LEET_L):
                plain_word = core.translate(table)
                if plain_word in vocabulary:
                    new = word.replace(core, plain_word)
                    changed = True
                    break
        out.append(new)
    return " ".join(out) if changed else folded


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
