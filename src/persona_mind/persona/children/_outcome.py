"""A finished round-table's answers turned into its one result (pure, no IO).

The coordinator collects the texts — Round 1 and Round 2 per specialist, the moderator's
synthesis — and :func:`roundtable_result` makes the :class:`RoundtableResult` of them: the
verdict block taken off the synthesis and decoded, the synthesis checked (five sections,
P-ROUNDTABLE-9), each specialist's :class:`Position` from its own ``Stance:`` lines and
the verdict, the decision line (the verdict's, else the Decision section's), the
Disagreements and Uncertainty sections, and the one model when every persona runs one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from persona_mind.messages.child import ChildUsage
from persona_mind.messages.roundtable_progress import Position, RoundtableResult
from persona_mind.persona.children._sections import check_synthesis, synthesis_sections
from persona_mind.persona.children._verdict import clip, one_model, split_verdict, stance_of

__all__ = ("Member", "roundtable_result")


@dataclass(frozen=True, slots=True)
class Member:
    """A selected specialist: its name, the reason it was chosen, the model it runs."""

    name: str
    reason: str
    model: str


def roundtable_result(
    *,
    query: str,
    lead: str,
    lead_model: str,
    panel: Sequence[Member],
    round1: Mapping[str, str],
    final: Mapping[str, str],
    synthesis: str,
    usage: ChildUsage,
    children: int,
    elapsed: float,
    run_id: str,
) -> RoundtableResult:
    """The result (see the module doc); raises ``SynthesisIncomplete`` like the check."""
    shown, verdict = split_verdict(synthesis, [m.name for m in panel])
    check_synthesis(shown)
    sections = synthesis_sections(shown)
    positions = tuple(
        Position(
            name=m.name,
            reason=m.reason,
            round1=stance_of(round1[m.name]),
            final=stance_of(final[m.name]),
            adopted=verdict.of(m.name) if verdict is not None else None,
            model=m.model,
        )
        for m in panel
    )
    decided = verdict.decision if verdict is not None else ""
    return RoundtableResult(
        query=query,
        lead=lead,
        roster=tuple((m.name, m.reason) for m in panel),
        synthesis=shown,
        children=children,
        usage=usage,
        elapsed=elapsed,
        run_id=run_id,
        positions=positions,
        decision=decided or clip(sections.get("Decision", ""), 400),
        disagreements=sections.get("Disagreements", ""),
        uncertainty=sections.get("Uncertainty", ""),
        lead_model=lead_model,
        same_model=one_model([lead_model, *(m.model for m in panel)]),
        verdict_marked=verdict is not None,
    )
