"""Shared fixtures: a clean environment (no user agent dir, no tracing) for every test."""

from __future__ import annotations

from pathlib import Path

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--soak`` runs the long fault-injection soaks (tests/fault); registered here so it
    works from the repository root."""
    parser.addoption(
        "--soak",
        action="store_true",
        default=False,
        help="run the long fault-injection soaks (tests/fault)",
    )


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Never touch the user's ~/.pi or trace file from a test."""
    monkeypatch.delenv("PERSONA_MIND_TRACE", raising=False)
    # Mind ranks lexically unless a test opts in (tests/mind/test_hybrid*.py): the semantic
    # model loads in a background thread, and a test must not depend on when it lands.
    monkeypatch.setenv("PERSONA_MIND_RANKER", "lexical")
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent-dir"))
