"""The sidecar as a real process: stdin/stdout frames, stray prints, EOF, the CLI (issue 7)."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from persona_mind.cli import _bridge

STUB = f"{Path(__file__).with_name('stub_runtime.py')}:StubRuntime"


def _run(frames: list[dict[str, object]], **env: str) -> subprocess.CompletedProcess[bytes]:
    data = b"".join(json.dumps(f).encode() + b"\n" for f in frames)
    return subprocess.run(
        [sys.executable, "-m", "persona_mind.bridge.sidecar"],
        input=data,
        capture_output=True,
        timeout=60,
        env={**os.environ, "PERSONA_MIND_SIDECAR_RUNTIME": STUB, **env},
        check=False,
    )


def test_stray_prints_go_to_stderr_and_eof_exits_zero() -> None:
    proc = _run(
        [
            {"type": "hello", "protocol": 1},
            {"type": "request", "id": 1, "method": "ping", "params": "x"},
        ],
        STUB_RUNTIME_PRINT="1",
    )
    assert proc.returncode == 0, proc.stderr
    frames = [json.loads(line) for line in proc.stdout.splitlines()]  # every line is a frame
    assert [f["type"] for f in frames].count("ready") == 1  # ping is served even before it
    assert {"type": "response", "id": 1, "result": "x", "error": None} in frames
    assert b"STRAY PRINT FROM THE RUNTIME" in proc.stderr
    assert b"STRAY" not in proc.stdout


def test_runtime_start_failure_exits_one_with_an_error_frame() -> None:
    proc = _run([{"type": "hello", "protocol": 1}], STUB_RUNTIME_FAIL_START="1")
    assert proc.returncode == 1
    [frame] = [json.loads(line) for line in proc.stdout.splitlines()]
    assert frame["type"] == "error"
    assert frame["code"] == "failed"


def test_bad_runtime_spec_is_reported() -> None:
    proc = _run([{"type": "hello", "protocol": 1}], PERSONA_MIND_SIDECAR_RUNTIME="nocolon")
    assert proc.returncode == 1
    frame = json.loads(proc.stdout.splitlines()[0])
    assert "bad runtime spec 'nocolon'" in frame["message"]


def _cli(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    _bridge.add_parser(parser.add_subparsers())
    return parser.parse_args(list(argv))


def test_pi_extension_path_prints_the_checkout_directory(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = _cli("pi-extension", "path")
    assert args.func(args) == 0
    path = Path(capsys.readouterr().out.strip())
    assert (path / "package.json").is_file()
    assert json.loads((path / "package.json").read_text())["pi"]["extensions"] == [
        "./persona-mind/index.ts"
    ]


def test_pi_extension_path_missing_says_what_to_do(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(_bridge, "extension_dir", lambda: None)
    args = _cli("pi-extension", "path")
    assert args.func(args) == 1
    assert "not part of this installation" in capsys.readouterr().err


def test_sidecar_subcommand_is_wired() -> None:
    args = _cli("sidecar")
    assert args.func is _bridge._run_sidecar


def test_real_runtime_hello_then_shutdown_exits_promptly(tmp_path: Path) -> None:
    """Regression: a shutdown that arrives while the real runtime starts must not hang."""
    data = b'{"type":"hello","protocol":1}\n{"type":"request","id":1,"method":"shutdown"}\n'
    env = {k: v for k, v in os.environ.items() if k != "PERSONA_MIND_SIDECAR_RUNTIME"}
    proc = subprocess.run(
        [sys.executable, "-m", "persona_mind.bridge.sidecar"],
        input=data,
        capture_output=True,
        timeout=60,
        env={**env, "PI_CODING_AGENT_DIR": str(tmp_path / "agent")},
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.splitlines()[0]) == {
        "type": "response",
        "id": 1,
        "result": None,
        "error": None,
    }
