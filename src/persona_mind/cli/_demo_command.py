"""``persona-mind demo``: the offline end-to-end tour on the embedded defaults.

With ``--json`` the narration is collected into one document (``output``, one line each).
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from pathlib import Path

from persona_mind.cli._output import emit, wants_json
from persona_mind.cli._schema import Demo

__all__ = ("add_parser",)


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "demo",
        help="run an offline simulated session end to end and print what happened",
        description="Run an offline simulated session on the embedded defaults "
        "(a temporary agent directory unless --agent-dir is given).",
    )
    p.add_argument("--agent-dir", type=Path, help="agent directory to use (kept afterwards)")
    p.add_argument("--trace", type=Path, help="write the actor trace (JSON lines) to this file")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from persona_mind.cli._demo import run_demo  # noqa: PLC0415 - keep --help fast

    lines: list[str] = []
    say = lines.append if wants_json(args) else print
    if args.agent_dir is not None:
        agent = args.agent_dir.absolute()
        agent.mkdir(parents=True, exist_ok=True)
        code = asyncio.run(run_demo(agent, args.trace, say, kept=True))
    else:
        with tempfile.TemporaryDirectory(prefix="persona-mind-demo-") as tmp:
            agent = Path(tmp) / "agent"
            code = asyncio.run(run_demo(agent, args.trace, say))
    if wants_json(args):
        output = "\n".join(lines).splitlines()
        doc = Demo(
            agentDir=str(agent), kept=args.agent_dir is not None, exitCode=code, output=output
        )
        emit(args, doc, "")
    return code
