"""Small actors used by the kernel tests."""

from __future__ import annotations

import asyncio

from persona_mind.actors import Actor, Outcome
from persona_mind.errors import PersonaMindError
from persona_mind.messages._base import Ask, Msg


class Put(Msg, frozen=True, kw_only=True):
    sender: str
    seq: int


class Log(Ask[list[tuple[str, object]]], frozen=True, kw_only=True):
    pass


class Boom(Msg, frozen=True, kw_only=True):
    pass


class Refuse(Msg, frozen=True, kw_only=True):
    pass


class Block(Msg, frozen=True, kw_only=True):
    """Handled by awaiting ``gate``: keeps the actor busy until the test releases it."""


class SetGen(Ask[int], frozen=True, kw_only=True):
    generation: int


class StartWork(Msg, frozen=True, kw_only=True):
    key: str


class CancelWork(Ask[bool], frozen=True, kw_only=True):
    key: str


class WorkDone(Msg, frozen=True, kw_only=True):
    key: str
    outcome: str


class StartLog(list[str]):
    """Names of started actors; ``changed`` is set on every start."""

    def __init__(self) -> None:
        super().__init__()
        self.changed = asyncio.Event()

    def append(self, name: str) -> None:
        super().append(name)
        self.changed.set()


RecorderMsg = Put | Log | Boom | Refuse | Block | SetGen | StartWork | CancelWork | WorkDone


class Recorder(Actor[RecorderMsg]):
    """Records what it is sent; crashes on Boom, refuses on Refuse, blocks on Block."""

    def __init__(self, gate: asyncio.Event | None = None, started: StartLog | None = None) -> None:
        self.log: list[object] = []
        self.gate = gate or asyncio.Event()
        self.entered = asyncio.Event()
        self.work_started = asyncio.Event()
        self.work_done = asyncio.Event()
        self.started = started

    async def on_start(self) -> None:
        if self.started is not None:
            self.started.append(self.name)

    async def receive(self, message: RecorderMsg) -> object:
        match message:
            case Put():
                self.log.append((message.sender, message.seq))
                return None
            case Log():
                return list(self.log)
            case Boom():
                raise RuntimeError("boom")
            case Refuse():
                raise PersonaMindError("refused: this request breaks a rule")
            case Block():
                self.entered.set()
                await self.gate.wait()
                return "released"
            case SetGen():  # stands in for the Owner: only it moves the generation
                return self.system.advance_generation(message.generation)
            case StartWork():
                self.start_work(message.key, self._long_work, self._done)
                return None
            case CancelWork():
                return self.cancel_work(message.key, "user cancelled")
            case WorkDone():
                self.log.append((message.key, message.outcome))
                self.work_done.set()
                return None

    async def _long_work(self) -> str:
        self.work_started.set()
        await asyncio.Event().wait()  # runs until cancelled
        return "never"

    def _done(self, outcome: Outcome[str]) -> RecorderMsg:
        return WorkDone(key=outcome.key, outcome=type(outcome).__name__)
