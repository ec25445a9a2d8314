"""The layer contracts' lists stay complete: the faces contract names every module that is
not a face, the kernel contract forbids every role actor, and ``runners/`` holds only the
child-process layer.

``lint-imports`` (``scripts/check.sh``) enforces the contracts in ``pyproject.toml``. Some
list modules by name (import-linter cannot say "the package minus two subpackages"), and a
list goes stale silently: a new top-level module could import a face, a new role actor
could be imported by the kernel, until someone adds it. These tests make that a decision.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import persona_mind
import persona_mind.actors
import persona_mind.runners

REPO = Path(__file__).resolve().parents[1]
PROCESS_CONTRACT = "The child-process layer drives no actors and knows no domain, feature or face"
KERNEL_CONTRACT = "The kernel imports no role, feature, domain, runner, storage, facade or face"
FACADE_CONTRACT = "Actors and features import no facade"
ROOT_CONTRACT = "Features and actors do not import the runtime"
COMPOSITION = frozenset({"persona_mind.runtime", "persona_mind._composition"})
"""The composition root: the runtime facade and the module that builds its actor tree."""

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
        "persona_mind.children",
        "persona_mind.cli",
        "persona_mind.bridge",
        "persona_mind.mcp",
    }
)
"""What the process layer must never name: it is driven by the ChildRunner actor and
speaks only messages, child errors and the clock; nor the facades and faces."""

FACES = frozenset({"persona_mind.cli", "persona_mind.bridge", "persona_mind.mcp"})
FACES_CONTRACT = "cli, bridge and mcp are faces: nothing imports them"
FACE_ENTRY = frozenset({"persona_mind._entry", "persona_mind.__main__"})
"""The one product module that may name a face: ``python -m persona_mind`` is the CLI."""

FACADES = frozenset(
    {
        "persona_mind.children",
        "persona_mind._headless",
        "persona_mind._memory",
        "persona_mind._memory_sync",
        "persona_mind._team",
        "persona_mind._consolidate",
    }
)


def _contracts() -> list[dict[str, Any]]:
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    return list(config["tool"]["importlinter"]["contracts"])


def _contract(name: str) -> dict[str, Any]:
    (found,) = [c for c in _contracts() if c["name"] == name]
    return dict(found)


def test_type_checking_imports_count() -> None:
    """Issue 22: a name imported only for type checking still crosses the layer, so the
    contracts are checked with those imports (``messages/`` names no domain type at all)."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert config["tool"]["importlinter"]["exclude_type_checking_imports"] is False


def test_no_contract_has_an_exception() -> None:
    for contract in _contracts():
        assert "ignore_imports" not in contract, contract["name"]


def test_runners_is_the_process_layer_only() -> None:
    """The whole ``runners`` package is the process contract's source and it forbids every
    upper layer, facade and face; no consult or round-table code lives there."""
    contract = _contract(PROCESS_CONTRACT)
    assert contract["type"] == "forbidden"
    assert contract["source_modules"] == ["persona_mind.runners"]
    forbidden = set(contract["forbidden_modules"])
    assert forbidden >= UPPER_LAYERS | FACADES, sorted(UPPER_LAYERS | FACADES - forbidden)
    root = Path(persona_mind.runners.__file__).parent
    leftovers = sorted(
        p.stem for p in root.glob("*.py") if any(w in p.stem for w in ("consult", "roundtable"))
    )
    assert not leftovers, leftovers


def test_messages_may_not_name_runners() -> None:
    """The messages contract forbids the whole ``runners`` package, not a few modules."""
    (messages,) = [c for c in _contracts() if c["source_modules"] == ["persona_mind.messages"]]
    assert "persona_mind.runners" in messages["forbidden_modules"]


