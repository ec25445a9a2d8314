"""The injection planner: which memories go into the system prompt, within caps and budget.

Pure and deterministic (the same input always gives the same block, M-INJECT-14): no
clock reads, no IO.  The caller reads the stores, builds (or reuses) one
:class:`FactIndex` per tier, and applies the 750 ms fail-open deadline around the whole
read-and-plan step with the injected clock (see :func:`persona_mind.mind.with_deadline`).

Budget (M-INJECT-1..6, M-SESSION-NOTES-19..24): caps 8 persona+shared LTM, 4 project LTM,
5 STM, 6 backlog; 2,400 planning tokens (``ceil(utf8_bytes / 3)``) for the whole block —
wrapper, headings, entries and the omission notice — of which session notes take at most
600.  Excerpts are at most 700 characters and admitted whole or not at all.  Up to
``PRIORITY_SLOTS`` objective/invariant facts per section go first; they still count
against the cap.  Omitted and clipped entries are disclosed in the block.

Ranking is hybrid when the caller passes a :class:`Semantic` ranker (BM25 fused with the
prompt's similarity to each fact, :mod:`persona_mind.mind.recall._fusion`), lexical otherwise; the
plan's :class:`RankerStatus` says which, and a lexical fallback is disclosed.  The block is
lean on purpose, so entries get the budget (issue 16): one short wrapper line; a heading per
tier (and per STM observer) only when it has an entry, so no entry repeats what its heading
says; entries as ``id excerpt`` (``id kind: excerpt`` when the kind binds — objective,
invariant — and ``id status: excerpt`` in the backlog), the id shortened to a prefix the
memory tool resolves (:func:`shown_id`); and an omission notice that
costs only what this plan omits (see :func:`~persona_mind.mind.inject._budget.fit`).

This module is the planner's facade: the plan's value types live in
:mod:`~persona_mind.mind.inject._plan`, the candidate order in
:mod:`~persona_mind.mind.inject._order`, the byte budget in
:mod:`~persona_mind.mind.inject._budget` and the block's text in
:mod:`~persona_mind.mind.inject._lines`.
"""

from __future__ import annotations

import math

from persona_mind.mind._model import Fact, Tier
from persona_mind.mind.inject._budget import Section, fit
from persona_mind.mind.inject._lines import (
    CLOSE,
    OPEN,
    Heading,
    escape,
    fixed,
    ltm_heading,
    nbytes,
    stm_heading,
)
from persona_mind.mind.inject._order import ordered
from persona_mind.mind.inject._plan import (
    CAPS,
    NOTES_TOKENS,
    PRIORITY_SLOTS,
    TOTAL_TOKENS,
    Cand,
    InjectionInput,
    InjectionPlan,
    NoteView,
    PlannedItem,
)
from persona_mind.mind.inject._shown_ids import ID_CHARS, shown_id
from persona_mind.mind.recall._excerpts import EXCERPT_CHARS
from persona_mind.mind.recall._retrieval import FactIndex

__all__ = (
    "CAPS",
    "EXCERPT_CHARS",
    "ID_CHARS",
    "NOTES_TOKENS",
    "PRIORITY_SLOTS",
    "TOTAL_TOKENS",
    "InjectionInput",
    "InjectionPlan",
    "NoteView",
    "PlannedItem",
    "escape",
    "plan_injection",
    "shown_id",
)


_WRAPPER_BYTES = nbytes(OPEN) + nbytes(CLOSE)
"""The block's wrapper lines, in bytes (fixed: counted once, not every plan)."""


def _lean_objectives(data: InjectionInput) -> FactIndex | None:
    """A leg's project section: the project's objectives only (M-LEG-3, M-INJECT-12).

    Objectives default to project LTM, so a lean block that read only persona and shared
    LTM would hand a leg no objective at all; the rest of project LTM stays out (lean)."""
    index = data.indexes.get("project")
    if index is None:
        return None
    live = [index.facts[slot] for slot in index.slot_of.values()]
    objectives = [f for f in live if f.kind == "objective"]
    return FactIndex.build(objectives) if objectives else None


