"""The CLI a scripter expects (issue 17, scope 4): pipes, help, exit codes, hints, PATH."""

from __future__ import annotations

import argparse
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from persona_mind.cli import build_parser, main
from persona_mind.cli._output import all_parsers
from persona_mind.testing import fake_pi_command
from persona_mind.testing._fake_pi import SCRIPT_ENV

REPO = Path(__file__).resolve().parents[2]


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "persona_mind", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "work" / "app"
    (root / ".git").mkdir(parents=True)
    return root


def _closed_pipe_run(*args: str) -> subprocess.CompletedProcess[bytes]:
    """Run the CLI with stdout a pipe whose reader is already gone (like `| head -1` that quit)."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return subprocess.run(
            [sys.executable, "-m", "persona_mind", *args],
            stdout=write_end,
            stderr=subprocess.PIPE,
            timeout=120,
            check=False,
        )
    finally:
        os.close(write_end)


@pytest.mark.parametrize(
    "argv",
    [
        ["pack", "list"],
        ["pack", "list", "--json"],
        ["--help"],
        ["memory", "list", "--json"],
    ],
)
def test_a_closed_pipe_ends_the_command_quietly(tmp_path: Path, argv: list[str]) -> None:
    """`persona-mind … | head -1`: no traceback, exit status 0 (the reader chose to stop)."""
    agent = ["--agent-dir", str(tmp_path / "agent")]
    if argv == ["--help"]:
        full = argv
    elif argv[0] == "memory":
        full = ["memory", *agent, "--cwd", str(tmp_path), *argv[1:]]
        assert _cli("memory", *agent, "--cwd", str(tmp_path), "remember", "x").returncode == 0
    else:
        full = [*argv, *agent]
    proc = _closed_pipe_run(*full)
    assert b"Traceback" not in proc.stderr, proc.stderr.decode()
    assert b"BrokenPipe" not in proc.stderr
    assert proc.returncode == 0


def test_head_dash_1_on_a_real_shell_pipe_exits_cleanly(tmp_path: Path) -> None:
    """The acceptance example verbatim: the demo's long output piped into `head -1`."""
    command = (
        f"set -o pipefail; {sys.executable} -m persona_mind demo "
        f"--agent-dir {tmp_path / 'agent'} | head -1"
    )
    proc = subprocess.run(
        ["bash", "-c", command], capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "== persona-mind demo (offline, simulated session) ==\n"
    assert "Traceback" not in proc.stderr


def test_every_argument_of_every_command_has_help() -> None:
    missing = []
    for parser in all_parsers(build_parser()):
        for action in parser._actions:
            if not isinstance(action, argparse._SubParsersAction):
                if not action.help and action.dest not in ("help", "version"):
                    missing.append(f"{parser.prog}: {action.option_strings or action.dest}")
            else:
                missing += [
                    f"{parser.prog} {choice.dest}"
                    for choice in action._choices_actions
                    if not choice.help
                ]
    assert not missing, missing


def test_python_dash_m_persona_mind_is_the_cli() -> None:
    proc = _cli("--version")
    assert proc.returncode == 0
    assert proc.stdout.startswith("persona-mind ")


def test_json_is_accepted_before_and_after_the_subcommand(
    tmp_path: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["memory", "--agent-dir", str(tmp_path / "agent"), "--cwd", str(project)]
    assert main(["--json", *base, "remember", "a"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert main([*base, "--json", "remember", "b"]) == 0
    second = json.loads(capsys.readouterr().out)
    assert main([*base, "remember", "c", "--json"]) == 0
    third = json.loads(capsys.readouterr().out)
    assert [d["fact"]["text"] for d in (first, second, third)] == ["a", "b", "c"]


def test_memory_scope_options_also_work_after_the_action(
    tmp_path: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    agent = tmp_path / "agent"
    assert (
        main(["memory", "remember", "late", "--agent-dir", str(agent), "--cwd", str(project)]) == 0
    )
    capsys.readouterr()
    assert main(["memory", "--agent-dir", str(agent), "--cwd", str(project), "list"]) == 0
    assert "late" in capsys.readouterr().out
    assert any(agent.rglob("*.json"))


def test_remember_text_with_the_kind_as_an_option_says_tier_and_expiry(
    tmp_path: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["memory", "--agent-dir", str(tmp_path / "agent"), "--cwd", str(project)]
    assert main([*base, "remember", "The build needs ninja", "--kind", "gotcha"]) == 0
    out = capsys.readouterr().out
    assert "Saved gotcha" in out
    assert "short-term memory (STM) of this project" in out
    assert "expires 20" in out
    assert "persona-mind memory promote m_" in out  # the way to keep it, as a CLI command
    assert main([*base, "remember", "Ship on Fridays", "--kind", "objective"]) == 0
    out = capsys.readouterr().out
    assert "this project's long-term memory; kept until forgotten" in out


def test_remember_in_home_without_a_persona_names_the_cli_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    code = main(
        ["memory", "--agent-dir", str(tmp_path / "a"), "--cwd", str(tmp_path), "remember", "x"]
    )
    err = capsys.readouterr().err
    assert code == 1
    assert "tier.required" in err
    assert "--tier shared" in err
    assert "pass tier 'shared' explicitly" not in err  # the tool-call wording is replaced


def test_pack_hints_name_cli_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    agent = ["--agent-dir", str(tmp_path / "agent")]
    assert main(["pack", "install", "software-team", *agent]) == 0
    assert main(["pack", "fork", "software-team", "mine", *agent]) == 0
    capsys.readouterr()
    assert main(["pack", "create", "mine", *agent]) == 1
    err = capsys.readouterr().err
    assert "`persona-mind pack edit" in err
    assert "/persona pack" not in err


def test_a_gated_command_without_yes_exits_3_and_changes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    agent = ["--agent-dir", str(tmp_path / "agent")]
    assert main(["pack", "install", "software-team", *agent]) == 0
    assert main(["pack", "uninstall", "software-team", *agent]) == 3
    assert "Nothing has changed" in capsys.readouterr().out
    assert (tmp_path / "agent" / "persona" / "official" / "software-team").is_dir()


def test_roundtable_finds_pi_on_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without --pi the children run the `pi` on PATH (here: a `pi` that is the fake pi)."""
    from persona_mind.cli._children import fake_script, load_team  # noqa: PLC0415

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    pi = bin_dir / "pi"
    argv = " ".join(f"'{a}'" for a in fake_pi_command())
    pi.write_text(f'#!/bin/sh\nexec {argv} "$@"\n', encoding="utf-8")
    pi.chmod(pi.stat().st_mode | stat.S_IEXEC)
    team = load_team("software-team", tmp_path / "agent", tmp_path)
    script = tmp_path / "script.json"
    script.write_text(json.dumps(fake_script(team, query="Queue or cron?")), encoding="utf-8")
    monkeypatch.setenv(SCRIPT_ENV, str(script))
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    code = main(
        [
            "roundtable",
            "Queue or cron?",
            "--model",
            "fake/m",
            "--agent-dir",
            str(tmp_path / "agent"),
        ]
    )
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert captured.out.startswith("## Perspectives")


def test_roundtable_without_pi_anywhere_says_how_to_get_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    assert main(["roundtable", "q", "--agent-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "no pi" in err
    assert "install-pi.sh" in err
