"""persona-mind: personas and a memory a coding agent can trust.

The facade names what a library user needs; everything else lives in the subpackages
(``actors``, ``messages``, ``storage``, ``runners``, ``mind``, ``persona``, ``sim``, ``testing``,
``trace``) behind their own facades.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from persona_mind.clock import Clock as Clock
from persona_mind.clock import MonotonicClock as MonotonicClock
from persona_mind.errors import PersonaMindError as PersonaMindError
from persona_mind.host import HostPort as HostPort
from persona_mind.runtime import Runtime as Runtime
from persona_mind.runtime import default_agent_dir as default_agent_dir

if TYPE_CHECKING:
    from persona_mind._consolidate import Consolidation as Consolidation
    from persona_mind._memory import Memory as Memory
    from persona_mind._memory import MemoryOptions as MemoryOptions
    from persona_mind._memory_sync import SyncMemory as SyncMemory
    from persona_mind._team import Team as Team

__version__ = "0.1.0"
__all__ = (
    "Clock",
    "Consolidation",
    "HostPort",
    "Memory",
    "MemoryOptions",
    "MonotonicClock",
    "PersonaMindError",
    "Runtime",
    "SyncMemory",
    "Team",
    "__version__",
    "default_agent_dir",
)


def __getattr__(name: str) -> Any:
    """The facades are imported at first use: ``import persona_mind`` stays light."""
    if name == "Consolidation":
        from persona_mind._consolidate import Consolidation  # noqa: PLC0415

        return Consolidation
    if name == "Memory":
        from persona_mind._memory import Memory  # noqa: PLC0415

        return Memory
    if name == "MemoryOptions":
        from persona_mind._memory import MemoryOptions  # noqa: PLC0415

        return MemoryOptions
    if name == "SyncMemory":
        from persona_mind._memory_sync import SyncMemory  # noqa: PLC0415

        return SyncMemory
    if name == "Team":
        from persona_mind._team import Team  # noqa: PLC0415

        return Team
    raise AttributeError(f"module 'persona_mind' has no attribute {name!r}")
