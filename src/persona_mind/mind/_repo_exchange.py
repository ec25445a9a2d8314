"""Export and import keyed by repository identity: memory that moves to another checkout.

Why: an export names no path, so ``memory import`` puts the lines into whatever project the
importing shell is in. ``memory export --by-repo`` starts the JSON Lines with one header
line, ``{"v": 1, "repository": {"roots": [...], "remote": "..."}}``; ``memory import
--by-repo`` reads it and imports into the known project of that repository (shared root
commit and same remote, ``RepoIdentity.same_repository``) — the current one if it matches,
else the one the registry knows at another path, following its link. No match, or several
unlinked matches, is a typed refusal that says what to do; nothing is written then. A plain
import skips the header (the lines are the same format either way).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from persona_mind.mind._errors import InvalidArgument, NotFound
from persona_mind.mind._links import registry_target, resolve_root
from persona_mind.mind._repo_identity import RepoIdentity
from persona_mind.storage.layout import Layout
from persona_mind.storage.port import StorePort

__all__ = ("find_repository_project", "repo_header", "split_header")


def repo_header(identity: RepoIdentity) -> str:
    """The first line of a ``--by-repo`` export."""
    record: dict[str, Any] = {
        "v": 1,
        "repository": {"roots": list(identity.roots), "remote": identity.remote},
    }
    return json.dumps(record, sort_keys=True)


def _header(raw: str) -> RepoIdentity | None:
    try:
        obj = json.loads(raw)
    except json.JSONDecodeError:
        return None
    if not isinstance(obj, dict) or "repository" not in obj:
        return None
    repo = obj["repository"]
    roots = repo.get("roots") if isinstance(repo, dict) else None
    remote = repo.get("remote") if isinstance(repo, dict) else None
    if (
        set(obj) != {"v", "repository"}
        or obj["v"] != 1
        or not isinstance(roots, list)
        or not roots
        or not all(isinstance(r, str) and r for r in roots)
        or not (remote is None or isinstance(remote, str))
    ):
        raise InvalidArgument(
            "import.header",
            'the repository header must be {"v": 1, "repository": {"roots": [commit, …], '
            '"remote": url}}; re-export with `persona-mind memory export --by-repo`',
        )
    return RepoIdentity(tuple(sorted(roots)), remote)


def split_header(lines: Iterable[str]) -> tuple[RepoIdentity | None, list[str]]:
    """The header's identity (``None`` without one) and the fact lines (the header blanked,
    so refused lines keep their line numbers)."""
    out = list(lines)
    for n, raw in enumerate(out):
        if not raw.strip():
            continue
        identity = _header(raw.strip())
        if identity is not None:
            out[n] = ""
        return identity, out
    return None, out


async def find_repository_project(store: StorePort, layout: Layout, identity: RepoIdentity) -> str:
    """The one known project root (link followed) of ``identity``'s repository."""
    snap = await store.read(registry_target(layout))
    entries = () if snap is None else snap.entries
    roots = sorted({
        resolve_root(entries, r.id)
        for r in entries
        if r.identity is not None and identity.same_repository(r.identity)
    })  # fmt: skip
    if not roots:
        raise NotFound(
            "import.no_project",
            f"no known project is a checkout of this repository ({identity.describe()}); "
            "run the import inside a clone of it (`--cwd DIR`), so its identity is recorded",
        )
    if len(roots) > 1:
        raise InvalidArgument(
            "import.ambiguous",
            f"several unlinked checkouts of this repository are known ({', '.join(roots)}); "
            "link them (`persona-mind memory link ROOT`) or import with `--cwd DIR`",
        )
    return roots[0]
