"""``persona-mind pack …`` and ``persona-mind persona …``: Persona outside a session.

The same operations as `/persona pack …` (P-PACK-22), on the agent directory given by
``--agent-dir`` (else ``$PI_CODING_AGENT_DIR``, else ``~/.pi/agent``). Removal, apply,
update, migrate apply/rollback and onboard apply print their plan and need ``--yes``.
Exit codes: 0 done, 1 refused (the message says why and what to do), 2 usage, 3 nothing
changed because ``--yes`` was not given (the plan is printed; run again with ``--yes``).
With ``--json`` each prints one document of ``docs/cli-schema.json``.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from persona_mind.cli import _schema as out
from persona_mind.cli._output import Message, cli_hints, emit, fail

__all__ = ("EXIT_UNCONFIRMED", "add_parser")

EXIT_UNCONFIRMED = 3
_PARAM_HELP = {
    "name": "pack name (bare, or official/NAME, custom/NAME)",
    "source": "the pack to copy (bare, or official/NAME, custom/NAME)",
}

_VERBS: dict[str, tuple[str, ...]] = {
    "list": (),
    "status": ("name?",),
    "install": ("name",),
    "update": ("name",),
    "uninstall": ("name",),
    "fork": ("source", "name"),
    "create": ("name",),
    "edit": ("name",),
    "preview": ("name",),
    "apply": ("name",),
    "cancel": ("name",),
    "delete": ("name",),
}
_HELP: dict[str, str] = {
    "list": "list the installed persona packs",
    "status": "show a pack's state (or every pack's)",
    "install": "install a pack from the catalog",
    "update": "update an installed pack from the catalog",
    "uninstall": "remove an installed pack",
    "fork": "copy a pack to a new custom pack",
    "create": "create a new custom pack",
    "edit": "start (or continue) editing a draft of a pack",
    "preview": "show what applying a pack's draft would change",
    "apply": "apply a pack's draft",
    "cancel": "discard a pack's draft",
    "delete": "delete a custom pack",
}
"""One help line per verb: "status a persona pack" is not English (issue 13)."""
_GATED = frozenset({"uninstall", "delete", "apply", "update"})


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--agent-dir", type=Path, help="Pi agent directory (default: Pi's rule)")


def _add_pack_verbs(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    for verb, params in _VERBS.items():
        v = sub.add_parser(verb, help=_HELP[verb])
        _common(v)
        for param in params:
            if param.endswith("?"):
                v.add_argument(param[:-1], nargs="?", help="one pack (default: all)")
            elif verb in ("fork", "create") and param == "name":
                v.add_argument(param, help="the new pack's name (a custom/ pack)")
            else:
                v.add_argument(param, help=_PARAM_HELP[param])
        if verb == "update":
            v.add_argument(
                "--discard-edits",
                action="store_true",
                help="replace a locally edited pack wholesale",
            )
        if verb in _GATED:
            v.add_argument(
                "--yes", action="store_true", help="confirm the change (without it: plan only)"
            )
        v.set_defaults(func=_run_pack, verb=verb)


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``pack`` and ``persona`` subcommands."""
    from persona_mind.cli._exchange import add_pack_export  # noqa: PLC0415

    pack = subparsers.add_parser("pack", help="manage global persona packs")
    pack_verbs = pack.add_subparsers(dest="verb", required=True, metavar="VERB")
    _add_pack_verbs(pack_verbs)
    add_pack_export(pack_verbs)  # pack export --format claude-code

    persona = subparsers.add_parser(
        "persona", help="personas: list, resolve, doctor, default, migrate, onboard (and pack …)"
    )
    psub = persona.add_subparsers(dest="persona_command", required=True, metavar="COMMAND")
    nested = psub.add_parser("pack", help="same as `persona-mind pack …`")
    nested_verbs = nested.add_subparsers(dest="verb", required=True, metavar="VERB")
    _add_pack_verbs(nested_verbs)
    add_pack_export(nested_verbs)
    lst = psub.add_parser(
        "list", help="a pack's roster with [G] lead, libraries and skills (no pack: installed)"
    )
    _common(lst)
    lst.add_argument(
        "pack", nargs="?", help="pack name (bare, or official/NAME, custom/NAME; default: all)"
    )
    lst.set_defaults(func=_run_list)
    res = psub.add_parser("resolve", help="print a persona's resolved system prompt")
    _common(res)
    res.add_argument("pack", help="pack name (bare, or official/NAME, custom/NAME)")
    res.add_argument("persona", help="persona name in that pack")
    res.add_argument("--cwd", type=Path, default=Path.cwd(), help="workspace (default: .)")
    res.set_defaults(func=_run_resolve)
    doc = psub.add_parser("doctor", help="check the pack store and a workspace")
    _common(doc)
    doc.add_argument("--cwd", type=Path, default=Path.cwd(), help="workspace (default: .)")
    doc.set_defaults(func=_run_doctor)
    dft = psub.add_parser("default", help="the team for new sessions: show | set <pack> | clear")
    _common(dft)
    dft.add_argument(
        "op", choices=("show", "set", "clear"), nargs="?", default="show", help="default: show"
    )
    dft.add_argument("pack", nargs="?", help="the pack for `set`")
    dft.set_defaults(func=_run_default)
    mig = psub.add_parser(
        "migrate",
        help="older .pi/agents setups: inspect | status | preview | apply [name] | rollback",
    )
    _common(mig)
    mig.add_argument(
        "op", choices=("inspect", "status", "preview", "apply", "rollback"), help="what to do"
    )
    mig.add_argument("name", nargs="?", help="the custom pack to create (default: derived)")
    mig.add_argument("--cwd", type=Path, default=Path.cwd(), help="workspace (default: .)")
    mig.add_argument("--yes", action="store_true", help="confirm apply/rollback")
    mig.set_defaults(func=_run_migrate)
    onb = psub.add_parser("onboard", help="project foundation: start | preview | apply")
    _common(onb)
    onb.add_argument(
        "op",
        choices=("start", "preview", "apply"),
        nargs="?",
        default="start",
        help="default: start",
    )
    onb.add_argument("--cwd", type=Path, default=Path.cwd(), help="workspace (default: .)")
    onb.add_argument("--yes", action="store_true", help="confirm apply")
    onb.set_defaults(func=_run_onboard)


