"""The Persona half's error leaves, all under :class:`persona_mind.errors.PersonaError`.

Every message says what went wrong and what to do next, because these texts reach the
user verbatim through `/persona …`, the `persona_pack` tool and the CLI.
"""

from __future__ import annotations

from dataclasses import dataclass

from persona_mind.errors import PersonaError
from persona_mind.persona.packs._render import one_line

__all__ = (
    "AmbiguousPackName",
    "DraftConflict",
    "MigrationRequired",
    "PackInvalid",
    "PackNotFound",
    "PackStoreBusy",
    "PersonaNotFound",
    "PersonaUnavailable",
    "PlanRefused",
    "Problem",
    "StaleCommand",
    "UnsafeWorkspacePath",
    "UpdateRefused",
)


@dataclass(frozen=True, slots=True)
class Problem:
    """One validation finding: a stable ``code``, the pack-relative ``path`` and a message."""

    code: str
    path: str
    message: str

    def render(self) -> str:
        """``path: message [code]`` — the form users see."""
        # A path or message can quote pack content (a file name with a newline): shown
        # so it can never start a line of its own (issue 15 item 5).
        where = (self.path if self.path.isprintable() else repr(self.path)) or "(pack)"
        return f"{where}: {one_line(self.message)} [{self.code}]"


class PackInvalid(PersonaError):
    """A pack (or draft) crossed a real trust/data boundary or is malformed.

    Raised by validation with *every* problem found, so the user can fix them in one pass.
    """

    def __init__(self, pack: str, problems: tuple[Problem, ...]) -> None:
        self.pack = pack
        self.problems = problems
        lines = "\n".join(f"  - {p.render()}" for p in problems)
        super().__init__(
            f"pack {pack!r} was refused ({len(problems)} problem(s)); fix these and try again:\n"
            f"{lines}"
        )

    @property
    def codes(self) -> tuple[str, ...]:
        """The problem codes, in order (tests and tools match on these)."""
        return tuple(p.code for p in self.problems)


class PackNotFound(PersonaError):
    """A named pack is neither installed nor in the bundled catalog."""


class AmbiguousPackName(PersonaError):
    """A bare pack name matches both ``official/<name>`` and ``custom/<name>``; we never guess."""

    def __init__(self, name: str, candidates: tuple[str, ...]) -> None:
        self.name = name
        self.candidates = candidates
        super().__init__(
            f"pack name {name!r} is ambiguous: it matches {', '.join(candidates)}; "
            "name it with its source, for example "
            f"{candidates[0]!r}"
        )


class DraftConflict(PersonaError):
    """A draft is missing, or one already exists for another target; cancel or apply it first."""


class UpdateRefused(PersonaError):
    """``update`` found no higher stable version, or local edits without ``--discard-edits``."""


class PersonaNotFound(PersonaError):
    """The session's team has no persona of that name; `/persona-list` shows the roster."""


class PersonaUnavailable(PersonaError):
    """The persona exists but its prompt cannot be built here; it is not activated."""


class StaleCommand(PersonaError):
    """A direct persona command no longer matches the session's team (team/workspace changed)."""


class MigrationRequired(PersonaError):
    """The workspace holds an older setup; personas refuse to run until it is migrated."""


class PlanRefused(PersonaError):
    """A confirming call did not meet the plan rules (issued here, current, unused, replied to)."""

    def __init__(self, reason: str, message: str) -> None:
        self.reason = reason
        super().__init__(message)


class PackStoreBusy(PersonaError):
    """The pack-store lock could not be taken in time; another process is changing packs."""


class UnsafeWorkspacePath(PersonaError):
    """A path would be read or written outside the workspace (``..``, absolute, symlink)."""
