"""Mind's typed refusals: every one names the rule it enforces and what to do instead.

A tool call, a command or a capture that breaks a rule gets one of these *before* anything
is written (the store mutation raises inside its pure step, so nothing partial persists).
``rule`` is a short stable identifier (``text.too_long``, ``content.unsafe``…) that UIs and
tests can match without parsing prose.
"""

from __future__ import annotations

from persona_mind.errors import MindError

__all__ = (
    "AccessRefused",
    "ForeignOwner",
    "InvalidArgument",
    "LimitExceeded",
    "MindRefusal",
    "NotFound",
    "UnknownVersion",
    "UnsafeContent",
)


class MindRefusal(MindError):
    """A request Mind refused on purpose; ``rule`` names the rule, the message says what to do."""

    def __init__(self, rule: str, message: str) -> None:
        self.rule = rule
        super().__init__(f"[{rule}] {message}")


class InvalidArgument(MindRefusal):
    """Raised when a tool/command/CLI argument is missing, malformed or of an unknown value."""


class LimitExceeded(MindRefusal):
    """Raised when text, tags, notes or events would exceed a documented bound (nothing written)."""


class UnsafeContent(MindRefusal):
    """Raised when the scanner finds secrets, prompt injection, deception or invisible Unicode."""


class ForeignOwner(MindRefusal):
    """Raised when a mutation targets a row another persona owns (promotion, forget of STM)."""


class NotFound(MindRefusal):
    """Raised when an id names no live row in the addressed scope."""


class AccessRefused(MindRefusal):
    """Raised when Mind has no valid companion/owner, or the caller is a leg without tools."""


class UnknownVersion(MindRefusal):
    """Raised when a session-note event has a version this build does not read (fail closed)."""
