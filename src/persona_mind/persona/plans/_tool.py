"""The `persona_pack` tool: chat-first management with plans (P-CHAT-PLAN-1..14).

Read-only actions answer at once. A changing action returns a plan (``planId``) and
changes nothing. ``action: "confirm"`` with the ``planId`` is accepted only when the plan
was issued by this runtime for this session, is unused, the user has replied since it was
shown, and the re-prepared change still has the same state digest. Team switches and
migration rollback are never executed by the tool (tools cannot reload the host): they
are handed to the `/persona` command path, which the Owner runs when the host is idle;
:func:`run_handoff` rechecks session, branch, idleness and plan before committing.
"""

from __future__ import annotations

import secrets
from typing import Any

from persona_mind.errors import PersonaMindError
from persona_mind.messages.host import ToolCall, ToolResult, ToolSpec
from persona_mind.persona._commands import PACK_VERBS, io_failure
from persona_mind.persona._errors import PlanRefused
from persona_mind.persona._service import PersonaService
from persona_mind.persona.binding._session import Handoff, SessionContext
from persona_mind.persona.plans._chat import PlanNeed, new_plan
from persona_mind.persona.plans._ops import READ_ONLY, prepare, read
from persona_mind.persona.plans._outcome import CommandOutcome, Effects, ToolOutcome

__all__ = ("PERSONA_PACK_TOOL", "run_handoff", "run_tool", "tool_plan_needs")

_OPS = {
    "team": ("status", "list", "select", "refresh", "none"),
    "default": ("show", "set", "clear"),
    "migrate": ("inspect", "status", "preview", "cancel", "apply", "rollback"),
    "onboard": ("start", "preview", "apply"),
}

PERSONA_PACK_TOOL = ToolSpec(
    name="persona_pack",
    label="Persona packs",
    description=(
        "Manage persona packs and this session's team from chat. Read-only actions (list, "
        "status, preview, team/default/migrate status views, doctor) answer at once. Every "
        "change returns a plan with a planId and changes nothing: show the plan to the user, "
        "wait for their reply, and only if they agree call again with action 'confirm' and "
        "the planId. Team switches and migration rollback then run through /persona when "
        "Pi is idle."
    ),
    parameters={
        "type": "object",
        "properties": {
            "action": {
                "type": "string",
                "enum": [*PACK_VERBS, "team", "default", "migrate", "onboard", "doctor", "confirm"],
            },
            "op": {
                "type": "string",
                "description": "team: status|list|select|refresh|none; default: show|set|clear; "
                "migrate: inspect|status|preview|cancel|apply|rollback; "
                "onboard: start|preview|apply",
            },
            "pack": {
                "type": "string",
                "description": "official/<name>, custom/<name> or a "
                "bare name (install: a catalog name)",
            },
            "source": {"type": "string", "description": "fork: the pack to copy"},
            "name": {"type": "string", "description": "fork: new pack name; migrate: pack name"},
            "discardEdits": {"type": "boolean", "description": "update: discard local edits"},
            "planId": {"type": "string", "description": "confirm: the plan to carry out"},
        },
        "required": ["action"],
        "additionalProperties": False,
    },
)


def _result(
    text: str, *, error: bool = False, details: Any = None, effects: Effects | None = None
) -> ToolOutcome:
    return ToolOutcome(ToolResult(text=text, details=details, is_error=error), effects or Effects())


def _action_of(args: dict[str, Any]) -> str:
    action = str(args.get("action", ""))
    if action in _OPS:
        op = str(args.get("op") or _OPS[action][0])
        if op not in _OPS[action]:
            raise PlanRefused("bad-op", f"{action} takes op {'|'.join(_OPS[action])}")
        return f"{action}.{op}"
    if action in PACK_VERBS:
        return f"pack.{action}"
    return action


def tool_plan_needs(call: ToolCall) -> PlanNeed | None:
    """What a `persona_pack` call needs from the Owner's plans before it runs (the
    handler runs off the loop and cannot ask): the plan it confirms, or the migration
    plans it cancels."""
    args = dict(call.arguments)
    try:
        action = _action_of(args)
    except PersonaMindError:
        return None
    if action == "confirm":
        return PlanNeed("take", plan_id=str(args.get("planId", "")))
    if action == "migrate.cancel":
        return PlanNeed("drop", action_prefix="migrate.")
    return None


