"""Load the Mind and Persona domains' heavy modules and tables off the event loop, once per
process.

Importing the scanner (``persona_mind.mind.trust``) compiles its rule regexes, and the first
verdict or memory line builds TR39's confusables tables and reads the learned layer's
weights: about half a second of CPU together on a small machine; the Mind session's own
modules are another ~50 ms, and the Persona domain (:func:`warm_persona`) ~40 ms.  Done on
the loop that stalls the sidecar's pings for as long.  The Mind feature runs
:func:`warm_domain` on the Store's IO thread at ``SessionStart``, which Pi awaits before it
reads input anyway, so no turn pays, and imports those modules on the loop only after it
(cache hits then).  Nothing else on the loop may import them first: ``persona_mind.mind``'s
facade is lazy, and the actors' handlers import only the light rule modules they name
(docs/performance.md, "What is imported where").

Both run with full collections held off and freeze what they loaded
(:mod:`persona_mind._quietgc`).  Why: compiling the scanner allocates enough containers to
trigger two full collections on the IO thread, each walking the whole heap for ~11 ms with
the GIL held — the loop cannot answer a ping meanwhile.  What these imports build (modules,
compiled patterns, tables) lives as long as the process, so no later full collection needs
to walk it either.
"""

from __future__ import annotations

import importlib
import threading

from persona_mind._quietgc import freeze_survivors, no_full_collections

__all__ = ("SESSION_MODULES", "warm_domain", "warm_persona", "warmed")

_DONE = threading.Event()
_PERSONA = threading.Event()

SESSION_MODULES = (
    "persona_mind.mind._session",
    "persona_mind.mind._companion",
    "persona_mind.mind._settings",
    "persona_mind.mind.backlog._reminder",
    "persona_mind.mind.notes._sessionfile",
    "persona_mind._memory_service",
    "persona_mind.actors.optimizer",
)
"""What the Mind feature's first bind imports on the loop once this has run (a test keeps
the list whole: the bind imports nothing else that was not loaded)."""


def warm_domain() -> None:
    """Import Mind and build its scanner tables (idempotent; cheap once done)."""
    if _DONE.is_set():
        return
    with no_full_collections():
        from persona_mind.mind.trust import warm  # noqa: PLC0415 - the point is to import here

        warm()
        for name in SESSION_MODULES:
            importlib.import_module(name)
    freeze_survivors()
    _DONE.set()


def warm_persona() -> bool:
    """Import the Persona domain (packs, YAML, the storage engine: ~40 ms), which the Persona
    feature's first ``SessionStart`` needs; it runs this on the IO thread first.  Returns
    whether it was already loaded."""
    if _PERSONA.is_set():
        return True
    with no_full_collections():
        importlib.import_module("persona_mind.persona")
    freeze_survivors()
    _PERSONA.set()
    return False


def warmed() -> bool:
    """Whether :func:`warm_domain` has finished in this process."""
    return _DONE.is_set()
