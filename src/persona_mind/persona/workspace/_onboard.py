"""Onboarding: the optional project foundation (P-ONBOARD-1..11, P-HOST-10).

``/persona onboard`` creates or resumes the working manifest
``init-data/my-persona-setup.yaml``, explains the journey before question one, and asks
the next unanswered question; the assistant edits the manifest; preview shows the files;
apply (approved) writes ``.pi/agents/_baseline.md``, ``library/shared/project-context.md``
and the index ``library/shared/_index.md``. It creates no persona and no coordinator, and
has nothing to do with packs (P-ONBOARD-4, -8).
"""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass
from typing import Any

from persona_mind.persona._errors import UnsafeWorkspacePath
from persona_mind.persona.packs._frontmatter import YamlProblem, load_yaml
from persona_mind.persona.packs._fsio import PackFiles
from persona_mind.persona.packs._render import code, frontmatter, one_line
from persona_mind.persona.packs._scan import is_inside
from persona_mind.persona.plans._change import Change, digest_of
from persona_mind.persona.workspace._files import BASELINE, Workspace

__all__ = (
    "JOURNEY",
    "MANIFEST",
    "QUESTIONS",
    "foundation_files",
    "index_shared",
    "prepare_foundation",
    "start",
)

MANIFEST = "init-data/my-persona-setup.yaml"
MAX_MANIFEST = 256 * 1024
"""The onboarding manifest's size limit; a larger one is refused as too large, by name."""
SHARED_INDEX = "library/shared/_index.md"
CONTEXT = "library/shared/project-context.md"

JOURNEY = (
    "Project foundation setup — three short steps:\n"
    "1. Project purpose: what this project is and what it is for.\n"
    "2. Shared context: who it serves, its constraints and conventions.\n"
    "3. Preview and verification: you see every file before anything is written, approve, "
    "and a doctor check confirms the result.\n"
    "Every future persona sees library/shared/, so put there what all of them should know. "
    "Onboarding creates no persona and no coordinator; persona teams come from packs, and "
    "the foundation is optional."
)

QUESTIONS: tuple[tuple[str, str], ...] = (
    ("project.name", "What is the project called?"),
    ("project.purpose", "In a sentence or two, what is the project for, and for whom?"),
    ("shared_context.audience", "Who uses or depends on it (users, teams, stakeholders)?"),
    (
        "shared_context.constraints",
        "Which constraints must every persona respect "
        "(deadlines, platforms, compliance, budgets)? A list is fine.",
    ),
    (
        "shared_context.conventions",
        "Which conventions should everyone follow (style, tools, "
        "branching, review)? A list is fine.",
    ),
    ("baseline.instructions", "Any operating principles every persona should follow?"),
)

_TEMPLATE = """\
# Working manifest for the project foundation (edit freely; nothing is applied until approved).
version: 1
project:
  name: ""
  purpose: ""
shared_context:
  audience: ""
  constraints: []
  conventions: []
baseline:
  skills: []
  instructions: ""
"""


@dataclass(frozen=True, slots=True)
class Manifest:
    """The parsed working manifest."""

    data: dict[str, Any]

    def get(self, dotted: str) -> Any:
        """A dotted field (``project.name``), or ``None``."""
        node: Any = self.data
        for part in dotted.split("."):
            node = node.get(part) if isinstance(node, dict) else None
        return node

    def text(self, dotted: str) -> str:
        """A field as prose: strings as-is, lists joined with newlines as bullets."""
        value = self.get(dotted)
        if isinstance(value, list):
            return "\n".join(f"- {v}" for v in value if str(v).strip())
        return str(value).strip() if value else ""

    def missing(self) -> list[tuple[str, str]]:
        """Questions whose answers are still empty, in order."""
        return [(k, q) for k, q in QUESTIONS if not self.text(k)]


def load_manifest(ws: Workspace) -> Manifest | None:
    """The manifest if it exists (refusing malformed YAML with its location)."""
    text = ws.read_whole(MANIFEST, MAX_MANIFEST, "the onboarding manifest")
    if text is None:
        return None
    try:
        data = load_yaml(text, MANIFEST)
    except YamlProblem as exc:
        raise UnsafeWorkspacePath(
            f"{exc}; fix {MANIFEST} and run `/persona onboard` again"
        ) from exc
    return Manifest(data if isinstance(data, dict) else {})


def start(disk: PackFiles, ws: Workspace) -> str:
    """Create or resume the manifest; explain the journey, then ask the next question."""
    created = False
    manifest = load_manifest(ws)
    if manifest is None:
        disk.atomic_write(ws.confine(MANIFEST), _TEMPLATE.encode("utf-8"))
        manifest, created = Manifest(load_yaml(_TEMPLATE, MANIFEST)), True
    head = f"{'Created' if created else 'Resuming'} {MANIFEST}.\n\n{JOURNEY}\n\n"
    missing = manifest.missing()
    if not missing:
        return head + "All questions are answered. Next: `/persona onboard preview`."
    key, question = missing[0]
    return head + f"Next question ({len(missing)} left; field {key}): {question}"


