"""The base of every actor message: a frozen, tagged, keyword-only msgspec Struct.

Frozen so a message can be shared between actors without copies or races; tagged so a
union of messages decodes unambiguously off the wire; keyword-only so adding a field never
silently shifts positional arguments.
"""

from __future__ import annotations

import msgspec

__all__ = ("Msg",)


class Msg(msgspec.Struct, frozen=True, kw_only=True, tag=True, forbid_unknown_fields=True):
    """Base class of all actor messages."""
