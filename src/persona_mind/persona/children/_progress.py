"""Inspectable round-table progress (P-ROUNDTABLE-13, -17, -18), without the opinions.

A :class:`RoundtableTracker` is mutable state owned by exactly one coordinator actor (its
mailbox orders every update). :meth:`RoundtableTracker.snapshot` returns an immutable
:class:`RoundtableProgress`: the delegated query, the context policy, the roster with
reasons, the phase and its purpose, each persona's stable state and current activity, the
next step and the totals. Child answer text never enters it. The snapshot types are
values of ``messages/``; the tracker and the renderings are Persona rules (pure, no IO), run
by the coordinator actor and the tool/CLI displays.
"""

from __future__ import annotations

from persona_mind.messages.child import ChildProgress, ChildUsage
from persona_mind.messages.roundtable_progress import (
    PersonaState,
    Phase,
    RoundtableProgress,
    State,
)
from persona_mind.persona.children._costs import usage_text
from persona_mind.persona.children._roundtable import CONTEXT_POLICY
from persona_mind.persona.children._verdict import model_warning

__all__ = (
    "NEXT",
    "PURPOSE",
    "RoundtableTracker",
    "render_live",
    "render_progress",
)

PURPOSE: dict[str, str] = {
    "selection": "the [G] lead selects 1-5 specialists and assigns each a contribution",
    "independent": "Round 1: each specialist gives an independent position on its assignment",
    "revision": "Round 2: specialists see the ordered Round 1 positions and give final ones",
    "synthesis": "the lead moderates one synthesis from the final positions",
    "done": "the synthesis is ready and presented in full",
    "failed": "a phase failed: unfinished children were cancelled, no synthesis was made",
    "cancelled": "the round-table was cancelled: children were stopped, no synthesis",
}
NEXT: dict[str, str] = {
    "selection": "Round 1 with the selected specialists",
    "independent": "Round 2 (revision after peer reveal)",
    "revision": "moderator synthesis",
    "synthesis": "present the synthesis in full",
    "done": "none",
    "failed": "none (run the round-table again)",
    "cancelled": "none",
}


class RoundtableTracker:
    """The coordinator's progress state; every mutation comes from its mailbox."""

    def __init__(self, query: str, lead: str, started: float) -> None:
        self.query = query
        self.lead = lead
        self.started = started
        self.phase: Phase = "selection"
        self.roster: dict[str, list[str]] = {}  # name -> [reason, state, activity]
        self.lead_state: State = "waiting"
        self.children_started = 0
        self.children_finished = 0
        self.usage = ChildUsage()  # finished children
        self.running: dict[str, ChildUsage] = {}  # persona -> usage reported so far
        self.same_model: str | None = None
        self.error: str | None = None
        self.finished_at: float | None = None

    def selected(self, picks: tuple[tuple[str, str], ...]) -> None:
        self.roster = {name: [reason, "waiting", ""] for name, reason in picks}

    def enter(self, phase: Phase) -> None:
        self.phase = phase
        if phase == "synthesis":
            self.lead_state = "waiting"
        if phase in ("independent", "revision"):
            for entry in self.roster.values():
                entry[1], entry[2] = "waiting", ""

    def child_event(self, progress: ChildProgress) -> None:
        if progress.event == "spawned" or (progress.event == "started" and progress.pid is None):
            self.children_started += 1
        if progress.event == "usage" and progress.usage is not None:  # running totals
            name = progress.persona
            self.running[name] = self.running.get(name, ChildUsage()) + progress.usage
        activity = {
            "spawned": "starting",
            "started": "thinking",
            "turn": "thinking",
            "tool": f"using {progress.detail}",
            "usage": "answering",
            "settled": "finishing",
        }.get(progress.event)
        if activity is None:  # process exit and unknown events: the state says enough
            return

        if progress.persona == self.lead and self.phase in ("selection", "synthesis"):
            self.lead_state = "running"
            return
        entry = self.roster.get(progress.persona)
        if entry is not None and entry[1] in ("waiting", "running"):
            entry[1], entry[2] = "running", activity

    def child_done(self, persona: str, usage: ChildUsage | None, ok: bool) -> None:
        """A child ended: its reply's usage replaces what it reported while running; a
        failed one keeps what it reported (those tokens were spent)."""
        self.children_finished += 1
        # A child that failed before its first event was still launched: never report
        # more children finished than started ("1/0 children finished").
        self.children_started = max(self.children_started, self.children_finished)
        reported = self.running.pop(persona, ChildUsage())
        self.usage = self.usage + (usage if usage is not None else reported)
        state: State = "done" if ok else "failed"
        if persona == self.lead and self.phase in ("selection", "synthesis"):
            self.lead_state = state
            return
        entry = self.roster.get(persona)
        if entry is not None:
            entry[1], entry[2] = state, ""

    def end(self, phase: Phase, now: float, error: str | None = None) -> None:
        self.phase = phase
        self.error = error
        self.finished_at = now
        if phase != "done":
            for entry in self.roster.values():
                if entry[1] in ("waiting", "running"):
                    entry[1], entry[2] = "cancelled", ""
            if self.lead_state == "running":
                self.lead_state = "cancelled"

    def snapshot(self, now: float) -> RoundtableProgress:
        end = self.finished_at if self.finished_at is not None else now
        return RoundtableProgress(
            query=self.query,
            context_policy=CONTEXT_POLICY,
            lead=self.lead,
            phase=self.phase,
            phase_purpose=PURPOSE[self.phase],
            roster=tuple(
                PersonaState(name=n, reason=r, state=s, activity=a)  # type: ignore[arg-type]
                for n, (r, s, a) in self.roster.items()
            ),
            lead_state=self.lead_state,
            next_step=NEXT[self.phase],
            children_started=self.children_started,
            children_finished=self.children_finished,
            usage=sum(self.running.values(), self.usage),
            elapsed=end - self.started,
            error=self.error,
            same_model=self.same_model,
        )


