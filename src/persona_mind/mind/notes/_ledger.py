"""Session notes: version-1 save/forget events kept as host custom entries.

The :class:`NotesLedger` is plain state an actor (the Owner) owns.  Its decisions are
*synchronous*: :meth:`NotesLedger.decide_save` validates every bound, scans the content,
records the event in the ledger and returns the entry data in one call, so no ``await``
can sit between validation and append (M-SESSION-NOTES-17); the owner then appends the
returned data with ``HostPort.append_entry`` and calls :meth:`NotesLedger.rollback` if the
append fails.

* Replay reads only the active branch (M-SESSION-NOTES-3); the lifetime budget counts every
  distinct event the ledger has seen in this session, on any branch (M-SESSION-NOTES-4).
* Unknown versions, unsafe history and exceeded bounds close the ledger (M-SESSION-NOTES-14):
  no note is injected and every save is refused until the session changes.
* Forget appends a branch-local tombstone (M-SESSION-NOTES-8); forks keep each note's
  ``originSessionId`` (M-SESSION-NOTES-7); a new session starts empty (M-SESSION-NOTES-6).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import msgspec

from persona_mind.messages.host import CustomEntry
from persona_mind.messages.owner import NotesTally
from persona_mind.mind._errors import (
    AccessRefused,
    InvalidArgument,
    LimitExceeded,
    NotFound,
    UnknownVersion,
    UnsafeContent,
)
from persona_mind.mind._text import normalize_text
from persona_mind.mind.inject._planner import NoteView
from persona_mind.mind.trust._scanner import assert_safe, scan

__all__ = (
    "MAX_EVENTS",
    "MAX_EVENT_BYTES",
    "MAX_NOTES",
    "MAX_NOTE_CHARS",
    "MAX_SOURCE_CHARS",
    "NOTE_ENTRY_TYPE",
    "NoteEvent",
    "NoteRecord",
    "NotesLedger",
    "NotesTally",
    "OwnerKey",
)

NOTE_ENTRY_TYPE = "pi-persona-mind-session-note"
MAX_NOTES = 64
MAX_NOTE_CHARS = 8_000
MAX_SOURCE_CHARS = 1_000
MAX_EVENTS = 256
MAX_EVENT_BYTES = 512 * 1024
NoteKind = Literal["note", "objective"]


class NoteEvent(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One version-1 event; ``op`` save carries text, forget names the note it retires."""

    version: int
    op: Literal["save", "forget"]
    eventId: str  # noqa: N815 - entry data is camelCase like the seed's fields
    noteId: str  # noqa: N815
    sessionId: str  # noqa: N815
    originSessionId: str  # noqa: N815
    at: float
    kind: NoteKind = "note"
    text: str | None = None
    source: str | None = None


@dataclass(frozen=True, slots=True)
class NoteRecord:
    """An active note after replay."""

    note_id: str
    kind: NoteKind
    text: str
    source: str | None
    saved_at: float
    origin_session_id: str

    def view(self) -> NoteView:
        return NoteView(self.note_id, self.text, self.kind, self.saved_at)


@dataclass(frozen=True, slots=True)
class OwnerKey:
    """Who may append: native session manager + session id + session file (M-SCOPE-20)."""

    manager: str
    session_id: str
    session_file: str | None


def _encode(event: NoteEvent) -> bytes:
    return msgspec.json.encode(event)


