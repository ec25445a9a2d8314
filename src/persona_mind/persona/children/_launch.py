"""A persona's declared model and skills, resolved for a child against live host state.

P-RESOLVER-21 / P-ROUNDTABLE-19 / P-CHILD-13: a persona's declared ``model`` and
``skills`` are honoured for its children, checked against what the running Pi actually has
(the host reports its loaded skills and available models at session start). Before, every
child ran ``--no-skills`` on the session model while its prompt listed skills to use.

Resolution happens when the team is handed to the child runner (each consult or round-table
start, with the host state of the latest session start); a persona whose declared skill or
model is not available keeps the reason and its child refuses to launch with it
(:class:`~persona_mind.child_errors.ChildUnavailable`), naming what is missing and what to
do. When the host did not report its state (a headless runtime, the CLI), declared skills
are left to the child Pi's own discovery (no ``--no-skills``) and a declared model is
passed as given (Pi rejects an unknown one at launch with its own message).

Pure Persona rules (no IO, no process): the host state is a value the caller hands in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = ("HostState", "launch_problem", "resolve_skills")


@dataclass(frozen=True, slots=True)
class HostState:
    """What the running Pi reported at session start; ``None`` fields were not reported."""

    skills: Mapping[str, str] | None = None
    """Loaded skill name → its file or directory (Pi's ``getCommands()`` skill entries)."""
    models: frozenset[str] | None = None
    """Available ``provider/id`` models (Pi's model registry, authenticated ones)."""

    @classmethod
    def reported(
        cls,
        skills: Sequence[tuple[str, str]] | None,
        models: Sequence[str] | None,
    ) -> HostState:
        return cls(
            skills=None if skills is None else dict(skills),
            models=None if models is None else frozenset(models),
        )


def _model_known(model: str, models: frozenset[str]) -> bool:
    """``provider/id`` exactly, or a bare id (or ``id:thinking``) some provider offers."""
    base = model.rsplit(":", 1)[0] if ":" in model.rpartition("/")[2] else model
    if base in models:
        return True
    if "/" not in base:
        return any(m.partition("/")[2] == base for m in models)
    return False


def resolve_skills(skills: Sequence[str], host: HostState) -> tuple[tuple[str, ...], list[str]]:
    """(paths to load, names not loaded in this Pi); unknown host state resolves nothing."""
    if host.skills is None:
        return (), []
    paths: list[str] = []
    missing: list[str] = []
    for name in dict.fromkeys(skills):
        path = host.skills.get(name)
        if path is None:
            missing.append(name)
        else:
            paths.append(path)
    return tuple(paths), missing


def launch_problem(model: str | None, missing_skills: Sequence[str], host: HostState) -> str | None:
    """Why a persona with this declared model and these missing skills cannot launch."""
    problems: list[str] = []
    if missing_skills:
        names = ", ".join(repr(s) for s in missing_skills)
        problems.append(
            f"skill(s) {names} are not loaded in this Pi — install them (or remove them from "
            "the persona's `skills`) and start a new session"
        )
    if model and host.models is not None and not _model_known(model, host.models):
        problems.append(
            f"its declared model {model!r} is not available in this Pi (log in to its "
            "provider, or change the persona's `model`)"
        )
    return "; ".join(problems) or None
