"""``persona-mind memory pending``: the user lists, approves or drops held model writes.

The write policy (``docs/mind.md``, "Write policy and taint") keeps a model write that
reproduces untrusted text as a proposal; this is the CLI side of the user's decision (the
Pi side is a reply to the pending card).  Approving stores the fact with its origin and
``confirmed``; dropping deletes the proposal.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from persona_mind import Memory
from persona_mind.cli import _schema as out
from persona_mind.cli._output import Message, emit
from persona_mind.messages.memory import Fact, origin_label

__all__ = ("add_pending_parser", "run_pending")


def add_pending_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``memory pending [list|approve ID|drop ID]``."""
    p = sub.add_parser("pending", help="model writes waiting for your confirmation")
    p.add_argument(
        "verb",
        nargs="?",
        default="list",
        choices=("list", "approve", "drop"),
        help="list the pending proposals (default), approve one or drop one",
    )
    p.add_argument("id", nargs="?", help="the proposal id (for approve and drop)")


async def run_pending(
    args: argparse.Namespace, memory: Memory, to_out: Callable[[str, Fact], out.FactOut]
) -> None:
    """Run one ``memory pending`` verb; ``to_out`` renders a fact for ``--json``."""
    if args.verb == "list":
        found = await memory.pending()
        lines = [
            f"[{f.tier} {f.fact.kind} {f.fact.id}] {f.fact.text}  ({origin_label(f.fact.origin)})"
            for f in found
        ]
        facts = [to_out(f.tier, f.fact) for f in found]
        emit(args, out.Listed(facts=facts, backlog=None), "\n".join(lines) or "(none pending)")
        return
    if not args.id:
        from persona_mind.mind import InvalidArgument  # noqa: PLC0415 - loaded with Mind

        raise InvalidArgument("pending.id", f"memory pending {args.verb} needs a proposal id")
    if args.verb == "approve":
        stored = await memory.approve_pending(args.id)
        label = origin_label(stored.fact.origin, confirmed=stored.fact.confirmed)
        emit(
            args,
            out.Remembered(created=True, fact=to_out(stored.tier, stored.fact)),
            f"Saved {stored.fact.kind} {stored.fact.id} ({label})\n  {stored.fact.text}",
        )
        return
    dropped = await memory.drop_pending(args.id)
    emit(
        args,
        Message(message=f"dropped {dropped.fact.id}", changed=True),
        f"Dropped {dropped.fact.id}; it was never stored",
    )
