"""The backlog tool's operations on one scope's backlog store (M-BACKLOG-*).

Why a module of its own: deferred work (add, list, take/done/drop, remind) is a second
tool beside memory with rules of its own (:mod:`persona_mind.mind.backlog._rules`); keeping its
store operations here keeps :mod:`persona_mind.mind._service` to the memory tool.
"""

from __future__ import annotations

from collections.abc import Sequence

from persona_mind.mind._errors import InvalidArgument
from persona_mind.mind._model import BacklogItem, BacklogStatus
from persona_mind.mind._store_access import StoreAccess
from persona_mind.mind.backlog import _rules as bl

__all__ = ("BacklogOps",)


class BacklogOps(StoreAccess):
    """Backlog operations, a layer of :class:`~persona_mind.mind.MemoryService`."""

    async def backlog_add(
        self, text: str, *, tags: Sequence[str] = (), remind_in: float | None = None
    ) -> tuple[BacklogItem, bl.AddOutcome]:
        """Add deferred work (``remind_in`` seconds from now sets a reminder)."""
        target = self._require_backlog()
        clean = bl.validate_text(text)
        if tags is not None and not isinstance(tags, (list, tuple)):
            raise InvalidArgument("tags.malformed", "tags must be a list of strings")
        now = self.now()
        remind_at = None if remind_in is None else now + remind_in
        out: list[tuple[BacklogItem, bl.AddOutcome]] = []

        def step(rows: tuple[BacklogItem, ...]) -> tuple[BacklogItem, ...]:
            new_rows, item, outcome = bl.add(
                rows, clean, tags=tags, persona=self.scope.persona, now=now, remind_at=remind_at
            )
            out.append((item, outcome))
            return new_rows

        await self._mutate(target, step)
        return out[-1]

    async def backlog_list(self, *, include_closed: bool = False) -> list[BacklogItem]:
        """Live items (and closed history when asked), newest first; never writes."""
        now = self.now()
        rows = [
            b
            for b in await self._rows(self._require_backlog())
            if b.live(now) or (include_closed and not b.active)
        ]
        rows.sort(key=lambda b: (0 if b.active else 1, -b.updatedAt, b.id))
        return rows

    async def backlog_move(self, item_id: str, to: BacklogStatus) -> tuple[BacklogItem, bool]:
        """take / done / drop; repeats are idempotent, terminal items never reopen."""
        if not isinstance(item_id, str) or not item_id:
            raise InvalidArgument("id.required", "id must be a non-empty string")
        now = self.now()
        out: list[tuple[BacklogItem, bool]] = []

        def step(rows: tuple[BacklogItem, ...]) -> tuple[BacklogItem, ...]:
            new_rows, item, changed = bl.transition(rows, item_id, to, now=now)
            out.append((item, changed))
            return bl.cleanup(new_rows, now) if changed and to in ("done", "dropped") else new_rows

        await self._mutate(self._require_backlog(), step)
        return out[-1]

    async def backlog_remind(self, item_id: str, remind_in: float) -> BacklogItem:
        """Set a later reminder; it extends the item's expiry (M-BACKLOG-3)."""
        now = self.now()
        out: list[BacklogItem] = []

        def step(rows: tuple[BacklogItem, ...]) -> tuple[BacklogItem, ...]:
            new_rows, item = bl.remind(rows, item_id, now + remind_in, now=now)
            out.append(item)
            return new_rows

        await self._mutate(self._require_backlog(), step)
        return out[-1]
