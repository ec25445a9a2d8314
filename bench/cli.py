"""CLI wall time of ``persona-mind memory remember`` and ``memory recall``, against a floor.

What a shell user waits for: one ``persona-mind memory …`` process from exec to exit —
interpreter start, imports, the argument parser, the Store actor and its IO thread, the
store read (and for ``remember`` the locked, fsynced write), the answer, teardown.  Setup: a
temporary agent dir and git project seeded with ``--facts`` project facts.  Floor, measured
in the same run and interleaved with the commands: ``python -c "import persona_mind"`` — the
interpreter and the package's own import, which no command can avoid.  Each row's ratio is
its median wall time over the floor's.

Rows: ``remember``, and ``recall`` with the environment as given (hybrid ranking when the
``semantic`` extra is installed: the model loads only for commands that rank, never for a
``remember``), and ``recall`` with ``PERSONA_MIND_RANKER=lexical`` (the ranker the CLI had
before it became a face over ``Memory``, so that row isolates the composition's cost from
the model's).

Target: each ratio at most 1.2× the ratio of the CLI before it became a face over the
facades (it built ``MemoryService`` over a synchronous ``FileStore`` itself and ranked by
words alone).  :data:`BASELINE` holds those ratios, measured with this file on ``main`` at
c5f5eb3 (same tree as 6e8037e but for moves).  The machine is noisy (2 shared cores), so
``--against SRC`` measures that older code in the same run instead — ``SRC`` is the ``src``
directory of a copy of it (``git archive c5f5eb3 src | tar -x -C /tmp/old``; ``--against
/tmp/old/src``): every command runs both ways, interleaved, and each row's floor is the
older code's wall time for the same command, its target 1.2×.

``python bench/cli.py [--json] [--quick] [--facts N] [--samples N] [--against SRC]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

if __package__ in (None, ""):  # run as `python bench/cli.py`: the repo root, not bench/
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
TARGET = 1.2

BASELINE: Mapping[str, float] = {
    "remember": 5.1,
    "recall": 4.9,
    "recall-lexical": 4.9,
}
"""Ratios over the floor of the CLI at c5f5eb3: this file run on that tree (``--samples 9``,
2 shared cores at load average ≈ 0.9) gave remember 5.09 and recall 4.61 and 5.12 — the
same lexical code path twice at c5f5eb3, so both recall rows take their mean.  Under load
the ratios shrink (the floor slows more than the commands), so ``--against`` — a measurement
of the older code in the same run — is the sharper judge on a busy machine."""


def _args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--quick", action="store_true", help="fewer iterations (smoke run)")
    parser.add_argument("--facts", type=int, default=300, help="project facts to seed")
    parser.add_argument("--samples", type=int, default=None, help="processes per row")
    parser.add_argument(
        "--against", type=Path, default=None, help="src dir of the older code to compare with"
    )
    return parser.parse_args(argv)


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


def _wall_ms(argv: Sequence[str], env: Mapping[str, str], cwd: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, env=dict(env), cwd=cwd, capture_output=True, check=False)
    elapsed = (time.perf_counter() - start) * 1000
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {done.returncode}: {done.stderr.decode()}")
    return elapsed


ROWS = {
    "remember": "cli memory remember",
    "recall": "cli memory recall",
    "recall-lexical": "cli memory recall (PERSONA_MIND_RANKER=lexical)",
}


def _seed_old(src: Path, agent: Path, repo: Path, n: int) -> None:
    """:func:`_seed` run by the older code, so its store has only fields that code reads
    (a store written by newer code may carry fields the older schema refuses)."""
    root = str(Path(__file__).resolve().parents[1])
    code = (
        "import asyncio, sys; from pathlib import Path; from bench.cli import _seed; "
        f"asyncio.run(_seed(Path({str(agent)!r}), Path({str(repo)!r}), {n}))"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(src.resolve()), root])}
    subprocess.run([sys.executable, "-c", code], env=env, cwd=root, check=True)


def _times(args: argparse.Namespace, agent: Path, repo: Path) -> dict[tuple[str, str], list[float]]:
    """Wall times per (code, row); code is ``ours`` and, with ``--against``, ``old`` (on an
    agent dir of its own, seeded the same way by the older code)."""
    samples = args.samples or (3 if args.quick else 15)
    env = {k: v for k, v in os.environ.items() if k != "PERSONA_MIND_TRACE"}
    agents = {"ours": agent}
    codes = {"ours": {**env, "PI_CODING_AGENT_DIR": str(agent)}}
    if args.against is not None:  # both through PYTHONPATH, so both pay the same path search
        here = Path(__file__).resolve().parents[1] / "src"
        agents["old"] = agent.with_name("agent-old")
        _seed_old(args.against, agents["old"], repo, args.facts)
        codes = {
            "ours": {**codes["ours"], "PYTHONPATH": str(here)},
            "old": {
                **env,
                "PYTHONPATH": str(args.against.resolve()),
                "PI_CODING_AGENT_DIR": str(agents["old"]),
            },
        }
    counter = iter(range(1_000_000))
    times: dict[tuple[str, str], list[float]] = {}
    for sample in range(samples + 1):  # the first round warms the page cache
        for code, code_env in codes.items():
            memory = [
                *(sys.executable, "-m", "persona_mind.cli", "memory"),
                *("--agent-dir", str(agents[code])),
            ]
            lexical = {**code_env, "PERSONA_MIND_RANKER": "lexical"}
            runs: dict[str, tuple[list[str], dict[str, str]]] = {
                "floor": ([sys.executable, "-c", "import persona_mind"], code_env),
                "remember": (
                    [*memory, "remember", f"bench fact {next(counter)}: deploy on Fridays"],
                    code_env,
                ),
                "recall": ([*memory, "recall", QUERY], code_env),
                "recall-lexical": ([*memory, "recall", QUERY], lexical),
            }
            for name, (argv, row_env) in runs.items():
                ms = _wall_ms(argv, row_env, repo)
                if sample:
                    times.setdefault((code, name), []).append(ms)
    return times


def _run(args: argparse.Namespace) -> list[Result]:
    with tempfile.TemporaryDirectory(prefix="pm-bench-cli-") as tmp:
        agent, repo = Path(tmp) / "agent", Path(tmp) / "repo"
        (repo / ".git").mkdir(parents=True)
        asyncio.run(_seed(agent, repo, args.facts))
        times = _times(args, agent, repo)
    median = {key: statistics.median(values) for key, values in times.items()}
    floor = median[("ours", "floor")]
    results = [
        Result("python -c 'import persona_mind' (floor)", floor, "ms", None, None, None, None)
    ]
    for name, label in ROWS.items():
        value = median[("ours", name)]
        if ("old", name) in median:  # the same command on the older code, this run
            old = median[("old", name)]
            results.append(
                Result(
                    f"{label} ({args.facts} facts) vs the older code",
                    value,
                    "ms",
                    old,
                    value / old,
                    f"<= {TARGET:g}x",
                    value / old <= TARGET,
                )
            )
            continue
        limit = TARGET * BASELINE[name]
        results.append(
            Result(
                f"{label} ({args.facts} facts)",
                value,
                "ms",
                floor,
                value / floor,
                f"<= {limit:.2f}x ({TARGET:g} x BASELINE {BASELINE[name]:.2f})",
                value / floor <= limit,
            )
        )
    return results


def main(argv: Sequence[str] | None = None) -> int:
    args = _args(argv)
    emit(_run(args), args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
