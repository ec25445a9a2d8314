"""persona-mind: personas and a memory a coding agent can trust.

The facade names what a library user needs; everything else lives in the subpackages
(``actors``, ``messages``, ``storage``, ``runners``, ``mind``, ``persona``, ``sim``, ``testing``,
``trace``) behind their own facades.

Every name is imported on first use (``__getattr__``), so ``import persona_mind`` — which
every submodule import runs first, the ``persona-mind`` command's entry among them — costs
next to nothing, and a Ctrl-C in the first moments of the command lands in code that
handles it (``persona_mind._entry``).
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # not typing's: importing typing alone costs more than the rest here
if TYPE_CHECKING:
    from typing import Any

    from persona_mind._consolidate import Consolidation as Consolidation
    from persona_mind._memory import Memory as Memory
    from persona_mind._memory import MemoryOptions as MemoryOptions
    from persona_mind._memory_sync import SyncMemory as SyncMemory
    from persona_mind._team import Team as Team
    from persona_mind.clock import Clock as Clock
    from persona_mind.clock import MonotonicClock as MonotonicClock
    from persona_mind.errors import PersonaMindError as PersonaMindError
    from persona_mind.host import HostPort as HostPort
    from persona_mind.runtime import Runtime as Runtime
    from persona_mind.runtime import default_agent_dir as default_agent_dir

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

_HOMES = {
    "Clock": "persona_mind.clock",
    "Consolidation": "persona_mind._consolidate",
    "HostPort": "persona_mind.host",
    "Memory": "persona_mind._memory",
    "MemoryOptions": "persona_mind._memory",
    "MonotonicClock": "persona_mind.clock",
    "PersonaMindError": "persona_mind.errors",
    "Runtime": "persona_mind.runtime",
    "SyncMemory": "persona_mind._memory_sync",
    "Team": "persona_mind._team",
    "default_agent_dir": "persona_mind.runtime",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'persona_mind' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value  # later lookups skip this function
    return value
