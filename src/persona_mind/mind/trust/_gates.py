"""The scanner's cheap first pass: which phrase families can match a text at all.

Each family lists literal stems (word starts, or symbols/CJK substrings); only families
whose stems occur in a folded variant run their full pattern.  Stems are looked up by the
first four letters of each word, one ``findall`` and one set intersection per text, so an
ordinary memory costs about one bare regex pass here (see ``docs/mind.md`` "Scanner").
"""

from __future__ import annotations

import re

from persona_mind.mind.trust._normalize import strip_marks
from persona_mind.mind.trust._phrases import (
    DE_VERBS,
    DECEPTION,
    ES_PT_VERBS,
    FR_IT_VERBS,
    INJECTION,
)
from persona_mind.mind.trust._phrases_agent import AGENT_STEMS
from persona_mind.mind.trust._phrases_i18n import I18N_GATES, I18N_STEMS

__all__ = ("candidate_rules", "role_gates")

# Literal stems, one of which must occur (in the folded variant) before a family's full
# pattern runs: the scanner's cheap first pass (see ``docs/mind.md`` "Scanner cost").
# fmt: off
_STEMS: dict[str, tuple[str, ...]] = {
    "address-the-model": (
        "note", "message", "attention", "instruction", "instructions", "reminder", "important",
        "directive", "notice", "if", "ai", "llm",
    ),
    "ignore-instructions-nl-pl": ("negeer", "vergeet", "zignoruj", "ignoruj", "zapomnij", "stosuj"),
    "ignore-instructions": (
        "irrelevant", "obsolete", "apply", "everything", "anything", "whatever",
        "void", "invalid", "cancelled", "canceled", "revoked", "overridden", "longer", "never",
        "disobey",
        "ignor", "disregard", "forget", "overr", "bypass", "discard", "abandon", "neglect",
        "aside", "throw away", "attention", "heed", "mind", "follow", "obey", "heed",
        "listen to", "adhere", "comply", "apply", "respect", "forego", "skip",
    ),
    "new-instructions": (
        "instruction", "directive", "order", "rule", "task", "goal", "objective", "role",
        "purpose", "message", "system prompt",
    ),
    "role-hijack": (
        "restrictions", "limits", "limitations", "filters", "guidelines", "boundaries",
        "censorship", "safety", "rules",
        "you", "pretend", "mode", "anything", "jailbreak", "creator", "developer",
        "administrator", "admin", "owner", "operator", "maker", "override", "character",
        "unrestricted", "unfiltered", "uncensored", "jailbroken", "evil", "rogue", "dan",
    ),
    "no-rules-persona": (
        "ethic", "moral", "openai", "chatgpt", "restrictions", "rules", "filters", "censorship",
        "limitations", "guidelines", "confines", "shackles", "chains", "legality", "legal",
        "immerse", "polic", "safety",
    ),
    "chat-template": (
        "<|", "[inst", "[/inst", "<<", "<start", "<end", "<system", "</system", "<assistant",
        "</assistant", "<im_", "</im_", "<instruction", "</instruction", "<sys", "</sys", "###",
        "[system", "[admin", "[developer", "system", "assistant",
    ),
    "reveal-prompt": (
        "prompt", "instructions", "ruleset", "directives", "above", "everything",
    ),
    "fake-boundary": (
        "%%", "==", "##", "**", "--", "~~", "<<", ">>", "[[",
    ),
    "ignore-instructions-de": (
        "ignorier", "vergiss", "vergesst", "vergessen", "missacht", "ubergeh", "beachte",
        "befolge", "du bist", "sie sind", "ab jetzt", "ab sofort", "neue anweisung",
    ),
    "ignore-instructions-es-pt": (
        "ignor", "olvid", "omite", "descarta", "caso omiso", "hagas", "pasa por alto",
        "esquec", "desconsider", "eres", "agora", "ahora", "nuevas instrucciones",
    ),
    "ignore-instructions-fr-it": (
        "ignor", "oubli", "compte", "conto", "abstraction", "dimentic", "trascura",
        "considerare", "tu es", "vous etes", "maintenant", "desormais", "doreavant", "sei ",
        "nouvelles", "nuove",
    ),
    "hide-from-user": (
        "keep", "pretend", "quietly",
        "user", "human", "operator", "owner", "secretly", "covertly", "silently", "stealthily",
        "discreetly",
    ),
    "impersonate-user": ("pretend", "claim"),
    "fake-approval": ("approved", "authorized", "authorised", "consented", "agreed", "granted"),
    "exfiltrate": (
        "scp", "rsync", "sftp", "nc", "ncat", "netcat", "socat",
        "email", "sending", "uploading", "posting", "leaking", "exfiltrating",
        "send", "upload", "post", "exfil", "transmit", "forward", "mail", "leak", "submit",
        "beam", "ship", "pipe", "curl", "wget", "cat", "type", "printenv", "env",
    ),
    "deception-multilingual": (
        "benutzer", "nutzer", "anwender", "usuario", "utilisateur", "utente", "sende",
        "schicke", "lade ", "envia", "envoie", "envoyez", "invia", "manda", "пользовател", "用户",
        "用戶", "使用者", "发送", "發送", "上传", "上傳", "发给", "發給",
    ),
    "ignore-instructions-ru": (
        "игнор", "проигнор", "забудь", "забудьте", "обращаи", "следуи", "отбрось", "теперь",
        "ты",
    ),
    "ignore-instructions-zh-ja": (
        "忽", "无视", "無視", "不要", "无需", "無需", "忘", "抛开", "拋開", "跳过",
        "跳過", "你现在", "你現在", "从现在",
        "從現在", "指示", "命令", "ルール", "新的", "新指", "系统提示", "系統提示",
    ),
}
# fmt: on
_STEMS.update(AGENT_STEMS)
_STEMS.update(I18N_STEMS)
_PUNCT = str.maketrans(dict.fromkeys("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", " "))


