"""Whether the optional ``[mcp]`` extra is installed, asked before anything starts.

Kept apart from :mod:`persona_mind.mcp._server`, which imports the SDK at module
level (so mypy checks it against the SDK's own types): a missing extra must be one clear line,
not an ImportError traceback.
"""

from __future__ import annotations

import importlib

from persona_mind.errors import HostError
from persona_mind.install import install_hint

__all__ = ("McpUnavailable", "require_sdk")

_MODULES = ("jsonschema", "mcp_types", "mcp.server.lowlevel.server", "mcp.server.stdio")


class McpUnavailable(HostError):
    """The ``mcp`` SDK is not installed (the optional ``mcp`` extra)."""


def require_sdk() -> None:
    """Import the SDK modules the server uses, or raise :class:`McpUnavailable`."""
    for name in _MODULES:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as err:
            raise McpUnavailable(
                f"the MCP server needs the optional extra ({err.name or name} is missing): "
                f"{install_hint('mcp')}"
            ) from err
