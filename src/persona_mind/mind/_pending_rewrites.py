"""Held rewrites: a model ``supersede`` kept as a proposal, a held ``stage`` card.

The write policy (:mod:`persona_mind.mind._write_gate`) asks about every model write, not
only ``remember``.  A held ``supersede`` becomes a pending proposal like a held
``remember`` — the replacement :class:`~persona_mind.messages.memory.Fact` in the
proposals file of the retired fact's tier — whose ``derivedFrom`` names the one fact it
would retire.  Approving it (:func:`persona_mind.mind._pending.approve`) performs the
supersede then; dropping it leaves the old fact as it was and no trace of the new words.

A held ``stage`` needs no proposal of its own: a staged consolidation plan already
changes nothing until the user applies it (``/mind optimize apply``), so the plan stays
staged and the card says why it waits and that nothing was applied.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from persona_mind.messages.memory import Fact, Kind, Origin
from persona_mind.mind._cards import Card
from persona_mind.mind._pending import Proposal, pending_target
from persona_mind.mind._service import MemoryService
from persona_mind.mind.facts import _rules as fx

__all__ = ("held_plan_card", "propose_supersede")


async def propose_supersede(
    service: MemoryService,
    fact_id: str,
    text: str,
    *,
    kind: Kind | None = None,
    tags: Sequence[str] | None = None,
    origin: Origin = "model",
) -> tuple[Proposal, str]:
    """Keep a would-be supersede of ``fact_id`` as a proposal; the old fact stays active.

    Returns the proposal and the whole id of the fact it would retire (a shown prefix is
    resolved here, so approval later names exactly that row)."""
    found = await service.find(fact_id)
    old = found.fact
    draft = fx.validate_draft(
        kind if kind is not None else old.kind, text, old.tags if tags is None else tags, old.source
    )
    target = pending_target(service.scope.fact_target(found.tier))
    now = service.now()
    out: list[Fact] = []

    def step(rows: tuple[Fact, ...]) -> tuple[Fact, ...]:
        new_rows, row, _ = fx.record(
            rows, found.tier, draft, persona=service.scope.persona, now=now
        )
        row = msgspec.structs.replace(row, origin=origin, derivedFrom=(old.id,))
        out.append(row)
        return tuple(row if r.id == row.id else r for r in new_rows)

    await service.store.mutate(target, step, generation=service.generation)
    return Proposal(found.tier, out[-1]), old.id


def held_plan_card(staged: Card, reasons: Sequence[str]) -> Card:
    """The staged plan's card, retitled: it waits for the user, one ``why:`` per reason."""
    title = staged.title.replace("Staged plan", "Pending plan", 1)
    return Card(
        f"{title} — nothing applied",
        (
            *(f"why: {r}" for r in reasons),
            *staged.lines,
            "Only the user can apply it; do not ask again.",
        ),
        data={**staged.data, "held": True, "reasons": list(reasons)},
    )
