"""The locked mutation steps of consolidation: apply a staged plan's replacements, undo them.

Staging (:mod:`persona_mind.mind.optimize._stage`) validates a plan against the rows it
read; these pure steps run later, inside the Store's locked mutation, on the rows the store
holds then.  They are a module of their own because they are what the Optimizer's
file-backed consolidator calls under the lock (``actors/optimizer/_consolidator.py``), and
each re-checks what a fingerprint CAS cannot prove: that no source expired since staging
(M-OPTIMIZE-MANUAL-36), and at undo that nothing changed since the apply
(M-OPTIMIZE-HISTORY-13..16).  ``_stage`` re-exports both under its name.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from persona_mind.messages.consolidation import Replacement
from persona_mind.mind._errors import NotFound
from persona_mind.mind._model import Fact
from persona_mind.mind.optimize._errors import MalformedStore, PlanConflict

__all__ = ("apply_rows", "rows_by_id", "undo_rows")


def rows_by_id(rows: tuple[Fact, ...]) -> dict[str, Fact]:
    """A store's rows by id; two rows with one id make the store unfit to consolidate."""
    by_id = {row.id: row for row in rows}  # one C-level pass; duplicates found below
    if len(by_id) != len(rows):
        counts = Counter(row.id for row in rows)
        dup = next(i for i, n in counts.items() if n > 1)
        raise MalformedStore(
            "store.duplicate_ids",
            f"the store holds two rows with id {dup}; repair it (`persona-mind "
            "store scan`) before consolidating",
        )
    return by_id


def apply_rows(
    rows: tuple[Fact, ...], replacements: Sequence[Replacement], *, now: float
) -> tuple[Fact, ...]:
    """The locked mutation step: supersede each source by its replacement, append it.

    Rechecks what a fingerprint CAS cannot: that no source has expired since staging
    (M-OPTIMIZE-MANUAL-36). Unselected rows are returned untouched (-31).
    """
    by_id = rows_by_id(rows)
    superseded: dict[str, Fact] = {}
    for rep in replacements:
        for src in rep.sources:
            row = by_id.get(src.id)
            if row != src:
                raise PlanConflict(
                    "plan.source_changed", f"fact {src.id} changed since staging; stage again"
                )
            if src.expiresAt is not None and src.expiresAt <= now:
                raise NotFound(
                    "plan.expired_source", f"fact {src.id} expired after staging; stage again"
                )
            superseded[src.id] = rep.new if src.id == rep.new.id else _retire(src, rep.new.id)
        if rep.new.id in by_id and rep.new.id not in {s.id for s in rep.sources}:
            raise PlanConflict("plan.collision", f"fact {rep.new.id} now exists; stage again")
    kept = [superseded.get(r.id, r) for r in rows] if superseded else list(rows)
    return (*kept, *(rep.new for rep in replacements if rep.new.id not in by_id))


def _retire(row: Fact, by: str) -> Fact:
    fields = {f: getattr(row, f) for f in row.__struct_fields__}
    fields.update(status="superseded", supersededBy=by)
    return Fact(**fields)


def undo_rows(
    rows: tuple[Fact, ...],
    before: Sequence[Fact],
    after: Sequence[Fact],
    *,
    now: float,
) -> tuple[Fact, ...]:
    """Restore exactly the ``before`` rows a receipt recorded and remove its ``after`` rows.

    Refuses (M-OPTIMIZE-HISTORY-13..16) when a replacement changed since it was applied,
    when a source's id now holds something other than its superseded form, or when a
    source would come back already expired. Unrelated current rows are kept as they are.
    """
    by_id = rows_by_id(rows)
    after_ids = {a.id for a in after}
    for new in after:
        if by_id.get(new.id) != new:
            raise PlanConflict(
                "undo.changed_replacement",
                f"fact {new.id} changed (or is gone) since the consolidation; undo would "
                "lose that change, so it is refused",
            )
    restored: dict[str, Fact] = {}
    for old in before:
        current = by_id.get(old.id)
        if old.id in after_ids:  # the merged-into source: its replacement was checked above
            pass
        elif (
            current is None
            or current.status != "superseded"
            or current.supersededBy not in after_ids
        ):
            raise PlanConflict(
                "undo.collision",
                f"fact {old.id} is no longer the superseded source of this consolidation; "
                "undo is refused",
            )
        if old.expiresAt is not None and old.expiresAt <= now:
            raise NotFound(
                "undo.expired", f"fact {old.id} has expired since; it cannot be restored"
            )
        restored[old.id] = old
    return tuple(restored.get(r.id, r) for r in rows if r.id not in after_ids or r.id in restored)