def render_progress(p: RoundtableProgress, *, header: bool = True) -> str:
    """A human-readable block for the tool display / CLI (no opinions, no runtime paths).

    ``header=False`` leaves out the query and context policy (already shown once)."""
    lines = [f"Round-table: {p.query}", f"Context policy: {p.context_policy}"] if header else []
    lines += [
        f"Moderator: {p.lead} ({p.lead_state})",
        f"Phase: {p.phase} — {p.phase_purpose}",
    ]
    if p.roster:
        lines.append("Roster:")
        for s in p.roster:
            act = f", {s.activity}" if s.activity else ""
            lines.append(f"  - {s.name} [{s.state}{act}]: {s.reason}")
    lines.append(f"Next: {p.next_step}")
    lines.append(
        f"Totals: {p.children_finished}/{p.children_started} children finished, "
        f"{usage_text(p.usage)}, {p.elapsed:.1f}s"
    )
    if p.same_model:
        lines.append(model_warning(p.same_model))
    if p.error:
        lines.append(f"Error: {p.error}")
    return "\n".join(lines)


def render_live(p: RoundtableProgress) -> str:
    """The tool display while the round-table runs: at most ten lines (Pi's collapsed tool
    view shows ten), no opinions (P-ROUNDTABLE-17, -18). The totals run: they include
    what running children reported so far; a one-model panel is flagged on that line."""
    lines = [
        f"Round-table: {p.query}",
        f"Context policy: {p.context_policy}",
        f"Phase: {p.phase} — {p.phase_purpose}",
    ]
    for s in p.roster[:5]:
        act = f", {s.activity}" if s.activity else ""
        lines.append(f"  {s.name} [{s.state}{act}]: {s.reason}")
    lines.append(f"Moderator: {p.lead} ({p.lead_state}) · Next: {p.next_step}")
    warning = f" · {model_warning(p.same_model)}" if p.same_model else ""
    lines.append(
        f"Totals: {p.children_finished}/{p.children_started} children finished, "
        f"{usage_text(p.usage, brief=True)}, {p.elapsed:.1f}s"
        + warning
        + (f" · Error: {p.error}" if p.error else "")
    )
    return "\n".join(lines)
