"""YAML parsing for ``pack.yaml``, agent frontmatter and the onboarding manifest.

``yaml.safe_load`` only (no Python tags), after a size cap and a scan of the event stream
that bounds what anchors and aliases can do: an alias bomb expands into a huge structure
from a few bytes, so a document whose aliases would expand past :data:`MAX_EXPANDED_NODES`
nodes, or that uses more than :data:`MAX_ALIASES` aliases, is refused. An ordinary anchor
(``skills: &common [read]`` reused once by ``tools: *common``) is harmless and accepted
(issue 15 item 6: refusing every anchor was over-strict). The parse error text says where
and what to fix.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml

__all__ = ("MAX_ALIASES", "MAX_EXPANDED_NODES", "YamlProblem", "load_yaml", "split_frontmatter")

MAX_ALIASES = 64
"""More aliases than any hand-written manifest or frontmatter uses."""
MAX_EXPANDED_NODES = 10_000
"""Nodes after expanding every alias; a pack file never needs more, a bomb needs millions."""

_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's safe loader when present (same safe constructor, ~10x faster), else pure Python."""


class YamlProblem(ValueError):
    """Malformed YAML or frontmatter; the message is shown to the user."""


def load_yaml(text: str, what: str) -> Any:
    """Parse one YAML document safely; raise :class:`YamlProblem` with a usable message."""
    try:
        _check_aliases(text, what)
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


@dataclass(slots=True)
class _Open:
    """One collection still open in the event stream."""

    anchor: str | None
    nodes: int = 1


def _check_aliases(text: str, what: str) -> None:
    """Count, from events only (nothing is built), the nodes every alias would expand to."""
    sizes: dict[str, int] = {}
    stack = [_Open(None, 0)]
    aliases = 0
    for event in yaml.parse(text, Loader=_LOADER):
        if isinstance(event, yaml.AliasEvent):
            aliases += 1
            if aliases > MAX_ALIASES:
                raise YamlProblem(
                    f"{what} uses more than {MAX_ALIASES} YAML aliases (*); write values out"
                )
            size = sizes.get(str(event.anchor), 1)
        elif isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            stack.append(_Open(event.anchor))
            continue
        elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            done = stack.pop()
            size = done.nodes
            if done.anchor is not None:
                sizes[done.anchor] = size
        elif isinstance(event, yaml.ScalarEvent):
            size = 1
            if event.anchor is not None:
                sizes[event.anchor] = 1
        else:
            continue
        stack[-1].nodes += size
        if stack[-1].nodes > MAX_EXPANDED_NODES:
            raise YamlProblem(
                f"{what} expands past {MAX_EXPANDED_NODES} values through YAML aliases "
                "(an alias bomb); write values out"
            )


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
