"""The Store role: the actor that owns every durable file of its process, and its client.

``_actor`` is the actor (the engine and its one IO thread, in mailbox order); see its module
doc for the restart contract.
"""

from __future__ import annotations

from persona_mind.actors.store._actor import (
    DEFAULT_STORE_ASK_TIMEOUT,
    IOJobFailed,
    MutationAborted,
    StoreActor,
    StoreClient,
    StoreReentry,
    spawn_store,
)

__all__ = (
    "DEFAULT_STORE_ASK_TIMEOUT",
    "IOJobFailed",
    "MutationAborted",
    "StoreActor",
    "StoreClient",
    "StoreReentry",
    "spawn_store",
)
