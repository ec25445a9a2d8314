"""The CLI as a newcomer meets it (issue 25, items 6, 8 and 9; P-CLI hints, --json answers).

Hints name commands of the face that prints them, usage errors answer on stdout under
``--json``, re-installing is not an error, and Ctrl-C while the parser is built is one line.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import persona_mind.cli as cli
from persona_mind.cli import _persona, main
from persona_mind.persona import PersonaNotFound


def test_pack_install_hint_names_a_cli_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Item 6: after `pack install` the CLI points at `persona default set`, not `/persona`."""
    agent = ["--agent-dir", str(tmp_path / "agent")]
    assert main(["pack", "install", "software-team", *agent]) == 0
    out = capsys.readouterr().out
    assert "`persona-mind persona default set official/software-team`" in out
    assert "/persona team select" not in out


def test_persona_list_without_a_pack_lists_installed_packs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Item 6: `persona list` needs no argument; it lists the installed packs."""
    agent = ["--agent-dir", str(tmp_path / "agent")]
    assert main(["pack", "install", "software-team", *agent]) == 0
    capsys.readouterr()
    assert main(["persona", "list", *agent, "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert [p["ref"] for p in answer["installed"]] == ["official/software-team"]


def test_unknown_persona_hint_names_the_cli_roster_command(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Item 6: a typed error naming `/persona-list` reaches the CLI user as `persona list`."""

    def refuse(_args: object) -> int:
        raise PersonaNotFound("team has no persona 'nosuch'; `/persona-list` shows the team")

    monkeypatch.setattr(_persona, "_run_list", refuse)
    assert main(["persona", "list"]) == 2
    err = capsys.readouterr().err
    assert "`persona-mind persona list` shows the team" in err
    assert "/persona-list" not in err


def test_reinstalling_a_pack_is_friendly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Item 9: installing what is installed says so and exits 0, no `Error`/refusal."""
    agent = ["--agent-dir", str(tmp_path / "agent")]
    assert main(["pack", "install", "software-team", *agent]) == 0
    capsys.readouterr()
    assert main(["pack", "install", "software-team", *agent]) == 0
    seen = capsys.readouterr()
    assert "already installed; nothing changed" in seen.out
    assert "`persona-mind pack update software-team`" in seen.out
    assert seen.err == ""


@pytest.mark.parametrize(
    "argv",
    [
        ["memory", "list", "--bogus", "--json"],
        ["--json", "memory", "list", "nosuchtier"],
    ],
)
def test_usage_errors_answer_json_on_stdout(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """Item 8: exit 2 from argparse still prints one `{"error": …}` document under --json."""
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    seen = capsys.readouterr()
    doc = json.loads(seen.out)
    assert doc["error"]["exitCode"] == 2
    assert "error:" in doc["error"]["message"]
    assert "usage:" in seen.err


def test_ctrl_c_while_the_parser_is_built_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Item 9: an interrupt in the first fraction of a second (imports, parser) is exit 130."""

    def interrupted() -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "build_parser", interrupted)
    assert main(["memory", "list"]) == 130
    assert capsys.readouterr().err == "persona-mind: interrupted\n"
