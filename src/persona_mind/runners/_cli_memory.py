"""``persona-mind memory …``: the memory and backlog tools from a shell, outside any session.

Same service, same validation and refusals as the in-session tools (it drives
:class:`persona_mind.mind.MindTools`), over the durable file store directly.  The scope is
explicit: ``--persona`` names the persona whose LTM is used (a CLI flag is never a
substitute for a session's runtime owner, M-SCOPE-7 — this command does not run inside a
session), ``--cwd`` picks the project (home is not a project).  A refusal prints one line
naming the rule and exits 1; bad usage exits 2.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any, TypeVar

from persona_mind.clock import MonotonicClock
from persona_mind.errors import PersonaMindError
from persona_mind.mind import MemoryService, MindScope, find_project
from persona_mind.mind._migrate import LegacyImport
from persona_mind.mind._tools import MindTools
from persona_mind.runners._cli_exchange import (
    add_memory_parsers,
    run_memory_exchange,
    wants_exchange,
)
from persona_mind.runners._cli_optimize import add_optimize_parser, run_optimize_cli
from persona_mind.storage import FileStore, Layout, agent_dir
from persona_mind.storage.port import Mutation, Snapshot, StoreTarget

__all__ = ("DirectStore", "add_parser", "run_memory")

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


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``memory`` subcommand tree."""
    p = subparsers.add_parser(
        "memory",
        help="remember, recall, list, forget, promote facts; manage the backlog",
        description="Mind memory outside a session (same rules as the memory/backlog tools).",
    )
    p.add_argument("--agent-dir", type=Path, default=None, help="default: $PI_CODING_AGENT_DIR")
    p.add_argument("--cwd", type=Path, default=Path.cwd(), help="project directory (default .)")
    p.add_argument("--persona", default=None, help="persona scope, e.g. official/pack/name")
    p.add_argument("--json", action="store_true", help="print structured details as JSON")
    sub = p.add_subparsers(dest="memory_cmd", required=True)
    r = sub.add_parser("remember", help="save a fact")
    r.add_argument("kind")
    r.add_argument("text")
    r.add_argument("--tag", action="append", default=[])
    r.add_argument("--tier", choices=["persona", "shared", "project", "stm"])
    r.add_argument("--source")
    q = sub.add_parser("recall", help="rank facts for a query")
    q.add_argument("query", nargs="?", default="")
    q.add_argument("--limit", type=int, default=10)
    for name in ("read", "forget"):
        sub.add_parser(name, help=f"{name} a fact by id").add_argument("id")
    lst = sub.add_parser("list", help="list live facts and backlog")
    lst.add_argument("tier", nargs="?", choices=["persona", "shared", "project", "stm"])
    pr = sub.add_parser("promote", help="promote an STM fact (default: project LTM)")
    pr.add_argument("id")
    pr.add_argument("--to", choices=["project", "persona", "shared"], default="project")
    sp = sub.add_parser("supersede", help="replace a fact with new text")
    sp.add_argument("id")
    sp.add_argument("text")
    inj = sub.add_parser("inject", help="show the memory block a prompt would get")
    inj.add_argument("prompt", nargs="?", default="")
    add_memory_parsers(sub)  # export, import [FILE] (JSON Lines; no FILE: older layout)
    b = sub.add_parser("backlog", help="deferred work")
    bsub = b.add_subparsers(dest="backlog_cmd", required=True)
    ba = bsub.add_parser("add")
    ba.add_argument("text")
    ba.add_argument("--remind-minutes", type=float)
    bsub.add_parser("list").add_argument("--all", action="store_true")
    for name in ("take", "done", "drop"):
        bsub.add_parser(name).add_argument("id")
    add_optimize_parser(sub)  # issue 11: memory optimize inspect|stage|apply|undo|history
    p.set_defaults(func=run_memory)


def _service(args: argparse.Namespace) -> MemoryService:
    root = args.agent_dir or agent_dir()
    engine = FileStore(Layout(root))
    scope = MindScope(root, args.persona, find_project(args.cwd))
    return MemoryService(DirectStore(engine), MonotonicClock(), scope)


def _tool_args(args: argparse.Namespace) -> tuple[str, dict[str, Any]] | None:
    cmd = args.memory_cmd
    if cmd == "remember":
        a: dict[str, Any] = {
            "action": "remember",
            "kind": args.kind,
            "text": args.text,
            "tags": args.tag,
        }
        if args.tier:
            a["tier"] = args.tier
        if args.source:
            a["source"] = args.source
        return "memory", a
    if cmd == "recall":
        return "memory", {"action": "recall", "query": args.query, "limit": args.limit}
    if cmd in ("read", "forget"):
        return "memory", {"action": cmd, "id": args.id}
    if cmd == "promote":
        return "memory", {"action": "promote", "id": args.id, "to": args.to}
    if cmd == "supersede":
        return "memory", {"action": "supersede", "id": args.id, "text": args.text}
    if cmd == "backlog":
        bc = args.backlog_cmd
        if bc == "add":
            a = {"action": "add", "text": args.text}
            if args.remind_minutes is not None:
                a["remind_in_minutes"] = args.remind_minutes
            return "backlog", a
        if bc == "list":
            return "backlog", {"action": "list", "include_closed": args.all}
        return "backlog", {"action": bc, "id": args.id}
    return None


async def _run(args: argparse.Namespace) -> int:
    if args.memory_cmd == "optimize":  # issue 11: consolidation (synchronous, no service)
        return run_optimize_cli(args, EXIT_OK, EXIT_REFUSED)
    svc = _service(args)
    call = _tool_args(args)
    if call is not None:
        res = await MindTools(svc).call(*call)
        out = json.dumps(res.details, indent=2, default=str) if args.json else res.text
        print(out, file=sys.stderr if res.is_error else sys.stdout)
        return EXIT_REFUSED if res.is_error else EXIT_OK
    if args.memory_cmd == "list":
        tiers = [args.tier] if args.tier else list(svc.scope.tiers())
        for tier in tiers:
            for f in await svc.list_facts(tier):
                print(f"[{tier} {f.kind} {f.id}] {f.text}")
        if not args.tier and svc.scope.project is not None:
            for item in await svc.backlog_list():
                print(f"[{item.id} {item.status}] {item.text}")
        return EXIT_OK
    if wants_exchange(args):
        return await run_memory_exchange(args, svc)
    if args.memory_cmd == "inject":
        plan = await svc.injection(args.prompt)
        print(plan.text or "(no memory to inject)")
        print(
            f"-- {plan.tokens} planning tokens; {', '.join(plan.disclosures) or 'nothing omitted'}"
        )
        return EXIT_OK
    imp = LegacyImport(svc, legacy_persona=args.legacy_persona)
    while not await imp.step(max_files=8):
        pass
    print(f"import: {imp.report.summary()}")
    for w in imp.report.warnings:
        print(f"warning: {w}", file=sys.stderr)
    return EXIT_OK


def run_memory(args: argparse.Namespace) -> int:
    """Entry point for ``persona-mind memory``."""
    try:
        return asyncio.run(_run(args))
    except PersonaMindError as exc:
        print(f"persona-mind memory: {exc}", file=sys.stderr)
        return EXIT_REFUSED
