"""A session's side of consolidation: the Optimizer binding it hands the memory tool and
``/mind optimize``, and the acceptance answer that admits an automatic review.

Why a module of its own: plans key on the session owner and its generation, and progress
lines go through the session's activity board; both are session state the Optimizer must
not hold, and neither is the session's own business of capture, injection and tools
(the same split as :mod:`~persona_mind.mind._session_repo` for repository links).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from persona_mind.errors import PersonaMindError
from persona_mind.messages.host import CommandResult
from persona_mind.mind._errors import MindRefusal
from persona_mind.mind.optimize._activity import Activity
from persona_mind.mind.optimize._commands import review_acceptance
from persona_mind.mind.optimize._port import OptimizeBinding

if TYPE_CHECKING:
    from persona_mind.mind._session import MindSession

__all__ = ("accept_review", "optimize_binding")


def optimize_binding(session: MindSession) -> OptimizeBinding | None:
    """The Optimizer bound to this session owner (plans key on session + generation)."""
    service, ledger = session.service, session.ledger
    if session.optimizer is None or service is None or ledger is None or session.leg:
        return None
    owner = f"{ledger.owner.session_id}#{session.generation}"
    board, sink = session.activity, session.activity_sink

    async def publish(event: Activity) -> None:
        if board.publish(owner, event) and sink is not None:
            await sink(board.line())

    return OptimizeBinding(session.optimizer, owner, service.scope, session.model, publish)


async def accept_review(session: MindSession, words: list[str]) -> CommandResult:
    """Admit ``/mind optimize [all|target]`` as an automatic review, or refuse it."""
    binding = None if session.leg else optimize_binding(session)
    if session.service is None or binding is None:
        why = session.refusal or "the Optimizer is not available here"
        return CommandResult(text=f"Mind is inactive: {why}", level="error")
    try:
        card = review_acceptance(words, binding)  # model and target rules
        await binding.port.admit_review()  # single flight, agent idle, workers
        return CommandResult(text=card.full())
    except (MindRefusal, PersonaMindError) as exc:
        return CommandResult(text=str(exc), level="error")
