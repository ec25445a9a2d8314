"""Memory export and import as JSON Lines: one fact per line, portable between agent dirs.

Why JSON Lines: one self-contained record per line streams, diffs and greps well, and a bad
line can be named by its number.  A line is ``{"v": 1, "tier", "kind", "text", "tags",
"source", "persona", "recordedAt"}``; ids are not exported, because a row's id is derived
from its content identity and owner (``fact_id``), so the importing store computes the same
id for the same content.

Import is checked before it writes: every line is parsed, validated and scanned with the
same rules as ``memory remember`` (:func:`validate_draft` runs the content scanner over text,
tags and source), and a refused line is reported with its number and reason.  By default one
refused line refuses the whole import (nothing is written); ``skip_refused`` imports the
rest.  Each tier is then written in one store mutation under the store lock, so a file is
never half-written, and a line whose content identity (M-FACT-7) the tier already holds is
counted as a duplicate instead of being recorded again — re-running an import is a no-op.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, get_args

from persona_mind.mind._errors import InvalidArgument, MindRefusal, UnknownVersion
from persona_mind.mind._model import Fact, Tier, content_identity
from persona_mind.mind._service import MemoryService
from persona_mind.mind.facts import _rules as fx

__all__ = (
    "EXPORT_VERSION",
    "ImportOutcome",
    "Refused",
    "export_lines",
    "fact_line",
    "import_lines",
    "parse_lines",
)

EXPORT_VERSION = 1
_TIERS: tuple[Tier, ...] = get_args(Tier)
_FIELDS = frozenset({"v", "tier", "kind", "text", "tags", "source", "persona", "recordedAt"})
MAX_LINE_CHARS = 16_000


@dataclass(frozen=True, slots=True)
class Refused:
    """A line import refused: its 1-based number and the reason (the rule names it)."""

    line: int
    reason: str


@dataclass(frozen=True, slots=True)
class _Item:
    line: int
    tier: Tier | None
    """``None``: the scope's default tier for the kind, as ``remember`` picks it."""
    draft: fx.Draft
    recorded_at: float | None


@dataclass
class ImportOutcome:
    """What an import did (or, when ``refused`` and not skipping, would not do)."""

    imported: int = 0
    duplicates: int = 0
    refused: list[Refused] = field(default_factory=list)
    written: bool = False

    def summary(self) -> str:
        head = (
            f"{self.imported} imported, {self.duplicates} duplicates, {len(self.refused)} refused"
        )
        return head if self.written or not self.refused else f"{head}; nothing written"


def fact_line(tier: Tier, fact: Fact) -> str:
    """One export line (keys sorted, so an export is byte-stable)."""
    record: dict[str, Any] = {
        "v": EXPORT_VERSION,
        "tier": tier,
        "kind": fact.kind,
        "text": fact.text,
        "tags": list(fact.tags),
        "source": fact.source,
        "persona": fact.persona,
        "recordedAt": fact.recordedAt,
    }
    return json.dumps(record, ensure_ascii=False, sort_keys=True)


async def export_lines(svc: MemoryService, tiers: Iterable[Tier] | None = None) -> list[str]:
    """Every live, safe fact of the scope's tiers (oldest first within a tier)."""
    out: list[str] = []
    for tier in tiers or svc.scope.tiers():
        rows = await svc.list_facts(tier)
        rows.sort(key=lambda f: (f.recordedAt, f.id))
        out += [fact_line(tier, f) for f in rows]
    return out


def _parse(n: int, raw: str, default_tier: Tier | None) -> _Item:
    if len(raw) > MAX_LINE_CHARS:
        raise InvalidArgument("line.too_long", f"the line has {len(raw)} characters")
    try:
        obj = json.loads(raw)
    except json.JSONDecodeError as err:
        raise InvalidArgument(
            "line.not_json", f"not JSON ({err.msg} at column {err.colno})"
        ) from err
    if not isinstance(obj, dict):
        raise InvalidArgument("line.not_object", "each line must be one JSON object")
    unknown = sorted(set(obj) - _FIELDS)
    if unknown:
        raise InvalidArgument("line.unknown_field", f"unknown field(s) {', '.join(unknown)}")
    if obj.get("v", EXPORT_VERSION) != EXPORT_VERSION:
        raise UnknownVersion("line.version", f"version {obj.get('v')!r}; this build reads 1")
    tier = obj.get("tier", default_tier)
    if tier is not None and tier not in _TIERS:
        raise InvalidArgument("tier.unknown", f"tier {tier!r} is not one of {', '.join(_TIERS)}")
    recorded = obj.get("recordedAt")
    if recorded is not None and (
        isinstance(recorded, bool) or not isinstance(recorded, (int, float)) or recorded < 0
    ):
        raise InvalidArgument("recordedAt.malformed", "recordedAt must be epoch seconds")
    draft = fx.validate_draft(
        obj.get("kind"), obj.get("text"), obj.get("tags", ()), obj.get("source"), origin="import"
    )
    return _Item(n, tier, draft, None if recorded is None else float(recorded))


def parse_lines(
    lines: Iterable[str], *, default_tier: Tier | None = None
) -> tuple[list[_Item], list[Refused]]:
    """Parse, validate and scan every line; blank lines are skipped."""
    items: list[_Item] = []
    refused: list[Refused] = []
    for n, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            items.append(_parse(n, raw.strip(), default_tier))
        except MindRefusal as err:
            refused.append(Refused(n, str(err)))
    return items, refused


def _by_tier(items: list[_Item]) -> Iterator[tuple[Tier, list[_Item]]]:
    for tier in _TIERS:
        group = [i for i in items if i.tier == tier]
        if group:
            yield tier, group


async def import_lines(
    svc: MemoryService,
    lines: Iterable[str],
    *,
    default_tier: Tier | None = None,
    skip_refused: bool = False,
) -> ImportOutcome:
    """Import JSON Lines into ``svc``'s scope (see the module doc for the rules)."""
    items, refused = parse_lines(lines, default_tier=default_tier)
    outcome = ImportOutcome(refused=refused)
    usable: list[_Item] = []
    for item in items:
        try:
            tier = item.tier or svc.default_tier(item.draft.kind)
            svc.scope.fact_target(tier)  # the scope must have the tier (persona, project)
        except MindRefusal as err:
            outcome.refused.append(Refused(item.line, str(err)))
            continue
        usable.append(_Item(item.line, tier, item.draft, item.recorded_at))
    outcome.refused.sort(key=lambda r: r.line)
    if outcome.refused and not skip_refused:
        return outcome
    now = svc.now()
    persona = svc.scope.persona
    for tier, group in _by_tier(usable):
        counts = [0, 0]

        def step(
            rows: tuple[Fact, ...],
            tier: Tier = tier,
            group: list[_Item] = group,
            counts: list[int] = counts,
        ) -> tuple[Fact, ...]:
            counts[:] = [0, 0]
            owned = tier in ("project", "stm")  # rows are per owner there (M-FACT-20)
            have = {
                (content_identity(f.kind, f.text, f.tags), f.persona if owned else None)
                for f in rows
                if f.live(now)
            }
            for item in group:
                key = (item.draft.identity, persona if owned else None)
                if key in have:
                    counts[1] += 1
                    continue
                rows, _, _ = fx.record(
                    rows, tier, item.draft, persona=persona, now=now, recorded_at=item.recorded_at
                )
                have.add(key)
                counts[0] += 1
            return rows

        await svc.store.mutate(svc.scope.fact_target(tier), step, generation=svc.generation)
        outcome.imported += counts[0]
        outcome.duplicates += counts[1]
    outcome.written = True
    return outcome
