"""The actor kernel: typed mailboxes, supervision, generations, work, fan-out, the IO thread.

It knows no role, domain, runner or storage (an import contract). See docs/actors.md for
the rules (mailbox order replaces locks; every ask is answered; stale generations are
dropped; blocking IO runs on a :class:`IOThread`).
"""

from __future__ import annotations

from persona_mind.actors.kernel._actor import Actor as Actor
from persona_mind.actors.kernel._actor import ActorStatistics as ActorStatistics
from persona_mind.actors.kernel._actor import Deferred as Deferred
from persona_mind.actors.kernel._fanout import fan_out as fan_out
from persona_mind.actors.kernel._io_thread import IOThread as IOThread
from persona_mind.actors.kernel._mailbox import Mailbox as Mailbox
from persona_mind.actors.kernel._ref import ActorRef as ActorRef
from persona_mind.actors.kernel._supervisor import RestartPolicy as RestartPolicy
from persona_mind.actors.kernel._supervisor import Supervisor as Supervisor
from persona_mind.actors.kernel._system import ActorSystem as ActorSystem
from persona_mind.actors.kernel._tracer import TRACE_ENV as TRACE_ENV
from persona_mind.actors.kernel._tracer import Tracer as Tracer
from persona_mind.actors.kernel._work import Cancelled as Cancelled
from persona_mind.actors.kernel._work import Failed as Failed
from persona_mind.actors.kernel._work import Ok as Ok
from persona_mind.actors.kernel._work import Outcome as Outcome

__all__ = (
    "TRACE_ENV",
    "Actor",
    "ActorRef",
    "ActorStatistics",
    "ActorSystem",
    "Cancelled",
    "Deferred",
    "Failed",
    "IOThread",
    "Mailbox",
    "Ok",
    "Outcome",
    "RestartPolicy",
    "Supervisor",
    "Tracer",
    "fan_out",
)
