"""``persona-mind demo``: the offline end-to-end tour on the embedded defaults."""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from pathlib import Path

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
    from persona_mind.runners._demo import run_demo  # noqa: PLC0415 - keep --help fast

    if args.agent_dir is not None:
        args.agent_dir.mkdir(parents=True, exist_ok=True)
        return asyncio.run(run_demo(args.agent_dir, args.trace, print))
    with tempfile.TemporaryDirectory(prefix="persona-mind-demo-") as tmp:
        return asyncio.run(run_demo(Path(tmp) / "agent", args.trace, print))
