"""Rendering trace events as a timeline table or a Mermaid sequence diagram.

Both renderers are pure functions of a sequence of events, so tests compare their text
directly and the CLI only chooses which one to print.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Final

from persona_mind.trace._text import mermaid_text, terminal_text

if TYPE_CHECKING:
    from collections.abc import Sequence

    from persona_mind.trace._schema import TraceEvent

__all__ = ("HOST", "MESSAGE_EVENTS", "render_mermaid", "render_timeline")

HOST: Final = "host"
"""How a sender outside any actor (``sender`` is ``None``) is shown."""

MESSAGE_EVENTS: Final = frozenset({"send", "deliver", "drop", "reply"})
"""Event kinds about one message, where a missing ``sender`` means :data:`HOST`."""

_HEADER: Final = ("ms", "actor", "event", "from", "type", "id", "corr", "gen", "reason")


def _note(event: TraceEvent) -> str:
    """The reason plus any child-process detail as ``key=value`` pairs."""
    parts: list[str] = []
    if event.reason is not None:
        parts.append(event.reason)
    if event.detail:
        parts.extend(f"{key}={value}" for key, value in event.detail.items())
    return " ".join(parts)


def _sender(event: TraceEvent) -> str:
    if event.sender is not None:
        return event.sender
    return HOST if event.ev in MESSAGE_EVENTS else ""


def render_timeline(events: Sequence[TraceEvent], *, origin: float | None = None) -> str:
    """A fixed-width table, one row per event, times in ms relative to ``origin``.

    ``origin`` defaults to the first event's time; the CLI passes the first time of the
    whole file so a filtered view keeps the same clock as the unfiltered one.
    """
    if not events:
        return ""
    base = events[0].t if origin is None else origin
    rows: list[tuple[str, ...]] = [_HEADER]
    for event in events:
        fields = (
            f"{(event.t - base) * 1000:.3f}",
            event.actor,
            event.ev,
            _sender(event),
            event.type or "",
            "" if event.id is None else f"#{event.id}",
            event.corr or "",
            "" if event.gen is None else str(event.gen),
            _note(event),
        )
        rows.append(tuple(terminal_text(field) or "-" for field in fields))
    widths = [max(len(row[col]) for row in rows) for col in range(len(_HEADER))]
    lines = []
    for row in rows:
        cells = [row[0].rjust(widths[0])]
        cells += [cell.ljust(width) for cell, width in zip(row[1:], widths[1:], strict=True)]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines) + "\n"


_HASH: Final = "#35;"
"""A literal ``#`` in Mermaid text: a bare ``#`` starts a comment there and cuts the line."""

_ID_UNSAFE = re.compile(r"[^A-Za-z0-9_]")
_RESERVED = frozenset(
    {
        "actor", "activate", "alt", "and", "as", "autonumber", "box", "break", "create",
        "critical", "deactivate", "destroy", "else", "end", "left", "link", "links", "loop",
        "note", "of", "opt", "over", "par", "participant", "rect", "right", "title",
    }
)  # fmt: skip


class _Participants:
    """Stable, unique, Mermaid-safe participant ids in order of first appearance."""

    def __init__(self) -> None:
        self._ids: dict[str | None, str] = {}
        self._used: set[str] = set()
        self.declarations: list[str] = []

    def of(self, name: str | None) -> str:
        """The participant id for actor ``name`` (``None`` is the host, outside any actor)."""
        found = self._ids.get(name)
        if found is not None:
            return found
        label = HOST if name is None else name
        base = _ID_UNSAFE.sub("_", label) or "actor"
        if base[0].isdigit() or base.lower() in _RESERVED or (name is not None and base == HOST):
            base = f"p_{base}"
        ident, n = base, 1
        while ident in self._used:
            n += 1
            ident = f"{base}_{n}"
        self._used.add(ident)
        self._ids[name] = ident
        # A real actor that happens to be called "host" must not look like the outside.
        shown = mermaid_text(label if name != HOST else f"{HOST} (actor)") or "(empty name)"
        self.declarations.append(
            f"    participant {ident}" if shown == ident else f"    participant {ident} as {shown}"
        )
        return ident


def _message_label(event: TraceEvent) -> str:
    label = mermaid_text(event.type or "message")
    return label if event.id is None else f"{label} {_HASH}{event.id}"


def render_mermaid(events: Sequence[TraceEvent]) -> str:
    """A Mermaid ``sequenceDiagram`` of ``events``.

    Each delivered message is a solid arrow ``sender->>actor: Type #35;id`` (rendered
    ``Type #id``; ``#35;`` is Mermaid's entity for ``#``) at the moment of
    delivery (the sender taken from its ``send`` when present, else from the ``deliver``);
    a send that was never delivered nor dropped is a lost arrow ``-x`` at send time; a
    reply is a dashed arrow back; drops, lifecycle events and child-process events are
    notes over the actor they concern.
    """
    parts = _Participants()
    sends = {e.id: e for e in events if e.ev == "send" and e.id is not None}
    settled = {e.id for e in events if e.ev in ("deliver", "drop") and e.id is not None}
    body: list[str] = []
    for event in events:
        actor = event.actor
        match event.ev:
            case "send":
                if event.id is None or event.id not in settled:
                    src, dst = parts.of(event.sender), parts.of(actor)
                    body.append(f"    {src}-x{dst}: {_message_label(event)} (not delivered)")
            case "deliver":
                origin = sends.get(event.id) if event.id is not None else None
                src = parts.of(origin.sender if origin is not None else event.sender)
                body.append(f"    {src}->>{parts.of(actor)}: {_message_label(event)}")
            case "reply":
                origin = sends.get(event.id) if event.id is not None else None
                asker = event.sender
                if asker is None and origin is not None:
                    asker = origin.sender
                dst = parts.of(asker)
                reply = "reply" if event.id is None else f"reply {_HASH}{event.id}"
                body.append(f"    {parts.of(actor)}-->>{dst}: {reply}")
            case "drop":
                why = mermaid_text(event.reason or "unknown reason")
                body.append(f"    Note over {parts.of(actor)}: drop {_message_label(event)}: {why}")
            case _:
                text: str = event.ev
                if event.gen is not None:
                    text += f" gen {event.gen}"
                note = _note(event)
                if note:
                    text += f": {mermaid_text(note)}"
                body.append(f"    Note over {parts.of(actor)}: {text}")
    return "\n".join(["sequenceDiagram", *parts.declarations, *body]) + "\n"
