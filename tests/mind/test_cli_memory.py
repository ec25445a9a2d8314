"""``persona-mind memory``: the demo path over real files (remember → inject → recall → promote)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from persona_mind.cli import build_parser


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    args = build_parser().parse_args(list(argv))
    code = args.func(args)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "work" / "app"
    (root / ".git").mkdir(parents=True)
    return root


def test_demo_remember_inject_recall_promote(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, repo: Path
) -> None:
    base = [
        "memory",
        "--agent-dir",
        str(tmp_path / "agent"),
        "--cwd",
        str(repo),
        "--persona",
        "official/software-team/architect",
    ]
    code, out, _ = run(
        capsys,
        *base,
        "--json",
        "remember",
        "gotcha",
        "The integration tests need Docker running",
        "--tag",
        "tests",
    )
    assert code == 0
    fid = json.loads(out)["fact"]["id"]
    code, out, _ = run(capsys, *base, "inject", "why do the integration tests fail")
    assert code == 0
    assert "Docker running" in out
    assert "<persona-mind-memory>" in out
    code, out, _ = run(capsys, *base, "recall", "docker")
    assert fid in out
    code, out, _ = run(capsys, *base, "promote", fid)
    assert code == 0
    assert "Promoted to project" in out
    code, out, _ = run(capsys, *base, "list", "project")
    assert "Docker running" in out
    files = sorted(
        p.relative_to(tmp_path / "agent").as_posix() for p in (tmp_path / "agent").rglob("*.json")
    )
    assert any(f.startswith("persona-mind/memory/project/") for f in files)


def test_refusal_exit_code_and_rule(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, repo: Path
) -> None:
    base = ["memory", "--agent-dir", str(tmp_path / "agent"), "--cwd", str(repo)]
    code, _, err = run(capsys, *base, "remember", "fact", "x")
    assert code == 1
    assert "kind.unknown" in err
    assert not (tmp_path / "agent" / "persona-mind").exists() or not list(
        (tmp_path / "agent").rglob("*.json")
    )


def test_backlog_from_cli(capsys: pytest.CaptureFixture[str], tmp_path: Path, repo: Path) -> None:
    base = ["memory", "--agent-dir", str(tmp_path / "agent"), "--cwd", str(repo), "--json"]
    code, out, _ = run(capsys, *base, "backlog", "add", "write docs")
    assert code == 0
    iid = json.loads(out)["item"]["id"]
    code, out, _ = run(capsys, *base, "backlog", "take", iid)
    assert code == 0
    assert json.loads(out)["outcome"] == "changed"
    _code, out, _ = run(capsys, *base, "backlog", "list")
    assert iid in [item["id"] for item in json.loads(out)["items"]]
