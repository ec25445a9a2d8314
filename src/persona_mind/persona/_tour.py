"""A scripted walk through the Persona surface, for the offline demo and smoke tests.

install → bind → activate → plan → (user reply) → confirm, through the same handlers the
Owner calls, printing what a user would see. Blocking: run it off the event loop.
"""

from __future__ import annotations

from collections.abc import Callable

from persona_mind.messages.host import CommandCall, ToolCall
from persona_mind.persona._commands import run_command
from persona_mind.persona._service import PersonaService
from persona_mind.persona.binding._session import SessionContext
from persona_mind.persona.plans._tool import run_tool

__all__ = ("persona_tour",)


def persona_tour(svc: PersonaService, ctx: SessionContext, say: Callable[[str], object]) -> bool:
    """Run the tour in ``ctx``'s session; True when every step behaved as documented."""
    svc.open_session(ctx)

    def cmd(args: str, name: str = "persona") -> str:
        out = run_command(svc, ctx, CommandCall(name=name, args=args))
        say(f"/{name} {args}".rstrip() + f"\n  {out.result.text.splitlines()[0]}")
        return out.result.text

    cmd("pack install software-team")
    cmd("team select official/software-team")
    cmd("use architect")
    prompt = svc.prompt_injection(ctx).sections
    say(f"system prompt section: {prompt[0].splitlines()[0] if prompt else '(none)'}")
    plan = run_tool(
        svc,
        ctx,
        ToolCall(
            call_id="tour-1",
            name="persona_pack",
            arguments={"action": "install", "pack": "philosopher-7"},
        ),
    )
    plan_id = str((plan.result.details or {}).get("planId", ""))
    say(f"persona_pack install philosopher-7 → {plan.result.text.splitlines()[0]}")
    early = run_tool(
        svc,
        ctx,
        ToolCall(
            call_id="tour-2",
            name="persona_pack",
            arguments={"action": "confirm", "planId": plan_id},
        ),
    )
    say(f"confirm before the user replied → refused: {early.result.text}")
    ctx.user_messages += 1
    done = run_tool(
        svc,
        ctx,
        ToolCall(
            call_id="tour-3",
            name="persona_pack",
            arguments={"action": "confirm", "planId": plan_id},
        ),
    )
    say(f"user replied; confirm → {done.result.text.splitlines()[0]}")
    return (
        bool(prompt)
        and early.result.is_error
        and not done.result.is_error
        and "official/philosopher-7" in svc.store.installed_refs()
        and svc.active_identity(ctx.session_id) == "official/software-team/architect"
    )
