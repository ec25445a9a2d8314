"""Shared output for the benchmarks: a table, or with --json one JSON object.

Every benchmark measures its floor in the same run (this machine is noisy; only ratios
are stable) and reports ``{"results": [{name, value, unit, floor, ratio, target, ok}]}``.
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections.abc import Callable
from dataclasses import asdict, dataclass

__all__ = ("Result", "emit", "median_of", "parse_args")


@dataclass
class Result:
    """One benchmark line. ``ok`` is None when there is no target to judge."""

    name: str
    value: float
    unit: str
    floor: float | None
    ratio: float | None
    target: str | None
    ok: bool | None


def parse_args(description: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--quick", action="store_true", help="fewer iterations (smoke run)")
    return parser.parse_args()


def median_of(samples: int, measure: Callable[[], float]) -> float:
    """The median of ``samples`` measurements (robust against a noisy neighbour)."""
    return statistics.median(measure() for _ in range(samples))


def emit(results: list[Result], as_json: bool) -> None:
    if as_json:
        print(json.dumps({"results": [asdict(r) for r in results]}))
        return
    width = max(len(r.name) for r in results)
    for r in results:
        floor = f"{r.floor:10.2f}" if r.floor is not None else " " * 10
        ratio = f"{r.ratio:6.2f}x" if r.ratio is not None else "       "
        verdict = {True: "ok", False: "MISS", None: ""}[r.ok]
        print(
            f"{r.name:<{width}}  {r.value:10.2f} {r.unit:<8} floor {floor}  {ratio}  "
            f"target {r.target or '-':<10} {verdict}"
        )
