"""scripts/check.sh does what README says when npm is missing (issue 17, scope 5).

The script runs in a scratch copy whose `.venv` tools are stubs that record their calls, with
the real `scripts/install-pi.sh`, an empty Pi cache and a PATH without npm: locally the check
goes on (the end-to-end tests then skip with the reason); under CI=true it fails.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
TOOLS = ("python", "ruff", "mypy", "lint-imports", "deptry", "pytest")


@pytest.fixture
def scratch(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "scripts").mkdir(parents=True)
    for name in ("check.sh", "install-pi.sh"):
        shutil.copy2(REPO / "scripts" / name, root / "scripts" / name)
    bin_dir = root / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    for tool in TOOLS:
        stub = bin_dir / tool
        stub.write_text(f'#!/bin/sh\necho "{tool} $*" >> "{root / "calls.log"}"\n')
        stub.chmod(0o755)
    return root


def _run(root: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    no_npm = root / "no-npm-bin"
    no_npm.mkdir(exist_ok=True)
    for tool in ("bash", "sh", "dirname", "mkdir", "cat", "rm", "mv", "touch", "printf"):
        found = shutil.which(tool)
        if found and not (no_npm / tool).exists():
            (no_npm / tool).symlink_to(found)
    env = {
        "PATH": str(no_npm),
        "HOME": str(root),
        "PERSONA_MIND_PI_CACHE": str(root / "empty-cache"),
        **extra,
    }
    return subprocess.run(
        ["bash", str(root / "scripts" / "check.sh"), "-q"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_without_npm_the_check_goes_on_and_says_why(scratch: Path) -> None:
    proc = _run(scratch)
    assert proc.returncode == 0, proc.stderr
    assert "npm is required" in proc.stderr
    assert "the end-to-end tests will skip" in proc.stderr
    calls = (scratch / "calls.log").read_text().splitlines()
    assert calls[-6:-4] == ["ruff check .", "ruff format --check ."]
    tools = [c.split()[0] for c in calls][-4:]
    assert tools == ["mypy", "lint-imports", "deptry", "pytest"]
    assert calls[-1] == "pytest -q -q"


def test_without_npm_under_ci_the_check_fails(scratch: Path) -> None:
    proc = _run(scratch, CI="true")
    assert proc.returncode == 1
    assert "CI=true needs them" in proc.stderr
    assert "pytest" not in (scratch / "calls.log").read_text()


def test_quick_tier_skips_pi_install_and_end_to_end_tests(scratch: Path) -> None:
    """`check.sh --quick` (issue 25, item 10): unit + integration only, no Node/Pi install."""
    proc = subprocess.run(
        ["bash", str(scratch / "scripts" / "check.sh"), "--quick"],
        env={"PATH": "/usr/bin:/bin", "HOME": str(scratch), "CI": "true"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "install-pi" not in proc.stderr
    calls = (scratch / "calls.log").read_text().splitlines()
    assert calls[-1] == "pytest -q -m not e2e --ignore=tests/e2e"
    assert [c.split()[0] for c in calls][-5:] == [
        "ruff",
        "mypy",
        "lint-imports",
        "deptry",
        "pytest",
    ]


def test_npm_runs_without_its_update_notice(scratch: Path) -> None:
    """install-pi.sh turns npm's update notifier off (issue 25, item 10)."""
    fake = scratch / "fake-npm-bin"
    fake.mkdir()
    log = scratch / "npm.log"
    npm = fake / "npm"
    npm.write_text(f'#!/bin/sh\necho "$npm_config_update_notifier $*" >> "{log}"\nexit 1\n')
    npm.chmod(0o755)
    subprocess.run(
        ["bash", str(scratch / "scripts" / "install-pi.sh")],
        env={
            "PATH": f"{fake}:/usr/bin:/bin",
            "HOME": str(scratch),
            "PERSONA_MIND_PI_CACHE": str(scratch / "empty-cache"),
        },
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    line = log.read_text().splitlines()[0]
    assert line.startswith("false install --no-update-notifier"), line
