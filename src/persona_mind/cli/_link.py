"""``persona-mind memory link [ROOT] [--yes] [--unlink]``: memory that follows the repository.

Without ``ROOT`` it lists: this project's repository identity (root commit, normalised
``origin`` remote), the project it shares memory with, and the known checkouts of the same
repository it could share with. ``link ROOT`` shows what would be shared and changes nothing
unless ``--yes`` says the user approves (a link never happens without approval); ``--unlink``
gives this path its own project memory back. The registry and the rules are
``mind/_links.py``; the same link is ``/mind link`` in a Pi session.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

import msgspec

from persona_mind.cli._output import emit

if TYPE_CHECKING:
    from persona_mind import Memory

__all__ = ("LinkAnswer", "add_link_parser", "run_link")


class LinkAnswer(msgspec.Struct, kw_only=True):
    """``memory link``: the project, its identity, its link and the link candidates."""

    project: str | None
    roots: list[str]
    remote: str | None
    linkedTo: str | None  # noqa: N815 - camelCase JSON, like the stores
    candidates: list[str]
    changed: bool
    message: str


def add_link_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``memory link [ROOT] [--yes] [--unlink]``."""
    lk = sub.add_parser(
        "link",
        help="share project memory with another checkout of the same repository",
        description="List link candidates (no ROOT), link this path to ROOT (--yes approves), "
        "or --unlink. Clones match by root commit and normalised origin remote.",
    )
    lk.add_argument("root", nargs="?", default=None, help="the known checkout to share with")
    lk.add_argument("--yes", action="store_true", help="the user approves the link")
    lk.add_argument("--unlink", action="store_true", help="stop sharing; own memory again")


async def run_link(args: argparse.Namespace, memory: Memory) -> None:
    """List, link or unlink (see the module doc); a refusal raises (typed)."""
    from persona_mind.mind import MindRefusal  # noqa: PLC0415 - loaded with the action

    changed = False
    if args.unlink:
        was = await memory.unlink()
        changed = was is not None
        message = f"unlinked from {was}" if was else "not linked; nothing changed"
    elif args.root is not None:
        offered = {c.root: c for c in memory.repository.offers}
        if not args.yes:
            target = offered.get(args.root)
            what = (
                f"would share the project memory of {args.root} "
                f"({', '.join(target.paths)}); re-run with --yes to approve"
                if target is not None
                else f"{args.root} is not a known checkout of this repository"
            )
            raise MindRefusal("link.unapproved", f"nothing linked: {what}")
        chosen = await memory.link(args.root, approved=True)
        changed = True
        message = f"linked: this path now shares the project memory of {chosen.root}"
    else:
        message = "\n".join(memory.repository.lines())
    state = memory.repository
    project = memory.scope.project
    emit(
        args,
        LinkAnswer(
            project=None if project is None else project.root,
            roots=list(state.identity.roots) if state.identity else [],
            remote=state.identity.remote if state.identity else None,
            linkedTo=None if project is None else project.linked,
            candidates=[c.root for c in state.offers],
            changed=changed,
            message=message,
        ),
        message,
    )
