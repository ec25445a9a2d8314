"""persona-mind: personas and a memory a coding agent can trust."""

from __future__ import annotations

__version__ = "0.1.0"
__all__ = ("__version__",)
