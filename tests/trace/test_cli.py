"""``persona-mind trace``: views, filters, and exit status 2 with one clear stderr line for
a malformed or missing file — never a traceback (issue 2 acceptance: bad input)."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

from persona_mind.cli._trace import add_parser
from persona_mind.trace import TraceEvent, decode_line
from tests.trace._helpers import sample_events, write_trace

if TYPE_CHECKING:
    from pathlib import Path


def _parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="persona-mind")
    add_parser(parser.add_subparsers(dest="command", required=True))
    return parser.parse_args(["trace", *argv])


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    args = _parse(*argv)
    code = args.func(args)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def trace_file(tmp_path: Path) -> Path:
    return write_trace(tmp_path / "run.jsonl", sample_events())


def test_default_view_is_the_timeline(capsys: pytest.CaptureFixture[str], trace_file: Path) -> None:
    code, out, err = _run(capsys, str(trace_file))
    assert code == 0
    assert err == ""
    assert out.splitlines()[0].split()[:3] == ["ms", "actor", "event"]
    assert len(out.splitlines()) == 13


def test_filters_keep_the_file_clock(capsys: pytest.CaptureFixture[str], trace_file: Path) -> None:
    code, out, _ = _run(capsys, str(trace_file), "--actor", "reminder")
    assert code == 0
    (row,) = out.splitlines()[1:]
    assert row.split()[:3] == ["30.000", "reminder", "send"]


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--corr", "c3"], [("send", 3), ("drop", 3)]),
        (["--gen", "2"], [("send", 4)]),
        (["--event", "drop,restart"], [("drop", 3), ("restart", None)]),
        (["--event", "drop", "--event", "crash"], [("drop", 3), ("crash", None)]),
        (["--actor", "owner", "--event", "deliver"], [("deliver", 1), ("deliver", 2)]),
        (["--actor", "owner", "--actor", "reminder", "--gen", "2"], [("send", 4)]),
    ],
)
def test_json_output_of_filtered_events(
    capsys: pytest.CaptureFixture[str],
    trace_file: Path,
    argv: list[str],
    expected: list[tuple[str, int | None]],
) -> None:
    code, out, _ = _run(capsys, str(trace_file), "--json", *argv)
    assert code == 0
    events = [decode_line(line.encode()) for line in out.splitlines()]
    assert [(e.ev, e.id) for e in events] == expected


def test_mermaid_view(capsys: pytest.CaptureFixture[str], trace_file: Path) -> None:
    code, out, _ = _run(capsys, str(trace_file), "--mermaid", "--corr", "c1")
    assert code == 0
    assert out.splitlines()[0] == "sequenceDiagram"
    assert "    host->>owner: SessionStart #35;1" in out.splitlines()
    assert "reminder" not in out


def test_summary_views(capsys: pytest.CaptureFixture[str], trace_file: Path) -> None:
    code, out, _ = _run(capsys, str(trace_file), "--summary")
    assert code == 0
    assert out.startswith("12 events over 30.000 ms\n")
    code, out, _ = _run(capsys, str(trace_file), "--summary", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["restarts"] == {"store": 1}
    assert data["undelivered"] == [4]


def test_malformed_file_exits_2_with_one_line_naming_file_and_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = write_trace(
        tmp_path / "bad.jsonl", [*sample_events()[:3], '{"t":1,"ev":"send","actor":5}']
    )
    code, out, err = _run(capsys, str(path))
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1
    assert err.startswith(f"persona-mind trace: error: {path}:4: not a valid trace event: ")
    assert "$.actor" in err


def test_missing_file_exits_2_with_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, err = _run(capsys, str(tmp_path / "absent.jsonl"), "--mermaid")
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1
    assert "no such file" in err


def test_json_with_mermaid_is_refused(capsys: pytest.CaptureFixture[str], trace_file: Path) -> None:
    code, out, err = _run(capsys, str(trace_file), "--json", "--mermaid")
    assert (code, out) == (2, "")
    assert "cannot be combined" in err


@pytest.mark.parametrize(
    "argv",
    [
        ["--event", "teleport"],
        ["--event", "send,teleport"],
        ["--event", ","],
        ["--gen", "two"],
        ["--mermaid", "--summary"],
    ],
)
def test_bad_options_are_usage_errors_with_status_2(
    capsys: pytest.CaptureFixture[str], trace_file: Path, argv: list[str]
) -> None:
    with pytest.raises(SystemExit) as caught:
        _parse(str(trace_file), *argv)
    assert caught.value.code == 2
    assert "error:" in capsys.readouterr().err


def test_empty_file_and_empty_selection_say_so_and_succeed(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, trace_file: Path
) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    code, out, err = _run(capsys, str(empty))
    assert (code, out) == (0, "")
    assert "holds no events" in err
    code, out, err = _run(capsys, str(trace_file), "--actor", "nobody")
    assert (code, out) == (0, "")
    assert "no events match the filters (12 events in" in err


_MAIN = (
    "import argparse, sys\n"
    "from persona_mind.cli._trace import add_parser\n"
    "p = argparse.ArgumentParser(prog='persona-mind')\n"
    "add_parser(p.add_subparsers(dest='command', required=True))\n"
    "a = p.parse_args(sys.argv[1:])\n"
    "sys.exit(a.func(a))\n"
)


def _subprocess(*argv: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-c", _MAIN, "trace", *argv],
        input=stdin,
        capture_output=True,
        timeout=60,
        check=False,
    )


def test_a_real_process_on_a_malformed_file_exits_2_without_a_traceback(tmp_path: Path) -> None:
    path = write_trace(tmp_path / "bad.jsonl", ['{"t":1,"ev":"send","actor":"a"}', '{"t":1,"ev":'])
    done = _subprocess(str(path))
    assert done.returncode == 2
    assert done.stdout == b""
    assert b"Traceback" not in done.stderr
    assert (
        done.stderr.decode()
        .strip()
        .endswith("(a truncated last line means the writer was killed mid-write)")
    )
    assert f"{path}:2:".encode() in done.stderr


def test_a_real_process_reads_standard_input() -> None:
    lines = b"\n".join(
        [
            b'{"t":0.5,"ev":"send","actor":"a","id":1}',
            b'{"t":0.75,"ev":"deliver","actor":"a","id":1}',
        ]
    )
    done = _subprocess("-", "--summary", "--json", stdin=lines)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["events"] == 2
    assert data["per_actor"] == {"a": {"send": 1, "deliver": 1}}
    done = _subprocess("-", stdin=b"{oops}\n")
    assert done.returncode == 2
    assert b"<stdin>:1:" in done.stderr


def test_a_real_process_survives_a_closed_pipe(tmp_path: Path) -> None:
    events = [TraceEvent(t=i / 1000, ev="stop", actor=f"actor{i}") for i in range(2000)]
    path = write_trace(tmp_path / "big.jsonl", events)
    with subprocess.Popen(
        [sys.executable, "-c", _MAIN, "trace", str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as proc:
        assert proc.stdout is not None
        assert proc.stderr is not None
        proc.stdout.close()  # the reader is gone before the first write, like `| head -0`
        err = proc.stderr.read()
        assert proc.wait(timeout=60) == 0
    assert b"Traceback" not in err
    assert b"BrokenPipe" not in err
