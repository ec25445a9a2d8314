"""Every ``runners`` module is on one side of the layer contracts (issue 10 scope 4), and the
faces contract names every module that is not a face.

``lint-imports`` (``scripts/check.sh``) enforces "Actors and features import from runners
only the process layer" as a ``forbidden`` contract that lists the runners modules outside
the process layer (now only the public ``runners.child`` facade), and "The child-process
layer drives no actors …" with the process layer as its sources. A list goes stale
silently: a new runners module would be importable by actors until someone adds it. These
tests make that a decision — each module under ``src/persona_mind/runners`` is either in
:data:`PROCESS_LAYER` or a module the contracts forbid — and keep the contracts' lists in
step. Likewise "bridge and cli are faces: nothing imports them" lists its sources by name
(import-linter cannot say "the package minus two subpackages"), so a new top-level module
must be added to it.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import persona_mind
import persona_mind.runners

REPO = Path(__file__).resolve().parents[1]
CONTRACT = "Actors and features import from runners only the process layer"
PROCESS_CONTRACT = "The child-process layer drives no actors and knows no domain, feature or face"

PROCESS_LAYER = frozenset(
    {
        "persona_mind.runners",
        "persona_mind.runners._child_backend",
        "persona_mind.runners._child_events",
        "persona_mind.runners._child_lazy",
        "persona_mind.runners._child_pi",
        "persona_mind.runners._child_process",
    }
)
"""What an actor may name in ``runners/``: the backend interface, process launch and the
stop ladder, the real pi and its lazy wrapper (docs/architecture.md, Layers) — every
runners module but the ``runners.child`` facade. The consult and round-table
rules are Persona's (``persona/_consult.py``, ``persona/_roundtable.py``), their glue the
children feature's (``features/_consult.py``, ``features/_roundtable_call.py``), and
``run_roundtable`` sits beside its coordinator (``actors/roundtable.py``)."""

UPPER_LAYERS = frozenset(
    {
        "persona_mind.actors",
        "persona_mind.features",
        "persona_mind.persona",
        "persona_mind.mind",
        "persona_mind.runtime",
        "persona_mind.storage",
        "persona_mind.sim",
        "persona_mind.testing",
        "persona_mind.cli",
        "persona_mind.bridge",
    }
)
"""What the process layer must never name: it is driven by the ChildRunner actor and
speaks only messages, child errors and the clock; nor the faces."""

FACES = frozenset({"persona_mind.cli", "persona_mind.bridge"})
FACES_CONTRACT = "bridge and cli are faces: nothing imports them"
FACE_ENTRY = frozenset({"persona_mind.__main__"})
"""The one product module that may name a face: ``python -m persona_mind`` is the CLI."""


def _contracts() -> list[dict[str, Any]]:
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    return list(config["tool"]["importlinter"]["contracts"])


def _contract(name: str) -> dict[str, Any]:
    (found,) = [c for c in _contracts() if c["name"] == name]
    return dict(found)


def _runners_modules() -> set[str]:
    root = Path(persona_mind.runners.__file__).parent
    names = {"persona_mind.runners"}
    for path in root.glob("*.py"):
        if path.stem != "__init__":
            names.add(f"persona_mind.runners.{path.stem}")
    return names


def test_every_runners_module_is_process_layer_or_forbidden_to_actors() -> None:
    contract = _contract(CONTRACT)
    assert contract["type"] == "forbidden"
    assert contract["source_modules"] == ["persona_mind.actors", "persona_mind.features"]
    assert "ignore_imports" not in contract
    forbidden = set(contract["forbidden_modules"])
    modules = _runners_modules()
    unclassified = sorted(modules - PROCESS_LAYER - forbidden)
    assert not unclassified, f"add to PROCESS_LAYER or to the contract: {unclassified}"
    assert not PROCESS_LAYER & forbidden
    assert forbidden <= modules, sorted(forbidden - modules)  # no stale names either


def test_the_process_layer_names_no_upper_layer_and_no_face() -> None:
    """The process-layer contract's sources are exactly :data:`PROCESS_LAYER`, and it
    forbids every upper layer and every runners face the actors' contract forbids."""
    contract = _contract(PROCESS_CONTRACT)
    assert contract["type"] == "forbidden"
    assert "ignore_imports" not in contract
    assert set(contract["source_modules"]) == PROCESS_LAYER - {"persona_mind.runners"}
    forbidden = set(contract["forbidden_modules"])
    assert forbidden >= UPPER_LAYERS, sorted(UPPER_LAYERS - forbidden)
    faces = set(_contract(CONTRACT)["forbidden_modules"])
    assert faces <= forbidden, sorted(faces - forbidden)


def test_consult_and_roundtable_code_is_out_of_runners() -> None:
    """docs/architecture.md "Not yet" item 3: no consult or round-table module in runners/."""
    leftovers = sorted(
        m for m in _runners_modules() if "consult" in m or "roundtable" in m or "_team" in m
    )
    assert not leftovers, leftovers


def test_messages_may_not_name_runners() -> None:
    """The messages contract forbids the whole ``runners`` package, not a few modules."""
    (messages,) = [c for c in _contracts() if c["source_modules"] == ["persona_mind.messages"]]
    assert "persona_mind.runners" in messages["forbidden_modules"]


def test_runners_is_the_process_layer_and_the_child_facade() -> None:
    """docs/architecture.md "Not yet" item 3: the faces moved to ``cli/`` and ``bridge/``;
    what is left in ``runners/`` is the process layer and the ``runners.child`` facade."""
    assert _runners_modules() - PROCESS_LAYER == {"persona_mind.runners.child"}


def _top_level_modules() -> set[str]:
    root = Path(persona_mind.__file__).parent
    names = {f"persona_mind.{p.stem}" for p in root.glob("*.py") if p.stem != "__init__"}
    names |= {f"persona_mind.{p.parent.name}" for p in root.glob("*/__init__.py")}
    return names


def test_no_module_but_the_entry_point_may_import_a_face() -> None:
    """Every top-level module and package other than the faces and ``persona_mind.__main__``
    is a source of the faces contract, so none of them can import ``cli`` or ``bridge``."""
    contract = _contract(FACES_CONTRACT)
    assert contract["type"] == "forbidden"
    assert "ignore_imports" not in contract
    assert set(contract["forbidden_modules"]) == FACES
    sources = set(contract["source_modules"])
    modules = _top_level_modules()
    assert modules >= FACES
    missing = sorted(modules - FACES - FACE_ENTRY - sources)
    assert not missing, f"add to the faces contract's sources: {missing}"
    assert sources <= modules, sorted(sources - modules)  # no stale names either
