"""The install command for an optional extra, for the way *this* copy was installed.

persona-mind is not on a package index: it is used from a checkout (an editable install), a
built wheel, or ``pipx`` from a path. Installing the extra by the project's name from an index
therefore fails for everyone, so every hint that names an extra asks :func:`install_hint`,
which reads the running distribution's ``direct_url.json`` (PEP 610) and names the command
that works for it:

* editable checkout -> ``<python> -m pip install -e '<checkout>[extra]'``;
* a wheel or directory installed from a path -> ``<python> -m pip install '<path>[extra]'``;
* a ``pipx`` venv -> ``pipx install --force '<path>[extra]'`` (pipx owns that venv);
* unknown origin -> both usual forms, from a checkout and from a built wheel.

The interpreter is the running one, so the extra lands in the environment that needs it.
"""

from __future__ import annotations

import json
import shlex
import sys
from importlib import metadata
from pathlib import Path
from urllib.parse import unquote, urlparse

__all__ = ("install_hint", "install_origin")

_DIST = "persona-mind"


def install_origin() -> tuple[str, Path] | None:
    """``("editable" | "path", location)`` from ``direct_url.json``, or None if unknown."""
    try:
        raw = metadata.distribution(_DIST).read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        return None
    if not raw:
        return None
    try:
        data = json.loads(raw)
    except ValueError:
        return None
    url = urlparse(str(data.get("url", "")))
    if url.scheme != "file":
        return None
    where = Path(unquote(url.path))
    editable = bool(data.get("dir_info", {}).get("editable"))
    return ("editable" if editable else "path", where)


def _in_pipx() -> bool:
    parts = Path(sys.prefix).parts
    return "pipx" in parts and "venvs" in parts


def install_hint(extra: str) -> str:
    """The shell command that installs ``extra`` into the running copy of persona-mind."""
    origin = install_origin()
    python = shlex.quote(sys.executable)
    if origin is not None and origin[1].exists():
        kind, where = origin
        target = shlex.quote(f"{where}[{extra}]")
        if _in_pipx():
            return f"pipx install --force {target}"
        if kind == "editable":
            return f"{python} -m pip install -e {target}"
        return f"{python} -m pip install {target}"
    return (
        f"from a checkout: pip install -e '.[{extra}]'; from a built wheel: "
        f"pip install 'dist/persona_mind-X-py3-none-any.whl[{extra}]' "
        f"(persona-mind is not on a package index)"
    )
