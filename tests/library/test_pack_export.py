"""``persona-mind pack export --format claude-code``: Claude Code agent files from a pack."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from persona_mind.cli import main
from persona_mind.persona import load_pack
from persona_mind.persona.packs._export import export_claude_code
from persona_mind.storage import DurablePackFiles
from persona_mind.testing import write_pack


def frontmatter(path: Path) -> tuple[dict[str, str], str]:
    text = path.read_text(encoding="utf-8")
    assert text.startswith("---\n")
    head, _, body = text[4:].partition("\n---\n")
    data = yaml.safe_load(head)
    assert isinstance(data, dict)
    return data, body


@pytest.fixture
def agent(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    agent = tmp_path / "agent"
    assert main(["pack", "install", "software-team", "--agent-dir", str(agent)]) == 0
    capsys.readouterr()
    return agent


def test_every_persona_becomes_an_agent_file(
    agent: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "proj" / ".claude" / "agents"
    code = main(["pack", "export", "software-team", "--agent-dir", str(agent), "--out", str(out)])
    assert code == 0
    files = sorted(p.name for p in out.iterdir())
    assert "architect.md" in files
    assert "tech-lead.md" in files
    meta, body = frontmatter(out / "architect.md")
    assert meta["name"] == "architect"
    assert "software-team" in meta["description"]
    assert "architect" in body
    lead, _ = frontmatter(out / "tech-lead.md")
    assert "Leads the team" in lead["description"]
    assert main(["pack", "export", "software-team", "--agent-dir", str(agent),
                 "--out", str(out)]) == 0  # fmt: skip
    assert "unchanged" in capsys.readouterr().out


def test_a_differing_file_is_not_overwritten_without_force(
    agent: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "agents"
    out.mkdir()
    (out / "architect.md").write_text("my own agent\n", encoding="utf-8")
    args = ["pack", "export", "software-team", "--agent-dir", str(agent), "--out", str(out)]
    assert main(args) == 1
    assert "nothing was written" in capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir()) == ["architect.md"]
    assert main([*args, "--force"]) == 0
    assert frontmatter(out / "architect.md")[0]["name"] == "architect"


def test_tools_model_and_yaml_unsafe_descriptions_map(tmp_path: Path) -> None:
    """Pi tools map to Claude Code names, the model to an alias; YAML stays valid."""
    src = write_pack(tmp_path / "src", name="odd", specialists=("alpha",))
    agent_file = src / "agents" / "alpha.md"
    agent_file.write_text(
        "---\nname: alpha\nrole: specialist\n"
        'description: "Reads: code\\n# and --- more"\n'
        "tools: [read, grep, find, webfetch]\nmodel: anthropic/claude-sonnet-4-5\n"
        "docs:\n  - library/personal/alpha/\npackDocs:\n  - alpha/notes.md\n---\nYou are alpha.\n",
        encoding="utf-8",
    )

    pack = load_pack(src, "custom")
    report = export_claude_code(DurablePackFiles(), pack, tmp_path / "out")
    meta, body = frontmatter(tmp_path / "out" / "alpha.md")
    assert meta["description"].startswith("Reads: code # and --- more")  # one line (15.5)
    assert meta["tools"] == "Read, Grep, Glob"
    assert meta["model"] == "sonnet"
    assert body.strip() == "You are alpha."
    assert any("webfetch" in n for n in report.notes)


def test_json_lists_the_files(
    agent: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "agents"
    args = ["pack", "export", "software-team", "--agent-dir", str(agent), "--out", str(out)]
    assert main([*args, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert sorted(Path(p).name for p in doc["written"]) == sorted(p.name for p in out.iterdir())
    assert doc["unchanged"] == []
