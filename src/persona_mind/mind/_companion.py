"""Mind's side of the companion handshake and the leg switch (M-COMPANION, M-LEG).

Mind pairs with exactly one Persona provider that answered companion:v1 loaded, enabled,
ready and compatible; anything else keeps it inactive with the reason
(:func:`companion_refusal`). Whether this session is a delegated leg is sampled once from the
environment (:func:`is_leg`). :func:`one_disclosure` folds a turn's disclosures into the one
short toast line the host shows (M-UI-4).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = (
    "MAX_DISCLOSURE_CHARS",
    "MIN_COMPANION_VERSION",
    "CompanionAnswer",
    "companion_refusal",
    "is_leg",
    "one_disclosure",
)

MIN_COMPANION_VERSION: tuple[int, ...] = (1, 17, 5)
"""The oldest Persona contract Mind pairs with (M-COMPANION-4: Mind 0.8.7 needs Persona
1.17.5); the Persona half answers with the version it implements."""


@dataclass(frozen=True, slots=True)
class CompanionAnswer:
    """One provider's answer to the companion capability query (companion:v1)."""

    provider: str
    version: tuple[int, ...] = MIN_COMPANION_VERSION
    enabled: bool = True
    ready: bool = True


def companion_refusal(answers: Sequence[CompanionAnswer]) -> str | None:
    """Why Mind must stay inactive, or ``None``: exactly one enabled, ready, compatible provider.

    A settings file or an installed package is never evidence (M-COMPANION-3): only answers.
    """
    if not answers:
        return "no Persona companion is loaded"
    if len(answers) > 1:
        return f"ambiguous: {len(answers)} Persona providers answered"
    answer = answers[0]
    if answer.version < MIN_COMPANION_VERSION:
        have = ".".join(map(str, answer.version))
        need = ".".join(map(str, MIN_COMPANION_VERSION))
        return f"Persona companion {answer.provider} {have} is incompatible (needs ≥ {need})"
    if not answer.enabled:
        return "the Persona companion is disabled"
    if not answer.ready:
        return "the Persona companion is not ready yet"
    return None


MAX_DISCLOSURE_CHARS = 200
"""One short toast line per turn (M-UI-4); the block's "Not shown" section has the detail."""


def one_disclosure(parts: Sequence[str]) -> tuple[str, ...]:
    """The plan's disclosures as at most one short line (the host toasts each one)."""
    if not parts:
        return ()
    line = "persona-mind memory: " + "; ".join(parts)
    if len(line) > MAX_DISCLOSURE_CHARS:
        line = line[: MAX_DISCLOSURE_CHARS - 1] + "…"
    return (line,)


def is_leg(env: Mapping[str, str]) -> bool:
    """A delegated leg, sampled once at activation (M-LEG-1/2)."""
    return any(env.get(k, "") not in ("", "0") for k in ("PI_PERSONA_LEG", "PI_PERSONA_CHILD"))
