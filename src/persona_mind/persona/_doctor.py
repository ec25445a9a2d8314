"""`/persona doctor`: cheap, actionable checks of the store, workspace and session.

Each finding is ``ok``, ``warn`` or ``error`` with what to do (P-HOST-15). Doctor only
reads. It also enforces the compatibility rule for the retired backend setting: an
explicit ``native`` is a harmless no-op, any other value is an error naming the setting.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

from persona_mind.errors import PersonaMindError
from persona_mind.persona._errors import PackInvalid
from persona_mind.persona._resolver import Resolver
from persona_mind.persona.binding._session import TeamScope
from persona_mind.persona.packs._scan import is_inside
from persona_mind.persona.packs._state import draft_dir
from persona_mind.persona.packs._store import PackStore
from persona_mind.persona.packs._validate import load_pack
from persona_mind.persona.workspace._files import Workspace
from persona_mind.persona.workspace._migrate import GATED, migration_status

__all__ = ("PI_BUILTIN_TOOLS", "Finding", "backend_problem", "doctor", "render")

PI_BUILTIN_TOOLS = frozenset({"read", "bash", "edit", "write", "grep", "find", "ls"})


@dataclass(frozen=True, slots=True)
class Finding:
    """One doctor line."""

    level: str
    text: str


def backend_problem(ws: Workspace, env: dict[str, str] | None = None) -> str | None:
    """Why the backend settings are invalid, or ``None`` (native or absent is fine)."""
    env = dict(os.environ) if env is None else env
    value = env.get("PI_PERSONA_BACKEND")
    if value is not None and value != "native":
        return (
            f"PI_PERSONA_BACKEND={value!r} is not supported; only the native backend exists. "
            "Unset PI_PERSONA_BACKEND (or set it to native)."
        )
    path = ws.root / ".pi" / "persona.json"
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, OSError) as exc:
        return f"{path} is not valid JSON ({exc}); fix it or delete it"
    backend = data.get("backend", "native") if isinstance(data, dict) else None
    if backend != "native":
        return (
            f"{path} sets backend {backend!r}; only native exists. Remove the backend "
            "setting or the file."
        )
    return None


def _store_findings(store: PackStore) -> list[Finding]:
    out: list[Finding] = []
    try:
        state = store.state()
    except PersonaMindError as exc:
        return [Finding("error", str(exc))]
    installed = store.installed()
    out.append(Finding("ok", f"pack store {store.root}: {len(installed)} installed"))
    for item in installed:
        if item.error is not None:
            out.append(Finding("error", f"{item.ref} is invalid: {item.error}"))
        elif item.pack is not None:
            for persona in item.pack.personas:
                extra = sorted(set(persona.tools) - PI_BUILTIN_TOOLS)
                if extra:
                    out.append(
                        Finding(
                            "warn",
                            f"{item.ref}/{persona.name} declares tools "
                            f"{', '.join(extra)} that are not Pi built-ins; "
                            "they are checked against live Pi state at launch",
                        )
                    )
    if state.default and state.default not in store.installed_refs():
        out.append(
            Finding(
                "error",
                f"the default {state.default} is not installed; "
                "`/persona default clear` or install it",
            )
        )
    for name, rec in state.drafts.items():
        try:
            load_pack(
                draft_dir(store.root, name),
                "draft",
                expected_name=rec.target.split("/")[1],
                digest=False,
            )
        except PackInvalid as exc:
            out.append(Finding("warn", f"draft {name} would be refused on apply: {exc}"))
    return out


def _workspace_findings(store: PackStore, ws: Workspace) -> list[Finding]:
    out: list[Finding] = []
    problem = backend_problem(ws)
    out.append(Finding("error", problem) if problem else Finding("ok", "backend: native"))
    try:
        baseline = ws.baseline()
        out.append(
            Finding("ok", "baseline .pi/agents/_baseline.md present")
            if baseline
            else Finding("ok", "no baseline (optional; `/persona onboard` creates one)")
        )
    except PersonaMindError as exc:
        out.append(Finding("error", str(exc)))
    if (ws.root / "library" / "shared").is_dir() and not (
        ws.root / "library" / "shared" / "_index.md"
    ).is_file():
        out.append(
            Finding(
                "warn",
                "library/shared/ has no _index.md; personas cannot see what "
                "it holds. `/persona onboard` re-indexes it",
            )
        )
    out.extend(_shared_escapes(ws))
    status = migration_status(store, ws)
    level = "error" if status in GATED else "warn" if status == "changed-source" else "ok"
    out.append(Finding(level, f"older setup: {status}"))
    return out


_MAX_SHARED_ENTRIES = 10_000


def _shared_escapes(ws: Workspace) -> list[Finding]:
    """Symlinks under ``library/shared`` that lead outside the workspace (issue 15 item 6).

    Personas skip each such document (the resolver refuses it and keeps going); doctor
    names every one so the user can replace it with a copy. The walk never follows links
    and stops after :data:`_MAX_SHARED_ENTRIES` entries.
    """
    root = ws.root / "library" / "shared"
    if root.is_symlink() and not is_inside(os.path.realpath(root), ws.real):
        return [
            Finding(
                "warn",
                "library/shared is a symlink that leads outside the workspace; personas skip "
                "it. Make it a folder inside the project",
            )
        ]
    if root.is_symlink() or not root.is_dir():
        return []
    out: list[Finding] = []
    seen = 0
    for folder, dirs, files in os.walk(root):
        for name in (*dirs, *files):
            seen += 1
            if seen > _MAX_SHARED_ENTRIES:
                return out
            path = os.path.join(folder, name)
            if os.path.islink(path) and not is_inside(os.path.realpath(path), ws.real):
                rel = os.path.relpath(path, ws.root)
                out.append(
                    Finding(
                        "warn",
                        f"{rel} is a symlink that leads outside the workspace; personas skip "
                        "it. Copy the document into library/shared/ or remove the link",
                    )
                )
    return out


def _session_findings(scope: TeamScope, ws: Workspace, resolver: Resolver) -> list[Finding]:
    if scope.pack is None:
        return [
            Finding(
                "ok" if scope.state in {"none", "unbound"} else "warn",
                f"session team: {scope.state} {scope.note}".strip(),
            )
        ]
    out = [Finding("ok", f"session team: {scope.pack.ref} ({scope.state})")]
    for persona in scope.pack.personas:
        try:
            resolved = resolver.resolve(scope.pack, persona.name, ws)
        except PersonaMindError as exc:
            out.append(Finding("error", f"{persona.name}: {exc}"))
            continue
        out.extend(Finding("warn", f"{persona.name}: {w}") for w in resolved.warnings)
    return out


def doctor(
    store: PackStore, ws: Workspace, scope: TeamScope | None, resolver: Resolver
) -> list[Finding]:
    """Every check, in a fixed order."""
    findings = _store_findings(store) + _workspace_findings(store, ws)
    if scope is not None:
        findings += _session_findings(scope, ws, resolver)
    return findings


def render(findings: list[Finding]) -> str:
    """One line per finding, then a verdict."""
    errors = sum(f.level == "error" for f in findings)
    warns = sum(f.level == "warn" for f in findings)
    lines = [f"{f.level}: {f.text}" for f in findings]
    lines.append(f"doctor: {errors} error(s), {warns} warning(s)")
    return "\n".join(lines)
