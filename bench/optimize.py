"""Consolidation: apply of a 4-operation plan and inspection of a 10,000-fact store.

Rows (each against a floor measured in the same run, on the same store):

* ``apply_4ops`` — ``Consolidator.apply`` of a staged 4-operation plan (memory -> history ->
  store locks, fingerprint CAS, pure step, receipt written *prepared* durably, store
  written durably, receipt settled by its unsynced marker — docs/storage.md) on a
  1,000-fact project store, against the
  durable-mutation floor: one ``FileStore.mutate`` of the same store making an equivalent
  change (four rows superseded, four appended). Target <= 2x.
* ``inspect_10k`` — ``Consolidator.inspect`` of a 10,000-fact store (strict read,
  fingerprint, classification of every row, sort, one page, candidate pairs) in steady
  state (each row's safety scan remembered per content, as when paging), against a strict
  snapshot read of it (fresh engine: read, decode, fingerprint). Target <= 3x.
* ``inspect_10k_cold`` — the first inspection (every row scanned once), informational.
* ``apply_4ops_10x_store`` — ``apply_4ops`` on a 10,000-fact store, informational: the
  receipt's extra durable write is a fixed cost, so the ratio shrinks as the store
  (and the floor's own write) grows.

``--json`` prints exactly one JSON object; otherwise a table.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):  # run as `python bench/optimize.py`
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._report import Result, emit, median_of
from persona_mind.actors.optimizer._consolidator import Consolidator
from persona_mind.mind import MindScope, ProjectRef
from persona_mind.mind._model import Fact
from persona_mind.mind.facts._rules import row_key, validate_draft
from persona_mind.mind.optimize._plans import PlanRegistry
from persona_mind.storage import FileStore, Layout

PERSONA = "official/software-team/architect"


def _facts(n: int) -> tuple[Fact, ...]:
    out = []
    for i in range(n):
        draft = validate_draft(
            "convention",
            f"convention {i}: run the {i % 13} checks before merging into module {i % 97}",
            ["build", f"m{i % 7}"],
        )
        out.append(
            Fact(
                id=row_key("project", draft.identity, PERSONA),
                kind="convention",
                text=draft.text,
                tags=draft.tags,
                persona=PERSONA,
                recordedAt=float(i),
                lastSeenAt=float(i),
            )
        )
    return tuple(out)


def _setup(root: Path, n: int) -> tuple[Consolidator, MindScope]:
    scope = MindScope(root / "agent", PERSONA, ProjectRef(str(root / "repo")))
    engine = FileStore(Layout(root / "agent"))
    engine.mutate(scope.fact_target("project"), lambda _old: _facts(n))
    return Consolidator(engine), scope


def bench_apply(root: Path, samples: int, facts: int) -> tuple[float, float]:
    cons, scope = _setup(root, facts)
    target = scope.fact_target("project")
    engine = cons.engine
    round_ = [0]

    def one_apply() -> float:
        rows = [f for f in engine.read(target).entries if f.status == "active"]  # type: ignore[union-attr]
        ops = [
            {"sources": [rows[2 * k].id, rows[2 * k + 1].id], "text": f"merged {round_[0]}-{k}"}
            for k in range(4)
        ]
        round_[0] += 1
        staged = cons.stage(scope, "project", ops, now=engine.wall())
        plan = PlanRegistry().add(
            owner="bench",
            tier="project",
            store=staged.store,
            persona=PERSONA,
            fingerprint=staged.fingerprint,
            replacements=staged.replacements,
            now=engine.wall(),
        )
        start = time.perf_counter()
        cons.apply(plan, scope)
        return time.perf_counter() - start

    def one_floor() -> float:
        tag = round_[0]
        round_[0] += 1

        def step(rows: tuple[Fact, ...]) -> tuple[Fact, ...]:
            live = [f for f in rows if f.status == "active"][:4]
            gone = {f.id for f in live}
            new = tuple(
                Fact(
                    id=f"m_floor{tag}_{k}",
                    kind="convention",
                    text=f"floor {tag}-{k}",
                    persona=PERSONA,
                    recordedAt=1.0,
                    lastSeenAt=1.0,
                )
                for k in range(4)
            )
            return (*(f for f in rows if f.id not in gone), *new)

        start = time.perf_counter()
        engine.mutate(target, step)
        return time.perf_counter() - start

    apply_t: list[float] = []
    floor_t: list[float] = []
    for _ in range(samples):  # interleaved: the same disk state for both
        apply_t.append(one_apply())
        floor_t.append(one_floor())
    return sorted(apply_t)[len(apply_t) // 2], sorted(floor_t)[len(floor_t) // 2]


def bench_inspect(root: Path, samples: int, facts: int) -> tuple[float, float, float]:
    _, scope = _setup(root, facts)
    target = scope.fact_target("project")
    layout = Layout(root / "agent")

    def floor() -> float:
        start = time.perf_counter()
        stored = FileStore(layout).read_stored(target)
        assert stored is not None
        _ = stored.fingerprint
        return time.perf_counter() - start

    def inspect(c: Consolidator) -> float:
        start = time.perf_counter()
        c.inspect(scope, "project", now=0.0, limit=100)
        return time.perf_counter() - start

    cold = Consolidator(FileStore(layout))
    cold_t = inspect(cold)

    def warm() -> float:
        fresh = Consolidator(FileStore(layout))  # cold decode, like the floor
        fresh.safe = cold.safe  # the scan memo of the same Optimizer
        return inspect(fresh)

    return median_of(samples, warm), median_of(samples, floor), cold_t


def _row(name: str, value: float, floor: float, target: float | None) -> Result:
    ratio = value / floor
    return Result(
        name=name,
        value=round(value * 1000, 3),
        unit="ms",
        floor=round(floor * 1000, 3),
        ratio=round(ratio, 2),
        target=None if target is None else f"<= {target}x",
        ok=None if target is None else ratio <= target,
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--quick", action="store_true", help="fewer samples (smoke run)")
    ap.add_argument("--apply-facts", type=int, default=1_000, help="store size for apply")
    ap.add_argument("--inspect-facts", type=int, default=10_000, help="store size for inspect")
    args = ap.parse_args(argv)
    samples = 5 if args.quick else 15
    with tempfile.TemporaryDirectory() as tmp:
        apply_v, apply_f = bench_apply(Path(tmp) / "a", samples, args.apply_facts)
        big_v, big_f = bench_apply(Path(tmp) / "b", samples, 10 * args.apply_facts)
        insp_v, insp_f, cold = bench_inspect(Path(tmp) / "i", samples, args.inspect_facts)
    k = args.inspect_facts // 1000
    results = [
        _row("apply_4ops", apply_v, apply_f, 2.0),
        _row("apply_4ops_10x_store", big_v, big_f, None),
        _row(f"inspect_{k}k", insp_v, insp_f, 3.0),
        _row(f"inspect_{k}k_cold", cold, insp_f, None),
    ]
    emit(results, args.json)
    return 0 if all(r.ok is not False for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
