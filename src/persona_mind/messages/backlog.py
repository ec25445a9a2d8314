"""The backlog item: a value type that both the domain and the message vocabulary speak.

It lives here, in ``messages/``, because the Reminder actor's protocol carries whole items
(:class:`~persona_mind.messages.reminder.ArmReminders`) and messages import only values —
never the ``mind`` package, whose import would load the domain's rules with it. ``mind``
defines the backlog *rules* (``mind/backlog/_rules.py``) and re-exports :class:`BacklogItem` from
here, so ``from persona_mind.mind import BacklogItem`` keeps working. The on-disk form is the
struct's fields (seed 000 "Durable files"): renaming one is a store migration.
"""

from __future__ import annotations

from typing import Literal

import msgspec

__all__ = ("BacklogItem", "BacklogStatus")

BacklogStatus = Literal["open", "taken", "done", "dropped"]
"""open → taken → done | dropped (M-BACKLOG-1)."""


class BacklogItem(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One deferred-work item of a project's backlog."""

    id: str
    text: str
    status: BacklogStatus = "open"
    tags: tuple[str, ...] = ()
    persona: str | None = None
    createdAt: float  # noqa: N815 - on-disk camelCase (seed 000)
    updatedAt: float  # noqa: N815
    expiresAt: float  # noqa: N815
    remindAt: float | None = None  # noqa: N815
    closedAt: float | None = None  # noqa: N815

    @property
    def active(self) -> bool:
        return self.status in ("open", "taken")

    def live(self, now: float) -> bool:
        """Active and not past its expiry."""
        return self.active and self.expiresAt > now
