"""The HostProxy actor: the one place the runtime waits on its host.

No other actor awaits host IO inside ``receive`` (ARCHITECTURE "State lives with its
owner"): the Companion and the features hand their requests to this actor — told, so the
sender's mailbox moves on at once — and the bridge performs them one at a time, in the
order they arrived, each as background work whose outcome comes back as a message. So a
slow host (Pi answering a notification, a TUI redraw) never holds the Companion, and the
host still sees every request in the order the runtime made it.

:class:`HostClient` is the :class:`~persona_mind.host.HostPort` the rest of the runtime
uses; its methods return once the request is queued (``branch_entries`` waits for the
answer). ``Flush`` is answered when everything sent before it has been performed: the
runtime facade flushes before it answers the host, so a command's notifications reach the
host before its result does.

The bridge is the host's pipe, not a session's worker, so it is not generation-bound:
requests made before a session change (the persona entry appended just before the
identity changed) are still delivered. The producers of late cards and reports are the
ones the kernel cancels.

Restart contract (docs/actors.md): a host request that raised is logged and counted, not
a crash. If the bridge itself crashes, the request in flight and the queued ones are lost
(the host is a UI: nothing durable depends on them), pending asks fail with
``ActorStopped``, and the restarted bridge serves new requests.
"""

from __future__ import annotations

import itertools
import logging
from collections import deque
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar, assert_never

from persona_mind.actors import Actor, ActorRef, Deferred, Failed, Ok, Outcome
from persona_mind.messages.host_proxy import (
    AppendEntry,
    BranchEntries,
    Display,
    Flush,
    HostDone,
    HostProxyMsg,
    HostRequest,
    Notify,
    RegisterCommands,
    RegisterTools,
    RequestReload,
    SendUserMessage,
    SetStatus,
    ToolUpdate,
)

if TYPE_CHECKING:
    from persona_mind.host import HostPort
    from persona_mind.messages.host import (
        CommandSpec,
        CustomEntry,
        DisplayMessage,
        NotifyLevel,
        ToolSpec,
    )

__all__ = ("HostClient", "HostProxy")

_log = logging.getLogger("persona_mind.host")


class HostProxy(Actor[HostProxyMsg]):
    """Performs host requests one at a time, in order (see the module doc)."""

    generation_bound: ClassVar[bool] = False

    def __init__(self, port: HostPort) -> None:
        self.port = port
        self.queue: deque[tuple[HostRequest, Deferred | None]] = deque()
        self.in_flight: tuple[HostRequest, Deferred | None] | None = None
        self.flushes: list[Deferred] = []
        self.failures = 0
        self._keys = itertools.count(1)

    async def receive(self, message: HostProxyMsg) -> object:
        match message:
            case BranchEntries():
                answer = self.promise(f"answer-{next(self._keys)}")
                self._enqueue(message, answer)
                return answer
            case Flush():
                if self.in_flight is None and not self.queue:
                    return None
                flush = self.promise(f"flush-{next(self._keys)}")
                self.flushes.append(flush)
                return flush
            case HostDone(outcome=outcome):
                self._done(outcome)
                return None
            case (
                RegisterTools()
                | RegisterCommands()
                | AppendEntry()
                | Notify()
                | SetStatus()
                | Display()
                | SendUserMessage()
                | ToolUpdate()
                | RequestReload()
            ):
                self._enqueue(message, None)
                return None
            case _:
                assert_never(message)

    def _enqueue(self, request: HostRequest, answer: Deferred | None) -> None:
        self.queue.append((request, answer))
        if self.in_flight is None:
            self._next()

    def _next(self) -> None:
        if not self.queue:
            flushes, self.flushes = self.flushes, []
            for flush in flushes:
                flush.resolve(None)
            return
        self.in_flight = self.queue.popleft()
        request = self.in_flight[0]
        self.start_work(
            f"host-{next(self._keys)}",
            lambda: self._perform(request),
            lambda outcome: HostDone(outcome=outcome),
        )

    def _done(self, outcome: Outcome[object]) -> None:
        assert self.in_flight is not None
        request, answer = self.in_flight
        self.in_flight = None
        match outcome:
            case Ok(value=value):
                if answer is not None:
                    answer.resolve(value)
            case Failed(error=error):
                self.failures += 1
                if answer is not None:
                    answer.reject(error)
                else:
                    _log.warning("host request %s failed: %s", type(request).__name__, error)
            case _:  # cancelled: only on stop, when nobody is left to answer
                if answer is not None:
                    answer.reject(RuntimeError("the host request was cancelled"))
        self._next()

    async def _perform(self, request: HostRequest) -> object:
        port = self.port
        match request:
            case RegisterTools(tools=tools):
                await port.register_tools(tools)
            case RegisterCommands(commands=commands):
                await port.register_commands(commands)
            case AppendEntry(custom_type=custom_type, data=data):
                await port.append_entry(custom_type, data)
            case Notify(text=text, level=level):
                await port.notify(text, level)
            case SetStatus(key=key, text=text):
                await port.set_status(key, text)
            case Display(message=display):
                await port.display(display)
            case SendUserMessage(text=text):
                await port.send_user_message(text)
            case ToolUpdate(call_id=call_id, text=text, details=details):
                await port.tool_update(call_id, text, details)
            case RequestReload():
                await port.request_reload()
            case BranchEntries():
                return tuple(await port.branch_entries())
            case _:
                assert_never(request)
        return None


class HostClient:
    """The :class:`~persona_mind.host.HostPort` in front of a :class:`HostProxy`.

    Every method but :meth:`branch_entries` returns once the request is queued; the
    bridge performs the requests in the order they were made.
    """

    def __init__(self, ref: ActorRef[HostProxyMsg]) -> None:
        self.ref = ref
        self._sent = 0  # requests told through this client
        self._flushed = 0  # of which a completed flush has seen performed

    def _tell(self, message: HostProxyMsg) -> None:
        self._sent += 1
        self.ref.tell(message)

    async def register_tools(self, tools: Sequence[ToolSpec]) -> None:
        self._tell(RegisterTools(tools=tuple(tools)))

    async def register_commands(self, commands: Sequence[CommandSpec]) -> None:
        self._tell(RegisterCommands(commands=tuple(commands)))

    async def append_entry(self, custom_type: str, data: Any) -> None:
        self._tell(AppendEntry(custom_type=custom_type, data=data))

    async def branch_entries(self) -> Sequence[CustomEntry]:
        return await self.ref.ask(BranchEntries(), timeout=60.0)

    async def notify(self, text: str, level: NotifyLevel = "info") -> None:
        self._tell(Notify(text=text, level=level))

    async def set_status(self, key: str, text: str | None) -> None:
        self._tell(SetStatus(key=key, text=text))

    async def display(self, message: DisplayMessage) -> None:
        self._tell(Display(message=message))

    async def send_user_message(self, text: str) -> None:
        self._tell(SendUserMessage(text=text))

    async def tool_update(self, call_id: str, text: str, details: Any = None) -> None:
        self.ref.tell(ToolUpdate(call_id=call_id, text=text, details=details))

    async def request_reload(self) -> None:
        self._tell(RequestReload())

    async def flush(self) -> None:
        """Wait until every request made so far has been performed.

        No ask when nothing was told since the last completed flush (every host request of
        the runtime goes through this one client): most turns make no host request, and the
        facade flushes after every call (issue 10, ``before_agent_start``).
        """
        sent = self._sent
        if sent == self._flushed:
            return
        await self.ref.ask(Flush(), timeout=600.0)
        self._flushed = max(self._flushed, sent)
