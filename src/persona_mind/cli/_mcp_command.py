"""``persona-mind mcp``: serve memory, backlog and personas to any MCP client over stdio.

Scope: the project is the client's working directory (``--cwd`` overrides; MCP clients start
servers in the workspace they have open), the persona is ``--persona NAME`` of that
project's team (none: project and shared memory only). ``--pi-command`` (default: ``pi`` when
it is on PATH) lets ``persona_consult`` run children with the user's own Pi; ``--model``
picks their model. See ``docs/mcp.md``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shlex
import shutil
from pathlib import Path

__all__ = ("add_parser", "run_mcp")

_DESCRIPTION = "A stdio MCP server over the same runtime and store as a Pi session."


def _hint_in_help(parser: argparse.ArgumentParser) -> None:
    """``mcp --help`` names the install command for the mcp extra, worked out when the help
    is printed: it reads the distribution's metadata (``importlib.metadata``, ~10 ms of
    imports), which every ``persona-mind`` command would otherwise pay building its parser."""
    plain = parser.format_help

    def format_help() -> str:
        from persona_mind.install import install_hint  # noqa: PLC0415 - only for the help

        parser.description = f"{_DESCRIPTION} Needs the optional mcp extra: {install_hint('mcp')}"
        return plain()

    parser.format_help = format_help  # type: ignore[method-assign]


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``mcp``."""
    p = subparsers.add_parser(
        "mcp",
        help="run the stdio MCP server (memory, backlog, personas, consult)",
        description=_DESCRIPTION,
    )
    _hint_in_help(p)
    p.add_argument("--agent-dir", type=Path, default=None, help="Pi agent dir (default: Pi's rule)")
    p.add_argument(
        "--cwd", type=Path, default=None, help="project directory (default: the working dir)"
    )
    p.add_argument("--persona", default=None, help="a persona of the project's team to act as")
    p.add_argument(
        "--pi-command",
        default=None,
        help="how to start Pi for consults (default: `pi` on PATH; 'none' turns consults off)",
    )
    p.add_argument("--model", default=None, help="model for consults, e.g. provider/model-id")
    p.add_argument(
        "--write-policy",
        choices=("auto", "confirm-untrusted", "confirm-all", "recall-only"),
        default=None,
        help="Mind write policy for client writes (default: settings.json mind.writePolicy, "
        "else confirm-untrusted); pending writes wait for `persona-mind memory pending`",
    )
    p.set_defaults(func=run_mcp)


def _pi_command(raw: str | None) -> tuple[str, ...] | None:
    if raw == "none" or os.environ.get("PERSONA_MIND_CHILDREN") == "0":
        return None
    if raw:
        return tuple(shlex.split(raw))
    found = shutil.which("pi")
    return (found,) if found else None


async def _serve(args: argparse.Namespace) -> int:
    from persona_mind.mcp._sdk import require_sdk  # noqa: PLC0415

    require_sdk()  # a missing extra is one clear line before anything starts
    from persona_mind._headless import HeadlessSession, log  # noqa: PLC0415
    from persona_mind.clock import MonotonicClock  # noqa: PLC0415
    from persona_mind.mcp._server import serve_stdio  # noqa: PLC0415
    from persona_mind.runtime import default_agent_dir  # noqa: PLC0415

    clock = MonotonicClock()
    backend = None
    command = _pi_command(args.pi_command)
    if command is not None:
        from persona_mind.runners._child_lazy import LazyPiBackend  # noqa: PLC0415

        backend = LazyPiBackend(command, clock=clock)
    cwd = (args.cwd or Path.cwd()).resolve()
    session = HeadlessSession(
        agent_dir=args.agent_dir or default_agent_dir(),
        cwd=cwd,
        persona=args.persona,
        model=args.model,
        clock=clock,
        child_backend=backend,
        write_policy=args.write_policy,
    )
    async with session:
        log(f"serving {cwd} as {args.persona or 'no persona'}")
        await serve_stdio(session)
    return 0


def run_mcp(args: argparse.Namespace) -> int:
    """Entry point for ``persona-mind mcp`` (typed errors become one line, exit 2)."""
    return asyncio.run(_serve(args))
