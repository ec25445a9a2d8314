"""Pure fact rules: validation, exact re-recording, supersession, forget, expiry.

Every function here is a pure step over a tuple of rows — the shape the StorePort runs
inside its lock — so the decision and the write can never be separated by another writer
(M-BACKLOG-7, M-STORE-19).  A rule violation raises before any row changes.
"""

from __future__ import annotations

from dataclasses import dataclass

from persona_mind.messages.memory import Origin
from persona_mind.mind._errors import ForeignOwner, InvalidArgument, LimitExceeded, NotFound
from persona_mind.mind._model import KINDS, STM_TTL, Fact, Kind, Tier, content_identity, fact_id
from persona_mind.mind._text import normalize_tags, normalize_text
from persona_mind.mind.trust._scanner import assert_safe

__all__ = (
    "MAX_DERIVED",
    "MAX_SOURCE_CHARS",
    "MAX_STORE_ENTRIES",
    "MAX_TAGS",
    "MAX_TAG_CHARS",
    "MAX_TEXT_CHARS",
    "Draft",
    "expire",
    "find",
    "forget",
    "record",
    "row_key",
    "supersede",
    "validate_draft",
)

MAX_TEXT_CHARS = 2_000
MAX_TAGS = 12
MAX_TAG_CHARS = 40
MAX_SOURCE_CHARS = 1_000
MAX_DERIVED = 64
MAX_STORE_ENTRIES = 20_000


@dataclass(frozen=True, slots=True)
class Draft:
    """A validated, normalised fact to record, with where its words came from.

    ``origin`` and ``confirmed`` travel with the draft (never a global) so every writer says
    who wrote it; a row recorded from the draft carries them (docs/mind.md, "Origin")."""

    kind: Kind
    text: str
    tags: tuple[str, ...]
    source: str | None
    origin: Origin = "unknown"
    confirmed: bool = False

    @property
    def identity(self) -> str:
        return content_identity(self.kind, self.text, self.tags)


def validate_draft(
    kind: object,
    text: object,
    tags: object = (),
    source: object = None,
    *,
    origin: Origin = "unknown",
    confirmed: bool = False,
) -> Draft:
    """Check kind, sizes and safety; normalise text and tags.  Raises a typed refusal."""
    if not isinstance(kind, str) or kind not in KINDS:
        raise InvalidArgument(
            "kind.unknown", f"kind {kind!r} is not one of {', '.join(KINDS)}; pick one of those"
        )
    if not isinstance(text, str) or not normalize_text(text):
        raise InvalidArgument("text.required", "text must be a non-empty string")
    clean = normalize_text(text)
    if len(clean) > MAX_TEXT_CHARS:
        raise LimitExceeded(
            "text.too_long",
            f"text has {len(clean)} characters; the limit is {MAX_TEXT_CHARS}. Split it or "
            "keep only the durable point",
        )
    if tags is not None and not isinstance(tags, (list, tuple)):
        raise InvalidArgument("tags.malformed", "tags must be a list of strings")
    raw_tags = list(tags or ())
    if any(not isinstance(t, str) for t in raw_tags):
        raise InvalidArgument("tags.malformed", "tags must be a list of strings")
    norm = normalize_tags(raw_tags)
    if len(norm) > MAX_TAGS:
        raise LimitExceeded("tags.too_many", f"{len(norm)} tags; the limit is {MAX_TAGS}")
    long_tag = next((t for t in norm if len(t) > MAX_TAG_CHARS), None)
    if long_tag is not None:
        raise LimitExceeded(
            "tags.too_long", f"a tag has {len(long_tag)} characters; the limit is {MAX_TAG_CHARS}"
        )
    if source is not None and not isinstance(source, str):
        raise InvalidArgument("source.malformed", "source must be a string")
    src = normalize_text(source) if isinstance(source, str) and source.strip() else None
    if src is not None and len(src) > MAX_SOURCE_CHARS:
        raise LimitExceeded(
            "source.too_long", f"source has {len(src)} characters; the limit is {MAX_SOURCE_CHARS}"
        )
    assert_safe("text", clean)
    assert_safe("tags", *norm)
    if src is not None:
        assert_safe("source", src)
    return Draft(
        kind=kind,  # type: ignore[arg-type]
        text=clean,
        tags=norm,
        source=src,
        origin=origin,
        confirmed=confirmed,
    )


def row_key(tier: Tier, identity: str, persona: str | None) -> str:
    """Rows are unique per identity in persona/shared LTM, per identity+owner in project tiers."""
    return fact_id(tier, identity, persona if tier in ("project", "stm") else None)


def find(entries: tuple[Fact, ...], fact_id_: str) -> Fact | None:
    """The row with ``fact_id_`` (any status), or ``None``."""
    return next((f for f in entries if f.id == fact_id_), None)


