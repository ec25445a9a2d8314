"""A repository's identity, apart from where it is checked out: root commits and its remote.

Why: a project's memory is named after its canonical path (M-SCOPE-13), so a second clone, a
moved checkout or a teammate's machine starts empty. The path stays the identity; this is
the extra fact that lets Mind *offer* to link two paths (``mind/_links.py``). Two checkouts
are the same repository when they share a root commit (``git rev-list --max-parents=0
HEAD``) **and** their normalised ``origin`` remote is equal: a fork, or an unrelated
repository grafted onto the same first commit, shares the root but not the remote, and a
checkout without a remote is never matched (there is nothing to tell it apart by).

Both facts come from real ``git`` child processes, each bounded by a timeout, with no
terminal prompt and no network (``rev-list`` and ``remote get-url`` read only the local
repository). No ``git``, not a repository, an empty repository, a timeout: no identity —
never an error. Answers are cached per root for the life of the process.
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

__all__ = ("GIT_TIMEOUT", "RepoIdentity", "forget_identities", "normalise_remote", "repo_identity")

GIT_TIMEOUT = 2.0
"""Seconds one ``git`` call may take before the identity is given up (never an error)."""

_SCP = re.compile(r"^(?:(?P<user>[^@/]+)@)?(?P<host>[^:/]+):(?!//)(?P<path>.+)$")
_SCHEME = re.compile(r"^(?P<scheme>[a-zA-Z][a-zA-Z0-9+.-]*)://(?P<rest>.*)$")


@dataclass(frozen=True, slots=True)
class RepoIdentity:
    """Root commits (sorted) and the normalised ``origin`` remote (``None``: no remote)."""

    roots: tuple[str, ...]
    remote: str | None

    def same_repository(self, other: RepoIdentity) -> bool:
        """One repository: a shared root commit and the same (present) remote."""
        if self.remote is None or other.remote is None or self.remote != other.remote:
            return False
        return bool(set(self.roots) & set(other.roots))

    def describe(self) -> str:
        root = self.roots[0][:12] if self.roots else "(no commit)"
        return f"root {root}, remote {self.remote or '(none)'}"


def _strip_path(path: str) -> str:
    path = path.strip().rstrip("/")
    path = path.removesuffix(".git").rstrip("/")
    return re.sub(r"/{2,}", "/", path)


def normalise_remote(url: str) -> str | None:
    """``host/owner/repo`` for any spelling of one remote; ``None`` for an empty one.

    ``git@Host:owner/repo.git``, ``ssh://git@host:22/owner/repo``, ``https://user:token@
    HOST/owner/repo.git/`` all become ``host/owner/repo``: credentials, scheme, port, the
    trailing ``.git`` and the host's case are dropped (the path keeps its case: some hosts
    are case-sensitive there). A local remote (a path or ``file://``) becomes
    ``file:<real path>`` without a trailing ``.git``.
    """
    url = url.strip()
    if not url:
        return None
    scheme = _SCHEME.match(url)
    if scheme is not None:
        kind, rest = scheme["scheme"].lower(), scheme["rest"]
        if kind == "file":
            return f"file:{_strip_path(os.path.realpath(rest or '/'))}"
        authority, _, path = rest.partition("/")
        host = authority.rsplit("@", 1)[-1]
        # an IPv6 literal keeps its colons; any other host loses its port
        host = host[: host.find("]") + 1] if host.startswith("[") else host.split(":", 1)[0]
        return f"{host.lower()}/{_strip_path(path)}".rstrip("/")
    scp = _SCP.match(url)
    if scp is not None and not url.startswith(("/", ".")):
        return f"{scp['host'].lower()}/{_strip_path(scp['path'].lstrip('/'))}"
    return f"file:{_strip_path(os.path.realpath(url))}"


def _git(root: str, *args: str, timeout: float) -> str | None:
    env = {
        **os.environ,
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_OPTIONAL_LOCKS": "0",  # a read must never take the repository's index lock
        "LC_ALL": "C",
    }
    try:
        done = subprocess.run(
            ["git", "-C", root, *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    return done.stdout if done.returncode == 0 else None


@functools.lru_cache(maxsize=128)
def _cached(root: str, timeout: float) -> RepoIdentity | None:
    if not (Path(root) / ".git").exists():
        return None
    out = _git(root, "rev-list", "--max-parents=0", "HEAD", timeout=timeout)
    roots = tuple(sorted({line.strip() for line in (out or "").splitlines() if line.strip()}))
    if not roots:
        return None  # no commit yet: nothing to recognise the repository by
    url = _git(root, "remote", "get-url", "origin", timeout=timeout)
    return RepoIdentity(roots, normalise_remote(url) if url else None)


def repo_identity(root: str | Path, *, timeout: float = GIT_TIMEOUT) -> RepoIdentity | None:
    """The identity of the repository whose canonical root is ``root``, or ``None``.

    Blocking (two ``git`` child processes at most): call it off the event loop. Cached per
    root; :func:`forget_identities` clears the cache (a test, or after ``git remote set-url``).
    """
    return _cached(str(root), timeout)


def forget_identities() -> None:
    """Drop every cached identity (the next call asks ``git`` again)."""
    _cached.cache_clear()
