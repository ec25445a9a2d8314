"""Reading a running runtime's features by message, as a facade would (issue 22).

No feature object leaves the Companion: tests read what a feature reports of itself with
``InspectFeatures`` (a value per feature: its name, which build it is, its details).
"""

from __future__ import annotations

from typing import Any

from persona_mind.messages.companion import FeatureReport, InspectFeatures
from persona_mind.runtime import Runtime


async def reports(runtime: Runtime) -> tuple[FeatureReport, ...]:
    """Every feature's report, in the Companion's order."""
    return await runtime.companion.ask(InspectFeatures())


async def details(runtime: Runtime, name: str) -> dict[str, Any]:
    """The details the feature called ``name`` reports."""
    (found,) = [r for r in await reports(runtime) if r.name == name]
    return found.details
