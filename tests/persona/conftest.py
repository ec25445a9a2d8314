"""Shared fixtures: a valid pack builder, an agent dir, a workspace, a service."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from persona_mind.persona import PersonaService, SessionContext
from persona_mind.testing._packs import write_pack
from tests.persona._wiring import persona_service

__all__ = ("write_pack",)


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
    return persona_service(agent_dir, catalog_dir=catalog)


@pytest.fixture
def make_ctx(workspace: Path) -> Callable[..., SessionContext]:
    """Build a session context in the workspace."""

    def make(session_id: str = "s1", **kw: object) -> SessionContext:
        return SessionContext(session_id=session_id, cwd=workspace, **kw)  # type: ignore[arg-type]

    return make
