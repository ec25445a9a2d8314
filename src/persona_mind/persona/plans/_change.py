"""A prepared change: what it will do, the state it was prepared against, and how to do it.

Every mutating operation (pack verbs, team, default, migrate, onboarding) is first
*prepared* without touching anything. The ``digest`` captures exactly the state the plan
depends on (pack revision, binding, default, draft, legacy source or receipt), so a
confirmation can be refused when that state moved (P-CHAT-PLAN-6). ``execute`` re-checks
under the lock and performs the change.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ("Change", "digest_of")


def digest_of(*parts: object) -> str:
    """A short stable digest of the given parts (their ``repr``), for plan state matching."""
    h = hashlib.sha256()
    for part in parts:
        h.update(repr(part).encode("utf-8", "surrogatepass"))
        h.update(b"\x1f")
    return h.hexdigest()[:32]


@dataclass(frozen=True, slots=True)
class Change:
    """One prepared, not yet executed change."""

    action: str
    """Stable action name, e.g. ``pack.install`` or ``team.select``."""
    summary: str
    """What will happen, in user terms (shown with the plan)."""
    digest: str
    """State digest the change was prepared against."""
    execute: Callable[[], str]
    """Perform the change; returns the outcome text. Raises a PersonaError on refusal."""
    reload: bool = False
    """True for team switch / migration rollback: handed to the `/persona` command path."""
    details: dict[str, Any] = field(default_factory=dict)
