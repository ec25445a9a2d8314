"""The values a child run takes and returns: the ChildRunner protocol's vocabulary.

Plain frozen msgspec Structs so they can ride inside actor messages and the trace
unchanged. They live in ``messages/`` because both sides speak them: the actors that ask
for children, the process layer in ``runners/`` that runs them, and the round-table rules
in ``persona/`` (issue 10: messages import nothing from ``runners/``).
:class:`ChildPersona` is the launching persona *frozen* for the child's whole life
(M-LEG-7, M-LEG-10): the runner never re-reads the team after launch.
"""

from __future__ import annotations

from typing import Literal

import msgspec

__all__ = (
    "DEFAULT_CHILD_TOOLS",
    "ChildKind",
    "ChildPersona",
    "ChildProgress",
    "ChildReply",
    "ChildRequest",
    "ChildSpend",
    "ChildTeam",
    "ChildUsage",
    "ProgressEvent",
    "Role",
)

Role = Literal["generalist", "specialist"]
ChildKind = Literal["consult", "select", "round1", "round2", "synthesis", "worker"]

DEFAULT_CHILD_TOOLS: tuple[str, ...] = ("read", "grep", "ls")
"""Read-only built-ins (P-CHILD-11). ``find`` is left out: Pi's find needs a recent ``fd``
that Debian does not ship and cannot download offline (notes/pi-host.md pitfall 5)."""


class ChildPersona(msgspec.Struct, frozen=True, kw_only=True):
    """A persona as a child sees it: resolved once, frozen for the child's lifetime."""

    name: str
    qualified_id: str
    role: Role
    system_prompt: str
    description: str = ""
    tools: tuple[str, ...] = DEFAULT_CHILD_TOOLS
    model: str | None = None
    """The persona's declared model (P-RESOLVER-21); ``None``: the session's model."""
    skills: tuple[str, ...] = ()
    """Declared skills (its prompt lists them); loaded from ``skill_paths`` when resolved."""
    skill_paths: tuple[str, ...] = ()
    """Where the running Pi has those skills (``--skill``), resolved at launch."""
    unavailable: str | None = None
    """Why this persona cannot launch (a declared skill or model Pi does not have)."""


class ChildTeam(msgspec.Struct, frozen=True, kw_only=True):
    """This session's team snapshot as the child runner needs it (P-CONSULT-9)."""

    pack: str
    personas: tuple[ChildPersona, ...]

    @property
    def lead(self) -> ChildPersona | None:
        """The pack's single ``[G]`` generalist, if the snapshot has exactly one."""
        leads = [p for p in self.personas if p.role == "generalist"]
        return leads[0] if len(leads) == 1 else None

    @property
    def specialists(self) -> tuple[ChildPersona, ...]:
        return tuple(p for p in self.personas if p.role == "specialist")

    def find(self, name: str) -> ChildPersona | None:
        """Look a persona up by bare name or qualified id; ``None`` when absent."""
        for persona in self.personas:
            if name in (persona.name, persona.qualified_id):
                return persona
        return None


class ChildUsage(msgspec.Struct, frozen=True, kw_only=True):
    """Provider usage of one child (worker tokens: never counted toward the main gate).

    The four token counts are Pi's ``Usage`` fields (``input`` excludes cache reads and
    writes, as Pi reports it); ``cost`` is Pi's ``cost.total`` (its catalog estimate or the
    provider's billed figure), ``0.0`` where the events carry none. A tool result hands
    this value to Pi as its ``usage`` (docs/children.md, "What every child costs")."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost: float = 0.0

    @property
    def total_tokens(self) -> int:
        """Every token the child's provider counted: input, output and both cache kinds."""
        cache = self.cache_read_tokens + self.cache_write_tokens
        return self.input_tokens + self.output_tokens + cache

    def __add__(self, other: ChildUsage) -> ChildUsage:
        return ChildUsage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cache_read_tokens=self.cache_read_tokens + other.cache_read_tokens,
            cache_write_tokens=self.cache_write_tokens + other.cache_write_tokens,
            cost=self.cost + other.cost,
        )


class ChildRequest(msgspec.Struct, frozen=True, kw_only=True):
    """One one-shot child: who runs it, on which model, with what task and deadline.

    ``injection`` is the caller's lean objective/LTM text (M-LEG-3); it is appended to the
    persona prompt and is the *only* memory a child gets: no memory tools, no reminders,
    no session notes (M-LEG-4..6).
    """

    request_id: str
    kind: ChildKind
    persona: ChildPersona
    prompt: str
    model: str
    deadline: float = 180.0
    injection: str = ""
    cwd: str | None = None

    @property
    def label(self) -> str:
        return f"{self.kind}:{self.persona.name}#{self.request_id}"

    @property
    def child_model(self) -> str:
        """The model the child runs: the persona's declared model (P-RESOLVER-21), else the
        session's; a Mind worker always runs the exact session model (M-OPTIMIZE-WORKER-2)."""
        if self.kind != "worker" and self.persona.model:
            return self.persona.model
        return self.model

    @property
    def system_prompt(self) -> str:
        """The persona prompt plus the lean leg injection, exactly as the child receives it."""
        if not self.injection:
            return self.persona.system_prompt
        return f"{self.persona.system_prompt}\n\n{self.injection}"


class ChildReply(msgspec.Struct, frozen=True, kw_only=True):
    """The one answer of a finished child."""

    request_id: str
    persona: str
    text: str
    usage: ChildUsage = ChildUsage()
    model: str = ""
    duration: float = 0.0
    stop_reason: str = "stop"
    backend: str = ""


ProgressEvent = Literal["spawned", "started", "turn", "tool", "usage", "settled", "exited"]


class ChildProgress(msgspec.Struct, frozen=True, kw_only=True):
    """Activity of a running child. Never carries the child's opinion text (P-ROUNDTABLE-18)."""

    request_id: str
    persona: str
    event: ProgressEvent
    detail: str = ""
    pid: int | None = None
    usage: ChildUsage | None = None


class ChildSpend(msgspec.Struct, frozen=True, kw_only=True):
    """What one persona's children of one kind cost under one owner generation.

    The ChildRunner keeps these (``ChildTotals``) as children run: a running child's usage
    counts as each of its assistant messages ends, a finished one's as its reply reports."""

    generation: int
    persona: str
    kind: ChildKind
    children: int = 0
    usage: ChildUsage = ChildUsage()
