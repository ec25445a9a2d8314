"""``persona-mind memory …``: the memory and backlog tools from a shell, outside any session.

Same service, same validation and refusals as the in-session tools (it drives
:class:`persona_mind.mind.MindTools`), over the durable file store directly.  The scope is
explicit: ``--persona`` names the persona whose LTM is used (a CLI flag is never a
substitute for a session's runtime owner, M-SCOPE-7 — this command does not run inside a
session), ``--cwd`` picks the project (home is not a project).  A refusal prints one line
naming the rule and, where the rule has one, the CLI command that helps; it exits 1; bad
usage exits 2.  ``remember`` says which tier the fact went to and when it expires.  With
``--json`` every subcommand prints one document of ``docs/cli-schema.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypeVar, cast

import msgspec

from persona_mind.cli import _schema as out
from persona_mind.cli._args import existing_dir, persona_ref
from persona_mind.cli._exchange import (
    add_memory_parsers,
    run_memory_exchange,
    wants_exchange,
)
from persona_mind.cli._optimize import add_optimize_parser, run_optimize_cli
from persona_mind.cli._output import emit, fail, iso
from persona_mind.clock import MonotonicClock
from persona_mind.errors import PersonaMindError
from persona_mind.mind import MemoryService, MindScope, find_project
from persona_mind.mind._cards import backlog_line, fact_line
from persona_mind.mind._errors import MindRefusal
from persona_mind.mind._model import KINDS, BacklogItem, Fact, Kind
from persona_mind.mind.migrate._legacy import LegacyImport
from persona_mind.storage import FileStore, Layout, agent_dir
from persona_mind.storage.port import Mutation, Snapshot, StoreTarget

__all__ = ("DirectStore", "add_parser", "run_memory")

_TIERS = ("persona", "shared", "project", "stm")
_TIER_NAMES = {
    "stm": "short-term memory (STM) of this project",
    "project": "this project's long-term memory",
    "persona": "the persona's long-term memory",
    "shared": "the shared long-term memory",
}
# Mind's hints name the in-session tools; from a shell the same help is a CLI command.
_CLI_HINTS = {
    "fact.not_found": (
        "find ids with `persona-mind memory recall QUERY` or `persona-mind memory list`"
    ),
    "backlog.not_found": "find ids with `persona-mind memory backlog list --all`",
    "tier.required": (
        "pass `--tier shared`, name a persona with `--persona PACK/NAME`, "
        "or run it in a project (`--cwd DIR`)"
    ),
    "kind.unknown": "pass the kind with `--kind KIND` and quote the text",
    "promote.source": "`persona-mind memory list stm` shows the STM facts that can be promoted",
}

E = TypeVar("E")
EXIT_OK, EXIT_REFUSED, EXIT_USAGE = 0, 1, 2


class DirectStore:
    """A StorePort over the synchronous :class:`FileStore` (fine for a one-shot CLI)."""

    def __init__(self, engine: FileStore) -> None:
        self.engine = engine

    async def read(self, target: StoreTarget[E]) -> Snapshot[E] | None:
        return self.engine.read(target)

    async def mutate(
        self,
        target: StoreTarget[E],
        mutation: Mutation[E],
        *,
        generation: int | None = None,
        expect_fingerprint: str | None = None,
    ) -> Snapshot[E]:
        return self.engine.mutate(
            target,
            mutation,
            generation=generation,
            expect_fingerprint=expect_fingerprint,
            purpose="persona-mind memory",
        )

    async def transact(
        self,
        steps: Sequence[tuple[StoreTarget[Any], Mutation[Any]]],
        *,
        generation: int | None = None,
        purpose: str = "memory transaction",
    ) -> Sequence[object]:
        """Several mutations under the memory transaction lock (promote, M-STORE-13)."""
        return self.engine.transact(steps, generation=generation, purpose=purpose)


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``memory`` subcommand tree."""
    p = subparsers.add_parser(
        "memory",
        help="remember, recall, list, forget, promote facts; manage the backlog",
        description="Mind memory outside a session (same rules as the memory/backlog tools).",
    )
    p.add_argument(
        "--agent-dir", type=Path, default=None, help="Pi agent directory (default: Pi's rule)"
    )
    p.add_argument(
        "--cwd", type=existing_dir, default=Path.cwd(), help="project directory (default .)"
    )
    p.add_argument(
        "--persona", type=persona_ref, default=None, help="persona scope, e.g. official/pack/name"
    )
    sub = p.add_subparsers(dest="memory_cmd", required=True, metavar="ACTION")
    r = sub.add_parser(
        "remember",
        help="save a fact (STM in a project unless --tier; objectives go to project LTM)",
        description="Save a fact. `remember TEXT --kind gotcha`; the older `remember KIND TEXT` "
        "still works. The reply names the tier and, for STM, when the fact expires.",
    )
    r.add_argument("words", nargs="+", metavar="TEXT", help="the fact (or KIND TEXT)")
    r.add_argument(
        "--kind", choices=KINDS, default=None, help="what sort of fact it is (default: note)"
    )
    r.add_argument("--tag", action="append", default=[], help="a tag (repeatable)")
    r.add_argument("--tier", choices=_TIERS, help="where to keep it (default: by kind and scope)")
    r.add_argument("--source", help="where the fact came from (a file, URL or person)")
    q = sub.add_parser("recall", help="rank facts for a query")
    q.add_argument("query", nargs="?", default="", help="words to look for (empty: most recent)")
    q.add_argument("--limit", type=int, default=10, help="at most this many hits (1-50)")
    for name in ("read", "forget"):
        sub.add_parser(name, help=f"{name} a fact by id").add_argument("id", help="the fact id")
    lst = sub.add_parser("list", help="list live facts and backlog")
    lst.add_argument("tier", nargs="?", choices=_TIERS, help="only this tier (default: all)")
    pr = sub.add_parser("promote", help="promote an STM fact (default: project LTM)")
    pr.add_argument("id", help="the STM fact id")
    pr.add_argument(
        "--to", choices=["project", "persona", "shared"], default="project", help="target tier"
    )
    sp = sub.add_parser("supersede", help="replace a fact with new text")
    sp.add_argument("id", help="the fact to retire")
    sp.add_argument("text", help="the replacement text")
    inj = sub.add_parser("inject", help="show the memory block a prompt would get")
    inj.add_argument("prompt", nargs="?", default="", help="the prompt to plan for")
    add_memory_parsers(sub)  # export, import [FILE] (JSON Lines; no FILE: the older layout)
    b = sub.add_parser("backlog", help="deferred work")
    bsub = b.add_subparsers(dest="backlog_cmd", required=True, metavar="ACTION")
    ba = bsub.add_parser("add", help="add an item (an open duplicate is not added twice)")
    ba.add_argument("text", help="what to do later")
    ba.add_argument("--remind-minutes", type=float, help="remind the session after N minutes")
    bsub.add_parser("list", help="open and taken items").add_argument(
        "--all", action="store_true", help="include done and dropped items"
    )
    for name, what in (("take", "mark taken"), ("done", "mark done"), ("drop", "drop")):
        bsub.add_parser(name, help=f"{what} an item").add_argument("id", help="the item id")
    add_optimize_parser(sub)  # issue 11: memory optimize inspect|stage|apply|undo|history
    for leaf in _leaves(sub):  # the scope options also work after the action
        leaf.add_argument(
            "--agent-dir", type=Path, default=argparse.SUPPRESS, help="Pi agent directory"
        )
        leaf.add_argument(
            "--cwd", type=existing_dir, default=argparse.SUPPRESS, help="project directory"
        )
        leaf.add_argument(
            "--persona", type=persona_ref, default=argparse.SUPPRESS, help="persona scope"
        )
    p.set_defaults(func=run_memory)


