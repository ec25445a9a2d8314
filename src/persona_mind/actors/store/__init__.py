"""The Store role: the actor that owns every durable file of its process, and its client.

``_actor`` is the actor (the engine and its one IO thread, in mailbox order; its module doc
has the restart contract); ``_client`` is :class:`StoreClient`, the
:class:`~persona_mind.storage.StorePort` every runtime, facade and face uses, and
:class:`StoreBase`, the one shape every port implementation shares.
"""

from __future__ import annotations

from persona_mind.actors.store._actor import StoreActor, spawn_store
from persona_mind.actors.store._client import (
    DEFAULT_STORE_ASK_TIMEOUT,
    IOJobFailed,
    MutationAborted,
    StoreBase,
    StoreClient,
    StoreReentry,
)

__all__ = (
    "DEFAULT_STORE_ASK_TIMEOUT",
    "IOJobFailed",
    "MutationAborted",
    "StoreActor",
    "StoreBase",
    "StoreClient",
    "StoreReentry",
    "spawn_store",
)
