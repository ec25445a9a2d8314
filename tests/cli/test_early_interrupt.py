"""Ctrl-C in the first moments of ``persona-mind`` (issue 25 item 9): exit 130, no traceback.

The console script and ``python -m persona_mind`` enter through ``persona_mind._entry``,
which catches ``KeyboardInterrupt`` around the import of the CLI. To hit the import chain
itself — not a lucky moment — each run sets ``PYTHONPROFILEIMPORTTIME``: the interpreter
writes one stderr line as each module finishes importing, and the test sends SIGINT the
moment a chosen module of the chain is reported, while the rest of the chain is still
loading. The command is ``mcp`` on a stdin that stays open, so it never ends by itself.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(sys.executable).with_name("persona-mind")
GATES = ("persona_mind._entry", "persona_mind.errors", "persona_mind.cli._output", "argparse")


def _interrupt_after(command: list[str], gate: str, cwd: Path) -> tuple[int, str]:
    env = {**os.environ, "PYTHONPROFILEIMPORTTIME": "1", "PERSONA_MIND_RANKER": "lexical"}
    with subprocess.Popen(
        [*command, "mcp", "--agent-dir", str(cwd / "agent"), "--pi-command", "none"],
        cwd=cwd,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    ) as proc:
        assert proc.stderr is not None
        seen: list[str] = []
        for line in proc.stderr:
            seen.append(line)
            if line.split("|")[-1].strip() == gate:
                break
        else:
            raise AssertionError(f"{gate} was never imported:\n{''.join(seen)[-2000:]}")
        proc.send_signal(signal.SIGINT)
        rest = proc.stderr.read()
        assert proc.stdin is not None
        proc.stdin.close()
        return proc.wait(timeout=30), "".join(seen) + rest


@pytest.mark.parametrize("gate", GATES)
@pytest.mark.parametrize("how", ["script", "module"])
def test_sigint_while_the_cli_imports_exits_130_without_a_traceback(
    tmp_path: Path, gate: str, how: str
) -> None:
    if how == "script" and not SCRIPT.exists():
        pytest.skip("no persona-mind console script beside this Python")
    command = [str(SCRIPT)] if how == "script" else [sys.executable, "-m", "persona_mind"]
    rc, stderr = _interrupt_after(command, gate, tmp_path)
    assert "Traceback" not in stderr, stderr[-3000:]
    assert rc == 130, stderr[-3000:]
    assert "persona-mind: interrupted" in stderr
