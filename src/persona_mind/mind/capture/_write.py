"""Writing what capture decided, and what the write tells the next injection.

Why a module of its own: the session decides *whether* an input is captured
(:func:`~persona_mind.mind.capture._cues.decide_capture`); this is the write itself — the
tier a capture lands in, the typed refusals that become one line to the user, and the
update offer (the captured fact may change a stored one, :mod:`~persona_mind.mind.facts._updates`)
that the next injection carries to the model.
"""

from __future__ import annotations

from dataclasses import dataclass

from persona_mind.errors import PersonaMindError
from persona_mind.mind._errors import MindRefusal
from persona_mind.mind._model import Tier
from persona_mind.mind._service import FoundFact, MemoryService
from persona_mind.mind.facts._rules import Draft
from persona_mind.mind.facts._updates import update_offer

__all__ = ("InputOutcome", "update_hints", "write_capture")


@dataclass(frozen=True, slots=True)
class InputOutcome:
    """What one input produced: a saved fact (capture receipt), a nudge, or nothing."""

    captured: FoundFact | None = None
    nudge: str | None = None
    refused: str | None = None


async def write_capture(service: MemoryService, draft: Draft) -> InputOutcome:
    """Save the user's captured words: project LTM in a project, else the persona's LTM;
    with neither, a nudge to save it in the shared tier (nothing written)."""
    tier: Tier = "project" if service.scope.project is not None else "persona"
    if tier == "persona" and service.scope.persona is None:
        return InputOutcome(
            nudge="The user asked to remember something; save it with tier 'shared'."
        )
    try:
        found, _ = await service.remember(
            draft.kind,
            draft.text,
            tier=tier,
            origin="user",  # deterministic capture: the user's own words
        )
    except MindRefusal as exc:
        return InputOutcome(refused=str(exc))
    except PersonaMindError as exc:  # stale generation or storage trouble: no receipt
        return InputOutcome(refused=str(exc))
    return InputOutcome(captured=found)


async def update_hints(service: MemoryService, found: FoundFact) -> list[str]:
    """One line per stored fact the captured one may update, telling the model to ask the
    user before it supersedes (never by itself); none when the check cannot run."""
    try:
        updates = await service.updates_of(found)
    except PersonaMindError:  # an offer is not worth a failed turn
        return []
    return [
        update_offer(
            old.fact,
            'ask the user; if they agree, memory {"action": "supersede", '
            f'"id": "{old.fact.id}", "text": <the new fact\'s text>}}',
        )
        for old in updates
    ]
