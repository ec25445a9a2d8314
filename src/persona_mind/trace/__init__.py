"""The actor trace: schema, strict reader and renderers behind ``persona-mind trace``.

The kernel writes one :class:`TraceEvent` per JSON line when tracing is on
(``PERSONA_MIND_TRACE=<file>`` or ``--trace <file>``); this package reads such a file
back strictly (:func:`read_trace`, :func:`iter_trace`), selects events
(:class:`TraceFilter`) and renders them as a timeline (:func:`render_timeline`), a
Mermaid sequence diagram (:func:`render_mermaid`) or a summary (:func:`summarize`,
:func:`render_summary`). The format is documented in ``docs/trace.md``.
"""

from __future__ import annotations

from persona_mind.trace._errors import TraceFileError, TraceLineError
from persona_mind.trace._filter import TraceFilter
from persona_mind.trace._reader import decode_line, iter_lines, iter_trace, read_trace
from persona_mind.trace._render import HOST, MESSAGE_EVENTS, render_mermaid, render_timeline
from persona_mind.trace._schema import EVENT_KINDS, SCHEMA_VERSION, EventKind, TraceEvent
from persona_mind.trace._summary import TraceSummary, render_summary, summarize

__all__ = (
    "EVENT_KINDS",
    "HOST",
    "MESSAGE_EVENTS",
    "SCHEMA_VERSION",
    "EventKind",
    "TraceEvent",
    "TraceFileError",
    "TraceFilter",
    "TraceLineError",
    "TraceSummary",
    "decode_line",
    "iter_lines",
    "iter_trace",
    "read_trace",
    "render_mermaid",
    "render_summary",
    "render_timeline",
    "summarize",
)
