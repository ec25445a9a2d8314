"""``persona-mind memory optimize …`` over real files, text and ``--json``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from persona_mind.cli import build_parser

PERSONA = "official/software-team/architect"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    args = build_parser().parse_args(list(argv))  # the real parser: --json at every level
    code = args.func(args)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_inspect_stage_apply_history_undo(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = tmp_path / "work" / "app"
    (repo / ".git").mkdir(parents=True)
    base = ["memory", "--agent-dir", str(tmp_path / "agent"), "--cwd", str(repo)]
    base += ["--persona", PERSONA]
    ids = []
    for text in ("tests need docker", "the tests need docker running"):
        code, out, _ = run(capsys, *base, "--json", "remember", "gotcha", text)
        assert code == 0
        ids.append(json.loads(out)["fact"]["id"])
    code, out, _ = run(capsys, *base, "--json", "optimize", "inspect", "stm")
    assert code == 0
    page = json.loads(out)["data"]
    assert sorted(page["ids"]) == sorted(ids)
    assert page["matched"] == 2
    ops = json.dumps([{"sources": ids, "text": "Integration tests need Docker running"}])
    code, out, _ = run(capsys, *base, "--json", "optimize", "stage", "stm", "--ops", ops)
    assert code == 0
    staged = json.loads(out)["data"]
    assert staged["fingerprint"] == page["fingerprint"]
    code, out, err = run(
        capsys, *base, "optimize", "apply", "stm", "--ops", ops, "--fingerprint", "0" * 64
    )
    assert code != 0
    assert "plan.stale" in err
    code, out, _ = run(
        capsys,
        *base,
        "--json",
        "optimize",
        "apply",
        "stm",
        "--ops",
        ops,
        "--fingerprint",
        page["fingerprint"],
    )
    assert code == 0
    receipt = json.loads(out)["data"]["receipt"]
    code, out, _ = run(capsys, *base, "optimize", "history", "stm")
    assert receipt in out
    code, out, _ = run(
        capsys,
        *base,
        "optimize",
        "apply",
        "stm",
        "--ops",
        ops,
        "--fingerprint",
        page["fingerprint"],
    )
    assert code != 0  # applied once: the store moved on (and the sources are superseded)
    code, out, _ = run(capsys, *base, "optimize", "undo", receipt)
    assert code == 0
    assert "Undid consolidation" in out
    code, out, _ = run(capsys, *base, "list", "stm")
    assert "tests need docker" in out
    assert "Integration tests" not in out
