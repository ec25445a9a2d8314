"""Typed failures of one-shot child sessions (consults, round-table legs, workers).

Every leaf derives from :class:`~persona_mind.errors.ChildError`, so a caller can catch one
type. They sit beside ``errors.py``, outside ``runners/``, because every layer raises or
catches them: the process layer (spawn, deadline, protocol), the round-table rules in
``persona/`` (selection, synthesis), the actors (busy, cancelled) and the features.

Each message says what went wrong *and what to do*. None of these is ever followed by
an automatic retry: a child that was launched may already have had side effects
(P-CHILD-8), so the caller decides.
"""

from __future__ import annotations

from persona_mind.errors import ChildError

__all__ = (
    "ChildCancelled",
    "ChildDeadlineExceeded",
    "ChildDied",
    "ChildExited",
    "ChildModelError",
    "ChildProtocolError",
    "ChildSpawnFailed",
    "ChildUnavailable",
    "ConsultRefused",
    "PersonaNotInTeam",
    "RequesterNotActive",
    "RoundtableBusy",
    "RoundtableFailed",
    "RoundtableQueryEmpty",
    "SelectionInvalid",
    "SelfConsult",
    "SynthesisIncomplete",
)


def _tail(text: str, limit: int = 400) -> str:
    text = text.strip()
    return text if len(text) <= limit else "…" + text[-limit:]


class ChildSpawnFailed(ChildError):
    """The child executable could not be started (missing, not executable, bad argv)."""

    def __init__(self, argv0: str, cause: str) -> None:
        self.argv0 = argv0
        super().__init__(
            f"could not start child {argv0!r}: {cause}; check the pi path (--pi) "
            "or install Pi with scripts/install-pi.sh"
        )


class ChildDeadlineExceeded(ChildError):
    """The child did not finish within its deadline; it was stopped (abort → TERM → KILL)."""

    def __init__(self, label: str, deadline: float) -> None:
        self.label = label
        self.deadline = deadline
        super().__init__(
            f"child {label} did not finish within {deadline:g}s and was stopped; "
            "raise the deadline or ask a narrower question"
        )


class ChildCancelled(ChildError):
    """The child was cancelled on request (a Cancel message, a failed sibling, the user)."""

    def __init__(self, label: str, reason: str = "cancelled") -> None:
        self.label = label
        self.reason = reason
        super().__init__(f"child {label} was cancelled ({reason}); nothing was retried")


class ChildExited(ChildError):
    """The child process exited with a non-zero status before giving an answer."""

    def __init__(self, label: str, returncode: int, stderr: str) -> None:
        self.label = label
        self.returncode = returncode
        self.stderr = stderr
        super().__init__(
            f"child {label} exited with status {returncode}: {_tail(stderr) or '(no stderr)'}; "
            "run the same pi command by hand to see the full error"
        )


class ChildDied(ChildError):
    """The child was killed by a signal or closed its output without a final answer."""

    def __init__(self, label: str, detail: str, stderr: str = "") -> None:
        self.label = label
        self.detail = detail
        self.stderr = stderr
        tail = _tail(stderr)
        super().__init__(
            f"child {label} died: {detail}"
            + (f" (stderr: {tail})" if tail else "")
            + "; check memory limits and the model provider, then ask again"
        )


class ChildProtocolError(ChildError):
    """The child wrote something that is not the expected protocol (garbage, oversized frame)."""

    def __init__(self, label: str, detail: str) -> None:
        self.label = label
        self.detail = detail
        super().__init__(
            f"child {label} broke the protocol: {detail}; the pi build may be incompatible "
            "(pin the version installed by scripts/install-pi.sh)"
        )


class ChildModelError(ChildError):
    """The child ran but its model failed (stopReason error, provider error, empty answer)."""

    def __init__(self, label: str, detail: str) -> None:
        self.label = label
        self.detail = detail
        super().__init__(
            f"child {label}'s model failed: {detail}; check the provider, the model id "
            "and its authentication in Pi"
        )


