"""Finding the test Pi: skip with a reason locally, fail under CI=true (issue 7, M-VERIFY-2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from persona_mind.testing import _pi


@pytest.fixture(autouse=True)
def _fresh_cache() -> None:
    _pi.find_pi.cache_clear()


def test_missing_pi_gives_a_reason_naming_the_install_script(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PERSONA_MIND_PI_NODE", raising=False)
    monkeypatch.delenv("PERSONA_MIND_PI_CLI", raising=False)
    monkeypatch.setenv("PERSONA_MIND_PI_CACHE", str(tmp_path))
    found = _pi.find_pi()
    assert not found
    assert isinstance(found, _pi.PiNotFound)
    assert "scripts/install-pi.sh" in found.reason


def test_old_node_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    node = tmp_path / "node"
    node.write_text("#!/bin/sh\necho v20.20.2\n")
    node.chmod(0o755)
    cli = tmp_path / "cli.js"
    cli.write_text("")
    monkeypatch.setenv("PERSONA_MIND_PI_NODE", str(node))
    monkeypatch.setenv("PERSONA_MIND_PI_CLI", str(cli))
    found = _pi.find_pi()
    assert isinstance(found, _pi.PiNotFound)
    assert "needs >= 22.19" in found.reason


def test_env_override_is_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    node = tmp_path / "node"
    node.write_text("#!/bin/sh\necho v22.19.0\n")
    node.chmod(0o755)
    cli = tmp_path / "cli.js"
    cli.write_text("")
    monkeypatch.setenv("PERSONA_MIND_PI_NODE", str(node))
    monkeypatch.setenv("PERSONA_MIND_PI_CLI", str(cli))
    found = _pi.find_pi()
    assert isinstance(found, _pi.PiInstall)
    assert found.argv == [str(node), str(cli)]
    assert found.node_version == "22.19.0"


@pytest.mark.parametrize(
    ("value", "required"), [("true", True), ("1", True), ("", False), ("false", False)]
)
def test_ci_makes_pi_required(monkeypatch: pytest.MonkeyPatch, value: str, required: bool) -> None:
    monkeypatch.setenv("CI", value)
    assert _pi.pi_required() is required
