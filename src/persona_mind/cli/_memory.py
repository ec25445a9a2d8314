"""``persona-mind memory …``: the memory and backlog tools from a shell, outside any session.

A face over the :class:`~persona_mind.Memory` and :class:`~persona_mind.Consolidation`
facades: the same Store actor, service, ranker and refusals as the in-session tools and the
MCP server, so ``recall`` and ``inject`` give the facts a Pi session would, in its order.
The scope is explicit: ``--persona`` names the persona whose LTM is used (a CLI flag is
never a substitute for a session's runtime owner, M-SCOPE-7 — this command does not run
inside a session), ``--cwd`` picks the project (home is not a project).  A refusal prints
one line naming the rule and, where the rule has one, the CLI command that helps; it exits
1; bad usage exits 2.  ``remember`` says which tier the fact went to and when it expires.
With ``--json`` every subcommand prints one document of ``docs/cli-schema.json``.

This module is the parser and the entry point; it imports no Mind code, so building the
``persona-mind`` parser stays cheap.  The actions are ``_memory_verbs.py`` (loaded when one
runs), export/import ``_exchange.py``, consolidation ``_optimize.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
from collections.abc import Iterator, MutableMapping
from pathlib import Path
from typing import TYPE_CHECKING

from persona_mind.cli._args import existing_dir, persona_ref
from persona_mind.cli._exchange import add_memory_parsers
from persona_mind.cli._link import add_link_parser
from persona_mind.cli._memory_pending import add_pending_parser
from persona_mind.cli._optimize import add_optimize_parser, run_optimize_cli
from persona_mind.cli._output import fail
from persona_mind.errors import PersonaMindError

if TYPE_CHECKING:
    from persona_mind.mind import MindRefusal

__all__ = ("add_parser", "one_blas_thread", "run_memory")

_TIERS = ("persona", "shared", "project", "stm")
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

EXIT_OK, EXIT_REFUSED, EXIT_USAGE = 0, 1, 2


class _Kinds:
    """``--kind``'s choices: Mind's ``KINDS``, read only when argparse checks or lists them
    (a ``--kind`` given, or ``--help``), so building the parser of every command stays
    Mind-free (with a ``metavar``, argparse does not list them at build time)."""

    def __contains__(self, value: object) -> bool:
        from persona_mind.mind import KINDS  # noqa: PLC0415 - only when --kind is given

        return value in KINDS

    def __iter__(self) -> Iterator[str]:
        from persona_mind.mind import KINDS  # noqa: PLC0415 - only for --help and errors

        return iter(KINDS)


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
        "--kind",
        choices=_Kinds(),
        metavar="KIND",  # argparse would list the choices at parser build time
        default=None,
        help="what sort of fact it is: %(choices)s (default: note)",
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
    add_pending_parser(sub)
    inj = sub.add_parser("inject", help="show the memory block a prompt would get")
    inj.add_argument("prompt", nargs="?", default="", help="the prompt to plan for")
    inj.add_argument(
        "--explain",
        action="store_true",
        help="every candidate: score parts, the floor, the rule that admitted or left it out",
    )
    add_memory_parsers(sub)  # export, import [FILE] (JSON Lines; no FILE: the older layout)
    add_link_parser(sub)  # link [ROOT] [--yes] [--unlink]: memory that follows the repository
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
    add_optimize_parser(sub)  # memory optimize inspect|stage|apply|undo|history
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


def _cli_message(exc: MindRefusal) -> str:
    hint = _CLI_HINTS.get(exc.rule)
    text = str(exc)
    if hint is None:
        return text
    return f"{text.split('; ', 1)[0]}; {hint}"


async def _run(args: argparse.Namespace) -> int:
    if args.memory_cmd == "optimize":
        return await run_optimize_cli(args, EXIT_OK)
    from persona_mind.cli._memory_verbs import run_action  # noqa: PLC0415 - loads Mind

    return await run_action(args, EXIT_OK)


def one_blas_thread(env: MutableMapping[str, str]) -> None:
    """Ask OpenBLAS for one thread unless the user chose a number: set before numpy loads
    (the semantic model's load imports it), it spares a one-shot command OpenBLAS's thread
    pool start-up (~40 ms CPU of numpy's import on 2 cores).  Nothing here calls BLAS — the
    ranker's similarities are ``einsum`` on the calling thread — so no result changes."""
    env.setdefault("OPENBLAS_NUM_THREADS", "1")


def run_memory(args: argparse.Namespace) -> int:
    """Entry point for ``persona-mind memory``."""
    one_blas_thread(os.environ)
    try:
        return asyncio.run(_run(args))
    except PersonaMindError as exc:
        from persona_mind.mind import MindRefusal  # noqa: PLC0415 - loaded by the action

        if args.memory_cmd == "optimize":
            if isinstance(exc, MindRefusal):
                return fail(args, f"memory optimize: {exc}", EXIT_REFUSED, exc.rule)
            raise  # the CLI's own handler: one line, exit 2
        if isinstance(exc, MindRefusal):
            return fail(args, f"memory: {_cli_message(exc)}", EXIT_REFUSED, exc.rule)
        return fail(args, f"memory: {exc}", EXIT_REFUSED)
