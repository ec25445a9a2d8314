"""Slash commands: `/persona …`, `/persona-list` and direct `/<persona>` aliases.

Slash commands are the exact, advanced route to the same operations the chat tool plans
(P-CHAT-PLAN-1). Removal, apply, update, migrate apply/rollback and onboard apply show
what they will do and need ``--yes`` (confirmation-gated, P-PACK-31); the rest run at once.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from persona_mind.errors import PersonaMindError
from persona_mind.messages.host import CommandCall, CommandResult
from persona_mind.persona._errors import (
    MigrationRequired,
    PersonaNotFound,
    PersonaUnavailable,
    StaleCommand,
)
from persona_mind.persona._service import PersonaService
from persona_mind.persona._views import persona_list, persona_status
from persona_mind.persona.binding._session import ACTIVE_ENTRY, ActivePersona, SessionContext
from persona_mind.persona.plans._chat import PlanNeed
from persona_mind.persona.plans._ops import CHANGES, READ_ONLY, prepare, read
from persona_mind.persona.plans._outcome import CommandOutcome, Effects
from persona_mind.persona.workspace._files import Workspace

__all__ = ("HELP", "PACK_VERBS", "command_plan_needs", "run_command")

PACK_VERBS = ("list", "status", "install", "update", "uninstall", "fork", "create", "edit",
              "preview", "apply", "cancel", "delete")  # fmt: skip
GATED = frozenset({"pack.uninstall", "pack.delete", "pack.apply", "pack.update",
                   "migrate.apply", "migrate.rollback", "onboard.apply"})  # fmt: skip

HELP = """\
/persona use <name> [query]   activate a persona of this session's team
/persona status | clear       show or leave persona mode
/persona team [status|select <pack>|refresh|none]
/persona default [show|set <pack>|clear]
/persona pack list|status [name]|install <name>|update <name> [--discard-edits]|
              uninstall <name>|fork <source> <name>|create <name>|edit <name>|
              preview <name>|apply <name>|cancel <name>|delete <name>
/persona migrate inspect|status|preview [name]|cancel|apply [name]|rollback
/persona onboard [preview|apply]
/persona doctor
/persona decisions [query]    round-table decisions recorded in this project
/persona-list                 this session's team"""


def command_plan_needs(call: CommandCall) -> PlanNeed | None:
    """What a command needs from the Owner's plans before it runs: `/persona migrate
    cancel` reports how many migration plans it cancelled."""
    head, _, tail = call.args.strip().partition(" ")
    if call.name == "persona" and head == "migrate" and tail.strip().startswith("cancel"):
        return PlanNeed("drop", action_prefix="migrate.")
    return None


def _ok(text: str, **effects: Any) -> CommandOutcome:
    reload = bool(effects.get("reload"))
    return CommandOutcome(CommandResult(text=text, reload=reload), Effects(**effects))


def _error(text: str) -> CommandOutcome:
    return CommandOutcome(CommandResult(text=text, level="error"))


def activate(svc: PersonaService, ctx: SessionContext, name: str, query: str) -> CommandOutcome:
    """`/persona use <name> [query]` and direct aliases (P-ACTIVE-3..6, -9)."""
    state = svc.session(ctx)
    scope = state.scope
    if scope.state == "migration-required":
        raise MigrationRequired(
            "this workspace has an older persona setup; personas stay off until you migrate it "
            "(`/persona migrate preview`) or pick an installed team (`/persona team select`)"
        )
    if not scope.runnable or scope.pack is None:
        raise PersonaNotFound("this session has no team; `/persona team select <pack>` first")
    pack = scope.pack
    if pack.persona(name) is None:
        raise PersonaNotFound(f"{pack.ref} has no persona {name!r}; `/persona-list` shows the team")
    # Resolve now, exactly as every turn will: activation never reports success for a
    # persona whose prompt cannot be built, so nothing would be injected (issue 15 item 6).
    try:
        resolved = svc.resolver.resolve(pack, name, Workspace(Path(ctx.cwd)))
    except (PersonaMindError, OSError) as exc:
        raise PersonaUnavailable(
            f"persona {name} was not activated: its prompt cannot be built ({exc}). "
            "`/persona doctor` shows what to fix"
        ) from exc
    active = ActivePersona(
        name=name,
        identity=f"{pack.source}/{pack.name}/{name}",
        pack_ref=pack.ref,
        revision=pack.digest,
    )
    svc.update(ctx, active=active)
    text = f"Persona mode: {name} ({active.identity}). `/persona clear` exits."
    text += "".join(f"\nnote: {w}" for w in resolved.warnings)
    return _ok(
        text,
        entries=((ACTIVE_ENTRY, active.entry()),),
        identity_changed=True,
        user_message=query or None,
    )


def _clear(svc: PersonaService, ctx: SessionContext) -> CommandOutcome:
    state = svc.session(ctx)
    if state.active is None:
        return _ok("No persona is active.")
    name = state.active.name
    svc.update(ctx, active=None)
    return _ok(
        f"Left persona mode ({name}).",
        entries=((ACTIVE_ENTRY, {"persona": None}),),
        identity_changed=True,
    )


