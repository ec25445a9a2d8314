"""Pure backlog rules: add, take, done, drop, reminders, expiry and bounded history.

States open → taken → done | dropped (M-BACKLOG-1).  Active items expire 48 h after their
last recording unless a later reminder extends them to ``remindAt + 48 h`` (M-BACKLOG-2/3,
AMB-24).  A repeated take is idempotent (M-BACKLOG-4); re-adding the text of completed
work returns the completed item and never reopens it (M-BACKLOG-5).  Cleanup keeps every
active item and the 1,000 most recently closed ones (M-BACKLOG-6, DEC-9).
"""

from __future__ import annotations

import hashlib
from typing import Literal

from persona_mind.mind._errors import InvalidArgument, LimitExceeded, NotFound
from persona_mind.mind._model import STM_TTL, BacklogItem, BacklogStatus
from persona_mind.mind._text import identity_text, normalize_tags, normalize_text
from persona_mind.mind.facts._rules import MAX_TAG_CHARS, MAX_TAGS
from persona_mind.mind.trust._scanner import assert_safe

__all__ = (
    "MAX_ACTIVE",
    "MAX_BACKLOG_TEXT",
    "MAX_TERMINAL",
    "AddOutcome",
    "add",
    "cleanup",
    "find_item",
    "remind",
    "transition",
    "validate_tags",
    "validate_text",
)

MAX_BACKLOG_TEXT = 1_000
MAX_TERMINAL = 1_000
MAX_ACTIVE = 500
AddOutcome = Literal["added", "existing", "completed"]


def validate_text(text: object) -> str:
    """Normalise and check one backlog text (size and scanner)."""
    if not isinstance(text, str) or not normalize_text(text):
        raise InvalidArgument("text.required", "text must be a non-empty string")
    clean = normalize_text(text)
    if len(clean) > MAX_BACKLOG_TEXT:
        raise LimitExceeded(
            "text.too_long",
            f"backlog text has {len(clean)} characters; the limit is {MAX_BACKLOG_TEXT}",
        )
    assert_safe("text", clean)
    return clean


def validate_tags(tags: object) -> tuple[str, ...]:
    """Normalise and check backlog tags like memory tags: a list of strings, at most
    ``MAX_TAGS`` of at most ``MAX_TAG_CHARS`` characters each, every one scanned (a tag is
    shown in the backlog's lines and cards like its text)."""
    if tags is None:
        return ()
    if not isinstance(tags, (list, tuple)) or any(not isinstance(t, str) for t in tags):
        raise InvalidArgument("tags.malformed", "tags must be a list of strings")
    norm = normalize_tags(list(tags))
    if len(norm) > MAX_TAGS:
        raise LimitExceeded("tags.too_many", f"{len(norm)} tags; the limit is {MAX_TAGS}")
    long_tag = next((t for t in norm if len(t) > MAX_TAG_CHARS), None)
    if long_tag is not None:
        raise LimitExceeded(
            "tags.too_long",
            f"a tag has {len(long_tag)} characters; the limit is {MAX_TAG_CHARS}. Keep tags to "
            "a word or two",
        )
    assert_safe("tags", *norm)
    return norm


def find_item(entries: tuple[BacklogItem, ...], item_id: str) -> BacklogItem | None:
    """The item with ``item_id``, or ``None``."""
    return next((b for b in entries if b.id == item_id), None)


