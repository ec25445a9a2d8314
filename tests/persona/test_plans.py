"""Chat-first management: plans, confirmation rules, reload hand-off (group P-CHAT-PLAN)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from persona_mind.messages.host import CommandCall, ToolCall
from persona_mind.persona import (
    PERSONA_PACK_TOOL,
    LocalPlans,
    PersonaService,
    SessionContext,
    ToolOutcome,
    run_command,
    run_tool,
)
from tests.persona._wiring import persona_service

Ctx = Callable[..., SessionContext]


def _tool(svc: PersonaService, ctx: SessionContext, **args: Any) -> ToolOutcome:
    return run_tool(svc, ctx, ToolCall(call_id="c", name="persona_pack", arguments=args))


def _plan(svc: PersonaService, ctx: SessionContext, **args: Any) -> str:
    out = _tool(svc, ctx, **args)
    assert not out.result.is_error, out.result.text
    plan_id = out.result.details["planId"]
    assert isinstance(plan_id, str)
    return plan_id


def _confirm(svc: PersonaService, ctx: SessionContext, plan_id: str) -> ToolOutcome:
    return _tool(svc, ctx, action="confirm", planId=plan_id)


def test_tool_schema_covers_lifecycle_team_default_migrate() -> None:
    """P-CHAT-PLAN-2, P-MIGRATE-9, P-BINDING-8: one tool covers the lifecycle, team, default,
    migrate; P-PACK-23: no public plan/validate actions."""
    actions = set(PERSONA_PACK_TOOL.parameters["properties"]["action"]["enum"])
    assert {
        "list",
        "status",
        "install",
        "update",
        "uninstall",
        "fork",
        "create",
        "edit",
        "preview",
        "apply",
        "cancel",
        "delete",
        "team",
        "default",
        "migrate",
        "confirm",
    } <= actions
    assert "plan" not in actions
    assert "validate" not in actions


def test_the_only_tool_is_persona_pack(service: PersonaService) -> None:
    """P-HOST-7: no public subagent tool, workflow language or job platform — one tool."""
    assert [t.name for t in service.tool_specs()] == ["persona_pack"]


def test_read_only_actions_answer_at_once(service: PersonaService, make_ctx: Ctx) -> None:
    """P-CHAT-PLAN-3: no plan for list/status/doctor."""
    ctx = make_ctx()
    for args in (
        {"action": "list"},
        {"action": "status"},
        {"action": "team"},
        {"action": "default"},
        {"action": "migrate", "op": "status"},
        {"action": "doctor"},
        {"action": "team", "op": "list"},
    ):
        out = _tool(service, ctx, **args)
        assert not out.result.is_error, (args, out.result.text)
        assert "planId" not in (out.result.details or {})
    assert isinstance(service.plans, LocalPlans)
    assert service.plans.outstanding("s1") == ()


def test_a_change_returns_a_plan_and_changes_nothing(
    service: PersonaService, make_ctx: Ctx
) -> None:
    """P-CHAT-PLAN-4."""
    ctx = make_ctx()
    out = _tool(service, ctx, action="install", pack="demo")
    assert "Nothing has changed" in out.result.text
    assert out.result.details["planId"].startswith("pp-")
    assert service.store.installed_refs() == []


def test_confirm_needs_an_intervening_user_message(service: PersonaService, make_ctx: Ctx) -> None:
    """P-CHAT-PLAN-7/8: the runtime enforces only the reply; then the change runs once."""
    ctx = make_ctx(user_messages=3)
    plan = _plan(service, ctx, action="install", pack="demo")
    refused = _confirm(service, ctx, plan)
    assert refused.result.is_error
    assert "reply" in refused.result.text
    assert service.store.installed_refs() == []
    ctx.user_messages = 4
    done = _confirm(service, ctx, plan)
    assert not done.result.is_error, done.result.text
    assert service.store.installed_refs() == ["official/demo"]


def test_plans_are_single_use(service: PersonaService, make_ctx: Ctx) -> None:
    """P-CHAT-PLAN-9."""
    ctx = make_ctx()
    plan = _plan(service, ctx, action="install", pack="demo")
    ctx.user_messages += 1
    assert not _confirm(service, ctx, plan).result.is_error
    again = _confirm(service, ctx, plan)
    assert again.result.is_error
    assert "single-use" in again.result.text


def test_plans_from_another_runtime_are_refused(
    service: PersonaService, make_ctx: Ctx, agent_dir: Any, catalog: Any
) -> None:
    """P-CHAT-PLAN-5: a plan id this runtime never issued (restart, another process)."""
    ctx = make_ctx()
    other = persona_service(agent_dir, catalog_dir=catalog, plans=LocalPlans())
    plan = _plan(other, ctx, action="install", pack="demo")
    ctx.user_messages += 1
    out = _confirm(service, ctx, plan)
    assert out.result.is_error
    assert "not issued by this runtime" in out.result.text


def test_plans_for_another_session_are_refused(service: PersonaService, make_ctx: Ctx) -> None:
    """P-CHAT-PLAN-5: issued for this session only."""
    a, b = make_ctx("a"), make_ctx("b")
    plan = _plan(service, a, action="install", pack="demo")
    b.user_messages = 5
    out = _confirm(service, b, plan)
    assert out.result.is_error
    assert "another session" in out.result.text


def test_stale_plan_is_refused_when_state_moved(service: PersonaService, make_ctx: Ctx) -> None:
    """P-CHAT-PLAN-6: the state digest (pack revision, default, …) must still match."""
    ctx = make_ctx()
    run_command(service, ctx, CommandCall(name="persona", args="pack install demo"))
    run_command(service, ctx, CommandCall(name="persona", args="pack install other"))
    plan = _plan(service, ctx, action="default", op="set", pack="demo")
    run_command(service, ctx, CommandCall(name="persona", args="default set other"))
    ctx.user_messages += 1
    out = _confirm(service, ctx, plan)
    assert out.result.is_error
    assert "no longer matches" in out.result.text
    assert service.store.state().default == "official/other"


def test_default_plan_does_not_touch_the_session_team(
    service: PersonaService, make_ctx: Ctx
) -> None:
    """P-CHAT-PLAN-13 / P-BINDING-2: default is a separate approval for new sessions."""
    ctx = make_ctx()
    service.open_session(ctx)
    run_command(service, ctx, CommandCall(name="persona", args="pack install demo"))
    plan = _plan(service, ctx, action="default", op="set", pack="demo")
    ctx.user_messages += 1
    assert not _confirm(service, ctx, plan).result.is_error
    assert service.store.state().default == "official/demo"
    assert service.session(ctx).scope.state == "unbound"


@pytest.fixture
def switch(service: PersonaService, make_ctx: Ctx) -> tuple[PersonaService, SessionContext, str]:
    """An approved team switch waiting for the /persona command path."""
    ctx = make_ctx(branch="leaf-1")
    service.open_session(ctx)
    run_command(service, ctx, CommandCall(name="persona", args="pack install demo"))
    plan = _plan(service, ctx, action="team", op="select", pack="demo")
    ctx.user_messages += 1
    out = _confirm(service, ctx, plan)
    assert not out.result.is_error, out.result.text
    assert out.effects.handoff is not None
    assert service.session(ctx).scope.state == "unbound"  # P-CHAT-PLAN-10: tool did not switch
    return service, ctx, out.effects.handoff


def test_team_switch_is_handed_to_the_command_path(
    switch: tuple[PersonaService, SessionContext, str],
) -> None:
    """P-CHAT-PLAN-11: the /persona path rechecks and then reloads."""
    svc, ctx, handoff = switch
    out = run_command(svc, ctx, CommandCall(name="persona", args=handoff))
    assert out.result.reload
    assert out.effects.commands_changed
    assert svc.session(ctx).scope.state == "bound"


def test_handoff_dropped_when_the_conversation_moved(
    switch: tuple[PersonaService, SessionContext, str],
) -> None:
    """P-CHAT-PLAN-12: branch moved."""
    svc, ctx, handoff = switch
    ctx.branch = "leaf-2"
    out = run_command(svc, ctx, CommandCall(name="persona", args=handoff))
    assert out.result.level == "error"
    assert "moved" in out.result.text
    assert svc.session(ctx).scope.state == "unbound"


def test_handoff_dropped_when_busy(switch: tuple[PersonaService, SessionContext, str]) -> None:
    """P-CHAT-PLAN-12: Pi busy."""
    svc, ctx, handoff = switch
    ctx.idle = False
    out = run_command(svc, ctx, CommandCall(name="persona", args=handoff))
    assert out.result.level == "error"
    assert "busy" in out.result.text
    ctx.idle = True
    again = run_command(svc, ctx, CommandCall(name="persona", args=handoff))
    assert again.result.level == "error"  # dropped means gone


def test_second_approved_change_is_dropped_while_one_waits(
    switch: tuple[PersonaService, SessionContext, str],
) -> None:
    """P-CHAT-PLAN-12: another approved change is already waiting."""
    svc, ctx, _ = switch
    plan = _plan(svc, ctx, action="team", op="none")
    ctx.user_messages += 1
    out = _confirm(svc, ctx, plan)
    assert out.result.is_error
    assert "already waiting" in out.result.text


def test_handoff_dropped_when_the_plan_state_changed(
    switch: tuple[PersonaService, SessionContext, str],
) -> None:
    """P-CHAT-PLAN-11: the plan is rechecked at the command path."""
    svc, ctx, handoff = switch
    run_command(svc, ctx, CommandCall(name="persona", args="team select demo"))
    out = run_command(svc, ctx, CommandCall(name="persona", args=handoff))
    assert out.result.level == "error"
    assert "changed" in out.result.text


def test_unknown_action_is_a_clear_error(service: PersonaService, make_ctx: Ctx) -> None:
    """Bad input gets a typed error that says what to do."""
    out = _tool(service, make_ctx(), action="team", op="explode")
    assert out.result.is_error
    assert "select" in out.result.text


def test_slash_removal_needs_yes(service: PersonaService, make_ctx: Ctx) -> None:
    """P-PACK-31, P-CHAT-PLAN-1/14: the exact slash route reaches the same operation and
    still waits for a confirmation for removal."""
    ctx = make_ctx()
    run_command(service, ctx, CommandCall(name="persona", args="pack install demo"))
    out = run_command(service, ctx, CommandCall(name="persona", args="pack uninstall demo"))
    assert "--yes" in out.result.text
    assert service.store.installed_refs() == ["official/demo"]
    run_command(service, ctx, CommandCall(name="persona", args="pack uninstall demo --yes"))
    assert service.store.installed_refs() == []
