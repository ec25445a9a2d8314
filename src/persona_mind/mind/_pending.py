"""Pending proposals: model writes the write policy holds for the user (issue 27 item 3).

A proposal is the :class:`~persona_mind.messages.memory.Fact` the write *would* create,
kept durably through the Store in a sibling file of its destination store:
``<agentDir>/persona-mind/memory-pending/<same relative path>`` (for example
``memory-pending/project/<project>.json``), with the same memory lock and atomic, fsynced
writes as every memory file — so a crash loses no proposal and never half-applies one.
Its ``origin`` is the taint source (or ``model``) it will be stored with.

Only the user resolves a proposal (:func:`approve`, :func:`drop`: the CLI's
``memory pending``, or a reply to the pending card in Pi); the model's tools never call
them.  Approving records the fact with ``confirmed=True`` and then removes the proposal:
recording is idempotent by content identity, so a crash between the two steps leaves a
proposal whose re-approval only refreshes the stored row.  A dropped proposal leaves
nothing behind: it is not in any store, so no later request can carry it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import msgspec

from persona_mind.messages.memory import Fact, Origin
from persona_mind.messages.snapshot import StoreTarget
from persona_mind.mind._errors import NotFound
from persona_mind.mind._model import Tier
from persona_mind.mind._service import MemoryService
from persona_mind.mind.facts import _rules as fx

__all__ = ("Proposal", "approve", "drop", "pending", "pending_target", "propose")


@dataclass(frozen=True, slots=True)
class Proposal:
    """One pending write and the tier it is for."""

    tier: Tier
    fact: Fact


def pending_target(store: StoreTarget[Fact]) -> StoreTarget[Fact]:
    """The proposals file beside ``store`` (same lock domain, so one transaction lock)."""
    path = store.path
    parts = path.parts
    idx = len(parts) - 1 - parts[::-1].index("memory")
    mirrored = Path(*parts[:idx], "memory-pending", *parts[idx + 1 :])
    return StoreTarget(mirrored, Fact, lock=store.lock)


async def propose(
    service: MemoryService,
    kind: str,
    text: str,
    *,
    tags: tuple[str, ...] | list[str] = (),
    source: str | None = None,
    tier: Tier | None = None,
    origin: Origin = "model",
) -> Proposal:
    """Keep a would-be write as a proposal; nothing reaches the memory stores."""
    draft = fx.validate_draft(kind, text, tags, source)
    dest = tier or service.default_tier(draft.kind)
    target = pending_target(service.scope.fact_target(dest))
    now = service.now()
    out: list[Fact] = []

    def step(rows: tuple[Fact, ...]) -> tuple[Fact, ...]:
        new_rows, row, _ = fx.record(rows, dest, draft, persona=service.scope.persona, now=now)
        row = msgspec.structs.replace(row, origin=origin)
        out.append(row)
        return tuple(row if r.id == row.id else r for r in new_rows)

    await service.store.mutate(target, step, generation=service.generation)
    return Proposal(dest, out[-1])


async def pending(service: MemoryService) -> list[Proposal]:
    """Every proposal of this scope's tiers, oldest first."""
    found: list[Proposal] = []
    for tier in service.scope.tiers():
        snap = await service.store.read(pending_target(service.scope.fact_target(tier)))
        found += [Proposal(tier, f) for f in (() if snap is None else snap.entries)]
    found.sort(key=lambda p: (p.fact.recordedAt, p.fact.id))
    return found


async def _find(service: MemoryService, proposal_id: str) -> Proposal:
    for p in await pending(service):
        if p.fact.id == proposal_id:
            return p
    raise NotFound(
        "pending.not_found",
        f"no pending proposal {proposal_id!r}; list them with `persona-mind memory pending`",
    )


async def _remove(service: MemoryService, p: Proposal) -> None:
    target = pending_target(service.scope.fact_target(p.tier))
    await service.store.mutate(
        target,
        lambda rows: tuple(r for r in rows if r.id != p.fact.id),
        generation=service.generation,
    )


async def approve(service: MemoryService, proposal_id: str) -> Fact:
    """The user accepts: store the fact with its origin and ``confirmed=True`` (a held
    supersede, whose ``derivedFrom`` names the fact it replaces, retires that fact)."""
    p = await _find(service, proposal_id)
    f = p.fact
    if f.derivedFrom:  # a held supersede (mind._pending_rewrites): retire the named fact now
        _, new = await service.supersede(
            f.derivedFrom[0], f.text, kind=f.kind, tags=f.tags, origin=f.origin, confirmed=True
        )
        await _remove(service, p)
        if service.on_saved is not None:
            service.on_saved(p.tier)
        return new.fact
    draft = fx.validate_draft(f.kind, f.text, f.tags, f.source)
    now = service.now()
    out: list[Fact] = []

    def step(rows: tuple[Fact, ...]) -> tuple[Fact, ...]:
        new_rows, row, _ = fx.record(rows, p.tier, draft, persona=service.scope.persona, now=now)
        row = msgspec.structs.replace(row, origin=f.origin, confirmed=True)
        out.append(row)
        return tuple(row if r.id == row.id else r for r in new_rows)

    await service.store.mutate(
        service.scope.fact_target(p.tier), step, generation=service.generation
    )
    await _remove(service, p)
    if service.on_saved is not None:
        service.on_saved(p.tier)
    return out[-1]


async def drop(service: MemoryService, proposal_id: str) -> Proposal:
    """The user declines: the proposal is deleted and was never in a memory store."""
    p = await _find(service, proposal_id)
    await _remove(service, p)
    return p
