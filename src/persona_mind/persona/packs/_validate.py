"""Build a :class:`Pack` from a directory, or refuse it with every problem found.

The rules (P-PACK-2/7/8/17/20/21, P-RESOLVER-10..16): one fixed layout, a four-field
schema-2 manifest, Markdown agents with YAML frontmatter, exactly one generalist and at
least one specialist, and ``packDocs`` that exist inside the pack's own ``references/``.
Anything harmless but unusual (extra top-level files, unknown frontmatter fields, a
persona with no references at all) is accepted and reported as a warning.
"""

from __future__ import annotations

import hashlib
import os
import posixpath
import re
from pathlib import Path
from typing import Any

from persona_mind.persona._errors import PackInvalid, Problem
from persona_mind.persona.packs._frontmatter import YamlProblem, load_yaml, split_frontmatter
from persona_mind.persona.packs._model import (
    PACK_SCHEMA,
    Pack,
    PackManifest,
    PackSource,
    PersonaDef,
)
from persona_mind.persona.packs._names import check_relative, is_valid_slug, nfc_casefold
from persona_mind.persona.packs._render import one_line
from persona_mind.persona.packs._runnable import check_runnable, field_shape_problems
from persona_mind.persona.packs._scan import Limits, TreeScan, is_inside, scan_tree

__all__ = ("SEMVER_RE", "digest_files", "load_pack", "parse_agent")

SEMVER_RE = re.compile(
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$"
)
_MANIFEST_KEYS = ("schema", "name", "version", "description")
_KNOWN_FIELDS = frozenset(
    {"name", "role", "description", "docs", "packDocs", "skills", "tools", "model"}
)
_LAYOUT_TOP = frozenset({"pack.yaml", "agents", "references"})


def digest_files(root: Path, files: tuple[str, ...]) -> str:
    """SHA-256 over each file's relative path and bytes, in sorted order."""
    h = hashlib.sha256()
    for rel in files:
        data = (root / rel).read_bytes()
        h.update(rel.encode("utf-8"))
        h.update(b"\0%d\0" % len(data))
        h.update(data)
    return h.hexdigest()


def _read_text(root: Path, rel: str, problems: list[Problem]) -> str | None:
    try:
        return (root / rel).read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        problems.append(
            Problem("not-utf8", rel, f"is not UTF-8 text (byte {exc.start}); save it as UTF-8")
        )
    except OSError as exc:
        problems.append(Problem("unreadable", rel, f"cannot be read ({exc.strerror})"))
    return None


def _manifest(
    root: Path, scan: TreeScan, expected: str | None, problems: list[Problem]
) -> PackManifest | None:
    if "pack.yaml" not in scan.files:
        problems.append(Problem("missing-manifest", "pack.yaml", "is missing; every pack has one"))
        return None
    text = _read_text(root, "pack.yaml", problems)
    if text is None:
        return None
    try:
        data = load_yaml(text, "pack.yaml")
    except YamlProblem as exc:
        problems.append(Problem("bad-yaml", "pack.yaml", str(exc)))
        return None
    if not isinstance(data, dict):
        problems.append(Problem("bad-manifest", "pack.yaml", "must be a mapping of four fields"))
        return None
    extra = sorted(str(k) for k in data if k not in _MANIFEST_KEYS)
    missing = [k for k in _MANIFEST_KEYS if k not in data]
    if extra:
        problems.append(
            Problem(
                "manifest-extra-field",
                "pack.yaml",
                f"has unsupported field(s) {', '.join(extra)}; a manifest holds only "
                "schema, name, version and description (no profiles, hooks, dependencies "
                "or path maps)",
            )
        )
    if missing:
        problems.append(
            Problem("manifest-missing-field", "pack.yaml", f"lacks {', '.join(missing)}")
        )
        return None
    schema, name, version, description = (data[k] for k in _MANIFEST_KEYS)
    before = len(problems)
    if type(schema) is not int or schema != PACK_SCHEMA:
        problems.append(Problem("bad-schema", "pack.yaml", f"schema must be {PACK_SCHEMA}"))
    if not isinstance(name, str) or not is_valid_slug(name):
        problems.append(
            Problem("bad-name", "pack.yaml", "name must be lowercase letters, digits, '.-_'")
        )
    elif expected is not None and name != expected:
        problems.append(
            Problem(
                "name-mismatch",
                "pack.yaml",
                f"names the pack {name!r} but it is stored as {expected!r}; "
                "a pack's manifest name must match its folder",
            )
        )
    if not isinstance(version, str) or not SEMVER_RE.fullmatch(version):
        problems.append(Problem("bad-version", "pack.yaml", "version must be semantic, like 1.0.0"))
    if not isinstance(description, str) or not description.strip():
        problems.append(Problem("bad-description", "pack.yaml", "description must be text"))
    if len(problems) > before:
        return None
    # Inline text from here on: a description never carries structure (issue 15 item 5).
    flat = one_line(description)
    return PackManifest(schema=schema, name=name, version=version, description=flat)


