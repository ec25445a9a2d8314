"""MCP recall round trip against the same recall through the library facade, in one run.

Setup: a temporary agent dir and git project seeded with ``--facts`` project facts (varied
text, so ranking has real work).  Floor: ``Memory.recall(query)`` in this process — the
library facade over the Store actor.  Value: the same recall (same scope, query and limit)
as an MCP ``tools/call`` from the SDK's stdio client to a ``persona-mind mcp`` process: JSON
encoding, two pipes, the SDK's dispatch, schema validation, the runtime's Companion and the
Mind feature.  Target: at most 3× the floor.  An MCP ``ping`` round trip is reported too
(no target) to show the protocol's own share.

``python bench/mcp.py [--json] [--quick] [--facts N]``; needs the ``[mcp]`` extra.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as `python bench/mcp.py`: the repo root, not bench/
    _here = str(Path(__file__).resolve().parent)
    sys.path[:] = [p for p in sys.path if str(Path(p or ".").resolve()) != _here]
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._report import Result, emit
from persona_mind import Memory

VOCABULARY = (
    "deploy cache tenant region index schema migration queue retry timeout token budget "
    "parser lexer socket thread lock file journal snapshot replica shard backup restore "
    "metric alert dashboard release branch review test fixture mock clock actor mailbox"
)
QUERY = "cache retry timeout for the deploy queue"
TARGET = 3.0


def _args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--quick", action="store_true", help="fewer iterations (smoke run)")
    parser.add_argument("--facts", type=int, default=300, help="project facts to seed")
    return parser.parse_args(argv)


async def _interleaved_ms(
    samples: int, calls: Sequence[Callable[[], Awaitable[Any]]]
) -> list[float]:
    """Median ms of each call, measured in alternation so a noisy neighbour hits all alike."""
    for _ in range(max(3, samples // 10)):  # warm caches and the index first
        for call in calls:
            await call()
    times: list[list[float]] = [[] for _ in calls]
    for _ in range(samples):
        for i, call in enumerate(calls):
            start = time.perf_counter()
            await call()
            times[i].append((time.perf_counter() - start) * 1000)
    return [statistics.median(t) for t in times]


async def _seed(agent: Path, repo: Path, n: int) -> None:
    rng = random.Random(17)
    words_of = VOCABULARY.split()
    async with Memory(agent_dir=agent, cwd=repo) as mem:
        lines = []
        for i in range(n):
            words = " ".join(rng.choice(words_of) for _ in range(10))
            lines.append(f'{{"kind": "note", "tier": "project", "text": "fact {i}: {words}"}}')
        outcome = await mem.import_lines(lines)
        assert outcome.imported == n, outcome.summary()


async def _run(args: argparse.Namespace) -> list[Result]:
    from mcp.client.session import ClientSession  # noqa: PLC0415 - optional extra
    from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: PLC0415

    samples = 20 if args.quick else 200
    with tempfile.TemporaryDirectory(prefix="pm-bench-mcp-") as tmp:
        agent, repo = Path(tmp) / "agent", Path(tmp) / "repo"
        (repo / ".git").mkdir(parents=True)
        await _seed(agent, repo, args.facts)
        params = StdioServerParameters(
            command=sys.executable,
            args=[
                "-m",
                "persona_mind.cli",
                "mcp",
                "--agent-dir",
                str(agent),
                "--pi-command",
                "none",
            ],
            cwd=str(repo),
        )
        recall_args = {"action": "recall", "query": QUERY, "limit": 10}
        async with (
            Memory(agent_dir=agent, cwd=repo) as mem,
            stdio_client(params) as (read, write),
            ClientSession(read, write) as client,
        ):
            await client.initialize()
            await client.list_tools()
            hits = await mem.recall(QUERY, limit=10)
            assert hits, "the seeded store should answer the query"
            first = await client.call_tool("memory", recall_args)
            assert not first.is_error, first
            assert f"{len(hits)} memor" in first.content[0].text  # type: ignore[union-attr]
            floor, value, ping = await _interleaved_ms(
                samples,
                [
                    lambda: mem.recall(QUERY, limit=10),
                    lambda: client.call_tool("memory", recall_args),
                    client.send_ping,
                ],
            )
    ratio = value / floor if floor > 0 else None
    return [
        Result(
            f"mcp recall round trip ({args.facts} facts)",
            value,
            "ms",
            floor,
            ratio,
            f"<= {TARGET:g}x",
            None if ratio is None else ratio <= TARGET,
        ),
        Result("mcp ping round trip", ping, "ms", None, None, None, None),
        Result(f"library recall ({args.facts} facts)", floor, "ms", None, None, None, None),
    ]


def main(argv: Sequence[str] | None = None) -> int:
    args = _args(argv)
    emit(asyncio.run(_run(args)), args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
