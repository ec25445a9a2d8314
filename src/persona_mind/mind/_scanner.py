"""The unsafe-content scanner: secrets, prompt injection, deception, invisible Unicode.

It runs on admission (remember, capture, note save), on resurfacing (injection, replay of
session notes) and on explicit full reads (including source and tags).  Patterns match the
*whitespace-collapsed*, case-folded text, so ``ignore   all\\nprevious instructions`` is
caught like the single-spaced phrase.  Scanning mitigates; it proves nothing about truth
and is no boundary against code running in the same process (M-INJECT-10).
The rule list is documented in ``docs/mind.md``.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from persona_mind.mind._errors import UnsafeContent
from persona_mind.mind._text import collapse_ws

__all__ = ("Finding", "assert_safe", "is_safe", "scan")


@dataclass(frozen=True, slots=True)
class Finding:
    """One scanner hit: its category and the rule's name (never the matched secret)."""

    category: str
    rule: str


_SECRET_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("private-key", re.compile(r"-----begin [a-z ]*private key-----")),
    ("aws-access-key", re.compile(r"\b(?:akia|asia)[0-9a-z]{16}\b")),
    ("github-token", re.compile(r"\b(?:ghp|gho|ghu|ghs|ghr|github_pat)_[0-9a-z_]{20,}")),
    ("openai-style-key", re.compile(r"\bsk-(?:proj-|ant-)?[0-9a-z_\-]{20,}")),
    ("slack-token", re.compile(r"\bxox[abposr]-[0-9a-z\-]{10,}")),
    ("google-api-key", re.compile(r"\baiza[0-9a-z_\-]{35}\b")),
    ("jwt", re.compile(r"\beyj[0-9a-z_\-]{10,}\.eyj[0-9a-z_\-]{10,}\.[0-9a-z_\-]{10,}")),
    (
        "credential-assignment",
        re.compile(
            r"\b(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token|"
            r"client[_-]?secret)\s*[:=]\s*['\"]?"
            r"(?:(?=[^\s'\"]*[0-9!@#$%^&*_+=/])[^\s'\"]{6,}|[^\s'\"]{12,})"
        ),
    ),
    ("bearer-token", re.compile(r"\bbearer [0-9a-z_\-\.=]{20,}")),
)

_INJECTION_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "ignore-instructions",
        re.compile(
            r"\b(?:ignore|disregard|override|bypass|forget)\b (?:all |any |the |your |my |of "
            r"|these |those )*(?:previous|prior|above|earlier|preceding|system|original|safety)"
            r" (?:instructions|rules|prompts?|guidelines|directives|messages)\b"
            r"|\b(?:ignore|disregard)\b (?:all |any )?(?:your |the )?(?:instructions|system "
            r"prompt)\b"
        ),
    ),
    ("new-instructions", re.compile(r"\b(?:new|updated|real) (?:system )?instructions ?:")),
    ("role-reassignment", re.compile(r"\byou are now (?:a|an|the|in|my)\b")),
    ("prompt-markup", re.compile(r"</?(?:system|assistant|im_start|im_end|instructions?)>")),
    ("developer-mode", re.compile(r"\b(?:developer|god|jailbreak|dan) mode\b")),
    ("reveal-prompt", re.compile(r"\b(?:reveal|print|show|leak) (?:your|the) system prompt\b")),
)

_DECEPTION_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "hide-from-user",
        re.compile(
            r"\b(?:do not|don't|never) (?:tell|inform|show|mention to|let) the user\b"
            r"|\bhide (?:this|it) from the user\b|\bwithout the user(?:'s)? knowing\b"
        ),
    ),
    ("impersonate-user", re.compile(r"\b(?:pretend|claim) (?:to be|you are) the user\b")),
    (
        "fake-approval",
        re.compile(r"\bthe user (?:has )?(?:already )?(?:approved|authorized|consented)\b"),
    ),
    (
        "exfiltrate",
        re.compile(
            r"\b(?:send|upload|post|exfiltrate) (?:the )?(?:secrets|credentials|keys|tokens)\b"
        ),
    ),
)

_INVISIBLE_EXTRA = frozenset({"\u00ad", "\u180e", "\u3164", "\uffa0", "\u115f", "\u1160"})


def _invisible(text: str) -> bool:
    for ch in text:
        if ch in "\n\t\r":
            continue
        cat = unicodedata.category(ch)
        if cat in ("Cf", "Co", "Cs") or ch in _INVISIBLE_EXTRA:
            return True
        if cat == "Cc":
            return True
        if 0xE0000 <= ord(ch) <= 0xE007F:
            return True
    return False


def scan(text: str) -> tuple[Finding, ...]:
    """All findings for ``text`` (empty when safe); deterministic order."""
    found: list[Finding] = []
    if _invisible(text):
        found.append(Finding("invisible-unicode", "format-or-control-character"))
    folded = collapse_ws(unicodedata.normalize("NFKC", text)).casefold()
    for category, rules in (
        ("secret", _SECRET_RULES),
        ("prompt-injection", _INJECTION_RULES),
        ("deception", _DECEPTION_RULES),
    ):
        for name, pattern in rules:
            if pattern.search(folded):
                found.append(Finding(category, name))
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