def _str_list(data: dict[str, Any], key: str, rel: str, problems: list[Problem]) -> tuple[str, ...]:
    value = data.get(key)
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    problems.append(Problem("bad-field", rel, f"{key} must be a string or a list of strings"))
    return ()


def parse_agent(
    rel: str, text: str, problems: list[Problem], warnings: list[str]
) -> PersonaDef | None:
    """Parse one agent file's frontmatter and body (no reference checks)."""
    try:
        data, body = split_frontmatter(text, rel)
    except YamlProblem as exc:
        problems.append(Problem("bad-frontmatter", rel, str(exc)))
        return None
    before = len(problems)
    stem = posixpath.splitext(posixpath.basename(rel))[0]
    name = data.get("name", stem)
    if not isinstance(name, str) or not is_valid_slug(name):
        problems.append(
            Problem("bad-persona-name", rel, "name must be lowercase letters, digits, '.-_'")
        )
    role = data.get("role")
    if role not in {"generalist", "specialist"}:
        problems.append(Problem("bad-role", rel, "role must be 'generalist' or 'specialist'"))
    description = data.get("description", "")
    if not isinstance(description, str):
        problems.append(Problem("bad-field", rel, "description must be text"))
    model = data.get("model")
    if model is not None and not isinstance(model, str):
        problems.append(Problem("bad-field", rel, "model must be text"))
    lists = {k: _str_list(data, k, rel, problems) for k in ("docs", "packDocs", "skills", "tools")}
    shape_model = model if isinstance(model, str) else None
    problems.extend(field_shape_problems(rel, lists["tools"], lists["skills"], shape_model))
    for key in ("docs", "packDocs"):
        for entry in lists[key]:
            why = check_relative(entry)
            if why is not None:
                problems.append(Problem("unsafe-path", rel, f"{key} entry {entry!r} {why}"))
    unknown = sorted(str(k) for k in data if k not in _KNOWN_FIELDS)
    if unknown:
        shown = one_line(", ".join(repr(k) if not k.isprintable() else k for k in unknown))
        warnings.append(f"{rel}: unknown frontmatter field(s) {shown} are ignored")
    if len(problems) > before:
        return None
    assert isinstance(name, str)
    return PersonaDef(
        name=name,
        role="generalist" if role == "generalist" else "specialist",
        description=one_line(str(description)),
        body=body,
        path=rel,
        docs=lists["docs"],
        pack_docs=lists["packDocs"],
        skills=lists["skills"],
        tools=lists["tools"],
        model=model,
    )


def _check_pack_docs(root: Path, persona: PersonaDef, problems: list[Problem]) -> None:
    refs = os.path.realpath(root / "references")
    for entry in persona.pack_docs:
        if check_relative(entry) is not None:
            continue  # already reported
        real = os.path.realpath(root / "references" / entry)
        if not is_inside(real, refs):
            problems.append(
                Problem(
                    "reference-escape",
                    persona.path,
                    f"packDocs entry {entry!r} leaves the pack's references/ folder",
                )
            )
        elif not os.path.exists(real):
            problems.append(
                Problem(
                    "missing-reference",
                    persona.path,
                    f"packDocs entry {entry!r} does not exist under references/; add it or "
                    "remove the entry",
                )
            )


