"""The actor trace: schema, strict reader and renderers behind ``persona-mind trace``.

The kernel writes one :class:`TraceEvent` per JSON line when tracing is on
(``PERSONA_MIND_TRACE=<file>`` or ``--trace <file>``); this package reads such a file
back strictly and renders it as a timeline, a summary or a Mermaid sequence diagram.
"""

from __future__ import annotations

from persona_mind.trace._schema import EVENT_KINDS, SCHEMA_VERSION, EventKind, TraceEvent

__all__ = ("EVENT_KINDS", "SCHEMA_VERSION", "EventKind", "TraceEvent")
