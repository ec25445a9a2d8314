"""Packaging (issue 17, scope 8): licence and metadata, no undeclared imports."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_persona_mind_testing_imports_without_pytest() -> None:
    """pytest is a test extra: importing the shipped helpers must not need it."""
    code = (
        "import sys; sys.modules['pytest'] = None\n"  # any `import pytest` now raises
        "import persona_mind.testing as t\n"
        "print(t.ManualClock.__name__)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ManualClock"


def test_license_file_and_metadata_agree() -> None:
    meta = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert meta["license"] == {"text": "MIT"}
    assert (REPO / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")
    assert "License :: OSI Approved :: MIT License" in meta["classifiers"]
    assert meta["urls"]
    assert any(c.startswith("Programming Language :: Python :: 3.11") for c in meta["classifiers"])


def test_check_script_runs_deptry_and_ci_runs_the_check() -> None:
    """README's test command (scripts/check.sh) runs deptry, and .ci/run runs that command."""
    assert ".venv/bin/deptry ." in (REPO / "scripts" / "check.sh").read_text(encoding="utf-8")
    assert "./scripts/check.sh" in (REPO / ".ci" / "run").read_text(encoding="utf-8")
