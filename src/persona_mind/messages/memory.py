"""The memory fact: a value type that both the domain and the message vocabulary speak.

It lives here, in ``messages/``, because the Optimizer's answers (an inspected page, a
staged plan, an applied receipt, a review report) carry whole facts, and messages import
only values. ``mind`` defines the memory *rules* (identity, ids, TTLs: ``mind/_model.py``)
and re-exports :class:`Fact` from here, so ``from persona_mind.mind import Fact`` keeps
working. The on-disk form is the struct's fields (seed 000 "Durable files"): renaming one is
a store migration.
"""

from __future__ import annotations

from typing import Literal

import msgspec

__all__ = ("Fact", "FactStatus", "Kind", "Tier")

Kind = Literal["objective", "invariant", "preference", "convention", "gotcha", "rationale", "note"]
Tier = Literal["persona", "shared", "project", "stm"]
FactStatus = Literal["active", "superseded"]


class Fact(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One LTM or STM row."""

    id: str
    kind: Kind
    text: str
    tags: tuple[str, ...] = ()
    persona: str | None = None
    source: str | None = None
    recordedAt: float  # noqa: N815 - on-disk camelCase (seed 000)
    lastSeenAt: float  # noqa: N815
    expiresAt: float | None = None  # noqa: N815 - STM only
    status: FactStatus = "active"
    supersededBy: str | None = None  # noqa: N815
    derivedFrom: tuple[str, ...] = ()  # noqa: N815

    def live(self, now: float) -> bool:
        """Active and not expired (read-time expiry filtering, M-MIGRATE-7)."""
        return self.status == "active" and (self.expiresAt is None or self.expiresAt > now)
