"""``persona-mind memory optimize inspect|stage|apply|undo|history`` (consolidation, CLI).

The same Consolidator the Optimizer actor runs, called directly (a one-shot process has
no mailbox to order). Plans live in the Optimizer's memory, which a CLI process does not
outlive, so the CLI's ``apply`` names the plan by its *content*: the operations and the
fingerprint its ``stage`` printed. It re-validates them and commits under the same CAS —
a store changed since the preview is refused exactly like a stale plan id. ``stage
--apply`` stages and applies in one process. Prints the same cards as ``/mind optimize``
(``--json``: their structured details).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from persona_mind.actors.optimizer._consolidator import Consolidator, parse_tier
from persona_mind.cli._output import emit, fail
from persona_mind.cli._schema import OptimizeAnswer
from persona_mind.clock import MonotonicClock
from persona_mind.mind import MindScope, find_project
from persona_mind.mind._cards import Card
from persona_mind.mind._errors import InvalidArgument, MindRefusal
from persona_mind.mind.optimize._commands import (
    applied_card,
    history_card,
    inspection_card,
    plan_card,
)
from persona_mind.mind.optimize._errors import StaleSnapshot
from persona_mind.mind.optimize._plans import PlanRegistry
from persona_mind.storage import FileStore, Layout, agent_dir

__all__ = ("add_optimize_parser", "run_optimize_cli")

_TARGETS = ["persona", "shared", "project", "stm", "project-long"]  # project-long: project


def add_optimize_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``memory optimize …`` (appended to the memory subcommand tree)."""
    o = sub.add_parser("optimize", help="consolidate facts: inspect, stage, apply, undo, history")
    osub = o.add_subparsers(dest="optimize_cmd", required=True, metavar="ACTION")
    target_help = "the memory tier (default: stm in a project, persona in home)"
    i = osub.add_parser("inspect", help="one page of a store's safe entries")
    i.add_argument("target", nargs="?", choices=_TARGETS, help=target_help)
    i.add_argument("--offset", type=int, default=0, help="first entry of the page (default 0)")
    i.add_argument("--limit", type=int, default=None, help="entries per page (default 20, ≤ 100)")
    i.add_argument("--fingerprint", default=None, help="continue a paging from this snapshot")
    for name, text in (("stage", "validate replacements"), ("apply", "apply replacements")):
        s = osub.add_parser(name, help=text)
        s.add_argument("target", nargs="?", choices=_TARGETS, help=target_help)
        s.add_argument(
            "--ops", required=True, help="operations as JSON, or - to read them from stdin"
        )
        if name == "stage":
            s.add_argument("--apply", action="store_true", help="apply at once if valid")
        else:
            s.add_argument("--fingerprint", required=True, help="the fingerprint `stage` printed")
    h = osub.add_parser("history", help="receipts, newest first")
    h.add_argument("target", nargs="?", choices=_TARGETS, help=target_help)
    h.add_argument("--limit", type=int, default=None, help="at most this many receipts")
    u = osub.add_parser("undo", help="restore the facts a receipt replaced")
    u.add_argument("receipt", help="the receipt id `history` lists")
    u.add_argument("target", nargs="?", choices=_TARGETS, help=target_help)


def _ops(raw: str) -> Any:
    text = sys.stdin.read() if raw == "-" else raw
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidArgument("ops.malformed", f"--ops is not valid JSON ({exc.msg})") from None


def _card(args: argparse.Namespace, cons: Consolidator, scope: MindScope) -> Card:
    clock = MonotonicClock()
    cons.engine.wall = clock.wall
    tier = parse_tier(args.target or ("stm" if scope.project is not None else "persona"))
    cmd = args.optimize_cmd
    if cmd == "inspect":
        page = cons.inspect(
            scope,
            tier,
            now=clock.wall(),
            offset=args.offset,
            limit=args.limit,
            expect_fingerprint=args.fingerprint,
        )
        return inspection_card(page)
    if cmd == "history":
        return history_card(tier, cons.list_history(scope, tier, limit=args.limit))
    if cmd == "undo":
        tiers = [tier] if args.target else list(scope.tiers())
        for t in tiers:
            if any(r.id == args.receipt for r in cons.receipts(scope, t)):
                return applied_card(cons.undo(scope, t, args.receipt))
        raise InvalidArgument("undo.unknown", f"no receipt {args.receipt!r} in this scope")
    staged = cons.stage(scope, tier, _ops(args.ops), now=clock.wall())
    if cmd == "apply" and staged.fingerprint != args.fingerprint:
        raise StaleSnapshot(
            "plan.stale", "the store changed since this plan was staged; stage it again"
        )
    plan = PlanRegistry().add(
        owner="cli",
        tier=staged.tier,
        store=staged.store,
        persona=scope.persona,
        fingerprint=staged.fingerprint,
        replacements=staged.replacements,
        now=clock.wall(),
    )
    if cmd == "stage" and not args.apply:
        return plan_card(plan)
    return applied_card(cons.apply(plan, scope))


def run_optimize_cli(args: argparse.Namespace, exit_ok: int, exit_refused: int) -> int:
    """Run one ``memory optimize`` command; refusals print to stderr with the refused code."""
    root: Path = args.agent_dir or agent_dir()
    scope = MindScope(root, args.persona, find_project(args.cwd))
    cons = Consolidator(FileStore(Layout(root)))
    try:
        card = _card(args, cons, scope)
    except MindRefusal as exc:
        return fail(args, f"memory optimize: {exc}", exit_refused, exc.rule)
    details = card.details()
    answer = OptimizeAnswer(
        title=details.pop("title"),
        compact=details.pop("compact"),
        full=details.pop("full"),
        data=json.loads(json.dumps(details, default=str)),
    )
    emit(args, answer, card.full())
    return exit_ok
