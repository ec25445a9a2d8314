"""Adapting the Persona half's TeamSnapshot: identities, roles, prompts, declared tools."""

from __future__ import annotations

from pathlib import Path

from persona_mind.children import DEFAULT_CHILD_TOOLS, team_from_snapshot
from persona_mind.persona import TeamMember, TeamSnapshot


def member(name: str, role: str, tools: tuple[str, ...] = ()) -> TeamMember:
    return TeamMember(
        name=name,
        role=role,
        description=f"{name} d",
        identity=f"custom/p/{name}",
        system_prompt=f"PROMPT {name}",
        skills=(),
        tools=tools,
        model=None,
    )


def test_snapshot_becomes_a_child_team() -> None:
    """P-CHILD-11: declared built-ins are honoured, otherwise the read-only default."""
    snap = TeamSnapshot(
        pack_ref="custom/p",
        version="1.0.0",
        revision="r",
        root=Path("/x"),
        members=(
            member("lead", "generalist"),
            member("a", "specialist"),
            member("b", "specialist", ("read", "bash")),
        ),
    )
    team = team_from_snapshot(snap)
    assert team.pack == "custom/p"
    assert team.lead is not None
    assert team.lead.qualified_id == "custom/p/lead"
    assert [p.name for p in team.specialists] == ["a", "b"]
    a, b = team.specialists
    assert a.tools == DEFAULT_CHILD_TOOLS == ("read", "grep", "ls")
    assert b.tools == ("read", "bash")
    assert b.system_prompt == "PROMPT b"
    assert team.find("custom/p/a") is a
    assert team.find("a") is a
    assert team.find("zz") is None


def test_two_generalists_mean_no_lead() -> None:
    snap = TeamSnapshot(
        pack_ref="p",
        version="1",
        revision="r",
        root=Path("/x"),
        members=(member("g1", "generalist"), member("g2", "generalist")),
    )
    assert team_from_snapshot(snap).lead is None