def _agents(
    root: Path, scan: TreeScan, problems: list[Problem], warnings: list[str]
) -> list[PersonaDef]:
    personas: list[PersonaDef] = []
    for rel in sorted(scan.files):
        if not rel.startswith("agents/"):
            continue
        base = posixpath.basename(rel)
        if not rel.endswith(".md"):
            warnings.append(f"{rel}: not a .md file; not a persona")
            continue
        if base.startswith("_"):
            continue  # control file, never a launchable persona (P-RESOLVER-14)
        text = _read_text(root, rel, problems)
        if text is None:
            continue
        persona = parse_agent(rel, text, problems, warnings)
        if persona is not None:
            personas.append(persona)
    return personas


def _roster(personas: list[PersonaDef], problems: list[Problem], require: bool) -> None:
    seen: dict[str, str] = {}
    for p in personas:
        key = nfc_casefold(p.name)
        if key in seen:
            problems.append(
                Problem("duplicate-persona", p.path, f"persona {p.name!r} is also in {seen[key]}")
            )
        seen.setdefault(key, p.path)
    if not require:
        return
    leads = [p for p in personas if p.is_lead]
    if len(leads) != 1:
        where = ", ".join(p.path for p in leads) or "agents/"
        problems.append(
            Problem(
                "generalist-count",
                where,
                f"the pack has {len(leads)} generalists; it needs exactly one "
                "`role: generalist` lead",
            )
        )
    if not any(not p.is_lead for p in personas):
        problems.append(
            Problem("no-specialist", "agents/", "the pack needs at least one role: specialist")
        )


def load_pack(
    root: Path,
    source: PackSource,
    *,
    expected_name: str | None = None,
    limits: Limits | None = None,
    digest: bool = True,
    require_roster: bool = True,
) -> Pack:
    """Validate the pack at ``root``; raise :class:`PackInvalid` listing every problem."""
    limits = limits or Limits()
    label = expected_name or root.name
    problems: list[Problem] = []
    if root.is_symlink():
        problems.append(Problem("root-symlink", "", "the pack folder is a symlink; use a folder"))
        raise PackInvalid(label, tuple(problems))
    if not root.is_dir():
        raise PackInvalid(label, (Problem("missing-pack", "", f"{root} is not a folder"),))
    scan = scan_tree(root, limits)
    problems.extend(scan.problems)
    warnings = list(scan.warnings)
    tops = {rel.split("/", 1)[0] for rel in scan.files}
    warnings.extend(
        f"{top}: not part of the pack layout (pack.yaml, agents/, references/)"
        for top in sorted(tops - _LAYOUT_TOP)
    )
    for rel in scan.files:
        if rel != "pack.yaml" and posixpath.basename(rel) == "pack.yaml":
            problems.append(
                Problem(
                    "nested-pack-root",
                    rel,
                    "a second pack.yaml inside the pack makes two pack roots overlap; remove it",
                )
            )
    manifest = _manifest(root, scan, expected_name, problems)
    personas = _agents(root, scan, problems, warnings)
    _roster(personas, problems, require_roster)
    check_runnable(manifest, personas, limits, problems)
    for persona in personas:
        _check_pack_docs(root, persona, problems)
    if problems or manifest is None:
        raise PackInvalid(label, tuple(problems))
    files = tuple(sorted(scan.files))
    return Pack(
        source=source,
        root=root,
        manifest=manifest,
        personas=tuple(sorted(personas, key=lambda p: (not p.is_lead, p.name))),
        files=files,
        digest=digest_files(root, files) if digest else "",
        warnings=tuple(warnings),
    )
