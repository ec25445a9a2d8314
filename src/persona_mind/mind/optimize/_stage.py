"""Staging exact replacements: validation (M-OPTIMIZE-MANUAL-16..32) and the pure apply step.

A plan affects exactly one store. Each operation names the exact persisted ids of its
sources and the full replacement: one source rewrites a fact, several consolidate facts
(-18). The sources are never deleted (-19): they stay in the store *superseded by* the
replacement, so ``memory forget`` remains the only deletion and undo can restore them.

Every refusal happens here, before anything is written, and the same checks run again
inside the Store's locked mutation step at apply time (:func:`apply_rows`), where the
fingerprint CAS has already proved the rows are the ones validated.

Replacement provenance (-28..30): the earliest ``recordedAt`` of its sources, the latest
``lastSeenAt`` (consolidation is not a new observation), the union of source lineage
(source ids first, then their ``derivedFrom``) and the distinct source origins joined
with ``"; "`` — both bounded, refused rather than truncated on overflow (-27, -32) — and
in STM the *earliest* source expiry, so consolidation never revives stale working context.

Origin (who wrote the words, docs/mind.md "Origin"): a replacement keeps its sources'
``origin`` when they all agree, and is ``confirmed`` only when every source was; sources of
different origins give the writer's origin (``consolidation``, or ``review`` for the
automatic review worker), their own still readable through ``derivedFrom``.

The values ``Replacement`` are defined in ``persona_mind.messages.consolidation`` (the
Optimizer answers them) and re-exported here unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from persona_mind.messages.consolidation import Replacement
from persona_mind.messages.memory import Origin
from persona_mind.mind._errors import (
    ForeignOwner,
    InvalidArgument,
    LimitExceeded,
    NotFound,
    UnsafeContent,
)
from persona_mind.mind._model import Fact, Tier
from persona_mind.mind._text import normalize_tags
from persona_mind.mind.facts._rules import (
    MAX_DERIVED,
    MAX_SOURCE_CHARS,
    MAX_TAGS,
    row_key,
    validate_draft,
)
from persona_mind.mind.optimize._apply import apply_rows, rows_by_id, undo_rows
from persona_mind.mind.optimize._errors import PlanConflict
from persona_mind.mind.optimize._inspect import safe_row

__all__ = (
    "MAX_OPERATIONS",
    "MAX_SOURCES_PER_OPERATION",
    "TIER_ALIASES",
    "Operation",
    "Replacement",
    "apply_rows",
    "build_replacements",
    "parse_operations",
    "undo_rows",
)

MAX_OPERATIONS = 4
"""Operations per plan (the worker's bound, M-OPTIMIZE-WORKER; manual plans share it)."""
MAX_SOURCES_PER_OPERATION = 12
TIER_ALIASES: dict[str, Tier] = {"project-long": "project"}
"""The seed's target names that are another name here (M-OPTIMIZE-BATCH-4, -MANUAL-16): the
seed's ``project-long`` (durable repository memory) is this project's ``project`` tier. The
seed's ``project`` (its STM) is not an alias: ``project`` keeps naming project LTM and STM
is ``stm`` (docs/mind.md, "Consolidation targets")."""


@dataclass(frozen=True, slots=True)
class Operation:
    """One requested replacement, as given (validated against the rows later)."""

    sources: tuple[str, ...]
    text: str
    kind: str | None
    tags: tuple[str, ...] | None
    source: str | None


def _str_list(value: object, what: str) -> tuple[str, ...]:
    if not isinstance(value, (list, tuple)) or any(not isinstance(v, str) for v in value):
        raise InvalidArgument(f"{what}.malformed", f"{what} must be a list of strings")
    return tuple(value)


def parse_operations(raw: object) -> tuple[Operation, ...]:
    """Shape-check a tool/CLI/worker ``operations`` list (no store access)."""
    if not isinstance(raw, (list, tuple)) or not raw:
        raise InvalidArgument(
            "plan.operations", "operations must be a non-empty list of replacements"
        )
    if len(raw) > MAX_OPERATIONS:
        raise LimitExceeded(
            "plan.too_many_operations",
            f"{len(raw)} operations; a plan holds at most {MAX_OPERATIONS}. Stage several plans",
        )
    ops: list[Operation] = []
    for item in raw:
        if not isinstance(item, Mapping):
            raise InvalidArgument("plan.operation", "each operation must be an object")
        unknown = set(item) - {"sources", "text", "kind", "tags", "source"}
        if unknown:
            raise InvalidArgument(
                "plan.operation", f"unknown operation field(s): {', '.join(sorted(unknown))}"
            )
        sources = _str_list(item.get("sources"), "sources")
        if not sources:
            raise InvalidArgument("plan.sources", "an operation needs at least one source id")
        if len(sources) > MAX_SOURCES_PER_OPERATION:
            raise LimitExceeded(
                "plan.too_many_sources",
                f"{len(sources)} source ids; an operation takes at most "
                f"{MAX_SOURCES_PER_OPERATION}",
            )
        text = item.get("text")
        if text is None or (isinstance(text, str) and not text.strip()):
            raise InvalidArgument(
                "plan.no_delete",
                "every operation needs replacement text; plans never delete "
                "(use `memory forget` to delete a fact)",
            )
        if not isinstance(text, str):
            raise InvalidArgument("text.required", "text must be a string")
        kind = item.get("kind")
        if kind is not None and not isinstance(kind, str):
            raise InvalidArgument("kind.unknown", "kind must be a string")
        tags_raw = item.get("tags")
        tags = None if tags_raw is None else _str_list(tags_raw, "tags")
        source = item.get("source")
        if source is not None and not isinstance(source, str):
            raise InvalidArgument("source.malformed", "source must be a string")
        ops.append(Operation(sources, text, kind, tags, source))
    return tuple(ops)


def _check_ids(ops: Sequence[Operation]) -> None:
    seen: set[str] = set()
    for op in ops:
        if len(set(op.sources)) != len(op.sources):
            raise PlanConflict("plan.ambiguous_ids", "an operation names the same source id twice")
        overlap = seen & set(op.sources)
        if overlap:
            raise PlanConflict(
                "plan.overlapping_ids",
                f"source {sorted(overlap)[0]} appears in two operations; each fact can be "
                "replaced by one operation only",
            )
        seen |= set(op.sources)


def _source_rows(
    by_id: dict[str, Fact], op: Operation, tier: Tier, persona: str | None, now: float
) -> tuple[Fact, ...]:
    rows: list[Fact] = []
    for sid in op.sources:
        row = by_id.get(sid)
        if row is None:
            raise NotFound(
                "plan.unknown_id", f"no fact {sid!r} in this store; inspect to get exact ids"
            )
        if row.status != "active":
            raise PlanConflict(
                "plan.superseded_source", f"fact {sid} is already superseded; inspect again"
            )
        if row.expiresAt is not None and row.expiresAt <= now:
            raise NotFound(
                "plan.expired_source",
                f"fact {sid} has expired; expired working context cannot be consolidated",
            )
        if tier in ("project", "stm") and row.persona != persona:
            raise ForeignOwner(
                "plan.foreign_source",
                f"fact {sid} belongs to {row.persona or 'no persona'}; project memory is "
                f"consolidated only by its owner ({persona or 'no persona'})",
            )
        if not safe_row(row):
            raise UnsafeContent(
                "plan.unsafe_source",
                f"fact {sid} fails the safety scan; forget it instead of consolidating it",
            )
        rows.append(row)
    owners = {r.persona for r in rows}
    if len(owners) > 1:
        raise ForeignOwner(
            "plan.mixed_ownership",
            "the sources belong to different personas; consolidate each owner's facts apart",
        )
    return tuple(rows)


def _replacement(
    op: Operation, rows: tuple[Fact, ...], tier: Tier, persona: str | None, writer: Origin
) -> Fact:
    kinds = {r.kind for r in rows}
    kind = op.kind
    if kind is None:
        if len(kinds) != 1:
            raise InvalidArgument(
                "plan.kind_required",
                "the sources have different kinds; give the replacement's kind",
            )
        kind = next(iter(kinds))
    if op.tags is None:
        tags: tuple[str, ...] = normalize_tags([t for r in rows for t in r.tags])
        if len(tags) > MAX_TAGS:
            raise LimitExceeded(
                "plan.tags_overflow",
                f"the sources' tags add up to {len(tags)} (limit {MAX_TAGS}); give the "
                "replacement's tags explicitly",
            )
    else:
        tags = op.tags
    origins = tuple(dict.fromkeys(r.source for r in rows if r.source))
    origin = op.source if op.source is not None else "; ".join(origins) or None
    if origin is not None and len(origin) > MAX_SOURCE_CHARS:
        raise LimitExceeded(
            "plan.provenance_overflow",
            f"the combined source origins have {len(origin)} characters (limit "
            f"{MAX_SOURCE_CHARS}); consolidate fewer facts per operation",
        )
    agreed = {r.origin for r in rows}
    keep = len(agreed) == 1
    draft = validate_draft(  # scanner: -22
        kind,
        op.text,
        list(tags),
        origin,
        origin=next(iter(agreed)) if keep else writer,
        confirmed=keep and all(r.confirmed for r in rows),
    )
    ids = [r.id for r in rows]
    lineage = tuple(dict.fromkeys((*ids, *(d for r in rows for d in r.derivedFrom))))
    if len(lineage) > MAX_DERIVED:
        raise LimitExceeded(
            "plan.provenance_overflow",
            f"the replacement's lineage would name {len(lineage)} facts (limit "
            f"{MAX_DERIVED}); consolidate fewer facts per operation",
        )
    owner = persona if tier in ("project", "stm") else rows[0].persona
    expiries = [r.expiresAt for r in rows if r.expiresAt is not None]
    return Fact(
        id=row_key(tier, draft.identity, owner),
        kind=draft.kind,
        text=draft.text,
        tags=draft.tags,
        persona=owner,
        source=draft.source,
        recordedAt=min(r.recordedAt for r in rows),
        lastSeenAt=max(r.lastSeenAt for r in rows),
        expiresAt=min(expiries) if tier == "stm" and expiries else None,
        derivedFrom=lineage,
        origin=draft.origin,
        confirmed=draft.confirmed,
    )


def build_replacements(
    rows: tuple[Fact, ...],
    ops: Sequence[Operation],
    *,
    tier: Tier,
    persona: str | None,
    now: float,
    writer: Origin = "consolidation",
) -> tuple[Replacement, ...]:
    """Validate ``ops`` against the store's ``rows``; every refusal rule, nothing written.

    ``writer``: the origin a replacement of sources with different origins records."""
    if not ops:
        raise InvalidArgument("plan.operations", "a plan needs at least one operation")
    _check_ids(ops)
    by_id = rows_by_id(rows)
    out: list[Replacement] = []
    new_ids: set[str] = set()
    for op in ops:
        sources = _source_rows(by_id, op, tier, persona, now)
        new = _replacement(op, sources, tier, persona, writer)
        source_ids = {s.id for s in sources}
        same = next((s for s in sources if s.id == new.id), None)
        if same is not None and same.text != new.text:
            # the same identity (kind, case-folded normalised text, tags) with other text:
            # it would take over its source's id while changing what it says
            raise PlanConflict(
                "plan.collision",
                f"the replacement differs from its source {new.id} only by letter case or "
                "spacing, so it collides with that fact (M-OPTIMIZE-MANUAL-24); keep the "
                "source's exact text to consolidate into it, or change the wording",
            )
        if new.id in source_ids and len(sources) == 1:
            raise PlanConflict(
                "plan.no_change",
                f"the replacement of {new.id} has the same content as its source; nothing "
                "to consolidate",
            )
        if new.id in source_ids:  # merged into one source's exact content: that row stays
            new = _keep_id(new)
        elif new.id in by_id or new.id in new_ids:
            raise PlanConflict(
                "plan.collision",
                f"the replacement's content already exists as fact {new.id}; include that "
                "fact among the sources or change the text",
            )
        new_ids.add(new.id)
        out.append(Replacement(sources, new))
    return tuple(out)


def _keep_id(new: Fact) -> Fact:
    """A replacement whose content is one of its sources': its lineage omits itself."""
    fields = {f: getattr(new, f) for f in new.__struct_fields__}
    fields["derivedFrom"] = tuple(d for d in new.derivedFrom if d != new.id)
    return Fact(**fields)