def index_shared(ws: Workspace, extra: dict[str, str]) -> str:
    """``library/shared/_index.md``: one line per document, with its first heading."""
    folder = ws.confine("library/shared")
    names: dict[str, str] = {}
    if folder.is_dir():
        for path in sorted(folder.rglob("*")):
            rel = path.relative_to(folder).as_posix()
            inside = is_inside(os.path.realpath(path), ws.real)
            if inside and path.is_file() and not path.name.startswith("_"):
                head = Workspace.read_capped(path, 4096).decode("utf-8", "replace").splitlines()
                names[rel] = next((h.lstrip("# ").strip() for h in head if h.strip()), "")
    for rel, text in extra.items():
        names[rel] = next((h.lstrip("# ").strip() for h in text.splitlines() if h.strip()), "")
    lines = ["# Shared library", "", "Every persona sees this folder. Documents:", ""]
    lines += [f"- {code(rel)} — {one_line(title)}" for rel, title in sorted(names.items())]
    return "\n".join(lines) + "\n"


def foundation_files(ws: Workspace, m: Manifest) -> dict[str, str]:
    """The files apply would write, keyed by workspace-relative path."""
    # The name is a heading and inline text: one line. Frontmatter comes from a YAML
    # emitter, so a skill "read\ndocs: /etc" stays one skill (issue 15 item 5).
    name, purpose = one_line(m.text("project.name")), m.text("project.purpose")
    skills = [s for s in m.get("baseline.skills") or [] if isinstance(s, str) and s.strip()]
    meta: dict[str, Any] = {"docs": ["library/shared/"]}
    if skills:
        meta["skills"] = skills
    baseline = frontmatter(
        meta,
        f"You are working on {name}: {purpose}\n\n"
        + (m.text("baseline.instructions") + "\n\n" if m.text("baseline.instructions") else "")
        + "Shared project context lives in library/shared/ — start with project-context.md.\n",
    )
    context = f"# {name} — project context\n\n## Purpose\n{purpose}\n"
    for title, key in (
        ("Audience", "shared_context.audience"),
        ("Constraints", "shared_context.constraints"),
        ("Conventions", "shared_context.conventions"),
    ):
        if m.text(key):
            context += f"\n## {title}\n{m.text(key)}\n"
    files = {BASELINE: baseline, CONTEXT: context}
    files[SHARED_INDEX] = index_shared(ws, {"project-context.md": context})
    return files


def _preview_text(ws: Workspace, files: dict[str, str]) -> str:
    out: list[str] = []
    for rel, new in files.items():
        old = ws.read_text(rel, 1 << 20)
        if old == new:
            out.append(f"{rel}: unchanged")
            continue
        out.append(f"{rel}: {'create' if old is None else 'replace'}")
        out.extend(
            difflib.unified_diff(
                (old or "").splitlines(), new.splitlines(), f"a/{rel}", f"b/{rel}", lineterm=""
            )
        )
    return "\n".join(out)


def preview(ws: Workspace) -> str:
    """Read-only: what apply would write, or which questions are still open."""
    m = load_manifest(ws)
    if m is None:
        return f"No {MANIFEST} yet; run `/persona onboard` to start."
    required = [k for k, _ in m.missing() if k in {"project.name", "project.purpose"}]
    if required:
        return f"Answer {', '.join(required)} in {MANIFEST} first."
    return "Project foundation preview:\n" + _preview_text(ws, foundation_files(ws, m))


def prepare_foundation(disk: PackFiles, ws: Workspace, doctor: Any) -> Change:
    """Plan writing the foundation files; execute writes them, indexes, and runs doctor."""
    m = load_manifest(ws)
    if m is None or any(k in {"project.name", "project.purpose"} for k, _ in m.missing()):
        raise UnsafeWorkspacePath(preview(ws))
    files = foundation_files(ws, m)
    current = {rel: ws.read_text(rel, 1 << 20) for rel in files}
    before = digest_of("onboard", ws.real, files, current)

    def execute() -> str:
        now = foundation_files(ws, load_manifest(ws) or m)
        cur = {rel: ws.read_text(rel, 1 << 20) for rel in now}
        if digest_of("onboard", ws.real, now, cur) != before:
            raise UnsafeWorkspacePath("the manifest or foundation changed since the preview")
        for rel, text in now.items():
            disk.atomic_write(ws.confine(rel), text.encode("utf-8"))
        index = index_shared(ws, {})
        disk.atomic_write(ws.confine(SHARED_INDEX), index.encode("utf-8"))
        return "Project foundation applied.\n" + str(doctor())

    return Change(
        action="onboard.apply",
        summary=_preview_text(ws, files),
        digest=before,
        execute=execute,
        details={"files": sorted(files)},
    )
