"""Install hints name a command that works for how this copy was installed (issue 25 item 1).

persona-mind is not on a package index, so ``pip install 'persona-mind[mcp]'`` fails for
every user. The unit tests pin which command each install origin gets; the two slow tests
*run* the hint the way a user would: a wheel built from this checkout and an editable
checkout, each installed into a fresh venv, asked for its hint, the hint executed verbatim
in a shell, and the extra then imported. Dependencies come from the machine's configured
package indexes (the project itself never does: it is installed from the checkout).
"""

from __future__ import annotations

import json
import subprocess
import sys
import venv
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

from persona_mind.install import install_hint

ROOT = Path(__file__).resolve().parents[2]


class _Dist:
    def __init__(self, direct_url: dict[str, Any] | None) -> None:
        self._raw = None if direct_url is None else json.dumps(direct_url)

    def read_text(self, name: str) -> str | None:
        return self._raw if name == "direct_url.json" else None


def _as_installed(monkeypatch: pytest.MonkeyPatch, direct_url: dict[str, Any] | None) -> None:
    monkeypatch.setattr(metadata, "distribution", lambda _name: _Dist(direct_url))


def test_editable_checkout_gets_pip_install_e_of_the_checkout(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _as_installed(monkeypatch, {"url": tmp_path.as_uri(), "dir_info": {"editable": True}})
    hint = install_hint("mcp")
    assert hint == f"{sys.executable} -m pip install -e '{tmp_path}[mcp]'"


def test_wheel_gets_pip_install_of_the_wheel(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    wheel = tmp_path / "persona_mind-0.1.0-py3-none-any.whl"
    wheel.write_bytes(b"")
    _as_installed(monkeypatch, {"url": wheel.as_uri(), "archive_info": {}})
    assert install_hint("semantic") == f"{sys.executable} -m pip install '{wheel}[semantic]'"


def test_pipx_venv_gets_pipx_install_force(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _as_installed(monkeypatch, {"url": tmp_path.as_uri(), "dir_info": {}})
    monkeypatch.setattr(sys, "prefix", "/home/u/.local/pipx/venvs/persona-mind")
    assert install_hint("mcp") == f"pipx install --force '{tmp_path}[mcp]'"


@pytest.mark.parametrize(
    "direct_url",
    [None, {"url": "file:///gone/persona_mind-0.1.0-py3-none-any.whl", "archive_info": {}}],
)
def test_unknown_or_vanished_origin_lists_both_forms(
    monkeypatch: pytest.MonkeyPatch, direct_url: dict[str, Any] | None
) -> None:
    _as_installed(monkeypatch, direct_url)
    hint = install_hint("mcp")
    assert "pip install -e '.[mcp]'" in hint
    assert "pip install 'dist/persona_mind-X-py3-none-any.whl[mcp]'" in hint
    assert "persona-mind[mcp]" not in hint


def test_no_shipped_text_names_the_index_install() -> None:
    """README, docs and sources never tell a user to install the package from an index."""
    texts = [ROOT / "README.md", *(ROOT / "docs").rglob("*.md"), *(ROOT / "src").rglob("*.py")]
    offenders = [
        str(p.relative_to(ROOT))
        for p in texts
        if "'persona-mind[" in p.read_text() or "install persona-mind[" in p.read_text()
    ]
    assert offenders == []


def _venv(where: Path) -> Path:
    venv.EnvBuilder(with_pip=True).create(where)
    return where / "bin" / "python"


def _pip(python: Path, *args: str) -> None:
    subprocess.run([str(python), "-m", "pip", "install", "-q", *args], check=True, timeout=600)


def _hint_in(python: Path, extra: str) -> str:
    code = f"from persona_mind.install import install_hint; print(install_hint({extra!r}))"
    out = subprocess.run([str(python), "-c", code], check=True, capture_output=True, text=True)
    return out.stdout.strip()


def _run_hint(python: Path, hint: str) -> None:
    subprocess.run(hint, shell=True, check=True, timeout=900, capture_output=True)  # verbatim
    probe = "import mcp.server.stdio, mcp_types, jsonschema"
    subprocess.run([str(python), "-c", probe], check=True, timeout=60)


@pytest.mark.timeout(900)
def test_wheel_install_hint_runs_as_written(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(dist), str(ROOT)],
        check=True,
        timeout=600,
    )
    (wheel,) = dist.glob("persona_mind-*-py3-none-any.whl")
    python = _venv(tmp_path / "venv")
    _pip(python, str(wheel))
    hint = _hint_in(python, "mcp")
    assert hint == f"{python} -m pip install '{wheel}[mcp]'"
    _run_hint(python, hint)


@pytest.mark.timeout(900)
def test_editable_install_hint_runs_as_written(tmp_path: Path) -> None:
    python = _venv(tmp_path / "venv")
    _pip(python, "-e", str(ROOT))
    hint = _hint_in(python, "mcp")
    assert hint == f"{python} -m pip install -e '{ROOT}[mcp]'"
    _run_hint(python, hint)