def test_the_kernel_may_name_no_role_actor() -> None:
    """Every module and package beside ``actors/kernel`` is a role the kernel may not name."""
    contract = _contract(KERNEL_CONTRACT)
    assert contract["source_modules"] == ["persona_mind.actors.kernel"]
    root = Path(persona_mind.actors.__file__).parent
    roles = {f"persona_mind.actors.{p.stem}" for p in root.glob("*.py") if p.stem != "__init__"}
    roles |= {f"persona_mind.actors.{p.parent.name}" for p in root.glob("*/__init__.py")}
    roles.discard("persona_mind.actors.kernel")
    forbidden = set(contract["forbidden_modules"])
    assert roles <= forbidden, f"add to the kernel contract: {sorted(roles - forbidden)}"
    assert forbidden >= FACADES | FACES


def test_features_and_actors_do_not_import_the_composition_root() -> None:
    """Issue 22: a feature is built from its ports, never handed the runtime; neither the
    features (and their port, ``persona_mind.feature``) nor any actor name the root."""
    contract = _contract(ROOT_CONTRACT)
    assert contract["type"] == "forbidden"
    assert set(contract["source_modules"]) == {
        "persona_mind.features",
        "persona_mind.feature",
        "persona_mind.actors",
    }
    assert set(contract["forbidden_modules"]) == COMPOSITION


def test_a_contract_that_forbids_the_runtime_forbids_the_whole_root() -> None:
    """The tree is built in ``_composition``: forbidding ``runtime`` alone would leave a way
    round it."""
    for contract in _contracts():
        forbidden = set(contract.get("forbidden_modules", ()))
        if forbidden & COMPOSITION:
            assert forbidden >= COMPOSITION, contract["name"]


def test_actors_and_features_import_no_facade() -> None:
    assert set(_contract(FACADE_CONTRACT)["forbidden_modules"]) == FACADES


def _top_level_modules() -> set[str]:
    root = Path(persona_mind.__file__).parent
    names = {f"persona_mind.{p.stem}" for p in root.glob("*.py") if p.stem != "__init__"}
    names |= {f"persona_mind.{p.parent.name}" for p in root.glob("*/__init__.py")}
    return names


def test_no_module_but_the_entry_point_may_import_a_face() -> None:
    """Every top-level module and package other than the faces and the entry point
    (``persona_mind._entry``, the console script, and ``__main__``, which runs it) is a source
    of the faces contract, so none of them can import a face."""
    contract = _contract(FACES_CONTRACT)
    assert contract["type"] == "forbidden"
    assert set(contract["forbidden_modules"]) == FACES
    sources = set(contract["source_modules"])
    modules = _top_level_modules()
    assert modules >= FACES
    missing = sorted(modules - FACES - FACE_ENTRY - sources)
    assert not missing, f"add to the faces contract's sources: {missing}"
    assert sources <= modules, sorted(sources - modules)  # no stale names either


FACADES_ONLY_CONTRACT = "Faces import public facades only"
PRIVATE_HOMES = ("mind", "persona", "actors", "storage", "features", "embedding")
"""The packages whose private modules (a path segment starting with ``_``) no face names."""


def _private_modules() -> set[str]:
    root = Path(persona_mind.__file__).parent
    found: set[str] = set()
    for home in PRIVATE_HOMES:
        for path in (root / home).rglob("*.py"):
            parts = path.relative_to(root.parent).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            if any(part.startswith("_") for part in parts[1:]):
                found.add(".".join(parts))
    return found


def test_faces_may_name_no_private_module() -> None:
    """Issue 22 item 6: every private module of the domain, the actors, the features, the
    storage engine and the model edge is forbidden to the faces, so a new one is a decision
    (its public names go through a facade or a package's ``__init__``)."""
    contract = _contract(FACADES_ONLY_CONTRACT)
    assert contract["type"] == "forbidden"
    assert set(contract["source_modules"]) == FACES
    assert contract["allow_indirect_imports"] is True  # the facades may use private modules
    forbidden = set(contract["forbidden_modules"])
    privates = _private_modules()
    missing = sorted(privates - forbidden)
    assert not missing, f"add to the '{FACADES_ONLY_CONTRACT}' contract: {missing}"
    assert forbidden <= privates, sorted(forbidden - privates)  # no stale names either
