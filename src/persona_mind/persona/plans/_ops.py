"""One operation table behind both routes: slash commands (exact) and the chat tool.

``READ_ONLY`` actions return text at once. Every other action is *prepared* into a
:class:`Change` without touching anything; the caller decides how it is confirmed
(``--yes`` on a slash command, a plan + user reply on the tool). Team actions and
migration rollback carry ``reload=True``: they are handed to the `/persona` command path.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from persona_mind.errors import PersonaError
from persona_mind.persona._doctor import doctor, render
from persona_mind.persona._errors import DraftConflict, PackNotFound
from persona_mind.persona._service import PersonaService
from persona_mind.persona._views import pack_list, pack_status, persona_list, team_status
from persona_mind.persona.binding._session import SessionContext, alias_names
from persona_mind.persona.packs._drafts import (
    prepare_apply,
    prepare_cancel,
    prepare_create,
    prepare_edit,
    preview_draft,
)
from persona_mind.persona.packs._lifecycle import (
    prepare_delete,
    prepare_fork,
    prepare_install,
    prepare_uninstall,
    prepare_update,
    roster_line,
)
from persona_mind.persona.plans._change import Change, digest_of
from persona_mind.persona.workspace._files import Workspace
from persona_mind.persona.workspace._migrate import (
    inspect,
    migration_status,
    prepare_migrate,
    prepare_rollback,
)
from persona_mind.persona.workspace._migrate import preview as migrate_preview
from persona_mind.persona.workspace._onboard import prepare_foundation, start
from persona_mind.persona.workspace._onboard import preview as onboard_preview

__all__ = ("CHANGES", "READ_ONLY", "UnknownAction", "prepare", "read")


class UnknownAction(PersonaError):
    """An action name outside the operation table; the message lists the valid ones."""


def _arg(args: dict[str, Any], key: str) -> str:
    value = args.get(key)
    if not isinstance(value, str) or not value.strip():
        raise PackNotFound(f"this action needs `{key}`")
    return value.strip()


def _ws(ctx: SessionContext) -> Workspace:
    return Workspace(Path(ctx.cwd))


def _doctor(svc: PersonaService, ctx: SessionContext, args: dict[str, Any] | None = None) -> str:
    scope = svc.session(ctx).scope
    return render(doctor(svc.store, _ws(ctx), scope, svc.resolver))


READ_ONLY: dict[str, Callable[[PersonaService, SessionContext, dict[str, Any]], str]] = {
    "pack.list": lambda s, c, a: pack_list(s.store),
    "pack.status": lambda s, c, a: pack_status(s.store, a.get("pack") or None),
    "pack.preview": lambda s, c, a: preview_draft(s.store, _arg(a, "pack")),
    "team.status": lambda s, c, a: team_status(s.session(c)),
    "team.list": lambda s, c, a: persona_list(s.session(c)),
    "default.show": lambda s, c, a: (
        f"Default team for new sessions: {s.store.state().default or 'none'}"
    ),
    "migrate.inspect": lambda s, c, a: inspect(s.store, _ws(c)),
    "migrate.status": lambda s, c, a: f"Migration status: {migration_status(s.store, _ws(c))}",
    "migrate.preview": lambda s, c, a: migrate_preview(s.store, _ws(c), a.get("name"))[0],
    "onboard.preview": lambda s, c, a: onboard_preview(_ws(c)),
    "onboard.start": lambda s, c, a: start(s.store.files, _ws(c)),
    "doctor": _doctor,
}


def read(svc: PersonaService, ctx: SessionContext, action: str, args: dict[str, Any]) -> str:
    """Run a read-only action."""
    fn = READ_ONLY.get(action)
    if fn is None:
        raise UnknownAction(_unknown(action))
    return fn(svc, ctx, args)


def _team_select(svc: PersonaService, ctx: SessionContext, args: dict[str, Any]) -> Change:
    ref = svc.store.resolve(_arg(args, "pack"))
    pack = svc.store.load(ref)
    record = svc.bindings.read(ctx.session_id)
    before = digest_of("team.select", ctx.session_id, record, ref, pack.digest)

    def execute() -> str:
        svc.bindings.bind(ctx.session_id, ref)
        svc.rescope(ctx, keep_active=False)
        return (
            f"This session's team is now {ref} ({roster_line(pack)}). Its commands "
            "replace the previous team's after the reload."
        )

    aliases = alias_names(pack, ctx.other_commands)
    only_use = [p.name for p in pack.personas if p.name not in aliases]
    collisions = (
        f" Reserved or colliding names, reachable only with /persona use: {', '.join(only_use)}."
        if only_use
        else ""
    )
    summary = (
        f"Switch this session's team to {ref} ({roster_line(pack)}); the session reloads "
        f"when idle.{collisions}"
    )
    return Change(
        "team.select",
        summary,
        before,
        execute,
        reload=True,
        details={"ref": ref, "aliases": sorted(aliases), "useOnly": only_use},
    )


def _team_refresh(svc: PersonaService, ctx: SessionContext, args: dict[str, Any]) -> Change:
    record = svc.bindings.read(ctx.session_id)
    if record is None or record.state != "bound" or not record.pack:
        raise DraftConflict("this session has no team to refresh; `/persona team select <pack>`")
    ref = record.pack
    pack = svc.store.load(ref)
    before = digest_of("team.refresh", ctx.session_id, record, pack.digest)

    def execute() -> str:
        svc.bindings.bind(ctx.session_id, ref)
        svc.rescope(ctx, keep_active=True)
        return f"Refreshed this session's snapshot of {ref} ({pack.manifest.version})."

    same = " (the store copy is unchanged)" if pack.digest == record.revision else ""
    return Change(
        "team.refresh",
        f"Refresh this session's snapshot of {ref} from the store"
        f"{same}; the session reloads when idle.",
        before,
        execute,
        reload=True,
        details={"ref": ref},
    )


def _team_none(svc: PersonaService, ctx: SessionContext, args: dict[str, Any]) -> Change:
    record = svc.bindings.read(ctx.session_id)
    before = digest_of("team.none", ctx.session_id, record)

    def execute() -> str:
        svc.bindings.set_state(ctx.session_id, "none")
        svc.rescope(ctx, keep_active=False)
        return "This session now has no team; persona commands are removed after the reload."

    return Change(
        "team.none",
        "Leave this session without a team; the session reloads when idle.",
        before,
        execute,
        reload=True,
    )


def _default_set(svc: PersonaService, ctx: SessionContext, args: dict[str, Any]) -> Change:
    ref = svc.store.resolve(_arg(args, "pack"))
    state = svc.store.state()
    before = digest_of("default.set", state.default, ref, ref in svc.store.installed_refs())

    def execute() -> str:
        import msgspec  # noqa: PLC0415 - keep the table module light

        with svc.store.mutation("default set") as st:
            if ref not in svc.store.installed_refs():
                raise PackNotFound(f"{ref} is no longer installed")
            svc.store.save(msgspec.structs.replace(st, default=ref))
        return (
            f"New sessions will start with {ref}. "
            f"This session's team is unchanged ({svc.store.now_iso()})."
        )

    return Change(
        "default.set",
        f"Make {ref} the team for genuinely new sessions (this "
        "session and existing ones are unchanged).",
        before,
        execute,
        details={"ref": ref},
    )


def _default_clear(svc: PersonaService, ctx: SessionContext, args: dict[str, Any]) -> Change:
    current = svc.store.state().default
    before = digest_of("default.clear", current)

    def execute() -> str:
        import msgspec  # noqa: PLC0415

        with svc.store.mutation("default clear") as st:
            svc.store.save(msgspec.structs.replace(st, default=None))
        return "New sessions will start without a team."

    return Change(
        "default.clear",
        f"Clear the default for new sessions (now {current or 'none'}).",
        before,
        execute,
    )


def _migrate_apply(svc: PersonaService, ctx: SessionContext, args: dict[str, Any]) -> Change:
    change = prepare_migrate(svc.store, _ws(ctx), args.get("name"))
    inner = change.execute

    def execute() -> str:
        text = inner()
        svc.rescope(ctx, keep_active=True)
        return text

    return Change(change.action, change.summary, change.digest, execute, details=change.details)


def _migrate_rollback(svc: PersonaService, ctx: SessionContext, args: dict[str, Any]) -> Change:
    change = prepare_rollback(svc.store, _ws(ctx))
    inner = change.execute

    def execute() -> str:
        text = inner()
        svc.rescope(ctx, keep_active=False)
        return text

    return Change(
        change.action, change.summary, change.digest, execute, reload=True, details=change.details
    )


CHANGES: dict[str, Callable[[PersonaService, SessionContext, dict[str, Any]], Change]] = {
    "pack.install": lambda s, c, a: prepare_install(s.store, _arg(a, "pack")),
    "pack.update": lambda s, c, a: prepare_update(
        s.store, _arg(a, "pack"), discard_edits=bool(a.get("discardEdits"))
    ),
    "pack.uninstall": lambda s, c, a: prepare_uninstall(s.store, _arg(a, "pack")),
    "pack.delete": lambda s, c, a: prepare_delete(s.store, _arg(a, "pack")),
    "pack.fork": lambda s, c, a: prepare_fork(s.store, _arg(a, "source"), _arg(a, "name")),
    "pack.create": lambda s, c, a: prepare_create(s.store, _arg(a, "pack")),
    "pack.edit": lambda s, c, a: prepare_edit(s.store, _arg(a, "pack")),
    "pack.apply": lambda s, c, a: prepare_apply(s.store, _arg(a, "pack")),
    "pack.cancel": lambda s, c, a: prepare_cancel(s.store, _arg(a, "pack")),
    "team.select": _team_select,
    "team.refresh": _team_refresh,
    "team.none": _team_none,
    "default.set": _default_set,
    "default.clear": _default_clear,
    "migrate.apply": _migrate_apply,
    "migrate.rollback": _migrate_rollback,
    "onboard.apply": lambda s, c, a: prepare_foundation(
        s.store.files, _ws(c), lambda: _doctor(s, c)
    ),
}


def prepare(svc: PersonaService, ctx: SessionContext, action: str, args: dict[str, Any]) -> Change:
    """Prepare a changing action (no side effects)."""
    fn = CHANGES.get(action)
    if fn is None:
        raise UnknownAction(_unknown(action))
    return fn(svc, ctx, args)


def _unknown(action: str) -> str:
    known = ", ".join(sorted([*READ_ONLY, *CHANGES]))
    return f"unknown persona action {action!r}; known actions: {known}"
