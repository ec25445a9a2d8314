"""The actor system: the kernel (``actors.kernel``) and the role actors beside it.

One module per role (``companion``, ``owner``, ``store``, ``host_proxy``, ``reminder``,
``scheduler``, ``child_runner``, ``roundtable``, ``roundtable_desk``; ``optimizer`` is a
package with its review batch and consolidator). This package re-exports the kernel's
public names, so ``from persona_mind.actors import Actor, ActorRef`` is the one import
a role or a test needs; importing it loads no role (they import Mind, Persona, storage).
"""

from __future__ import annotations

from persona_mind.actors.kernel import (
    TRACE_ENV,
    Actor,
    ActorRef,
    ActorStatistics,
    ActorSystem,
    Cancelled,
    Deferred,
    Failed,
    IOThread,
    Mailbox,
    Ok,
    Outcome,
    RestartPolicy,
    Supervisor,
    Tracer,
    fan_out,
)

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
