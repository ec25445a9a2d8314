"""Reading an actor's protocol (its message union) off its class declaration."""

from __future__ import annotations

import types
import typing

__all__ = ("accepted_types",)


def accepted_types(cls: type, base: type) -> tuple[type, ...] | None:
    """The message classes named in ``class X(base[A | B])``; ``None`` accepts anything."""
    for orig in getattr(cls, "__orig_bases__", ()):
        if typing.get_origin(orig) is base:
            (arg,) = typing.get_args(orig)
            if isinstance(arg, types.UnionType) or typing.get_origin(arg) is typing.Union:
                members = typing.get_args(arg)
            else:
                members = (arg,)
            found = tuple(
                (typing.get_origin(m) or m)
                for m in members
                if isinstance(typing.get_origin(m) or m, type) and m not in (typing.Any, object)
            )
            return found if found and len(found) == len(members) else None
    return None