def _leaves(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
) -> list[argparse.ArgumentParser]:
    found: list[argparse.ArgumentParser] = []
    for child in sub.choices.values():
        nested = [a for a in child._actions if isinstance(a, argparse._SubParsersAction)]
        found += _leaves(nested[0]) if nested else [child]
    return found


def _service(args: argparse.Namespace) -> MemoryService:
    root = args.agent_dir or agent_dir()
    engine = FileStore(Layout(root))
    scope = MindScope(root, args.persona, find_project(args.cwd))
    return MemoryService(DirectStore(engine), MonotonicClock(), scope)


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


async def _remember(args: argparse.Namespace, svc: MemoryService) -> None:
    kind, text = _remember_args(args)
    found, created = await svc.remember(
        kind, text, tags=args.tag, source=args.source, tier=args.tier
    )
    f = found.fact
    where = _TIER_NAMES.get(found.tier, found.tier)
    expiry = (
        f"; expires {iso(f.expiresAt)} unless promoted (`persona-mind memory promote {f.id}`)"
        if f.expiresAt is not None
        else "; kept until forgotten or superseded"
    )
    verb = "Saved" if created else "Updated"
    text_out = f"{verb} {f.kind} {f.id} in {where}{expiry}\n  {f.text}"
    emit(args, out.Remembered(created=created, fact=_fact(found.tier, f)), text_out)


