"""The extension's pure parts (card clipping, sanitizing, frame reading) under Node 22.

Node 22 runs the TypeScript directly (type stripping), which also proves the extension uses
only erasable TypeScript syntax. Needs the Node from scripts/install-pi.sh (skip without it,
fail under CI=true).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from persona_mind.testing._pi import require_pi

HERE = Path(__file__).resolve().parent
EXTENSION = HERE.parents[1] / "pi-extension" / "persona-mind"


@pytest.mark.e2e
def test_extension_pure_parts_pass_their_node_checks() -> None:
    pi = require_pi()
    proc = subprocess.run(
        [str(pi.node), "--no-warnings", str(HERE / "extension_checks.mjs"), str(EXTENSION)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("OK ")
    assert int(proc.stdout.split()[1]) >= 30
