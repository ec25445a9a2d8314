"""``persona_mind.Team``: a project's persona team and its consults, for embedding.

Why a facade: a consult needs a team snapshot, a child runner, a model and the lean memory
injection, which only a running session assembles.  ``Team`` is that session without Pi — the
headless host (:mod:`persona_mind._headless`) over the product ``Runtime`` — so a
consult from a program is the very ``persona_consult`` a Pi session runs: same team snapshot,
same leaf rules (no self-consult, no memory tools in the leg), same deadline.

Example::

    async with Team(cwd=".", persona="architect", model="provider/model-id") as team:
        print([m.name for m in await team.members()])
        answer = await team.consult("security-reviewer", "Is this token handling safe?")
        print(answer.answer)

Children run with ``pi`` from PATH unless ``pi_command`` (or a ``child_backend``, as tests
use) is given.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from persona_mind.errors import ChildError, HostError, PersonaError
from persona_mind.runtime import default_agent_dir

if TYPE_CHECKING:
    from persona_mind._headless import HeadlessSession
    from persona_mind.children import ChildBackend
    from persona_mind.clock import Clock
    from persona_mind.persona import ConsultResult, TeamMember, TeamSnapshot

__all__ = ("ConsultRefused", "Team", "TeamUnavailable")


class TeamUnavailable(PersonaError):
    """The project has no persona team (select one, or set the default team)."""


class ConsultRefused(ChildError):
    """A consult was refused or failed (unknown or same persona, no Pi, deadline…)."""


class Team:
    """A project's persona team over a headless session (see the module doc)."""

    def __init__(
        self,
        *,
        agent_dir: str | os.PathLike[str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        persona: str | None = None,
        model: str | None = None,
        pi_command: Sequence[str] | None = None,
        child_backend: ChildBackend | None = None,
        clock: Clock | None = None,
    ) -> None:
        self.agent_dir = Path(agent_dir) if agent_dir is not None else default_agent_dir()
        self.cwd = Path(cwd).resolve() if cwd is not None else Path.cwd()
        self.persona = persona
        self.model = model
        self.pi_command = tuple(pi_command) if pi_command is not None else None
        self.child_backend = child_backend
        self.clock = clock
        self._session: HeadlessSession | None = None

    def _backend(self, clock: Clock) -> ChildBackend | None:
        if self.child_backend is not None:
            return self.child_backend
        command = self.pi_command
        if command is None:
            found = shutil.which("pi")
            command = (found,) if found else None
        if not command:
            return None
        from persona_mind.runners._child_lazy import LazyPiBackend  # noqa: PLC0415 - children only

        return LazyPiBackend(command, clock=clock)

    async def __aenter__(self) -> Team:
        from persona_mind._headless import HeadlessSession  # noqa: PLC0415
        from persona_mind.clock import MonotonicClock  # noqa: PLC0415

        clock = self.clock or MonotonicClock()
        session = HeadlessSession(
            agent_dir=self.agent_dir,
            cwd=self.cwd,
            persona=self.persona,
            model=self.model,
            clock=clock,
            child_backend=self._backend(clock),
            manager="library",
        )
        await session.__aenter__()
        self._session = session
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        session, self._session = self._session, None
        if session is not None:
            await session.__aexit__(exc_type, exc, tb)

    @property
    def session(self) -> HeadlessSession:
        """The headless session (its ``runtime`` offers every tool of a Pi session)."""
        if self._session is None:
            raise HostError("Team is not open; use `async with Team(...) as team:`")
        return self._session

    async def snapshot(self) -> TeamSnapshot:
        """The team as the session retained it (pack, version, resolved members)."""
        snap = await self.session.runtime.team()  # GetTeam: asked of the Companion
        if snap is None:
            raise TeamUnavailable(
                f"{self.cwd} has no persona team; choose one with `persona-mind persona default "
                "set <pack>` (new sessions) or `/persona team select <pack>` in Pi"
            )
        return snap

    async def members(self) -> list[TeamMember]:
        """Every member, roster order ([G] lead first when the pack lists it first)."""
        return list((await self.snapshot()).members)

    async def resolve(self, name: str) -> str:
        """One member's resolved system prompt, as a consult receives it."""
        snap = await self.snapshot()
        member = snap.member(name)
        if member is None:
            names = ", ".join(m.name for m in snap.members)
            raise TeamUnavailable(f"{snap.pack_ref} has no persona {name!r}; members: {names}")
        return member.system_prompt

    async def consult(self, consultant: str, question: str, *, context: str = "") -> ConsultResult:
        """Ask one member; the answer comes with its provenance (model, tokens, duration)."""
        import msgspec  # noqa: PLC0415

        from persona_mind.persona import ConsultResult  # noqa: PLC0415

        arguments: dict[str, Any] = {"consultant": consultant, "question": question}
        if context:
            arguments["context"] = context
        names = {s.name for s in self.session.tool_specs()}
        if "persona_consult" not in names:
            raise ConsultRefused(
                "consults need a team and a child backend: install Pi (`pi` on PATH) or pass "
                "pi_command=…, and choose a team for this project"
            )
        result = await self.session.call("persona_consult", arguments)
        if result.is_error:
            raise ConsultRefused(result.text)
        return msgspec.convert(result.details, ConsultResult)
