"""``/mind`` and ``/persona-mind``: one handler for both names (M-UI-7, M-HOST-23).

Plain async functions over a :class:`MindCommandContext`; the Companion builds the
context per call (service for the current scope, the session's notes ledger and settings)
and shows the returned :class:`CommandResult`.  When Mind is inactive (no valid companion,
owner not ready, a leg) only ``status``, ``doctor`` and ``help`` answer, with the reason.
"""

from __future__ import annotations

import shlex
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from persona_mind.errors import PersonaMindError, StorageError
from persona_mind.messages.host import CommandResult, CommandSpec
from persona_mind.mind._cards import Card, backlog_line, fact_line
from persona_mind.mind._errors import MindRefusal
from persona_mind.mind._model import Tier
from persona_mind.mind._policy import parse_policy
from persona_mind.mind._service import MemoryService
from persona_mind.mind._settings import MindSettings
from persona_mind.mind._text import plural
from persona_mind.mind.inject._explain import explain_plan
from persona_mind.mind.inject._explain import render as render_explanation
from persona_mind.mind.notes._ledger import NotesLedger
from persona_mind.mind.optimize._commands import run_optimize
from persona_mind.mind.optimize._port import OptimizeBinding
from persona_mind.mind.trust._scanner import scan
from persona_mind.storage.port import StoreTarget

__all__ = ("COMMAND_NAMES", "MindCommandContext", "command_specs", "handle_mind_command")

COMMAND_NAMES = ("mind", "persona-mind")
USAGE = (
    "usage: /mind [status|list [persona|shared|project|stm|backlog|notes]|read <id>|"
    "forget <id>|link [ROOT|--unlink]|doctor|capture [auto|prompt|off]|nudge [on|off]|"
    "policy [auto|confirm-untrusted|confirm-all|recall-only]|optimize …|why|help]"
)
_LIST_LIMIT = 20


@dataclass(slots=True)
class MindCommandContext:
    """What a command may use; ``service`` is ``None`` while Mind is inactive."""

    service: MemoryService | None
    settings: MindSettings
    ledger: NotesLedger | None = None
    refusal: str | None = None
    import_status: str | None = None
    optimize: OptimizeBinding | None = None  # consolidation (see _optimize_commands)
    auto: Callable[[str], Awaitable[tuple[str, ...]]] | None = None
    """The Scheduler's ``/mind optimize auto`` verbs; ``None`` where nothing schedules."""


def command_specs() -> tuple[CommandSpec, ...]:
    """Both names, one handler."""
    return tuple(
        CommandSpec(
            name=n,
            description="Mind memory: status, list, read, forget, doctor, capture/nudge settings",
        )
        for n in COMMAND_NAMES
    )


def _result(card: Card, level: str = "info") -> CommandResult:
    return CommandResult(text=card.full(), level=level)  # type: ignore[arg-type]


async def _why(service: MemoryService) -> CommandResult:
    """Plan the last prompt again over the stores as they are now and explain it (the same
    plan as that turn's unless a store or the ranker changed since: planning is pure)."""
    last = service.last_prompt
    if last is None:
        return CommandResult(text="No prompt has been planned yet in this session.")
    prompt, notes, lean, reserve = last
    plan = await service.injection(prompt, notes=notes, lean=lean, reserve_tokens=reserve)
    return CommandResult(text=render_explanation(explain_plan(plan)))


async def handle_mind_command(args: str, ctx: MindCommandContext) -> CommandResult:
    """Run one ``/mind …`` command."""
    try:
        words = shlex.split(args)
    except ValueError as exc:
        return CommandResult(text=f"{exc}\n{USAGE}", level="error")
    sub = words[0] if words else "status"
    rest = words[1:]
    try:
        if sub == "help":
            return CommandResult(text=USAGE)
        if sub == "status":
            return _result(await _status(ctx))
        if sub == "doctor":
            return await _doctor(ctx)
        if ctx.service is None:
            return CommandResult(
                text=f"Mind is inactive: {ctx.refusal or 'not ready'}", level="warning"
            )
        if sub == "why":  # the last prompt's candidates, score parts and rules
            return await _why(ctx.service)
        if sub == "capture":
            return _capture(ctx, rest)
        if sub == "nudge":
            return _nudge(ctx, rest)
        if sub == "policy":
            return _policy(ctx, rest)
        if sub == "list":
            return _result(await _list(ctx, ctx.service, rest[0] if rest else None))
        if sub in ("read", "forget") and len(rest) == 1:
            return _result(await _read_forget(ctx, ctx.service, sub, rest[0]))
        if sub == "optimize" and rest[:1] == ["auto"]:  # the Scheduler (M-OPTIMIZE-AUTO-3)
            return await _auto(ctx, rest[1:])
        if sub == "optimize":  # consolidation: its own module
            if ctx.optimize is None:
                return CommandResult(text="the Optimizer is not available here", level="warning")
            return _result(await run_optimize(rest, ctx.optimize))
    except (MindRefusal, PersonaMindError) as exc:
        return CommandResult(text=str(exc), level="error")
    return CommandResult(text=f"unknown /mind arguments {args!r}\n{USAGE}", level="error")


