"""The ``persona_consult`` tool: its declaration and the handler a host-facing actor calls.

The handler turns a refusal into an error tool result whose text says what to do (the
model reads it), and a finished consult into the compact provenance text plus structured
details (P-CONSULT-2). It never writes a summary: the requester does (P-CONSULT-8).
"""

from __future__ import annotations

from typing import Any

import msgspec

from persona_mind.actors import ActorRef
from persona_mind.errors import ChildError
from persona_mind.messages.child import ChildTeam
from persona_mind.messages.host import ToolResult
from persona_mind.runners._child_specs import CONSULT_TOOL
from persona_mind.runners._consult_logic import CONSULT_DEADLINE, render_consult
from persona_mind.runners._consult_run import consult

__all__ = ("CONSULT_TOOL", "ConsultArgs", "handle_consult_tool")


class ConsultArgs(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    consultant: str
    question: str
    context: str = ""
    requester: str | None = None


async def handle_consult_tool(
    runner: ActorRef[Any],
    team: ChildTeam,
    arguments: dict[str, Any],
    *,
    active: str | None,
    model: str,
    injection: str = "",
    deadline: float = CONSULT_DEADLINE,
    cwd: str | None = None,
    generation: int | None = None,
) -> ToolResult:
    """Run one ``persona_consult`` call; refusals and failures become error results."""
    try:
        args = msgspec.convert(arguments, ConsultArgs)
    except msgspec.ValidationError as exc:
        return ToolResult(text=f"persona_consult: bad arguments ({exc})", is_error=True)
    if not args.question.strip():
        return ToolResult(text="persona_consult: the question is empty", is_error=True)
    try:
        result = await consult(
            runner,
            team,
            requester=args.requester or active or "",
            active=active,
            consultant=args.consultant,
            question=args.question,
            context=args.context,
            model=model,
            injection=injection,
            deadline=deadline,
            cwd=cwd,
            generation=generation,
        )
    except ChildError as exc:
        return ToolResult(text=f"persona_consult: {exc}", is_error=True)
    return ToolResult(text=render_consult(result), details=msgspec.to_builtins(result))
