"""What the sidecar runs: the runtime it loads, how it learns the runtime gave up, children.

``PERSONA_MIND_SIDECAR_RUNTIME`` (``module:Name`` or ``/path/file.py:Name``) picks the
runtime class; the default is ``persona_mind.runtime:Runtime``. A runtime that exposes an
actor system (``runtime.system.wait_failed()``) is watched: when its root supervisor gives
up, the sidecar exits non-zero so the extension restarts it (issue 10).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol

from persona_mind.errors import HostError
from persona_mind.messages import bridge as b
from persona_mind.messages.host import (
    CommandCall,
    CommandResult,
    CommandSpec,
    HostEvent,
    PromptInjection,
    ToolCall,
    ToolResult,
    ToolSpec,
)
from persona_mind.runners._child_lazy import LazyPiBackend

__all__ = (
    "DEFAULT_RUNTIME",
    "RUNTIME_ENV",
    "LazyPiBackend",
    "RuntimeFactory",
    "RuntimeLike",
    "children_kwargs",
    "failure_watch",
    "load_runtime_factory",
)

RUNTIME_ENV = "PERSONA_MIND_SIDECAR_RUNTIME"
DEFAULT_RUNTIME = "persona_mind.runtime:Runtime"


class RuntimeLike(Protocol):
    """The part of ``persona_mind.runtime.Runtime`` the sidecar drives."""

    async def __aenter__(self) -> Any: ...
    async def __aexit__(self, *exc: object) -> Any: ...
    async def event(self, event: HostEvent) -> PromptInjection | None: ...
    async def tool(self, call: ToolCall) -> ToolResult: ...
    async def command(self, call: CommandCall) -> CommandResult: ...
    def tool_specs(self) -> Sequence[ToolSpec]: ...
    def command_specs(self) -> Sequence[CommandSpec]: ...


RuntimeFactory = Callable[..., RuntimeLike]


def load_runtime_factory(spec: str | None = None) -> RuntimeFactory:
    """``module:Name`` or ``/path/file.py:Name`` (env ``PERSONA_MIND_SIDECAR_RUNTIME``)."""
    spec = spec or os.environ.get(RUNTIME_ENV) or DEFAULT_RUNTIME
    where, _, name = spec.rpartition(":")
    if not where or not name:
        raise HostError(f"bad runtime spec {spec!r}; use 'package.module:Name' or 'file.py:Name'")
    if where.endswith(".py"):
        from importlib import util  # noqa: PLC0415 - only for file specs; keeps startup lean

        mod_spec = util.spec_from_file_location("_persona_mind_sidecar_rt", where)
        if mod_spec is None or mod_spec.loader is None:
            raise HostError(f"cannot load runtime file {where!r}")
        module = util.module_from_spec(mod_spec)
        mod_spec.loader.exec_module(module)
    else:
        module = importlib.import_module(where)
    factory: RuntimeFactory = getattr(module, name)
    return factory


def failure_watch(runtime: object) -> Callable[[], Awaitable[BaseException]] | None:
    """``runtime.system.wait_failed`` when the runtime has an actor system, else ``None``.

    The sidecar races its serving against it: the root supervisor giving up ends the
    process (non-zero) instead of leaving a live sidecar in front of a dead runtime.
    """
    wait = getattr(getattr(runtime, "system", None), "wait_failed", None)
    return wait if callable(wait) else None


def children_kwargs(factory: RuntimeFactory, hello: b.Hello) -> dict[str, Any]:
    """``clock`` + ``child_backend`` for a runtime that takes them and a host that said how
    to start its Pi (consults and round-tables then run the very Pi the user runs).

    ``PERSONA_MIND_CHILDREN=0`` turns children off. The backend's children get the kill
    switch env, so they never load this bridge again.
    """
    if not hello.pi_command or os.environ.get("PERSONA_MIND_CHILDREN") == "0":
        return {}
    import inspect  # noqa: PLC0415 - already loaded by asyncio; kept local for clarity

    try:
        params = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return {}
    if "child_backend" not in params:
        return {}
    from persona_mind.clock import MonotonicClock  # noqa: PLC0415

    clock = MonotonicClock()
    kwargs: dict[str, Any] = {"child_backend": LazyPiBackend(hello.pi_command, clock=clock)}
    if "clock" in params:
        kwargs["clock"] = clock
    return kwargs