def _store(args: argparse.Namespace) -> Any:
    from persona_mind.clock import MonotonicClock  # noqa: PLC0415 - fast help
    from persona_mind.persona import PackStore, default_agent_dir  # noqa: PLC0415
    from persona_mind.storage import DurablePackFiles  # noqa: PLC0415

    return PackStore(
        args.agent_dir or default_agent_dir(), files=DurablePackFiles(), clock=MonotonicClock()
    )


class _Unconfirmed(Exception):
    """A gated change was planned but not made: no ``--yes``."""

    def __init__(self, plan: str) -> None:
        super().__init__(plan)
        self.plan = plan


def _guard(args: argparse.Namespace, fn: Any, changes: bool = False) -> int:
    """Run ``fn`` (text, or (text, payload)); refusals exit 1, a plan without --yes exits 3."""
    from persona_mind.errors import PersonaMindError  # noqa: PLC0415

    try:
        result = fn()
    except _Unconfirmed as pending:
        plan = cli_hints(pending.plan)
        emit(args, Message(message=plan, changed=False), plan)
        return EXIT_UNCONFIRMED
    except PersonaMindError as exc:
        return fail(args, cli_hints(str(exc)), 1)
    if isinstance(result, tuple):
        text, payload = result
        text = cli_hints(text)
    else:
        text = cli_hints(result)
        payload = Message(message=text, changed=changes)
    emit(args, payload, text)
    return 0


def _gated(change: Any, yes: bool) -> str:
    if not yes:
        raise _Unconfirmed(
            f"{change.summary}\nNothing has changed. Run again with --yes to confirm."
        )
    return str(change.execute())


def _pack_out(store: Any) -> out.PackList:
    state = store.state()
    installed = [
        out.PackOut(
            ref=i.ref,
            version=i.pack.manifest.version if i.pack else None,
            description=i.pack.manifest.description if i.pack else None,
            personas=[p.name for p in i.pack.personas] if i.pack else [],
            default=state.default == i.ref,
            edited=i.edited,
            error=None if i.error is None else str(i.error),
        )
        for i in store.installed()
    ]
    names = {i.ref.split("/", 1)[1] for i in installed if i.ref.startswith("official/")}
    available = [
        out.PackOut(
            ref=f"official/{p.name}",
            version=p.manifest.version,
            description=p.manifest.description,
            personas=[x.name for x in p.personas],
        )
        for p in store.catalog()
        if p.name not in names
    ]
    drafts = {name: str(rec.target) for name, rec in sorted(state.drafts.items())}
    return out.PackList(installed=installed, available=available, drafts=drafts)


def _run_pack(args: argparse.Namespace) -> int:
    from persona_mind import persona  # noqa: PLC0415 - fast help

    store = _store(args)
    verb = args.verb
    yes = getattr(args, "yes", False)

    def run() -> str | tuple[str, Any]:
        prepared = {
            "install": lambda: persona.prepare_install(store, args.name),
            "update": lambda: persona.prepare_update(
                store, args.name, discard_edits=args.discard_edits
            ),
            "uninstall": lambda: persona.prepare_uninstall(store, args.name),
            "delete": lambda: persona.prepare_delete(store, args.name),
            "fork": lambda: persona.prepare_fork(store, args.source, args.name),
            "create": lambda: persona.prepare_create(store, args.name),
            "edit": lambda: persona.prepare_edit(store, args.name),
            "apply": lambda: persona.prepare_apply(store, args.name),
            "cancel": lambda: persona.prepare_cancel(store, args.name),
        }
        if verb == "list":
            return persona.pack_list(store), _pack_out(store)
        if verb == "status":
            return persona.pack_status(store, args.name)
        if verb == "preview":
            return persona.preview_draft(store, args.name)
        change = prepared[verb]()
        return _gated(change, yes) if verb in _GATED else str(change.execute())

    return _guard(args, run, changes=verb not in ("list", "status", "preview"))