def run_tool(svc: PersonaService, ctx: SessionContext, call: ToolCall) -> ToolOutcome:
    """Dispatch one `persona_pack` call."""
    args = dict(call.arguments)
    try:
        action = _action_of(args)
        if action == "confirm":
            return _confirm(svc, ctx, str(args.get("planId", "")))
        if action == "migrate.cancel":
            n = svc.plans.drop(ctx.session_id, "migrate.")
            return _result(f"Cancelled {n} pending migration plan(s); nothing was changed.")
        if action in READ_ONLY:
            return _result(read(svc, ctx, action, args), details={"action": action})
        change = prepare(svc, ctx, action, args)
        params = {k: v for k, v in args.items() if k not in {"action", "op", "planId"}}
        plan = new_plan(
            ctx.session_id,
            action,
            params,
            change.digest,
            change.summary,
            ctx.user_messages,
            reload=change.reload,
        )
        svc.plans.issue(plan)
        text = (
            f"Plan {plan.plan_id}: {change.summary}\nNothing has changed. Show this plan to the "
            "user and wait for their reply; if they agree, call persona_pack with action "
            f'"confirm" and planId "{plan.plan_id}".'
        )
        return _result(
            text,
            details={
                "planId": plan.plan_id,
                "action": action,
                "summary": change.summary,
                **change.details,
            },
        )
    except PersonaMindError as exc:
        return _result(str(exc), error=True)
    except OSError as exc:
        return _result(io_failure(exc), error=True)


def _confirm(svc: PersonaService, ctx: SessionContext, plan_id: str) -> ToolOutcome:
    plan = svc.plans.take(plan_id, ctx.session_id, ctx.user_messages)
    try:
        change = prepare(svc, ctx, plan.action, plan.args)
    except PersonaMindError as exc:
        raise PlanRefused(
            "stale", f"plan {plan_id} no longer applies ({exc}); ask for a new plan"
        ) from exc
    if change.digest != plan.digest:
        raise PlanRefused(
            "stale",
            f"plan {plan_id} no longer matches the current state (the pack, binding, default, "
            "draft, legacy source or receipt changed since it was shown); ask for a new plan",
        )
    if change.reload:
        state = svc.session(ctx)
        if state.handoff is not None:
            raise PlanRefused(
                "busy",
                "another approved team change is already waiting; this "
                "one was dropped — wait for it to finish, then plan again",
            )
        handoff = Handoff(
            handoff_id=secrets.token_hex(5),
            plan_id=plan.plan_id,
            action=plan.action,
            args=plan.args,
            digest=plan.digest,
            branch=ctx.branch,
        )
        svc.update(ctx, handoff=handoff)
        return _result(
            f"Approved. {change.summary} It runs through /persona as soon as Pi is idle.",
            details={"handoff": handoff.handoff_id, "action": plan.action},
            effects=Effects(handoff=f"handoff {handoff.handoff_id}"),
        )
    text = change.execute()
    return _result(text, details={"planId": plan_id, "action": plan.action, "done": True})


def run_handoff(svc: PersonaService, ctx: SessionContext, handoff_id: str) -> CommandOutcome:
    """`/persona handoff <id>`: commit an approved team switch/rollback when idle."""
    from persona_mind.persona._commands import _error, team_changed  # noqa: PLC0415 - cycle

    state = svc.session(ctx)
    handoff = state.handoff
    if handoff is None or handoff.handoff_id != handoff_id:
        return _error(f"no approved change {handoff_id!r} is waiting (it ran or was dropped)")
    svc.update(ctx, handoff=None)
    if ctx.branch != handoff.branch:
        return _error(
            "the approved team change was dropped: the conversation moved to another "
            "branch; ask again if you still want it"
        )
    if not ctx.idle:
        return _error("the approved team change was dropped: Pi was busy; ask again when idle")
    try:
        change = prepare(svc, ctx, handoff.action, handoff.args)
    except PersonaMindError as exc:
        return _error(f"the approved team change was dropped: {exc}")
    if change.digest != handoff.digest:
        return _error("the approved team change was dropped: the state changed since approval")
    return team_changed(svc, ctx, change.execute)