AUTO_USAGE = "usage: /mind optimize auto [status|on|off]"


async def _auto(ctx: MindCommandContext, words: list[str]) -> CommandResult:
    """Read or change this session's automatic-review setting (never persisted)."""
    verb = words[0] if words else "status"
    if len(words) > 1 or verb not in ("status", "on", "off"):
        return CommandResult(text=AUTO_USAGE, level="error")
    if ctx.auto is None:
        return CommandResult(
            text="automatic review is not available here (no worker children in this runtime)",
            level="warning",
        )
    return _result(Card("Automatic review", await ctx.auto(verb)))


async def _status(ctx: MindCommandContext) -> Card:
    lines = [
        f"capture: {ctx.settings.capture}, nudges: {'on' if ctx.settings.nudge else 'off'}, "
        f"write policy: {ctx.settings.write_policy}"
    ]
    if ctx.service is None:
        return Card("Mind inactive", (f"reason: {ctx.refusal or 'not ready'}", *lines))
    scope = ctx.service.scope
    lines.insert(0, f"persona: {scope.persona or '(none)'}")
    lines.insert(1, f"project: {scope.project.root if scope.project else '(home: not a project)'}")
    for tier in scope.tiers():
        lines.append(f"{tier}: {plural(len(await ctx.service.list_facts(tier)), 'live fact')}")
    if scope.project is not None:
        lines.append(f"backlog: {plural(len(await ctx.service.backlog_list()), 'active item')}")
    if ctx.ledger is not None:
        where = "session file" if ctx.ledger.persisted else "memory only (not restart-durable)"
        state = f"closed ({ctx.ledger.closed})" if ctx.ledger.closed else f"{len(ctx.ledger.notes)}"
        events = plural(ctx.ledger.lifetime_events, "event")
        lines.append(f"session notes: {state}; {events}; {where}")
    if ctx.import_status:
        lines.append(f"import: {ctx.import_status}")
    lines += [f"warning: {w}" for w in ctx.settings.warnings]
    return Card("Mind status", tuple(lines))


async def _doctor(ctx: MindCommandContext) -> CommandResult:
    if ctx.service is None:
        return CommandResult(text=f"Mind inactive: {ctx.refusal or 'not ready'}", level="warning")
    svc = ctx.service
    lines: list[str] = []
    bad = 0
    targets: list[tuple[str, StoreTarget[Any]]] = [
        (t, svc.scope.fact_target(t)) for t in svc.scope.tiers()
    ]
    if svc.scope.project is not None:
        targets.append(("backlog", svc.scope.backlog_target()))
    for name, target in targets:
        try:
            snap = await svc.store.read(target)
        except (StorageError, PersonaMindError) as exc:
            bad += 1
            lines.append(f"{name}: PROBLEM {exc}")
            continue
        lines.append(f"{name}: {'missing (empty)' if snap is None else 'ok'} {target.path}")
        withheld = _withheld(snap.entries if snap is not None else ())
        if withheld:
            bad += 1
            shown = withheld[:_WITHHELD_SHOWN] + (
                [f"+{len(withheld) - _WITHHELD_SHOWN} more"]
                if len(withheld) > _WITHHELD_SHOWN
                else []
            )
            lines.append(
                f"{name}: {len(withheld)} entr(ies) withheld from injection by the content "
                "scanner (kept on disk; remove with /mind forget <id>): " + ", ".join(shown)
            )
    if ctx.ledger is not None and ctx.ledger.closed:
        bad += 1
        lines.append(f"session notes: closed ({ctx.ledger.closed})")
    ranker = svc.semantic.status() if svc.semantic is not None else None
    lines.append(
        f"ranking: {ranker.describe()}"
        if ranker is not None
        else "ranking: lexical (BM25 with stemming): semantic ranker off"
    )
    if ctx.auto is not None:  # the Scheduler's state (M-OPTIMIZE-AUTO-7)
        lines += [f"scheduler: {line}" for line in await ctx.auto("status")]
    title = "Mind doctor: ok" if not bad else f"Mind doctor: {bad} problem(s)"
    return _result(Card(title, tuple(lines)), "info" if not bad else "warning")


