"""Shared fixtures: a valid pack builder, an agent dir, a workspace, a service."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from persona_mind.persona import PersonaService, SessionContext

LEAD = """---
name: lead
role: generalist
description: Leads the team.
docs:
  - library/personal/lead/
packDocs:
  - shared/
---
You lead the team.
"""

SPEC = """---
name: {name}
role: specialist
description: The {name} specialist.
docs:
  - library/personal/{name}/
packDocs:
  - {name}/notes.md
---
You are {name}.
"""


def write_pack(
    root: Path,
    name: str = "demo",
    specialists: tuple[str, ...] = ("alpha", "beta"),
    version: str = "1.0.0",
) -> Path:
    """A valid schema-2 pack at ``root`` (lead + specialists with references)."""
    (root / "agents").mkdir(parents=True)
    (root / "references" / "shared").mkdir(parents=True)
    (root / "pack.yaml").write_text(
        f"schema: 2\nname: {name}\nversion: {version}\ndescription: The {name} team.\n",
        encoding="utf-8",
    )
    (root / "agents" / "lead.md").write_text(LEAD, encoding="utf-8")
    (root / "references" / "shared" / "_index.md").write_text("# Shared refs\n", encoding="utf-8")
    for spec in specialists:
        (root / "agents" / f"{spec}.md").write_text(SPEC.format(name=spec), encoding="utf-8")
        (root / "references" / spec).mkdir()
        (root / "references" / spec / "notes.md").write_text(f"{spec} notes\n", encoding="utf-8")
    return root


@pytest.fixture
def pack_dir(tmp_path: Path) -> Path:
    """A fresh valid pack called ``demo``."""
    return write_pack(tmp_path / "packs" / "demo")


@pytest.fixture
def catalog(tmp_path: Path) -> Path:
    """A test catalog with ``demo`` 1.0.0 and ``other`` 1.0.0."""
    root = tmp_path / "catalog"
    write_pack(root / "demo")
    write_pack(root / "other", name="other", specialists=("gamma",))
    return root


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """An empty project folder."""
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws


@pytest.fixture
def agent_dir(tmp_path: Path) -> Path:
    """An empty Pi agent dir."""
    return tmp_path / "agent"


@pytest.fixture
def service(agent_dir: Path, catalog: Path) -> PersonaService:
    """A service over the test catalog."""
    return PersonaService(agent_dir, catalog_dir=catalog)


@pytest.fixture
def make_ctx(workspace: Path) -> Callable[..., SessionContext]:
    """Build a session context in the workspace."""

    def make(session_id: str = "s1", **kw: object) -> SessionContext:
        return SessionContext(session_id=session_id, cwd=workspace, **kw)  # type: ignore[arg-type]

    return make