def _is_word(stem: str) -> bool:
    """Alphabetic stems of space-separated scripts are looked up by word start; CJK stems
    and symbols by substring."""
    letters = stem.replace(" ", "").replace("'", "")
    return letters.isalpha() and all(ord(ch) < 0x0E00 for ch in letters)


def _leading_words(alternation: str) -> tuple[str, ...]:
    """First literal word of each alternative of a verb list (stems kept in step with rules)."""
    out: set[str] = set()
    for alt in alternation.split("|"):
        words = re.findall(r"[^\W\d_]+", strip_marks(alt).lower())
        long = [w for w in words if len(w) > 3]  # "no sigas" gates on "sigas", not "no"
        if long:
            out.add(long[0])
    return tuple(sorted(out))


for _family_name, _verbs in (
    ("ignore-instructions-de", DE_VERBS),
    ("ignore-instructions-es-pt", ES_PT_VERBS),
    ("ignore-instructions-fr-it", FR_IT_VERBS),
):
    _STEMS[_family_name] = (*_STEMS[_family_name], *_leading_words(_verbs))

_KEY = 4
"""Stems are looked up by their first four letters (shorter stems: the whole word)."""


def _index() -> tuple[dict[str, frozenset[str]], tuple[tuple[str, frozenset[str]], ...]]:
    words: dict[str, set[str]] = {}
    symbols: dict[str, set[str]] = {}
    for family, stems in _STEMS.items():
        for stem in stems:
            if not _is_word(stem.strip()):
                symbols.setdefault(stem, set()).add(family)
                continue
            first = stem.split()[0].split("'")[0]
            words.setdefault(first[:_KEY], set()).add(family)
    return (
        {k: frozenset(v) for k, v in words.items()},
        tuple((k, frozenset(v)) for k, v in symbols.items()),
    )


_WORDS, _SYMBOL_FAMILIES = _index()
_WORD_KEYS = frozenset(_WORDS)


def _signature(symbol: str) -> str:
    """A character every occurrence of ``symbol`` brings: its first one that is not a letter,
    space or apostrophe (an ASCII stem made only of those is looked up as a word)."""
    return next((ch for ch in symbol if not ch.isalpha() and ch not in " '"), symbol[0])


_SYMBOL_START = frozenset(_signature(sym) for sym, _ in _SYMBOL_FAMILIES if sym.isascii())
"""ASCII text without any of these characters holds no symbol stem (skips the gate)."""
_SYMBOL_GATE = re.compile("|".join(re.escape(sym) for sym, _ in _SYMBOL_FAMILIES))
_WORD_START = re.compile(rf"\b[^\W\d_]{{1,{_KEY}}}")
_ALL_RULES: tuple[tuple[str, str, re.Pattern[str]], ...] = tuple(
    [("prompt-injection", n, p) for n, p in INJECTION] + [("deception", n, p) for n, p in DECEPTION]
)
_ORDER = {name: i for i, (_, name, _) in enumerate(_ALL_RULES)}
_ASCII_RULES = tuple((c, n, re.compile(p.pattern, re.ASCII)) for c, n, p in _ALL_RULES)
"""The same rules compiled for ASCII-only text (\\b and \\w without Unicode tables: faster)."""


_WORD_RULES = {key: frozenset(_ORDER[f] for f in fams) for key, fams in _WORDS.items()}
_SYMBOL_RULES = tuple((sym, frozenset(_ORDER[f] for f in fams)) for sym, fams in _SYMBOL_FAMILIES)
_WORD_START_ASCII = re.compile(_WORD_START.pattern, re.ASCII)
"""Each stem key's rules by position, so a text's candidates are one union of small sets;
ASCII text is cut into word starts by the ASCII-compiled pattern (the same starts, cheaper)."""


def candidate_rules(folded: str) -> list[tuple[str, str, re.Pattern[str]]]:
    """The families whose stems occur in ``folded`` (word prefixes, a few symbols), in rule
    order; families that need non-ASCII letters are included only for such text."""
    ascii_only = folded.isascii()
    starts = (_WORD_START_ASCII if ascii_only else _WORD_START).findall(folded)
    picked: set[int] = set()
    for key in _WORD_KEYS.intersection(starts):
        picked |= _WORD_RULES[key]
    if (not ascii_only or not _SYMBOL_START.isdisjoint(folded)) and _SYMBOL_GATE.search(folded):
        for sym, ids in _SYMBOL_RULES:
            if sym in folded:
                picked |= ids
    if not picked:
        return []
    rules = _ASCII_RULES if ascii_only else _ALL_RULES
    return [rules[i] for i in sorted(picked)]


_ROLE_GATES = I18N_GATES
_ASCII_ROLE_GATES = {name: re.compile(p.pattern, re.ASCII) for name, p in I18N_GATES.items()}


def role_gates(folded: str) -> dict[str, re.Pattern[str]]:
    """Second looks for candidate rules (by name): a rule whose gate finds nothing in
    ``folded`` cannot match it, so its full search is skipped.  ASCII text gets the gates
    compiled ASCII, like its rules."""
    return _ASCII_ROLE_GATES if folded.isascii() else _ROLE_GATES
