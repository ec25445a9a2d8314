"""persona-mind: personas and a memory a coding agent can trust.

The facade names what a library user needs; everything else lives in the subpackages
(``actors``, ``messages``, ``storage``, ``runners``, ``mind``, ``persona``, ``testing``,
``trace``) behind their own facades.
"""

from __future__ import annotations

from persona_mind.clock import Clock as Clock
from persona_mind.clock import MonotonicClock as MonotonicClock
from persona_mind.errors import PersonaMindError as PersonaMindError
from persona_mind.host import HostPort as HostPort
from persona_mind.runtime import Runtime as Runtime
from persona_mind.runtime import default_agent_dir as default_agent_dir

__version__ = "0.1.0"
__all__ = (
    "Clock",
    "HostPort",
    "MonotonicClock",
    "PersonaMindError",
    "Runtime",
    "__version__",
    "default_agent_dir",
)
