"""The durable Mind records: facts (LTM/STM) and backlog items, as strict msgspec Structs.

``BacklogItem`` is defined in ``persona_mind.messages.backlog`` (the Reminder protocol carries
it) and ``Fact`` with its ``Kind``, ``Tier`` and ``FactStatus`` in ``persona_mind.messages.memory``
(the Optimizer's answers carry facts); messages import only values, and both are re-exported
here unchanged.

Times are epoch seconds (floats) from the injected clock's ``wall()``.  A fact's content
identity is kind + normalised text + sorted tags (M-FACT-7); provenance (persona, source,
times) is excluded.  Within project tiers (project LTM, STM) two personas may hold the same
content, so the *row key* there is identity + persona (M-FACT-20).
"""

from __future__ import annotations

import hashlib
from typing import get_args

import msgspec

from persona_mind.messages.backlog import BacklogItem, BacklogStatus
from persona_mind.messages.memory import Fact, FactStatus, Kind, Tier
from persona_mind.mind._text import identity_text

__all__ = (
    "KINDS",
    "STM_TTL",
    "BacklogItem",
    "BacklogStatus",
    "Fact",
    "FactStatus",
    "Kind",
    "Tier",
    "content_identity",
    "fact_id",
)

KINDS: tuple[str, ...] = get_args(Kind)

STM_TTL = 48 * 3600.0
"""STM default time to live (M-FACT-4) and the backlog default expiry (M-BACKLOG-2)."""


def content_identity(kind: str, text: str, tags: tuple[str, ...]) -> str:
    """kind + case-folded normalised text + sorted tags, as one unambiguous string."""
    return msgspec.json.encode([kind, identity_text(text), sorted(tags)]).decode()


def fact_id(tier: Tier, identity: str, persona: str | None) -> str:
    """A stable row id: the same content recorded by the same owner keeps its id."""
    key = msgspec.json.encode([tier, identity, persona]).decode()
    return "m_" + hashlib.sha256(key.encode()).hexdigest()[:16]