async def _memory(args: argparse.Namespace, svc: MemoryService) -> None:
    cmd = args.memory_cmd
    if cmd == "remember":
        return await _remember(args, svc)
    if cmd == "recall":
        hits = await svc.recall(args.query, limit=args.limit)
        rows = [
            out.RecallHit(
                **msgspec.structs.asdict(_fact(h.tier, h.fact)), score=h.score, reason=h.reason
            )
            for h in hits
        ]
        lines = [fact_line(h.tier, h.fact, f"  ({h.reason})") for h in hits]
        head = f"{len(hits)} memor{'y' if len(hits) == 1 else 'ies'} recalled"
        return emit(
            args,
            out.Recalled(query=args.query, hits=rows),
            "\n".join([head, *(lines or ["(nothing matched)"])]),
        )
    if cmd == "read":
        found = await svc.read(args.id)
        doc = _fact(found.tier, found.fact)
        extra = [
            f"{k}: {v}"
            for k, v in (
                ("tags", ", ".join(doc.tags)),
                ("source", doc.source),
                ("persona", doc.persona),
                ("status", doc.status),
                ("expires", doc.expiresAt),
            )
            if v and not (k == "status" and v == "active")
        ]
        return emit(
            args,
            out.FactDoc(fact=doc),
            "\n".join([f"{found.tier} {doc.kind} {doc.id}", doc.text, *extra]),
        )
    if cmd == "forget":
        found = await svc.forget(args.id)
        return emit(
            args,
            out.FactDoc(fact=_fact(found.tier, found.fact)),
            f"Forgot {found.tier} {found.fact.id}\n  {found.fact.text}",
        )
    if cmd == "promote":
        found = await svc.promote(args.id, to=args.to)
        return emit(
            args,
            out.FactDoc(fact=_fact(found.tier, found.fact)),
            f"Promoted to {found.tier} {found.fact.id} (kept until forgotten)\n  {found.fact.text}",
        )
    old, new = await svc.supersede(args.id, args.text)
    return emit(
        args,
        out.Superseded(retired=old.fact.id, fact=_fact(new.tier, new.fact)),
        f"Superseded {old.fact.id} → {new.fact.id}\n  {new.fact.text}",
    )


async def _backlog(args: argparse.Namespace, svc: MemoryService) -> None:
    bc = args.backlog_cmd
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


async def _run(args: argparse.Namespace) -> int:
    if args.memory_cmd == "optimize":  # issue 11: consolidation (synchronous, no service)
        return run_optimize_cli(args, EXIT_OK, EXIT_REFUSED)
    svc = _service(args)
    cmd = args.memory_cmd
    if cmd in ("remember", "recall", "read", "forget", "promote", "supersede"):
        await _memory(args, svc)
    elif cmd == "backlog":
        await _backlog(args, svc)
    elif cmd == "list":
        await _list(args, svc)
    elif cmd == "inject":
        plan = await svc.injection(args.prompt)
        said = ", ".join(plan.disclosures) or "nothing omitted"
        emit(
            args,
            out.Injection(
                text=plan.text,
                tokens=plan.tokens,
                ids=[i.id for i in plan.items],
                disclosures=list(plan.disclosures),
            ),
            f"{plan.text or '(no memory to inject)'}\n-- {plan.tokens} planning tokens; {said}",
        )
    elif wants_exchange(args):
        return await run_memory_exchange(args, svc)
    else:
        imp = LegacyImport(svc, legacy_persona=args.legacy_persona)
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
    return EXIT_OK


async def _list(args: argparse.Namespace, svc: MemoryService) -> None:
    tiers = [args.tier] if args.tier else list(svc.scope.tiers())
    facts: list[out.FactOut] = []
    lines: list[str] = []
    for tier in tiers:
        for f in await svc.list_facts(tier):
            facts.append(_fact(tier, f))
            lines.append(f"[{tier} {f.kind} {f.id}] {f.text}")
    backlog: list[out.BacklogOut] | None = None
    if not args.tier and svc.scope.project is not None:
        items = await svc.backlog_list()
        backlog = [_item(b) for b in items]
        lines += [f"[{b.id} {b.status}] {b.text}" for b in items]
    emit(args, out.Listed(facts=facts, backlog=backlog), "\n".join(lines) or "(no facts)")


def _cli_message(exc: MindRefusal) -> str:
    hint = _CLI_HINTS.get(exc.rule)
    text = str(exc)
    if hint is None:
        return text
    return f"{text.split('; ', 1)[0]}; {hint}"


def run_memory(args: argparse.Namespace) -> int:
    """Entry point for ``persona-mind memory``."""
    try:
        return asyncio.run(_run(args))
    except MindRefusal as exc:
        return fail(args, f"memory: {_cli_message(exc)}", EXIT_REFUSED, exc.rule)
    except PersonaMindError as exc:
        return fail(args, f"memory: {exc}", EXIT_REFUSED)
