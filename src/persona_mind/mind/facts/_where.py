"""Where a fact went and until when, in one wording every face uses (CLI, Pi tool, MCP, library).

Why one function: a fact stored in short-term memory expires (48 hours by default) unless
promoted; a user must read that wherever the fact was saved, not only in the CLI. Faces pass
their own promote hint (a CLI command, a tool call) so the sentence names a command of the
face that prints it.
"""

from __future__ import annotations

import datetime as dt

from persona_mind.mind._model import Fact, Tier

__all__ = ("TIER_NAMES", "iso_time", "where_saved")

TIER_NAMES: dict[str, str] = {
    "stm": "short-term memory (STM) of this project",
    "project": "this project's long-term memory",
    "persona": "the persona's long-term memory",
    "shared": "the shared long-term memory",
}


def iso_time(timestamp: float | None) -> str | None:
    """Epoch seconds as ISO 8601 UTC (``2026-12-01T15:00:00Z``); ``None`` stays ``None``."""
    if timestamp is None:
        return None
    moment = dt.datetime.fromtimestamp(timestamp, tz=dt.UTC).replace(microsecond=0)
    return moment.isoformat().replace("+00:00", "Z")


def where_saved(tier: Tier | str, fact: Fact, promote_hint: str) -> str:
    """``in short-term memory (STM) of this project; expires <ISO> unless promoted (<hint>)``.

    ``promote_hint`` is the face's own way to promote (``persona-mind memory promote ID``, or
    ``memory`` with ``action: promote``); long-term tiers say they are kept until forgotten."""
    where = TIER_NAMES.get(tier, tier)
    if fact.expiresAt is not None:
        return f"in {where}; expires {iso_time(fact.expiresAt)} unless promoted ({promote_hint})"
    return f"in {where}; kept until forgotten or superseded"