def add(
    entries: tuple[BacklogItem, ...],
    text: str,
    *,
    tags: object = (),
    persona: str | None,
    now: float,
    remind_at: float | None = None,
) -> tuple[tuple[BacklogItem, ...], BacklogItem, AddOutcome]:
    """Add ``text`` unless it is already tracked; never reopen completed work."""
    clean_tags = validate_tags(tags)
    key = identity_text(text)
    live = [b for b in entries if b.live(now) and identity_text(b.text) == key]
    if live:
        item = live[0]
        if remind_at is not None:
            entries, item = _remind(entries, item, remind_at, now)
        return entries, item, "existing"
    done = [b for b in entries if not b.active and identity_text(b.text) == key]
    if done:
        return entries, max(done, key=lambda b: b.closedAt or 0.0), "completed"
    active = sum(1 for b in entries if b.live(now))
    if active >= MAX_ACTIVE:
        raise LimitExceeded(
            "backlog.full", f"{active} active backlog items (limit {MAX_ACTIVE}); close some first"
        )
    digest = hashlib.sha256(f"{key}\0{now!r}".encode()).hexdigest()[:12]
    expires = now + STM_TTL
    if remind_at is not None:
        expires = max(expires, remind_at + STM_TTL)
    item = BacklogItem(
        id=f"b_{digest}",
        text=text,
        tags=clean_tags,
        persona=persona,
        createdAt=now,
        updatedAt=now,
        expiresAt=expires,
        remindAt=remind_at,
    )
    return (*entries, item), item, "added"


def _replace(entries: tuple[BacklogItem, ...], item: BacklogItem) -> tuple[BacklogItem, ...]:
    return tuple(item if b.id == item.id else b for b in entries)


def _remind(
    entries: tuple[BacklogItem, ...], item: BacklogItem, remind_at: float, now: float
) -> tuple[tuple[BacklogItem, ...], BacklogItem]:
    updated = BacklogItem(
        **{
            f: getattr(item, f)
            for f in item.__struct_fields__
            if f not in ("remindAt", "expiresAt", "updatedAt")
        },
        remindAt=remind_at,
        expiresAt=max(item.expiresAt, remind_at + STM_TTL),
        updatedAt=now,
    )
    return _replace(entries, updated), updated


def transition(
    entries: tuple[BacklogItem, ...], item_id: str, to: BacklogStatus, *, now: float
) -> tuple[tuple[BacklogItem, ...], BacklogItem, bool]:
    """Move ``item_id`` to ``to``.  Returns (rows, item, changed); repeats are idempotent."""
    item = find_item(entries, item_id)
    if item is None or (item.active and not item.live(now)):
        raise NotFound("backlog.not_found", f"no live backlog item {item_id!r}; list to find ids")
    if item.status == to:
        return entries, item, False
    if not item.active:
        raise InvalidArgument(
            "backlog.terminal",
            f"item {item_id} is already {item.status}; completed work is never reopened — "
            "add new wording for new work",
        )
    if to == "open":
        raise InvalidArgument("backlog.reopen", "an item cannot be moved back to open")
    closed = now if to in ("done", "dropped") else None
    updated = BacklogItem(
        **{
            f: getattr(item, f)
            for f in item.__struct_fields__
            if f not in ("status", "updatedAt", "closedAt")
        },
        status=to,
        updatedAt=now,
        closedAt=closed,
    )
    return _replace(entries, updated), updated, True


def remind(
    entries: tuple[BacklogItem, ...], item_id: str, remind_at: float, *, now: float
) -> tuple[tuple[BacklogItem, ...], BacklogItem]:
    """Set a reminder; it extends the item's expiry to at least ``remind_at + 48 h``."""
    item = find_item(entries, item_id)
    if item is None or not item.live(now):
        raise NotFound("backlog.not_found", f"no live backlog item {item_id!r}; list to find ids")
    return _remind(entries, item, remind_at, now)


def cleanup(entries: tuple[BacklogItem, ...], now: float) -> tuple[BacklogItem, ...]:
    """Drop expired active items; keep the newest ``MAX_TERMINAL`` closed ones, in order."""
    terminal = sorted(
        (b for b in entries if not b.active), key=lambda b: (b.closedAt or 0.0, b.id), reverse=True
    )
    keep = {b.id for b in terminal[:MAX_TERMINAL]}
    return tuple(b for b in entries if b.live(now) or b.id in keep)
