"""``persona-mind mcp`` outside the protocol: a missing extra is one line, not a traceback."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from persona_mind.cli import main


def test_missing_extra_names_the_install_command(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "jsonschema", None)  # as if the [mcp] extra were absent
    code = main(["mcp", "--agent-dir", str(tmp_path / "agent"), "--pi-command", "none"])
    err = capsys.readouterr().err
    assert code == 2
    assert "persona-mind[mcp]" not in err  # not on an index: the hint names this copy's source
    assert "pip install" in err
    assert "[mcp]" in err
    assert "jsonschema" in err
    assert not (tmp_path / "agent").exists()  # nothing started before the check
