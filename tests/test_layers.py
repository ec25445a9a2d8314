"""Every ``runners`` module is on one side of the actors' contract (issue 10 scope 4).

``lint-imports`` (``scripts/check.sh``) enforces "Actors import from runners only the
process layer" as a ``forbidden`` contract that lists every runners module outside the
process layer. A list goes stale silently: a new runners module would be importable by
actors until someone adds it. This test makes that a decision — each module under
``src/persona_mind/runners`` is either in :data:`PROCESS_LAYER` or in the contract.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import persona_mind.runners

REPO = Path(__file__).resolve().parents[1]
CONTRACT = "Actors import from runners only the process layer"

PROCESS_LAYER = frozenset(
    {
        "persona_mind.runners",
        "persona_mind.runners._child_backend",
        "persona_mind.runners._child_events",
        "persona_mind.runners._child_launch",
        "persona_mind.runners._child_pi",
        "persona_mind.runners._child_process",
        "persona_mind.runners._roundtable_run",
    }
)
"""What an actor may name in ``runners/``: the backend interface, process launch and the
stop ladder, the real pi, and the ``run_roundtable`` entry (docs/architecture.md, Layers)."""


def _contract() -> dict[str, Any]:
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    (found,) = [c for c in contracts if c["name"] == CONTRACT]
    return dict(found)


def _runners_modules() -> set[str]:
    root = Path(persona_mind.runners.__file__).parent
    names = {"persona_mind.runners"}
    for path in root.glob("*.py"):
        if path.stem != "__init__":
            names.add(f"persona_mind.runners.{path.stem}")
    return names


def test_every_runners_module_is_process_layer_or_forbidden_to_actors() -> None:
    contract = _contract()
    assert contract["type"] == "forbidden"
    assert contract["source_modules"] == ["persona_mind.actors"]
    assert "ignore_imports" not in contract
    forbidden = set(contract["forbidden_modules"])
    modules = _runners_modules()
    unclassified = sorted(modules - PROCESS_LAYER - forbidden)
    assert not unclassified, f"add to PROCESS_LAYER or to the contract: {unclassified}"
    assert not PROCESS_LAYER & forbidden
    assert forbidden <= modules, sorted(forbidden - modules)  # no stale names either


def test_messages_may_not_name_runners() -> None:
    """The messages contract forbids the whole ``runners`` package, not a few modules."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    (messages,) = [c for c in contracts if c["source_modules"] == ["persona_mind.messages"]]
    assert "persona_mind.runners" in messages["forbidden_modules"]
