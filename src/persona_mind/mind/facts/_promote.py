"""Promotion as one Store transaction (M-FACT-16..21, M-STORE-13).

The old promote read the STM row, checked owner and liveness on that read, and then made
two separate mutations, so a row forgotten, superseded or rewritten by its owner between
the read and the writes was still copied to LTM. Here every check runs *inside* a locked
step, on the rows the Store holds at that moment, and the three steps go to the Store as one
transaction under the profile-wide memory transaction lock:

1. STM (no write): the row is still there, live, and observed by the promoting persona —
   the checked copy is what the next step writes;
2. LTM: write that copy (``recordedAt`` kept, ``derivedFrom=[stm id]``);
3. STM: remove exactly that row.

A failure in step 1 writes nothing; a failure after step 2 leaves a duplicate, never a
loss (the seed's order). A port without ``transact`` (a minimal test double) gets the same
steps as three mutations: the checks still run under each step's lock.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from persona_mind.mind._errors import ForeignOwner, InvalidArgument
from persona_mind.mind._model import Fact, Tier
from persona_mind.mind._scope import MindScope
from persona_mind.mind.facts import _rules as fx
from persona_mind.storage.port import Mutation, StorePort, StoreTarget

__all__ = ("Transactional", "promote_in_store")


@runtime_checkable
class Transactional(Protocol):
    """A store port that can run several mutations as one memory transaction."""

    async def transact(
        self,
        steps: Sequence[tuple[StoreTarget[Any], Mutation[Any]]],
        *,
        generation: int | None = None,
        purpose: str = "memory transaction",
    ) -> Sequence[object]: ...


def _checked(rows: tuple[Fact, ...], fact_id: str, persona: str | None, now: float) -> Fact:
    row = next((f for f in rows if f.id == fact_id), None)
    if row is None or not row.live(now):
        raise InvalidArgument(
            "promote.source",
            f"{fact_id} is not a live STM fact (it may have just expired or been forgotten); "
            "only live STM rows are promoted",
        )
    if row.persona != persona:
        raise ForeignOwner(
            "owner.foreign",
            f"{fact_id} was observed by {row.persona or 'no persona'}; only its owner may "
            "promote it (record your own fact instead)",
        )
    return row


async def promote_in_store(
    store: StorePort,
    scope: MindScope,
    fact_id: str,
    to: Tier,
    *,
    now: float,
    generation: int | None,
) -> Fact:
    """Run the promotion transaction; return the LTM row written."""
    persona = scope.persona
    source: list[Fact] = []
    written: list[Fact] = []

    def check(rows: tuple[Fact, ...]) -> tuple[Fact, ...]:
        source.append(_checked(rows, fact_id, persona, now))
        return rows  # unchanged: the Store writes nothing for this step

    def write(rows: tuple[Fact, ...]) -> tuple[Fact, ...]:
        src = source[-1]
        new_rows, row, _ = fx.record(
            rows,
            to,
            fx.Draft(src.kind, src.text, src.tags, src.source, src.origin, src.confirmed),
            persona=persona,
            now=now,
            derived_from=(src.id,),
            recorded_at=src.recordedAt,
        )
        written.append(row)
        return new_rows

    def remove(rows: tuple[Fact, ...]) -> tuple[Fact, ...]:
        return tuple(f for f in rows if f.id != fact_id)

    stm, ltm = scope.fact_target("stm"), scope.fact_target(to)
    steps: list[tuple[StoreTarget[Any], Mutation[Any]]] = [
        (stm, check),
        (ltm, write),
        (stm, remove),
    ]
    if isinstance(store, Transactional):
        await store.transact(steps, generation=generation, purpose="memory promote")
    else:
        for target, step in steps:
            await store.mutate(target, step, generation=generation)
    return written[-1]
