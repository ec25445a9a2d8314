"""Moved: the simulated host is product code in :mod:`persona_mind.sim` (issue 10 scope 7).

This name stays so tests written against ``persona_mind.testing._simhost`` keep importing;
new code imports ``persona_mind.sim`` (or ``persona_mind.testing``, which re-exports it).
"""

from __future__ import annotations

from persona_mind.sim._host import SimHost, Turn

__all__ = ("SimHost", "Turn")