def _run_list(args: argparse.Namespace) -> int:
    if args.pack is None:  # the packs there are, like `pack list`
        from persona_mind import persona  # noqa: PLC0415 - fast help

        store = _store(args)
        return _guard(args, lambda: (persona.pack_list(store), _pack_out(store)))
    store = _store(args)

    def run() -> tuple[str, out.PackRoster]:
        pack = store.load(store.resolve(args.pack))
        lines = [f"{pack.ref} {pack.manifest.version} — {pack.manifest.description}"]
        for p in pack.personas:
            lines.append(f"{p.label} — {p.description}")
            for label, values in (
                ("libraries", p.docs),
                ("pack references", p.pack_docs),
                ("skills", p.skills),
            ):
                if values:
                    lines.append(f"    {label}: {', '.join(values)}")
        roster = out.PackRoster(
            pack=str(pack.ref),
            version=pack.manifest.version,
            description=pack.manifest.description,
            personas=[
                out.PersonaOut(
                    name=p.name,
                    label=p.label,
                    description=p.description,
                    libraries=list(p.docs),
                    packReferences=list(p.pack_docs),
                    skills=list(p.skills),
                )
                for p in pack.personas
            ],
        )
        return "\n".join(lines), roster

    return _guard(args, run)


def _run_resolve(args: argparse.Namespace) -> int:
    from persona_mind.persona import Resolver, Workspace  # noqa: PLC0415

    store = _store(args)

    def run() -> tuple[str, out.Resolved]:
        pack = store.load(store.resolve(args.pack))
        prompt = Resolver().resolve(pack, args.persona, Workspace(args.cwd)).system_prompt
        return prompt, out.Resolved(pack=str(pack.ref), persona=args.persona, systemPrompt=prompt)

    return _guard(args, run)


def _run_doctor(args: argparse.Namespace) -> int:
    from persona_mind.persona import Resolver, Workspace, doctor, render_findings  # noqa: PLC0415

    findings = doctor(_store(args), Workspace(args.cwd), None, Resolver())
    report = render_findings(findings)
    rows = [out.Finding(level=f.level, message=f.text) for f in findings]
    emit(args, out.Doctor(findings=rows, report=report), report)
    return 1 if any(f.level == "error" for f in findings) else 0


def _run_default(args: argparse.Namespace) -> int:
    import msgspec  # noqa: PLC0415

    from persona_mind.errors import PersonaError  # noqa: PLC0415

    store = _store(args)

    def run() -> tuple[str, out.DefaultTeam]:
        if args.op == "show":
            current = store.state().default
            text = f"Default team for new sessions: {current or 'none'}"
            return text, out.DefaultTeam(default=current, changed=False)
        if args.op == "set" and not args.pack:
            raise PersonaError("default set needs a pack: persona-mind persona default set PACK")
        ref = store.resolve(args.pack) if args.op == "set" else None
        with store.mutation(f"default {args.op}") as state:
            store.save(msgspec.structs.replace(state, default=ref))
        text = f"Default team for new sessions: {ref or 'none'} (existing sessions unchanged)"
        return text, out.DefaultTeam(default=ref, changed=True)

    return _guard(args, run)


def _run_migrate(args: argparse.Namespace) -> int:
    from persona_mind import persona  # noqa: PLC0415

    store, ws = _store(args), persona.Workspace(args.cwd)

    def run() -> str | tuple[str, Any]:
        if args.op == "inspect":
            return persona.migration_inspect(store, ws)
        if args.op == "status":
            return f"Migration status: {persona.migration_status(store, ws)}"
        if args.op == "preview":
            return persona.migration_preview(store, ws, args.name)[0]
        if args.op == "apply":
            return _gated(persona.prepare_migrate(store, ws, args.name), args.yes)
        return _gated(persona.prepare_rollback(store, ws), args.yes)

    return _guard(args, run, changes=args.op in ("apply", "rollback"))


def _run_onboard(args: argparse.Namespace) -> int:
    from persona_mind import persona  # noqa: PLC0415

    store, ws = _store(args), persona.Workspace(args.cwd)

    def run() -> str | tuple[str, Any]:
        if args.op == "start":
            return persona.onboard_start(store.files, ws)
        if args.op == "preview":
            return persona.onboard_preview(ws)
        change = persona.prepare_foundation(
            store.files,
            ws,
            lambda: persona.render_findings(persona.doctor(store, ws, None, persona.Resolver())),
        )
        return _gated(change, args.yes)

    return _guard(args, run, changes=args.op == "apply")
