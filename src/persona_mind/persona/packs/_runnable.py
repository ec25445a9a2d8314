"""Limits that keep a valid pack runnable by a child (issue 15 item 6).

A pack that validates must also run: a 200 KiB description or 2,000 specialists used to
pass validation and then make every child fail (each teammate's prompt carries the whole
roster). These checks bound every part of a persona's prompt that comes from the pack, and
the shape of the values that reach a child's command line (``--tools a,b``, ``--model``),
so validation, doctor and the child runner agree. The byte arithmetic against the child's
4 MiB system-prompt limit is in ``docs/persona.md``.
"""

from __future__ import annotations

import re

from persona_mind.persona._errors import Problem
from persona_mind.persona.packs._model import PackManifest, PersonaDef
from persona_mind.persona.packs._scan import Limits

__all__ = ("TOOL_NAME_RE", "check_runnable", "field_shape_problems")

TOOL_NAME_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.:-]{0,63}$")
"""A Pi tool name: joined with ``,`` into ``--tools``, so no comma, space or newline."""
_SKILL_RE = re.compile(r"^[^\x00-\x1f\x7f\x85\u2028\u2029]{1,128}$")
_MODEL_RE = re.compile(r"^\S{1,256}$")


def field_shape_problems(
    rel: str, tools: tuple[str, ...], skills: tuple[str, ...], model: str | None
) -> list[Problem]:
    """Values that go to a child's command line or a prompt line must be one token/line."""
    out: list[Problem] = []
    for tool in tools:
        if not TOOL_NAME_RE.fullmatch(tool):
            out.append(
                Problem(
                    "bad-field",
                    rel,
                    f"tools entry {tool!r} is not a tool name (letters, digits, '_.:-', at "
                    "most 64); a child receives the list as --tools a,b",
                )
            )
    for skill in skills:
        if not _SKILL_RE.fullmatch(skill) or skill != skill.strip():
            out.append(
                Problem(
                    "bad-field",
                    rel,
                    f"skills entry {skill!r} must be one line of at most 128 characters",
                )
            )
    if model is not None and not _MODEL_RE.fullmatch(model):
        out.append(
            Problem("bad-field", rel, f"model {model!r} must be one provider/model id, no spaces")
        )
    return out


def check_runnable(
    manifest: PackManifest | None,
    personas: list[PersonaDef],
    limits: Limits,
    problems: list[Problem],
) -> None:
    """Add a problem for every size that would make a child's prompt unrunnable."""
    cap = limits.description_chars
    if manifest is not None and len(manifest.description) > cap:
        problems.append(
            Problem(
                "too-long",
                "pack.yaml",
                f"description is {len(manifest.description)} characters; the limit is {cap} "
                "(it is in every persona's prompt). Move detail into references/",
            )
        )
    if len(personas) > limits.max_personas:
        problems.append(
            Problem(
                "too-many-personas",
                "agents/",
                f"the pack has {len(personas)} personas; the limit is {limits.max_personas} "
                "(every persona's prompt carries the whole roster). Split it into packs",
            )
        )
    for p in personas:
        if len(p.description) > cap:
            problems.append(
                Problem(
                    "too-long",
                    p.path,
                    f"description is {len(p.description)} characters; the limit is {cap} "
                    "(it is in every teammate's roster). Move detail into the body",
                )
            )
        for key, values in (
            ("docs", p.docs),
            ("packDocs", p.pack_docs),
            ("skills", p.skills),
            ("tools", p.tools),
        ):
            if len(values) > limits.max_list_entries:
                problems.append(
                    Problem(
                        "too-many-entries",
                        p.path,
                        f"{key} has {len(values)} entries; the limit is "
                        f"{limits.max_list_entries}. Point at a folder instead",
                    )
                )