def plan_injection(data: InjectionInput) -> InjectionPlan:
    """Plan the memory block for ``data.prompt`` (pure, deterministic)."""
    caps = data.caps
    sem, fusion = data.semantic, data.fusion
    sections: list[Section] = []
    if not data.lean and data.notes:
        notes = [
            Fact(
                id=n.note_id,
                kind="objective" if n.kind == "objective" else "note",
                text=n.text,
                recordedAt=n.saved_at,
                lastSeenAt=n.saved_at,
            )
            for n in data.notes
        ]
        cands = ordered(
            [("note", FactIndex.build(notes))], data.prompt, len(notes), sem, fusion, floor=False
        )
        sections.append(
            Section(
                "notes", fixed("Session notes"), cands, len(notes), len(notes), NOTES_TOKENS * 3
            )
        )
    ltm_tiers: tuple[Tier, ...] = ("persona", "shared")
    present = [(str(t), i) for t in ltm_tiers if (i := data.indexes.get(t)) is not None]
    ltm_total = sum(len(i) for _, i in present)
    below: dict[str, list[Cand]] = {}
    ltm = ordered(present, data.prompt, caps["ltm"] + 4, sem, fusion, below.setdefault("ltm", []))
    if present:
        sections.append(Section("ltm", ltm_heading, ltm, caps["ltm"], ltm_total))
    if data.lean:
        objectives = _lean_objectives(data)
        if objectives is not None:
            cands = ordered(
                [("project", objectives)],
                data.prompt,
                caps["project"] + 4,
                sem,
                fusion,
                below.setdefault("project", []),
            )
            sections.append(
                Section(
                    "project",
                    fixed("Project objectives"),
                    cands,
                    caps["project"],
                    len(objectives),
                )
            )
    else:
        tiers: tuple[tuple[Tier, str, Heading], ...] = (
            ("project", "project", fixed("Project memory")),
            ("stm", "stm", stm_heading),
        )
        for tier, key, heading in tiers:
            index = data.indexes.get(tier)
            if index is None:
                continue
            cands = ordered(
                [(tier, index)], data.prompt, caps[key] + 4, sem, fusion, below.setdefault(key, [])
            )
            sections.append(Section(key, heading, cands, caps[key], len(index)))
        items = [b for b in data.backlog if b.live(data.now)]
        if items:
            pseudo = [
                Fact(
                    id=b.id,
                    kind="note",
                    text=b.text,
                    tags=b.tags,
                    recordedAt=b.createdAt,
                    lastSeenAt=b.updatedAt,
                )
                for b in items
            ]
            status = {b.id: b.status for b in items}
            bindex = FactIndex.build(pseudo)
            cands = [(f"backlog {status[r.fact.id]}", r, bindex) for r in bindex.rank(data.prompt)]
            sections.append(
                Section("backlog", fixed("Backlog"), cands, caps["backlog"], len(items))
            )
    room = data.total_tokens * 3 - _WRAPPER_BYTES
    budget, notice = fit(sections, room, tuple(data.indexes.values()))
    trace = tuple((s.key, s.cap, tuple(s.cands), tuple(below.get(s.key, ()))) for s in sections)
    if not budget.items:  # nothing relevant (or nothing at all): no block, the plan says why
        return InjectionPlan(
            "", 0, (), budget.omitted, 0, budget.unsafe, data.ranker, data.prompt, trace
        )
    text = OPEN + "".join(budget.lines) + notice + CLOSE
    return InjectionPlan(
        text=text,
        tokens=math.ceil(nbytes(text) / 3),
        items=tuple(budget.items),
        omitted=dict(budget.omitted),
        clipped=budget.clipped,
        unsafe=budget.unsafe,
        ranker=data.ranker,
        prompt=data.prompt,
        trace=trace,
    )