_WITHHELD_SHOWN = 10


def _withheld(entries: tuple[Any, ...]) -> list[str]:
    """Stored entries a (possibly newer) scanner rule set finds unsafe: ``id (rules)``.

    They stay on disk — never silently deleted — and are withheld from injection, recall
    and reads; the rule names are shown, the matched text never is.
    """
    out: list[str] = []
    for entry in entries:
        texts = (entry.text, getattr(entry, "source", None) or "", *entry.tags)
        hits = [h for t in texts for h in scan(t)]
        if hits:
            rules = ", ".join(dict.fromkeys(f"{h.category}/{h.rule}" for h in hits))
            out.append(f"{entry.id} ({rules})")
    return out


def _capture(ctx: MindCommandContext, rest: list[str]) -> CommandResult:
    if not rest:
        return CommandResult(text=f"capture: {ctx.settings.capture}")
    if rest[0] not in ("auto", "prompt", "off"):
        return CommandResult(text="capture mode is auto, prompt or off", level="error")
    ctx.settings.capture = rest[0]  # type: ignore[assignment]
    return CommandResult(text=f"capture: {rest[0]} (this session only)")


def _nudge(ctx: MindCommandContext, rest: list[str]) -> CommandResult:
    if not rest:
        return CommandResult(text=f"nudges: {'on' if ctx.settings.nudge else 'off'}")
    if rest[0] not in ("on", "off"):
        return CommandResult(text="nudge is on or off", level="error")
    ctx.settings.nudge = rest[0] == "on"
    return CommandResult(text=f"nudges: {rest[0]} (this session only)")


async def _list(ctx: MindCommandContext, svc: MemoryService, what: str | None) -> Card:
    lines: list[str] = []
    if what in (None, "notes") and ctx.ledger is not None:
        lines += [f"[session {n.kind} {n.note_id}] {n.text}" for n in ctx.ledger.notes.values()]
    tiers: tuple[Tier, ...] = svc.scope.tiers()
    if what not in (None, "notes", "backlog"):
        if what not in tiers:
            return Card(f"No tier {what!r} here", (f"tiers: {', '.join(tiers)}",))
        tiers = (what,)  # type: ignore[assignment]
    if what not in ("notes", "backlog"):
        for tier in tiers:
            facts = await svc.list_facts(tier)
            lines += [fact_line(tier, f) for f in facts[:_LIST_LIMIT]]
            if len(facts) > _LIST_LIMIT:
                lines.append(f"(+{len(facts) - _LIST_LIMIT} more {tier} facts)")
    if what in (None, "backlog") and svc.scope.project is not None:
        lines += [backlog_line(b) for b in await svc.backlog_list()]
    return Card("Mind memory", tuple(lines) or ("(nothing stored)",))


async def _read_forget(ctx: MindCommandContext, svc: MemoryService, sub: str, fid: str) -> Card:
    if fid.startswith("n_") and ctx.ledger is not None:
        if sub == "read":
            note = ctx.ledger.read(fid)
            return Card(f"Session note {fid}", (note.text,))
        return Card(
            "Use the memory tool to forget a session note",
            ("(it appends a tombstone entry to the session)",),
        )
    if sub == "read":
        found = await svc.read(fid)
        return Card(f"{found.tier} {found.fact.kind} {fid}", (found.fact.text,))
    found = await svc.forget(fid)
    return Card(f"Forgot {found.tier} {fid}", (found.fact.text,))


def _policy(ctx: MindCommandContext, rest: list[str]) -> CommandResult:
    if not rest:
        return CommandResult(text=f"write policy: {ctx.settings.write_policy}")
    policy = parse_policy(rest[0]) if len(rest) == 1 else None
    if policy is None:
        return CommandResult(
            text="write policy is auto, confirm-untrusted, confirm-all or recall-only",
            level="error",
        )
    ctx.settings.write_policy = policy
    return CommandResult(text=f"write policy: {policy} (this session only)")
