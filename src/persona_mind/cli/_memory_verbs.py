"""What each ``persona-mind memory …`` action does and prints, over an open ``Memory``.

The parser and the entry point are ``_memory.py``; this module is imported only when a
memory action runs (the parser stays free of Mind, so ``persona-mind --help`` and the other
commands start without it).  Every action is a call on the :class:`~persona_mind.Memory`
facade — the Store actor and the ranker a Pi session has — and one answer: text for people,
one ``docs/cli-schema.json`` document with ``--json``.
"""

from __future__ import annotations

import argparse
import sys
from typing import cast

import msgspec

from persona_mind import Memory, MemoryOptions
from persona_mind.cli import _schema as out
from persona_mind.cli._exchange import run_memory_exchange, wants_exchange
from persona_mind.cli._link import run_link
from persona_mind.cli._memory_pending import run_pending
from persona_mind.cli._output import emit, iso
from persona_mind.mind import (
    KINDS,
    BacklogItem,
    Fact,
    Kind,
    LegacyImport,
    MindRefusal,
    backlog_line,
    explain_plan,
    fact_line,
    origin_label,
    update_offer,
    where_saved,
)
from persona_mind.mind import render_explanation as render

__all__ = ("run_action",)


def _fact(tier: str, f: Fact) -> out.FactOut:
    return out.FactOut(
        id=f.id,
        tier=tier,
        kind=f.kind,
        text=f.text,
        tags=list(f.tags),
        status=f.status,
        recordedAt=iso(f.recordedAt),
        expiresAt=iso(f.expiresAt),
        source=f.source,
        persona=f.persona,
        supersededBy=f.supersededBy,
        origin=f.origin,
        confirmed=f.confirmed,
    )


def _item(b: BacklogItem) -> out.BacklogOut:
    return out.BacklogOut(
        id=b.id,
        text=b.text,
        status=b.status,
        tags=list(b.tags),
        createdAt=iso(b.createdAt),
        expiresAt=iso(b.expiresAt),
        remindAt=iso(b.remindAt),
        closedAt=iso(b.closedAt),
    )


def _remember_args(args: argparse.Namespace) -> tuple[Kind, str]:
    words: list[str] = args.words
    if len(words) == 1:
        return args.kind or "note", words[0]
    if len(words) == 2 and args.kind is None:  # the older `remember KIND TEXT`
        kind = words[0]
        if kind not in KINDS:
            raise MindRefusal(
                "kind.unknown",
                f"unknown kind {kind!r}; use one of {', '.join(KINDS)}: "
                f'persona-mind memory remember "TEXT" --kind note',
            )
        return cast("Kind", kind), words[1]
    raise MindRefusal(
        "text.quoting",
        f"remember takes one TEXT (got {len(words)} words); quote it: "
        f'persona-mind memory remember "{" ".join(words)}" --kind note',
    )


async def _remember(args: argparse.Namespace, memory: Memory) -> None:
    kind, text = _remember_args(args)
    found, created = await memory.service.remember(
        kind, text, tags=args.tag, source=args.source, tier=args.tier, origin="cli"
    )
    f = found.fact
    where = where_saved(found.tier, f, f"`persona-mind memory promote {f.id}`")
    verb = "Saved" if created else "Updated"
    updates = await memory.service.updates_of(found) if created else []
    offers = [
        update_offer(u.fact, f'`persona-mind memory supersede {u.fact.id} "TEXT"`') for u in updates
    ]
    text_out = "\n  ".join([f"{verb} {f.kind} {f.id} {where}", f.text, *offers])
    doc = out.Remembered(
        created=created, fact=_fact(found.tier, f), mayUpdate=[u.fact.id for u in updates]
    )
    emit(args, doc, text_out)


async def _recall(args: argparse.Namespace, memory: Memory) -> None:
    hits = await memory.recall(args.query, limit=args.limit)
    rows = [
        out.RecallHit(
            **msgspec.structs.asdict(_fact(h.tier, h.fact)), score=h.score, reason=h.reason
        )
        for h in hits
    ]
    lines = [fact_line(h.tier, h.fact, f"  ({h.reason})") for h in hits]
    head = f"{len(hits)} memor{'y' if len(hits) == 1 else 'ies'} recalled"
    emit(
        args,
        out.Recalled(query=args.query, hits=rows),
        "\n".join([head, *(lines or ["(nothing matched)"])]),
    )


async def _read(args: argparse.Namespace, memory: Memory) -> None:
    found = await memory.read(args.id)
    f = found.fact
    doc = _fact(found.tier, f)
    extra = [
        f"{k}: {v}"
        for k, v in (
            ("tags", ", ".join(doc.tags)),
            ("source", doc.source),
            ("persona", doc.persona),
            ("origin", origin_label(f.origin, confirmed=f.confirmed)),
            ("status", doc.status),
            ("expires", doc.expiresAt),
        )
        if v and not (k == "status" and v == "active")
    ]
    emit(
        args,
        out.FactDoc(fact=doc),
        "\n".join([f"{found.tier} {doc.kind} {doc.id}", doc.text, *extra]),
    )


