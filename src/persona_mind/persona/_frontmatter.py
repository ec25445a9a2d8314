"""YAML parsing for ``pack.yaml``, agent frontmatter and the onboarding manifest.

``yaml.safe_load`` only (no Python tags), after a size cap and a scan that refuses
anchors and aliases: an alias bomb expands into a huge structure from a few bytes, and no
honest pack needs YAML references. The parse error text says where and what to fix.
"""

from __future__ import annotations

from typing import Any

import yaml

__all__ = ("YamlProblem", "load_yaml", "split_frontmatter")

_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's safe loader when present (same safe constructor, ~10x faster), else pure Python."""


class YamlProblem(ValueError):
    """Malformed YAML or frontmatter; the message is shown to the user."""


def load_yaml(text: str, what: str) -> Any:
    """Parse one YAML document safely; raise :class:`YamlProblem` with a usable message."""
    try:
        for event in yaml.parse(text, Loader=_LOADER):
            if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
                raise YamlProblem(f"{what} uses YAML anchors/aliases (&, *); write values out")
        return yaml.load(text, Loader=_LOADER)  # noqa: S506 - a SafeLoader (C or Python)
    except YamlProblem:
        raise
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise YamlProblem(f"{what} is not valid YAML{where}: {problem}") from exc
    except RecursionError as exc:
        raise YamlProblem(f"{what} nests too deeply") from exc


def split_frontmatter(text: str, what: str) -> tuple[dict[str, Any], str]:
    """Split ``---\\n<yaml>\\n---\\n<body>`` into (mapping, body).

    A file must open with the ``---`` fence; the closing fence is the next line that is
    exactly ``---``. The body keeps its text; surrounding blank lines are trimmed.
    """
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    if not text.startswith("---\n"):
        raise YamlProblem(f"{what} has no YAML frontmatter; start the file with a '---' line")
    end = text.find("\n---", 3)
    while end != -1 and text[end + 4 : end + 5] not in {"", "\n"}:
        end = text.find("\n---", end + 4)
    if end == -1:
        raise YamlProblem(f"{what} frontmatter is not closed; add a '---' line after it")
    raw = text[4 : end + 1]
    body = text[end + 4 :].strip("\n")
    data = load_yaml(raw, f"{what} frontmatter") if raw.strip() else {}
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise YamlProblem(f"{what} frontmatter must be a mapping of fields (name: …, role: …)")
    return data, body
