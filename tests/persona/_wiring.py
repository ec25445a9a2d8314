"""How tests wire the Persona domain: the real durable file port, an injected clock, and
an inline offload (issue 10: Persona does no file IO, clock read or thread offload itself).

Product code gets the same three from the features' ports (``Ports.pack_files``,
``Ports.clock``, ``Ports.offload``) or the CLI; here ``files`` defaults to
``persona_mind.storage.DurablePackFiles`` over the real file system (fault tests pass one
over a ``FaultyFileSystem``), and ``clock`` to a fresh ``ManualClock``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from persona_mind.clock import Clock
from persona_mind.persona import PackStore, PersonaService
from persona_mind.persona.packs._fsio import PackFiles
from persona_mind.storage import DurablePackFiles
from persona_mind.testing import ManualClock

__all__ = ("inline", "pack_store", "persona_service")

T = TypeVar("T")


async def inline(fn: Callable[[], T]) -> T:
    """An offload that runs the work on the caller (unit tests have no Store thread)."""
    return fn()


def pack_store(
    agent_dir: Path, *, files: PackFiles | None = None, clock: Clock | None = None, **kw: Any
) -> PackStore:
    """A PackStore on the real durable port and a ManualClock unless given."""
    return PackStore(
        agent_dir, files=files or DurablePackFiles(), clock=clock or ManualClock(), **kw
    )


def persona_service(
    agent_dir: Path,
    *,
    files: PackFiles | None = None,
    clock: Clock | None = None,
    offload: Any = None,
    **kw: Any,
) -> PersonaService:
    """A PersonaService wired like :func:`pack_store`, offloading inline unless given."""
    return PersonaService(
        agent_dir,
        files=files or DurablePackFiles(),
        clock=clock or ManualClock(),
        offload=offload or inline,
        **kw,
    )
