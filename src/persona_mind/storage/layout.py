"""Where durable files live: the ``<agentDir>`` layout and a project's identity, as values.

This is the part of the storage port the domain needs to *name* its files: ``Layout``,
``project_identity`` and the collision-safe ``safe_name``/``project_name`` rules. It opens no
store file and imports no engine; ``mind/`` builds its ``StoreTarget`` paths from it, and only
the Store actor (or the CLI's direct engine) opens them. The import-linter contract "Domain
reaches storage only through its port" holds ``mind/`` and ``persona/`` to this module and
``storage.port``: the package ``persona_mind.storage`` itself (whose ``__init__`` loads the
engine) is out of their reach.
"""

from __future__ import annotations

from persona_mind.storage._paths import (
    RESERVED_NAMES,
    Layout,
    project_identity,
    project_name,
    safe_name,
)

__all__ = ("RESERVED_NAMES", "Layout", "project_identity", "project_name", "safe_name")
