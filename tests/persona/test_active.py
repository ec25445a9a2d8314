"""Active persona mode and direct commands (groups P-ACTIVE, AMB-15, DEC-3)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from persona_mind.messages.host import CommandCall, CustomEntry, ToolCall
from persona_mind.persona import (
    ACTIVE_ENTRY,
    RESERVED_COMMANDS,
    CommandOutcome,
    PersonaService,
    SessionContext,
    run_command,
    run_tool,
)
from persona_mind.persona.packs._lifecycle import prepare_install
from tests.persona._wiring import persona_service
from tests.persona.conftest import write_pack

Ctx = Callable[..., SessionContext]


def _run(
    svc: PersonaService, ctx: SessionContext, args: str, name: str = "persona"
) -> CommandOutcome:
    return run_command(svc, ctx, CommandCall(name=name, args=args))


@pytest.fixture
def bound(service: PersonaService, make_ctx: Ctx) -> tuple[PersonaService, SessionContext]:
    """A session bound to official/demo."""
    prepare_install(service.store, "demo").execute()
    ctx = make_ctx()
    service.open_session(ctx)
    _run(service, ctx, "team select demo")
    return service, ctx


def test_use_with_query_activates_and_sends_the_query(
    bound: tuple[PersonaService, SessionContext],
) -> None:
    """P-ACTIVE-3/6: `/persona use <name> [query]`; the query is answered as the persona."""
    svc, ctx = bound
    out = _run(svc, ctx, "use alpha what do you think?")
    assert out.effects.user_message == "what do you think?"
    assert out.effects.identity_changed
    assert out.effects.entries[0][0] == ACTIVE_ENTRY
    assert svc.active_identity("s1") == "official/demo/alpha"  # DEC-3 pack-qualified


def test_use_without_query_sends_nothing(bound: tuple[PersonaService, SessionContext]) -> None:
    """Activation alone starts no turn."""
    svc, ctx = bound
    assert _run(svc, ctx, "use alpha").effects.user_message is None


def test_prompt_is_injected_every_turn_until_cleared(
    bound: tuple[PersonaService, SessionContext],
) -> None:
    """P-ACTIVE-1/2/9/11/12/14: the adapter stores the selection and injects the prompt into
    the active chat every turn (no child); /persona clear exits."""
    svc, ctx = bound
    assert svc.prompt_injection(ctx).sections == ()
    _run(svc, ctx, "use beta")
    for _ in range(3):
        assert "You are beta." in svc.prompt_injection(ctx).sections[0]
    assert "beta" in _run(svc, ctx, "status").result.text
    out = _run(svc, ctx, "clear")
    assert out.effects.entries == ((ACTIVE_ENTRY, {"persona": None}),)
    assert svc.prompt_injection(ctx).sections == ()
    assert svc.active_identity("s1") is None


def test_direct_alias_activates(bound: tuple[PersonaService, SessionContext]) -> None:
    """P-ACTIVE-5: `/<persona> [query]`."""
    svc, ctx = bound
    names = {s.name for s in svc.command_specs(ctx)}
    assert {"persona", "persona-list", "lead", "alpha", "beta"} <= names
    out = _run(svc, ctx, "explain", name="lead")
    assert out.effects.user_message == "explain"
    assert svc.active_identity("s1") == "official/demo/lead"


def test_reserved_and_colliding_names_are_not_aliases(
    service: PersonaService, tmp_path: Path, agent_dir: Path, workspace: Path
) -> None:
    """P-ACTIVE-4/5, AMB-15: reserved/colliding names route only via /persona use."""
    catalog = tmp_path / "cat2"
    write_pack(catalog / "odd", name="odd", specialists=("mind", "persona-list", "review"))
    svc = persona_service(agent_dir, catalog_dir=catalog)
    prepare_install(svc.store, "odd").execute()
    ctx = SessionContext(session_id="x", cwd=workspace, other_commands=frozenset({"review"}))
    svc.open_session(ctx)
    _run(svc, ctx, "team select odd")
    names = {s.name for s in svc.command_specs(ctx)}
    assert "mind" not in names
    assert "review" not in names
    assert "persona-list" in names
    assert "lead" in names
    listing = _run(svc, ctx, "", name="persona-list").result.text
    assert "/persona use mind (reserved)" in listing
    assert "/persona use review (name collides)" in listing
    plan = run_tool(
        svc,
        ctx,
        ToolCall(
            call_id="1",
            name="persona_pack",
            arguments={"action": "team", "op": "select", "pack": "odd"},
        ),
    )
    assert "only with /persona use: mind, persona-list, review" in plan.result.text  # P-PACK-24
    _run(svc, ctx, "use mind")
    assert svc.active_identity("x") == "official/odd/mind"
    assert {
        "mind",
        "persona-mind",
        "persona-list",
        "persona-roundtable",
        "persona",
    } <= RESERVED_COMMANDS


def test_stale_direct_command_fails_with_list_guidance(
    bound: tuple[PersonaService, SessionContext],
) -> None:
    """P-ACTIVE-7/8: a name left over from an old team fails and points at /persona-list."""
    svc, ctx = bound
    _run(svc, ctx, "pack install other")
    _run(svc, ctx, "team select other")
    out = _run(svc, ctx, "", name="alpha")
    assert out.result.level == "error"
    assert "/persona-list" in out.result.text
    assert svc.active_identity("s1") is None


def test_team_switch_clears_the_active_persona_and_requests_reload(
    bound: tuple[PersonaService, SessionContext],
) -> None:
    """P-BINDING-10: a switch re-registers commands and reloads."""
    svc, ctx = bound
    _run(svc, ctx, "use alpha")
    _run(svc, ctx, "pack install other")
    out = _run(svc, ctx, "team select other")
    assert out.result.reload
    assert out.effects.reload
    assert out.effects.commands_changed
    assert out.effects.entries == ((ACTIVE_ENTRY, {"persona": None}),)  # branch forgets it
    assert svc.active_identity("s1") is None


def test_refresh_keeps_a_persona_that_still_exists(
    bound: tuple[PersonaService, SessionContext],
) -> None:
    """Refresh keeps persona mode when the persona survives in the new snapshot."""
    svc, ctx = bound
    _run(svc, ctx, "use alpha")
    _run(svc, ctx, "team refresh")
    assert svc.active_identity("s1") == "official/demo/alpha"


def test_active_persona_is_restored_from_branch_entries(
    bound: tuple[PersonaService, SessionContext],
) -> None:
    """The persisted entry restores persona mode on resume and per branch."""
    svc, ctx = bound
    entry_data = _run(svc, ctx, "use beta").effects.entries[0][1]
    svc.close_session("s1")
    state = svc.open_session(
        ctx, reason="resume", entries=(CustomEntry(custom_type=ACTIVE_ENTRY, data=entry_data),)
    )
    assert state.active is not None
    assert state.active.name == "beta"
    changed = svc.on_branch(ctx, (CustomEntry(custom_type=ACTIVE_ENTRY, data={"persona": None}),))
    assert changed
    assert svc.active_identity("s1") is None


def test_unknown_persona_points_to_the_list(bound: tuple[PersonaService, SessionContext]) -> None:
    """PersonaNotFound says where to look."""
    svc, ctx = bound
    out = _run(svc, ctx, "use nobody")
    assert out.result.level == "error"
    assert "/persona-list" in out.result.text


def test_no_subagent_guidance_in_direct_prompts(
    bound: tuple[PersonaService, SessionContext],
) -> None:
    """P-ACTIVE-13: direct prompts never carry raw `subagent` guidance."""
    svc, ctx = bound
    for name in ("lead", "alpha", "beta"):
        _run(svc, ctx, f"use {name}")
        prompt = svc.prompt_injection(ctx).sections[0]
        assert not re.search(r"\bsubagents?\b", prompt, re.IGNORECASE)


def test_persona_list_shows_roles_libraries_and_skills(
    bound: tuple[PersonaService, SessionContext],
) -> None:
    """P-ACTIVE-10: leads with [G], descriptions, library paths."""
    svc, ctx = bound
    text = _run(svc, ctx, "", name="persona-list").result.text
    assert text.splitlines()[1].startswith("[G] lead")
    assert "library/personal/alpha/" in text
    assert "alpha/notes.md" in text


def test_workspace_change_makes_old_direct_commands_stale(
    service: PersonaService, tmp_path: Path
) -> None:
    """P-ACTIVE-8: after a workspace change a leftover alias fails with /persona-list guidance."""
    old_ws = tmp_path / "old"
    (old_ws / ".pi" / "agents").mkdir(parents=True)
    (old_ws / ".pi" / "agents" / "helper.md").write_text(
        "---\nname: helper\nrole: specialist\n---\nHelp.\n"
    )
    ctx = SessionContext(session_id="w", cwd=old_ws)
    assert "helper" in service.open_session(ctx).aliases
    new_ws = tmp_path / "new"
    new_ws.mkdir()
    ctx.cwd = new_ws
    state = service.rescope(ctx, keep_active=False)
    assert "helper" not in state.aliases
    out = _run(service, ctx, "", name="helper")
    assert out.result.level == "error"
    assert "/persona-list" in out.result.text
