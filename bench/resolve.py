"""Resolver latency: a 12-persona pack with 200 reference files, cold and warm.

Floor (same run): open and read every file the resolution depends on once — the pack's
manifest, agent files and reference files plus the workspace baseline and library
indexes. Cold: validate-load the snapshot and resolve all 12 personas with a fresh
resolver. Warm: resolve all 12 again with the same resolver (the per-turn path of
``before_agent_start``). Target: warm ≤ 1.2× the floor.

    python bench/resolve.py [--json] [--quick]
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

if __package__ in (None, ""):  # run as `python bench/resolve.py`
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._report import Result, emit, parse_args
from persona_mind.persona import Resolver, Workspace, load_pack

PERSONAS = 12
REFERENCES = 200


def build(root: Path) -> tuple[Path, Path]:
    """A pack with 1 lead + 11 specialists, 200 references, and a workspace foundation."""
    pack = root / "snap" / "bench"
    (pack / "agents").mkdir(parents=True)
    (pack / "pack.yaml").write_text(
        "schema: 2\nname: bench\nversion: 1.0.0\ndescription: Benchmark team.\n"
    )
    body = "You are a careful specialist. " * 60
    for i in range(PERSONAS):
        role = "generalist" if i == 0 else "specialist"
        (pack / "agents" / f"p{i:02}.md").write_text(
            f"---\nname: p{i:02}\nrole: {role}\ndescription: persona {i}\n"
            f"docs:\n  - library/personal/p{i:02}/\n  - library/shared/\n"
            f"packDocs:\n  - topic{i:02}/\nskills: [read]\n---\n{body}\n"
        )
    for j in range(REFERENCES):
        folder = pack / "references" / f"topic{j % PERSONAS:02}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"doc{j:03}.md").write_text(f"# Doc {j}\n" + "reference text\n" * 40)
    ws = root / "ws"
    (ws / ".pi" / "agents").mkdir(parents=True)
    (ws / ".pi" / "agents" / "_baseline.md").write_text(
        "---\ndocs: library/shared/\n---\nBaseline.\n"
    )
    (ws / "library" / "shared").mkdir(parents=True)
    (ws / "library" / "shared" / "_index.md").write_text("# Shared\n- a.md\n")
    for i in range(PERSONAS):
        d = ws / "library" / "personal" / f"p{i:02}"
        d.mkdir(parents=True)
        (d / "_index.md").write_text(f"# p{i:02} notes\n")
    return pack, ws


def _files(pack: Path, ws: Path) -> list[Path]:
    files = sorted(p for p in pack.rglob("*") if p.is_file())
    files += [ws / ".pi/agents/_baseline.md", ws / "library/shared/_index.md"]
    files += sorted((ws / "library" / "personal").rglob("_index.md"))
    return files


def _time(fn: Callable[[], object], rounds: int) -> float:
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000


def run(rounds: int) -> list[Result]:
    with tempfile.TemporaryDirectory() as tmp:
        pack_root, ws_root = build(Path(tmp))
        files = _files(pack_root, ws_root)
        workspace = Workspace(ws_root)
        names = [f"p{i:02}" for i in range(PERSONAS)]

        def floor() -> None:
            for path in files:
                with path.open("rb") as fh:
                    fh.read()

        def cold() -> None:
            pack = load_pack(pack_root, "official", expected_name="bench", digest=False)
            pack = type(pack)(
                source=pack.source,
                root=pack.root,
                manifest=pack.manifest,
                personas=pack.personas,
                files=pack.files,
                digest="rev-1",
            )
            resolver = Resolver()
            for name in names:
                resolver.resolve(pack, name, workspace)

        pack = load_pack(pack_root, "official", expected_name="bench")
        warm_resolver = Resolver()
        for name in names:
            warm_resolver.resolve(pack, name, workspace)

        def warm() -> None:
            for name in names:
                warm_resolver.resolve(pack, name, workspace)

        for fn in (floor, cold, warm):  # warm the OS caches equally
            fn()
        f = _time(floor, rounds)
        c = _time(cold, rounds)
        w = _time(warm, rounds)
    return [
        Result("resolve_cold_12x200", round(c, 3), "ms", round(f, 3), round(c / f, 2), None, None),
        Result(
            "resolve_warm_12x200",
            round(w, 3),
            "ms",
            round(f, 3),
            round(w / f, 2),
            "<= 1.2x",
            w / f <= 1.2,
        ),
    ]


def main() -> int:
    args = parse_args(__doc__.splitlines()[0] if __doc__ else "resolver latency")
    results = run(8 if args.quick else 30)
    emit(results, args.json)
    return 0 if all(r.ok is not False for r in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