async def _change(args: argparse.Namespace, memory: Memory) -> None:
    """``forget``, ``promote`` and ``supersede``: one changed row each."""
    if args.memory_cmd == "forget":
        found = await memory.forget(args.id)
        text = f"Forgot {found.tier} {found.fact.id}\n  {found.fact.text}"
        return emit(args, out.FactDoc(fact=_fact(found.tier, found.fact)), text)
    if args.memory_cmd == "promote":
        found = await memory.promote(args.id, to=args.to)
        text = (
            f"Promoted to {found.tier} {found.fact.id} (kept until forgotten)\n  {found.fact.text}"
        )
        return emit(args, out.FactDoc(fact=_fact(found.tier, found.fact)), text)
    old, new = await memory.service.supersede(args.id, args.text, origin="cli")
    return emit(
        args,
        out.Superseded(retired=old.fact.id, fact=_fact(new.tier, new.fact)),
        f"Superseded {old.fact.id} → {new.fact.id}\n  {new.fact.text}",
    )


async def _list(args: argparse.Namespace, memory: Memory) -> None:
    facts: list[out.FactOut] = []
    lines: list[str] = []
    for found in await memory.list(args.tier):
        f = found.fact
        facts.append(_fact(found.tier, f))
        lines.append(
            f"[{found.tier} {f.kind} {f.id}] {f.text}  (from "
            f"{origin_label(f.origin, confirmed=f.confirmed)})"
        )
    backlog: list[out.BacklogOut] | None = None
    if not args.tier and memory.scope.project is not None:
        items = await memory.service.backlog_list()
        backlog = [_item(b) for b in items]
        lines += [f"[{b.id} {b.status}] {b.text}" for b in items]
    emit(args, out.Listed(facts=facts, backlog=backlog), "\n".join(lines) or "(no facts)")


async def _inject(args: argparse.Namespace, memory: Memory) -> None:
    plan = await memory.inject(args.prompt)
    said = ", ".join(plan.disclosures) or "nothing omitted"
    explained = explain_plan(plan) if getattr(args, "explain", False) else None
    text = f"{plan.text or '(no memory to inject)'}\n-- {plan.tokens} planning tokens; {said}"
    emit(
        args,
        out.Injection(
            text=plan.text,
            tokens=plan.tokens,
            ids=[i.id for i in plan.items],
            disclosures=list(plan.disclosures),
            explanation=explained,
        ),
        render(explained) if explained is not None else text,
    )


async def _backlog(args: argparse.Namespace, memory: Memory) -> None:
    svc, bc = memory.service, args.backlog_cmd
    if bc == "add":
        minutes = args.remind_minutes
        item, outcome = await svc.backlog_add(
            args.text, remind_in=None if minutes is None else minutes * 60
        )
        title = {
            "added": f"Added {item.id}",
            "existing": f"Already tracked as {item.id}",
            "completed": f"Already {item.status} ({item.id}); not reopened",
        }[outcome]
        return emit(
            args, out.BacklogDoc(item=_item(item), outcome=outcome), f"{title}\n  {item.text}"
        )
    if bc == "list":
        items = await svc.backlog_list(include_closed=args.all)
        head = f"{len(items)} backlog item{'s' if len(items) != 1 else ''}"
        return emit(
            args,
            out.BacklogList(items=[_item(b) for b in items]),
            "\n".join([head, *[backlog_line(b) for b in items]]),
        )
    to = {"take": "taken", "done": "done", "drop": "dropped"}[bc]
    item, changed = await svc.backlog_move(args.id, to)  # type: ignore[arg-type]
    title = f"{item.id} is {item.status}" + ("" if changed else " (unchanged)")
    return emit(
        args,
        out.BacklogDoc(item=_item(item), outcome="changed" if changed else "unchanged"),
        f"{title}\n  {item.text}",
    )


async def _legacy_import(args: argparse.Namespace, memory: Memory) -> None:
    """``memory import`` without a file: the older pi-persona-mind layout."""
    imp = LegacyImport(memory.service, legacy_persona=args.legacy_persona)
    while not await imp.step(max_files=8):
        pass
    rep = imp.report
    for w in rep.warnings:
        print(f"warning: {w}", file=sys.stderr)
    emit(
        args,
        out.Imported(
            filesScanned=rep.files_scanned,
            entriesAdded=rep.entries_added,
            conflicts=rep.conflicts,
            invalid=rep.invalid,
            unsafe=rep.unsafe,
            warnings=list(rep.warnings),
            summary=rep.summary(),
        ),
        f"import: {rep.summary()}",
    )


async def _pending(args: argparse.Namespace, memory: Memory) -> None:
    await run_pending(args, memory, _fact)


_ACTIONS = {
    "remember": _remember,
    "recall": _recall,
    "read": _read,
    "forget": _change,
    "promote": _change,
    "supersede": _change,
    "list": _list,
    "inject": _inject,
    "backlog": _backlog,
    "link": run_link,
    "pending": _pending,
}


async def run_action(args: argparse.Namespace, exit_ok: int) -> int:
    """Open the scope's ``Memory`` and run one action; a refusal propagates (typed)."""
    options = MemoryOptions(
        agent_dir=args.agent_dir, cwd=args.cwd, persona=args.persona, one_shot=True
    )
    async with Memory(options) as memory:
        action = _ACTIONS.get(args.memory_cmd)
        if action is not None:
            await action(args, memory)
        elif wants_exchange(args):
            return await run_memory_exchange(args, memory)
        else:
            await _legacy_import(args, memory)
    return exit_ok
