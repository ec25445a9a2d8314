"""The sidecar's host side: the runtime's ``HostPort`` as request frames, and its errors.

:class:`BridgeHost` turns each ``HostPort`` call into a request frame to the Pi extension
through a :class:`HostCaller` (the :class:`~persona_mind.bridge.sidecar.Sidecar`); an
unanswered request fails with :class:`HostTimeout` after :func:`host_timeout_from_env`
seconds.
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, TypeVar

from persona_mind.errors import HostError
from persona_mind.messages import bridge as b
from persona_mind.messages.host import (
    CommandSpec,
    CustomEntry,
    DisplayMessage,
    NotifyLevel,
    ToolSpec,
)

__all__ = (
    "HOST_TIMEOUT",
    "HOST_TIMEOUT_ENV",
    "BridgeConfigError",
    "BridgeHost",
    "HostCaller",
    "HostDisconnected",
    "HostRequestFailed",
    "HostTimeout",
    "host_timeout_from_env",
    "say",
)

T = TypeVar("T")

#: How long a HostPort request waits for the extension before failing, unless the
#: environment (:data:`HOST_TIMEOUT_ENV`) says otherwise.
HOST_TIMEOUT = 30.0
HOST_TIMEOUT_ENV = "PERSONA_MIND_BRIDGE_HOST_TIMEOUT"
#: The longest wait the variable may ask for: an hour. Longer is a hung ask in all but name.
MAX_HOST_TIMEOUT = 3600.0


def say(text: str) -> None:
    """A diagnostic line on stderr (the extension logs it with PERSONA_MIND_BRIDGE_LOG)."""
    print(f"persona-mind sidecar: {text}", file=sys.stderr, flush=True)


class HostTimeout(HostError):
    """The Pi extension did not answer a host request in time (is Pi busy or hung?)."""


class HostRequestFailed(HostError):
    """The Pi extension answered a host request with an error; the message is Pi's."""


class HostDisconnected(HostError):
    """The pipe to the Pi extension closed; the session is over, nothing more can be shown."""


class BridgeConfigError(HostError):
    """A bridge setting from the environment is not usable; the message names the fix."""


def host_timeout_from_env(env: Mapping[str, str] | None = None) -> float:
    """Seconds a host request may wait: ``$PERSONA_MIND_BRIDGE_HOST_TIMEOUT`` or 30.

    Read when the sidecar starts (never at import, so a bad value is a clear start error,
    not a traceback). Only a finite number of seconds in (0, 3600] is accepted: ``abc``,
    ``-1``, ``0``, ``nan`` and ``inf`` are refused (issue 15, item 10).
    """
    text = (os.environ if env is None else env).get(HOST_TIMEOUT_ENV)
    if text is None or not text.strip():
        return HOST_TIMEOUT
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or not 0 < value <= MAX_HOST_TIMEOUT:
        raise BridgeConfigError(
            f"{HOST_TIMEOUT_ENV}={text!r} is not a number of seconds in (0, "
            f"{MAX_HOST_TIMEOUT:g}]; set it to e.g. 30, or unset it for the default"
        )
    return value


class HostCaller(Protocol):
    """What :class:`BridgeHost` needs: send a request frame, await its typed result."""

    async def call(self, method: str, params: object, result_type: type[T] | None = None) -> T:
        """Send ``method`` to the extension and await its answer."""
        ...


class BridgeHost:
    """The runtime's :class:`HostPort` over the pipe: each call is a request frame to Pi."""

    def __init__(self, caller: HostCaller, timeout: float = HOST_TIMEOUT) -> None:
        self._side = caller
        self.timeout = timeout

    async def register_tools(self, tools: Sequence[ToolSpec]) -> None:
        await self._side.call("register_tools", b.RegisterToolsParams(tools=tuple(tools)))

    async def register_commands(self, commands: Sequence[CommandSpec]) -> None:
        params = b.RegisterCommandsParams(commands=tuple(commands))
        await self._side.call("register_commands", params)

    async def append_entry(self, custom_type: str, data: Any) -> None:
        await self._side.call(
            "append_entry", b.AppendEntryParams(custom_type=custom_type, data=data)
        )

    async def branch_entries(self) -> Sequence[CustomEntry]:
        res = await self._side.call("branch_entries", None, b.BranchEntriesResult)
        return res.entries

    async def notify(self, text: str, level: NotifyLevel = "info") -> None:
        await self._side.call("notify", b.NotifyParams(text=text, level=level))

    async def set_status(self, key: str, text: str | None) -> None:
        await self._side.call("set_status", b.SetStatusParams(key=key, text=text))

    async def display(self, message: DisplayMessage) -> None:
        await self._side.call("display", b.DisplayParams(message=message))

    async def send_user_message(self, text: str) -> None:
        await self._side.call("send_user_message", b.SendUserMessageParams(text=text))

    async def tool_update(self, call_id: str, text: str, details: Any = None) -> None:
        params = b.ToolUpdateParams(call_id=call_id, text=text, details=details)
        await self._side.call("tool_update", params)

    async def request_reload(self) -> None:
        await self._side.call("reload", None)