def _split_flags(words: list[str]) -> tuple[list[str], set[str]]:
    flags = {w for w in words if w.startswith("--")}
    return [w for w in words if not w.startswith("--")], flags


def _pack_args(verb: str, rest: list[str], flags: set[str]) -> dict[str, Any]:
    if verb == "fork":
        return {"source": rest[0] if rest else "", "name": rest[1] if len(rest) > 1 else ""}
    args: dict[str, Any] = {"pack": rest[0] if rest else ""}
    if "--discard-edits" in flags:
        args["discardEdits"] = True
    return args


def _action(words: list[str]) -> tuple[str, dict[str, Any], set[str]]:
    """Map `/persona` words to (action, args, flags)."""
    words, flags = _split_flags(words)
    head, rest = (words[0], words[1:]) if words else ("status", [])
    if head == "pack":
        verb = rest[0] if rest else "list"
        if verb not in PACK_VERBS:
            raise PersonaNotFound(f"unknown pack verb {verb!r}; verbs: {', '.join(PACK_VERBS)}")
        return f"pack.{verb}", _pack_args(verb, rest[1:], flags), flags
    if head == "team":
        op = rest[0] if rest else "status"
        return f"team.{op}", {"pack": rest[1] if len(rest) > 1 else ""}, flags
    if head == "default":
        op = rest[0] if rest else "show"
        return f"default.{op}", {"pack": rest[1] if len(rest) > 1 else ""}, flags
    if head == "migrate":
        op = rest[0] if rest else "status"
        return f"migrate.{op}", {"name": rest[1] if len(rest) > 1 else None}, flags
    if head == "onboard":
        op = rest[0] if rest else "start"
        return f"onboard.{op}", {}, flags
    if head == "doctor":
        return "doctor", {}, flags
    raise PersonaNotFound(f"unknown /persona subcommand {head!r}.\n{HELP}")


def _persona(svc: PersonaService, ctx: SessionContext, args: str) -> CommandOutcome:
    raw = args.strip()
    head, _, tail = raw.partition(" ")
    if head in {"", "status"}:
        return _ok(persona_status(svc.session(ctx)))
    if head == "help":
        return _ok(HELP)
    if head == "use":
        name, _, query = tail.strip().partition(" ")
        if not name:
            raise PersonaNotFound("usage: /persona use <name> [query]")
        return activate(svc, ctx, name, query.strip())
    if head == "clear":
        return _clear(svc, ctx)
    if head == "handoff":
        from persona_mind.persona.plans._tool import run_handoff  # noqa: PLC0415 - cycle

        return run_handoff(svc, ctx, tail.strip())
    if head == "migrate" and tail.strip().startswith("cancel"):
        dropped = svc.plans.drop(ctx.session_id, "migrate.")
        return _ok(f"Cancelled {dropped} pending migration plan(s); nothing was changed.")
    action, params, flags = _action(shlex.split(raw))
    if action in READ_ONLY:
        return _ok(read(svc, ctx, action, params))
    if action not in CHANGES:
        raise PersonaNotFound(f"unknown /persona action {action!r}.\n{HELP}")
    change = prepare(svc, ctx, action, params)
    if action in GATED and "--yes" not in flags:
        return _ok(
            f"{change.summary}\nNothing has changed. Run the same command with --yes to confirm."
        )
    if change.reload:
        return team_changed(svc, ctx, change.execute)
    return _ok(change.execute())


def team_changed(svc: PersonaService, ctx: SessionContext, execute: Any) -> CommandOutcome:
    """Run a team change; re-register commands, reload, and persist a cleared persona."""
    before = svc.session(ctx).active
    text = execute()
    after = svc.session(ctx).active
    entries = ((ACTIVE_ENTRY, {"persona": None}),) if before and not after else ()
    return _ok(text, commands_changed=True, identity_changed=True, reload=True, entries=entries)


def _direct(svc: PersonaService, ctx: SessionContext, name: str, args: str) -> CommandOutcome:
    state = svc.session(ctx)
    if name not in state.aliases or state.scope.pack is None or not state.scope.runnable:
        raise StaleCommand(
            f"/{name} is not part of this session's team any more (the team or workspace "
            "changed). Run /persona-list to see the current team, then use /<persona> or "
            "/persona use <name>."
        )
    return activate(svc, ctx, name, args.strip())


def run_command(svc: PersonaService, ctx: SessionContext, call: CommandCall) -> CommandOutcome:
    """Dispatch one slash command; every refusal becomes an error result with guidance."""
    try:
        if call.name == "persona":
            return _persona(svc, ctx, call.args)
        if call.name == "persona-list":
            return _ok(persona_list(svc.session(ctx)))
        return _direct(svc, ctx, call.name, call.args)
    except PersonaMindError as exc:
        return _error(str(exc))
    except ValueError as exc:  # shlex: unbalanced quotes
        return _error(f"could not parse the command ({exc}); check its quotes")
    except OSError as exc:
        return _error(io_failure(exc))


def io_failure(exc: OSError) -> str:
    """A file-system failure as a user message (the change did not complete)."""
    where = f" ({exc.filename})" if exc.filename else ""
    return (
        f"the change did not complete: {exc.strerror or exc}{where}. Nothing partial is used: "
        "the previous state stays active. Free space or fix permissions, then try again."
    )
