"""Flat read access on values that carry a fact: ``hit.text``, ``found.expires_at`` (ISO).

Why: library users (mem0-style) read ``hit.text`` and compare timestamps with what the CLI
prints; the nested ``hit.fact.text`` and epoch floats stay for existing code.
"""

from __future__ import annotations

from persona_mind.mind._model import Fact
from persona_mind.mind.facts._where import iso_time

__all__ = ("FlatFact",)


class FlatFact:
    """Mixin for a slotted value with a ``fact`` field; every property reads that fact."""

    __slots__ = ()
    fact: Fact

    @property
    def id(self) -> str:
        return self.fact.id

    @property
    def text(self) -> str:
        return self.fact.text

    @property
    def kind(self) -> str:
        return self.fact.kind

    @property
    def tags(self) -> tuple[str, ...]:
        return self.fact.tags

    @property
    def status(self) -> str:
        return self.fact.status

    @property
    def recorded_at(self) -> str:
        """When it was recorded, ISO 8601 UTC like ``memory list`` prints."""
        return iso_time(self.fact.recordedAt) or ""

    @property
    def expires_at(self) -> str | None:
        """When an STM fact expires (ISO 8601 UTC); ``None`` for long-term facts."""
        return iso_time(self.fact.expiresAt)

    @property
    def superseded_by(self) -> str | None:
        """The successor's id once this fact was promoted or superseded."""
        return self.fact.supersededBy