@dataclass(slots=True)
class NotesLedger:
    """Session-note state of one session owner."""

    owner: OwnerKey
    seen: dict[str, int] = field(default_factory=dict)
    notes: dict[str, NoteRecord] = field(default_factory=dict)
    closed: str | None = None
    revoked: bool = False
    _verdicts: dict[str, bool] = field(default_factory=dict, init=False, repr=False, compare=False)
    """The scanner's verdict on each note text (True: safe), so :meth:`views` — run on
    every turn in the injection path — scans a text once, not on every turn (~336 µs/KiB).
    Exact because a note's text never changes once recorded and the scanner is
    deterministic; saves and replays record the verdict they already computed."""

    @property
    def persisted(self) -> bool:
        """Saves reach the session file (else memory-only; never called restart-durable)."""
        return self.owner.session_file is not None

    @property
    def lifetime_events(self) -> int:
        return len(self.seen)

    @property
    def lifetime_bytes(self) -> int:
        return sum(self.seen.values())

    # -- the Owner's copy ----------------------------------------------------------------

    def tally(self) -> NotesTally:
        """The budget state to hand the Owner (an immutable value)."""
        return NotesTally(
            session_id=self.owner.session_id, seen=tuple(self.seen.items()), closed=self.closed
        )

    def absorb(self, tally: NotesTally) -> None:
        """Merge the Owner's tally of this session (after a Companion restart): every event
        it saw counts, a close stays closed, and exceeded bounds close the ledger."""
        if tally.session_id != self.owner.session_id:
            return
        for event_id, size in tally.seen:
            self.seen.setdefault(event_id, size)
        if tally.closed is not None and self.closed is None:
            self.closed = tally.closed
        try:
            self._check_bounds(len(self.notes))
        except LimitExceeded as exc:
            self.closed = str(exc)
        if self.closed is not None:
            self.notes = {}

    # -- replay --------------------------------------------------------------------------

    def replay(self, entries: Iterable[CustomEntry], *, all_entries: bool = False) -> None:
        """Rebuild active notes from the active branch (fail closed on any bad event).

        ``all_entries`` marks input that is the whole session (every branch): it then
        feeds only the lifetime budget's count, not the active notes.
        """
        notes: dict[str, NoteRecord] = {}
        try:
            for entry in entries:
                if entry.custom_type != NOTE_ENTRY_TYPE:
                    continue
                event, size = self._decode(entry.data)
                self.seen.setdefault(event.eventId, size)
                if all_entries:
                    continue
                if event.op == "save":
                    assert event.text is not None
                    self._verdicts[event.text] = True  # _decode scanned it
                    notes[event.noteId] = NoteRecord(
                        event.noteId,
                        event.kind,
                        event.text,
                        event.source,
                        event.at,
                        event.originSessionId,
                    )
                else:
                    notes.pop(event.noteId, None)
            self._check_bounds(len(notes) if not all_entries else len(self.notes))
        except (UnknownVersion, UnsafeContent, LimitExceeded, InvalidArgument) as exc:
            self.closed = str(exc)
            self.notes = {}
            return
        if not all_entries:
            self.notes = notes

    def _decode(self, data: Any) -> tuple[NoteEvent, int]:
        if not isinstance(data, Mapping):
            raise InvalidArgument("notes.malformed", "a session-note entry is not an object")
        version = data.get("version")
        if version != 1:
            raise UnknownVersion(
                "notes.unknown_version",
                f"session-note event version {version!r} is not understood by this build; "
                "session notes are disabled for this session (upgrade persona-mind)",
            )
        try:
            event = msgspec.convert(data, NoteEvent)
        except msgspec.ValidationError as exc:
            raise InvalidArgument(
                "notes.malformed", f"malformed session-note event: {exc}"
            ) from exc
        if event.op == "save" and (event.text is None or not event.text.strip()):
            raise InvalidArgument("notes.malformed", "a save event has no text")
        texts = [event.text or "", event.source or ""]
        if any(scan(t) for t in texts):
            raise UnsafeContent("notes.unsafe_history", "a saved session note failed the scanner")
        if len(event.text or "") > MAX_NOTE_CHARS or len(event.source or "") > MAX_SOURCE_CHARS:
            raise LimitExceeded("notes.history_bounds", "a saved note exceeds the size limits")
        return event, len(_encode(event))

    def _check_bounds(self, active: int) -> None:
        if active > MAX_NOTES:
            raise LimitExceeded("notes.too_many", f"more than {MAX_NOTES} active notes")
        if self.lifetime_events > MAX_EVENTS:
            raise LimitExceeded("notes.events", f"more than {MAX_EVENTS} note events")
        if self.lifetime_bytes > MAX_EVENT_BYTES:
            raise LimitExceeded("notes.bytes", f"more than {MAX_EVENT_BYTES} bytes of note events")

    # -- decisions (synchronous: validate + record, the caller appends) -------------------

    def _admit(self, event: NoteEvent) -> dict[str, Any]:
        if self.revoked:
            raise AccessRefused(
                "notes.revoked", "the session owner changed; the note was not saved"
            )
        if self.closed is not None:
            raise AccessRefused(
                "notes.closed", f"session notes are disabled for this session: {self.closed}"
            )
        size = len(_encode(event))
        if self.lifetime_events + 1 > MAX_EVENTS:
            raise LimitExceeded(
                "notes.events",
                f"this session already has {self.lifetime_events} note events (limit "
                f"{MAX_EVENTS}); save durable facts with the memory tool instead",
            )
        if self.lifetime_bytes + size > MAX_EVENT_BYTES:
            raise LimitExceeded(
                "notes.bytes",
                f"this event would bring session-note data to {self.lifetime_bytes + size} bytes "
                f"(limit {MAX_EVENT_BYTES}); save durable facts with the memory tool instead",
            )
        self.seen[event.eventId] = size
        return msgspec.to_builtins(event)  # type: ignore[no-any-return]

    def _event_id(self, *parts: object) -> str:
        raw = "\0".join(map(str, (self.owner.session_id, self.lifetime_events, *parts)))
        return "e_" + hashlib.sha256(raw.encode()).hexdigest()[:16]

    def decide_save(
        self, text: object, *, source: object = None, kind: object = "note", now: float
    ) -> tuple[NoteRecord, dict[str, Any]]:
        """Validate and record a save; returns the note and the entry data to append."""
        if not isinstance(text, str) or not text.strip():
            raise InvalidArgument("text.required", "note text must be a non-empty string")
        if kind not in ("note", "objective"):
            raise InvalidArgument("kind.unknown", "a session note kind is 'note' or 'objective'")
        if source is not None and not isinstance(source, str):
            raise InvalidArgument("source.malformed", "source must be a string")
        body = text.strip()
        src = normalize_text(source) if isinstance(source, str) and source.strip() else None
        if len(body) > MAX_NOTE_CHARS:
            raise LimitExceeded(
                "text.too_long", f"note has {len(body)} characters; the limit is {MAX_NOTE_CHARS}"
            )
        if src is not None and len(src) > MAX_SOURCE_CHARS:
            raise LimitExceeded(
                "source.too_long",
                f"source has {len(src)} characters; the limit is {MAX_SOURCE_CHARS}",
            )
        if len(self.notes) + 1 > MAX_NOTES:
            raise LimitExceeded(
                "notes.too_many",
                f"this branch already has {MAX_NOTES} active notes; forget one first",
            )
        assert_safe("note text", body)
        self._verdicts[body] = True
        if src is not None:
            assert_safe("note source", src)
        note_id = (
            "n_"
            + hashlib.sha256(
                f"{self.owner.session_id}\0{self.lifetime_events}\0{body}".encode()
            ).hexdigest()[:12]
        )
        event = NoteEvent(
            version=1,
            op="save",
            eventId=self._event_id("save", note_id),
            noteId=note_id,
            sessionId=self.owner.session_id,
            originSessionId=self.owner.session_id,
            at=now,
            kind=kind,
            text=body,
            source=src,
        )
        data = self._admit(event)
        record = NoteRecord(note_id, event.kind, body, src, now, self.owner.session_id)
        self.notes[note_id] = record
        return record, data

    def decide_forget(self, note_id: str, *, now: float) -> tuple[NoteRecord, dict[str, Any]]:
        """Validate and record a branch-local tombstone for ``note_id``."""
        record = self.notes.get(note_id)
        if record is None:
            raise NotFound("note.not_found", f"no active session note {note_id!r} on this branch")
        event = NoteEvent(
            version=1,
            op="forget",
            eventId=self._event_id("forget", note_id),
            noteId=note_id,
            sessionId=self.owner.session_id,
            originSessionId=record.origin_session_id,
            at=now,
        )
        data = self._admit(event)
        del self.notes[note_id]
        return record, data

    def rollback(self, data: Mapping[str, Any], previous: NoteRecord | None = None) -> None:
        """Undo a decision whose append failed (the host never stored it)."""
        self.seen.pop(str(data.get("eventId")), None)
        note_id = str(data.get("noteId"))
        if data.get("op") == "save":
            self.notes.pop(note_id, None)
        elif previous is not None:
            self.notes[note_id] = previous

    # -- reads ---------------------------------------------------------------------------

    def read(self, note_id: str) -> NoteRecord:
        """The whole note, re-scanned (explicit reads resurface content, M-SESSION-NOTES-25)."""
        record = self.notes.get(note_id)
        if record is None:
            raise NotFound("note.not_found", f"no active session note {note_id!r} on this branch")
        assert_safe("note", record.text, record.source or "")
        return record

    def views(self) -> tuple[NoteView, ...]:
        """Active notes for the injection planner (none when closed or revoked)."""
        if self.closed is not None or self.revoked:
            return ()
        verdicts = self._verdicts
        views: list[NoteView] = []
        for record in self.notes.values():
            safe = verdicts.get(record.text)
            if safe is None:  # not recorded by this ledger (set directly): scan it once
                safe = verdicts[record.text] = not scan(record.text)
            if safe:
                views.append(record.view())
        if len(verdicts) > 2 * max(MAX_NOTES, len(self.notes)):  # forget texts long gone
            self._verdicts = {r.text: verdicts[r.text] for r in self.notes.values()}
        return tuple(views)
