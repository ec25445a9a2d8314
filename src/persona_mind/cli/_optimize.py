"""``persona-mind memory optimize inspect|stage|apply|undo|history`` (consolidation, CLI).

A face over :class:`~persona_mind.Consolidation`: the Optimizer actor a session runs, over
the Store actor, so every step takes the same locks, CAS and receipts as ``/mind
optimize``.  Plans live in the Optimizer's memory, which a CLI process does not outlive, so
the CLI's ``apply`` names the plan by its *content*: the operations and the fingerprint its
``stage`` printed (:meth:`~persona_mind.Consolidation.apply_operations`) — a store changed
since the preview is refused exactly like a stale plan id.  ``stage --apply`` stages and
applies in one process.  Prints the same cards as ``/mind optimize`` (``--json``: their
structured details).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from persona_mind.cli._output import emit
from persona_mind.cli._schema import OptimizeAnswer

if TYPE_CHECKING:
    from persona_mind import Consolidation
    from persona_mind.mind import Card

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
    from persona_mind.mind import InvalidArgument  # noqa: PLC0415

    text = sys.stdin.read() if raw == "-" else raw
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidArgument("ops.malformed", f"--ops is not valid JSON ({exc.msg})") from None


async def _card(args: argparse.Namespace, cons: Consolidation) -> Card:
    from persona_mind import mind  # noqa: PLC0415 - the cards /mind optimize prints

    cmd = args.optimize_cmd
    if cmd == "inspect":
        page = await cons.inspect(
            args.target, offset=args.offset, limit=args.limit, fingerprint=args.fingerprint
        )
        return mind.inspection_card(page)
    if cmd == "history":
        tier = args.target or cons.default_tier
        return mind.history_card(tier, await cons.history(tier, limit=args.limit))
    if cmd == "undo":
        return mind.applied_card(await cons.undo(args.receipt, args.target))
    operations = _ops(args.ops)
    if cmd == "apply":
        done = await cons.apply_operations(args.target, operations, fingerprint=args.fingerprint)
        return mind.applied_card(done)
    plan = await cons.stage(args.target, operations)
    return mind.applied_card(await cons.apply(plan)) if args.apply else mind.plan_card(plan)


async def run_optimize_cli(args: argparse.Namespace, exit_ok: int) -> int:
    """Run one ``memory optimize`` command; a refusal propagates (typed) to the caller."""
    from persona_mind import Consolidation  # noqa: PLC0415 - loads Mind and the Optimizer

    async with Consolidation(
        agent_dir=args.agent_dir, cwd=args.cwd, persona=args.persona, owner="cli"
    ) as cons:
        card = await _card(args, cons)
    details = card.details()
    answer = OptimizeAnswer(
        title=details.pop("title"),
        compact=details.pop("compact"),
        full=details.pop("full"),
        data=json.loads(json.dumps(details, default=str)),
    )
    emit(args, answer, card.full())
    return exit_ok
