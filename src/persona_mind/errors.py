"""The one exception hierarchy of persona-mind.

Every error the runtime raises on purpose derives from :class:`PersonaMindError`, so a
caller (the CLI, the Pi bridge, a user's test) can catch one type and show its message,
which always says what went wrong *and what to do*. The tree::

    PersonaMindError
    ├── ActorError                 the kernel's root (persona_mind.actors.kernel)
    │   ├── ActorUnavailable       a partner cannot answer any more: a crash, never a refusal
    │   │   ├── ActorStopped       the target stopped/crashed/restarted; a pending ask is failed
    │   │   └── Escalated          a supervisor gave up after its restart intensity
    │   ├── AskTimeout             no reply within the ask's timeout
    │   ├── StaleGeneration        work admitted under an older lifecycle generation
    │   ├── UnknownMessage         an actor received a type outside its protocol
    │   ├── MailboxFull            tell() on a bounded mailbox that is full
    │   └── FanOutFailed           a fan-out leg failed; no partial result is returned
    ├── StorageError               durable files (persona_mind.storage)      ┐
    ├── MindError                  memory, backlog, notes, capture, injection│ domain roots:
    ├── PersonaError               packs, resolver, binding, plans           │ refusals
    ├── ChildError                 one-shot child sessions (persona_mind.child_errors)
    ├── HostError                  the host port and the Pi bridge protocol  │
    └── TraceError                 a malformed actor-trace file              ┘

**Refusal or crash.** A handler that raises a ``PersonaMindError`` is *refusing* the request:
the asker gets the error and the actor goes on. The one exception is
:class:`ActorUnavailable`: a partner of the handler stopped, crashed or was given up on while
the handler talked to it, so what the handler did so far may be half-applied; escaping a
handler it is a *crash* (the actor restarts and resyncs, as an Erlang process linked to a
dead one exits). The other kernel errors are the kernel's own answers (a deadline passed, a
stale generation, a type outside a protocol, a fan-out leg failed) and pass through to the
asker like a refusal. Faces keep one catch-all: every deliberate error, kernel or domain, is
a ``PersonaMindError`` with a message that says what to do.

Subpackages define their own leaves under these roots (for example
``persona_mind.storage`` defines ``LockTimeout(StorageError)``); the roots live here so
that no subpackage needs to import another to classify an error. The child leaves are
shared by several layers (the process layer, the round-table rules, the actors), so they
live beside this module in ``persona_mind.child_errors`` rather than in one subpackage.
"""

from __future__ import annotations

__all__ = (
    "ActorError",
    "ActorStopped",
    "ActorUnavailable",
    "AskTimeout",
    "ChildError",
    "Escalated",
    "FanOutFailed",
    "HostError",
    "MailboxFull",
    "MindError",
    "PersonaError",
    "PersonaMindError",
    "StaleGeneration",
    "StorageError",
    "TraceError",
    "UnknownMessage",
)


class PersonaMindError(Exception):
    """Root of every error persona-mind raises deliberately."""


class ActorError(PersonaMindError):
    """The kernel's root: raised by the actor system itself, never a domain refusal."""


class ActorUnavailable(ActorError):
    """A partner cannot answer any more (stopped, crashed, restarted, or given up on).

    Escaping an actor's handler this is a crash of that actor, not a refusal (see the
    module doc): the handler's exchange with the partner may be half-applied."""


class ActorStopped(ActorUnavailable):
    """The target actor stopped, crashed or restarted before it answered.

    Every ask pending at that moment is failed with this error, so no caller hangs.
    Retry against the restarted actor if the work is idempotent.
    """

    def __init__(self, actor: str, reason: str, generation: int | None = None) -> None:
        self.actor = actor
        self.reason = reason
        self.generation = generation
        super().__init__(f"actor {actor!r} is unavailable ({reason}); the request was not handled")


class AskTimeout(ActorError):
    """No reply arrived within the ask's timeout; the actor may still be busy."""

    def __init__(self, actor: str, message_type: str, timeout: float) -> None:
        self.actor = actor
        self.message_type = message_type
        self.timeout = timeout
        super().__init__(
            f"{actor!r} did not answer {message_type} within {timeout:g}s; "
            "raise the timeout or check the actor with `persona-mind trace`"
        )


class StaleGeneration(ActorError):
    """Work admitted under an older lifecycle generation was refused, not applied."""

    def __init__(self, actor: str, admitted: int, current: int) -> None:
        self.actor = actor
        self.admitted = admitted
        self.current = current
        super().__init__(
            f"{actor!r} refused work from generation {admitted}; the session is now at "
            f"generation {current} (the session, persona, team or workspace changed)"
        )


class UnknownMessage(ActorError):
    """An actor was sent a message type outside its protocol union."""

    def __init__(self, actor: str, message: object) -> None:
        self.actor = actor
        self.message_type = type(message).__name__
        super().__init__(
            f"{actor!r} does not accept {self.message_type}; "
            "send one of the types in its messages/ protocol"
        )


class MailboxFull(ActorError):
    """tell() found a bounded mailbox full; slow down or ask instead."""


class Escalated(ActorUnavailable):
    """A supervisor exceeded its restart intensity and escalated the failure."""


class FanOutFailed(ActorError):
    """One leg of a fan-out failed; its siblings were cancelled and no partial result exists."""

    def __init__(self, leg: str, cause: BaseException) -> None:
        self.leg = leg
        self.cause = cause
        super().__init__(
            f"fan-out leg {leg!r} failed ({type(cause).__name__}: {cause}); "
            "the other legs were cancelled and no partial result was kept"
        )


class StorageError(PersonaMindError):
    """Raised by the durable storage engine."""


class MindError(PersonaMindError):
    """Raised by the Mind half: memory, backlog, session notes, capture, injection."""


class PersonaError(PersonaMindError):
    """Raised by the Persona half: packs, resolver, binding, plans."""


class ChildError(PersonaMindError):
    """Raised by the child runner: spawn, deadline, protocol, cancellation.

    Its leaves are in :mod:`persona_mind.child_errors`."""


class HostError(PersonaMindError):
    """Raised at the host port: malformed, oversized or unknown frames."""


class TraceError(PersonaMindError):
    """A trace file could not be read; the message names the line."""
