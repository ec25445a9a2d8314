"""Old home of the round-table rules: a re-export of :mod:`persona_mind.persona._roundtable`.

The prompts, the selection schema and the synthesis check are pure Persona rules; they
moved to the domain (issue 10 scope 4). The same objects are kept here so older imports
still resolve; product code imports the new home (``lint-imports`` forbids actors this
module).
"""

from __future__ import annotations

from persona_mind.persona._roundtable import (
    CONTEXT_POLICY,
    MAX_QUERY_CHARS,
    MAX_REASON_CHARS,
    MAX_SPECIALISTS,
    REQUEST_MARKER,
    SECTIONS,
    SELECT_MARKER,
    SYNTHESIS_MARKER,
    Pick,
    check_synthesis,
    lead_request,
    parse_selection,
    picks_by_name,
    round1_prompt,
    round2_prompt,
    selection_prompt,
    synthesis_prompt,
    validate_selection,
)

__all__ = (
    "CONTEXT_POLICY",
    "MAX_QUERY_CHARS",
    "MAX_REASON_CHARS",
    "MAX_SPECIALISTS",
    "REQUEST_MARKER",
    "SECTIONS",
    "SELECT_MARKER",
    "SYNTHESIS_MARKER",
    "Pick",
    "check_synthesis",
    "lead_request",
    "parse_selection",
    "picks_by_name",
    "round1_prompt",
    "round2_prompt",
    "selection_prompt",
    "synthesis_prompt",
    "validate_selection",
)