class ChildUnavailable(ChildError):
    """A persona's declared model or skill is not available in this Pi: nothing launched.

    Raised by the consult rules before any child starts and by the real pi backend at
    launch (P-CHILD-13), so it lives here, where both may import it."""

    def __init__(self, persona: str, detail: str) -> None:
        self.persona = persona
        self.detail = detail
        super().__init__(f"persona {persona!r} cannot run as a child: {detail}")


class ConsultRefused(ChildError):
    """A consult or round-table request was refused before any child started."""


class RequesterNotActive(ConsultRefused):
    """``persona_consult`` was called by a persona that is not the session's active one."""

    def __init__(self, requester: str, active: str | None) -> None:
        self.requester = requester
        self.active = active
        if not requester and not active:
            message = (
                "no persona is active in this session; activate one with /persona use "
                "before consulting"
            )
        else:
            message = (
                f"persona {requester or '(unnamed)'!r} is not the active persona "
                f"({active or 'none'}); activate it with /persona use before consulting"
            )
        super().__init__(message)


class SelfConsult(ConsultRefused):
    """A persona asked to consult itself."""

    def __init__(self, persona: str) -> None:
        self.persona = persona
        super().__init__(
            f"persona {persona!r} cannot consult itself; pick another persona of the team "
            "(see /persona-list)"
        )


class PersonaNotInTeam(ConsultRefused):
    """The named persona is unknown or not part of this session's team snapshot."""

    def __init__(self, name: str, team: str, known: tuple[str, ...]) -> None:
        self.name = name
        self.team = team
        self.known = known
        super().__init__(
            f"{name!r} is not a persona of this session's team {team!r}; "
            f"choose one of: {', '.join(known) or '(none)'}"
        )


class SelectionInvalid(ChildError):
    """The [G] lead's specialist selection failed validation (never guessed lexically)."""

    def __init__(self, detail: str) -> None:
        self.detail = detail
        super().__init__(
            f"the team lead's specialist selection was invalid: {detail}; no specialist was "
            "started — ask again or rephrase the query"
        )


class SynthesisIncomplete(ChildError):
    """The moderator's synthesis lacks a section, has an empty one, or has them out of order.

    P-ROUNDTABLE-9: perspectives, disagreements, tradeoffs, decision and uncertainty, each
    present, non-empty and in that order."""

    def __init__(
        self,
        missing: tuple[str, ...] = (),
        *,
        empty: tuple[str, ...] = (),
        order: tuple[str, ...] = (),
    ) -> None:
        self.missing = missing
        self.empty = empty
        self.order = order
        problems = []
        if missing:
            problems.append(f"is missing sections: {', '.join(missing)}")
        if empty:
            problems.append(f"has empty sections: {', '.join(empty)}")
        if order:
            problems.append(
                f"has its sections out of order ({' → '.join(order)}; required: "
                "Perspectives → Disagreements → Tradeoffs → Decision → Uncertainty)"
            )
        super().__init__(
            f"the moderator synthesis {'; '.join(problems) or 'is incomplete'}; "
            "the round-table result was not presented — run it again"
        )


class RoundtableBusy(ChildError):
    """A round-table was started while this runtime's one round-table still runs."""


class RoundtableFailed(ChildError):
    """A round-table phase failed; unfinished siblings were cancelled and no synthesis made."""

    def __init__(self, phase: str, persona: str, cause: BaseException) -> None:
        self.phase = phase
        self.persona = persona
        self.cause = cause
        super().__init__(
            f"round-table {phase} failed at {persona}: {cause}; the other children were "
            "cancelled and no synthesis was produced"
        )


class RoundtableQueryEmpty(ChildError):
    """A round-table was asked with an empty (or whitespace-only) query."""

    def __init__(self) -> None:
        super().__init__(
            "the round-table query is empty; ask a question, e.g. "
            "/persona-roundtable how should we shard the index?"
        )