def record(
    entries: tuple[Fact, ...],
    tier: Tier,
    draft: Draft,
    *,
    persona: str | None,
    now: float,
    derived_from: tuple[str, ...] = (),
    recorded_at: float | None = None,
) -> tuple[tuple[Fact, ...], Fact, bool]:
    """Insert ``draft`` or update its exact-identity row.  Returns (rows, row, created).

    Re-recording updates ``lastSeenAt`` (and an STM row's expiry), revives a superseded row
    and keeps ``recordedAt`` (M-FACT-8, M-FACT-9).  Semantic near-duplicates are new rows.
    A re-record keeps the row's origin (the words were first written by that writer) unless
    the row's is ``unknown``; ``confirmed`` goes with the origin it describes.
    """
    rid = row_key(tier, draft.identity, persona)
    expires = now + STM_TTL if tier == "stm" else None
    out = list(entries)
    for i, row in enumerate(out):
        if row.id == rid:
            merged = tuple(dict.fromkeys(row.derivedFrom + derived_from))[:MAX_DERIVED]
            keep_new = row.origin == "unknown"
            updated = Fact(
                id=rid,
                kind=draft.kind,
                text=draft.text,
                tags=draft.tags,
                persona=row.persona,
                source=draft.source if draft.source is not None else row.source,
                recordedAt=min(row.recordedAt, recorded_at or row.recordedAt),
                lastSeenAt=now,
                expiresAt=expires,
                derivedFrom=merged,
                origin=draft.origin if keep_new else row.origin,
                confirmed=draft.confirmed if keep_new else row.confirmed,
            )
            out[i] = updated
            return tuple(out), updated, False
    live = sum(1 for f in out if f.status == "active")
    if live >= MAX_STORE_ENTRIES:
        raise LimitExceeded(
            "store.full",
            f"this store already holds {live} active facts (limit {MAX_STORE_ENTRIES}); "
            "forget or consolidate some first",
        )
    fact = Fact(
        id=rid,
        kind=draft.kind,
        text=draft.text,
        tags=draft.tags,
        persona=persona,
        source=draft.source,
        recordedAt=recorded_at if recorded_at is not None else now,
        lastSeenAt=now,
        expiresAt=expires,
        derivedFrom=derived_from[:MAX_DERIVED],
        origin=draft.origin,
        confirmed=draft.confirmed,
    )
    out.append(fact)
    return tuple(out), fact, True


def _owned(tier: Tier, row: Fact, persona: str | None) -> None:
    if tier in ("project", "stm") and row.persona != persona:
        raise ForeignOwner(
            "owner.foreign",
            f"fact {row.id} was recorded by {row.persona or 'no persona'}, not by the current "
            f"{persona or 'no persona'}; only its owner may change it",
        )


def _live(entries: tuple[Fact, ...], rid: str, now: float) -> Fact:
    row = find(entries, rid)
    if row is None or not row.live(now):
        raise NotFound("fact.not_found", f"no live fact {rid!r} here; recall or list to find ids")
    return row


def forget(
    entries: tuple[Fact, ...], tier: Tier, rid: str, *, persona: str | None, now: float
) -> tuple[tuple[Fact, ...], Fact]:
    """Remove the exact row ``rid`` (owner-checked in project tiers).

    An id that names several rows (a hand-edited or damaged store: ``store check`` reports
    it as ``duplicate-ids``) is refused, not guessed at: removing all of them would lose
    facts the user never named, removing one would pick for them (docs/storage.md).
    """
    row = find(entries, rid)
    if row is None:
        raise NotFound("fact.not_found", f"no fact {rid!r} here; recall or list to find ids")
    count = sum(1 for f in entries if f.id == rid)
    if count > 1:
        raise InvalidArgument(
            "fact.duplicate_id",
            f"id {rid!r} names {count} facts in this {tier} store (its ids must be unique: "
            "the file was edited or damaged); nothing was forgotten. `persona-mind store "
            "check` names the duplicates; edit the store to keep one row per id",
        )
    _owned(tier, row, persona)
    return tuple(f for f in entries if f.id != rid), row


def supersede(
    entries: tuple[Fact, ...],
    tier: Tier,
    old_id: str,
    draft: Draft,
    *,
    persona: str | None,
    now: float,
) -> tuple[tuple[Fact, ...], Fact, Fact]:
    """Retire the live row ``old_id`` and record ``draft`` derived from it (M-FACT-13/14)."""
    old = _live(entries, old_id, now)
    _owned(tier, old, persona)
    if row_key(tier, draft.identity, persona) == old.id:
        raise InvalidArgument(
            "supersede.same_content", "the replacement is identical to the fact it supersedes"
        )
    derived = tuple(dict.fromkeys((old.id, *old.derivedFrom)))[:MAX_DERIVED]
    rows, new, _ = record(entries, tier, draft, persona=persona, now=now, derived_from=derived)
    retired = Fact(
        **{
            f: getattr(old, f) for f in old.__struct_fields__ if f not in ("status", "supersededBy")
        },
        status="superseded",
        supersededBy=new.id,
    )
    return tuple(retired if f.id == old.id else f for f in rows), retired, new


def expire(entries: tuple[Fact, ...], now: float) -> tuple[Fact, ...]:
    """Drop rows whose expiry has passed (cleanup runs on current rows under the lock)."""
    return tuple(f for f in entries if f.expiresAt is None or f.expiresAt > now)
