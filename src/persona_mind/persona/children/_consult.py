"""``persona_consult`` rules and texts: pure functions, no IO, no actors (P-CONSULT).

The checks run *before* any child starts, in this order: the requester is the session's
active persona (P-CONSULT-3), the consultant exists in this session's team snapshot
(P-CONSULT-9; never a global subagent list, P-CONSULT-10), and is not the requester itself
(P-CONSULT-4). The consultant gets its own resolved prompt (P-CONSULT-11) and a leaf
instruction (P-CONSULT-6/-7); the requester gets compact provenance back and writes the
summary itself (P-CONSULT-2, -8).
"""

from __future__ import annotations

import msgspec

from persona_mind.child_errors import (
    ChildUnavailable,
    PersonaNotInTeam,
    RequesterNotActive,
    SelfConsult,
)
from persona_mind.messages.child import (
    ChildPersona,
    ChildReply,
    ChildRequest,
    ChildTeam,
    ChildUsage,
)
from persona_mind.persona.children._costs import usage_text

__all__ = (
    "CONSULT_DEADLINE",
    "ConsultResult",
    "build_consult_request",
    "consult_prompt",
    "consult_result",
    "render_consult",
    "resolve_consultant",
)

CONSULT_DEADLINE = 180.0
"""Default consult deadline (seconds). Seed 2 names none (AMB-8); the original used a
3-minute idle window, and a Mind worker has 180 s: one number for every child."""


class ConsultResult(msgspec.Struct, frozen=True, kw_only=True):
    """Compact provenance the requester synthesises from (never a finished summary)."""

    requester: str
    consultant: str
    consultant_id: str
    question: str
    answer: str
    model: str
    usage: ChildUsage
    duration: float
    request_id: str


def _team_names(team: ChildTeam) -> tuple[str, ...]:
    return tuple(p.name for p in team.personas)


def resolve_consultant(
    team: ChildTeam, *, requester: str, active: str | None, consultant: str
) -> tuple[ChildPersona, ChildPersona]:
    """Return ``(requester, consultant)`` personas or raise the typed refusal."""
    asking = team.find(requester)
    current = team.find(active) if active else None
    if asking is None or current is None or asking.qualified_id != current.qualified_id:
        raise RequesterNotActive(requester, active)
    target = team.find(consultant)
    if target is None:
        raise PersonaNotInTeam(consultant, team.pack, _team_names(team))
    if target.qualified_id == asking.qualified_id:
        raise SelfConsult(asking.name)
    if target.unavailable is not None:  # P-CHILD-13: checked before any child starts
        raise ChildUnavailable(target.name, target.unavailable)
    return asking, target


def consult_prompt(requester: ChildPersona, question: str, context: str = "") -> str:
    """The consultant's task: answer one question as a leaf, for the requester."""
    parts = [
        f"{requester.name} (a peer on your team) consults you.",
        "Answer from your own expertise. You are a leaf consultant: do not consult or "
        "delegate to anyone else; your answer goes back to the same requester, who will "
        "write the summary.",
    ]
    if context.strip():
        parts.append(f"Context from {requester.name}:\n{context.strip()}")
    parts.append(f"Question:\n{question.strip()}")
    return "\n\n".join(parts)


def build_consult_request(
    *,
    request_id: str,
    requester: ChildPersona,
    consultant: ChildPersona,
    question: str,
    model: str,
    context: str = "",
    injection: str = "",
    deadline: float = CONSULT_DEADLINE,
    cwd: str | None = None,
) -> ChildRequest:
    return ChildRequest(
        request_id=request_id,
        kind="consult",
        persona=consultant,
        prompt=consult_prompt(requester, question, context),
        model=model,
        deadline=deadline,
        injection=injection,
        cwd=cwd,
    )


def consult_result(
    requester: ChildPersona, question: str, reply: ChildReply, consultant: ChildPersona
) -> ConsultResult:
    return ConsultResult(
        requester=requester.name,
        consultant=consultant.name,
        consultant_id=consultant.qualified_id,
        question=question,
        answer=reply.text,
        model=reply.model,
        usage=reply.usage,
        duration=reply.duration,
        request_id=reply.request_id,
    )


def render_consult(result: ConsultResult) -> str:
    """The tool result text: one provenance line, then the consultant's answer verbatim."""
    head = (
        f"[consult {result.consultant_id} for {result.requester} · {result.model} · "
        f"{result.duration:.1f}s · {usage_text(result.usage, brief=True)}]"
    )
    return f"{head}\n{result.answer.strip()}\n\n(Write your own synthesis for the user.)"
