"""`pi install "$(persona-mind pi-extension path)"` makes Pi load the bridge (issue 7, scope 4)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from .conftest import WAIT, PiEnv

pytestmark = pytest.mark.e2e


def test_pi_install_of_the_printed_path_loads_the_extension(pienv: PiEnv) -> None:
    path = subprocess.run(
        [sys.executable, "-m", "persona_mind.runners.cli", "pi-extension", "path"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    installed = subprocess.run(
        [*pienv.pi.argv, "install", path],
        env=pienv.env,
        cwd=pienv.cwd,
        capture_output=True,
        text=True,
        timeout=WAIT,
        check=False,
    )
    assert installed.returncode == 0, installed.stderr
    settings = json.loads((pienv.root / "agent" / "settings.json").read_text())
    assert len(settings["packages"]) == 1
    # No -e: Pi finds the extension through settings.json "packages" and its package.json.
    run = subprocess.run(
        [*pienv.pi.argv, "--no-session", "-p", "hi"],
        env=pienv.env,
        cwd=pienv.cwd,
        capture_output=True,
        text=True,
        timeout=WAIT,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert "stub_echo" in pienv.fake.tool_names(-1)
    assert "STUB-MEMORY-1" in pienv.fake.system_prompt(-1)
