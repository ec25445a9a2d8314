"""Every session-note event in a Pi session file, on every branch (M-SESSION-NOTES-4).

The host port hands Mind only the *active* branch, so after a resume the lifetime budget
counted 3 of 4 events when a note was saved on a branch the user later left. Pi keeps the
whole tree in one JSONL session file (``{"type": "custom", "customType": …, "data": …}``
per ``appendEntry``), so Mind reads that file — read-only, off the event loop — and feeds
the note events to ``NotesLedger.replay(…, all_entries=True)``, which counts them toward the
lifetime budget without touching the active notes.

A missing file is a session nothing was written to yet: no events. A torn *last* line (a
write in progress) is skipped. Any other unreadable note line is an error: the caller closes
the ledger (fail closed, M-SESSION-NOTES-14), because a budget counted from a damaged file
cannot be trusted.
"""

from __future__ import annotations

import json
from pathlib import Path

from persona_mind.messages.host import CustomEntry
from persona_mind.mind._errors import InvalidArgument
from persona_mind.mind.notes._ledger import NOTE_ENTRY_TYPE

__all__ = ("MAX_SESSION_FILE_BYTES", "session_note_entries")

MAX_SESSION_FILE_BYTES = 256 * 1024 * 1024
"""Larger session files are refused rather than read whole (a clear error, never a guess)."""


def session_note_entries(path: str | Path) -> tuple[CustomEntry, ...]:
    """The note entries of every branch in the session file at ``path`` (in file order)."""
    file = Path(path)
    try:
        if file.stat().st_size > MAX_SESSION_FILE_BYTES:
            raise InvalidArgument(
                "notes.session_file",
                f"{file} is larger than {MAX_SESSION_FILE_BYTES} bytes; the notes lifetime "
                "budget cannot be counted — start a new session",
            )
        raw = file.read_bytes()
    except FileNotFoundError:
        return ()
    except OSError as exc:
        raise InvalidArgument(
            "notes.session_file", f"{file} could not be read ({exc}); notes are closed"
        ) from exc
    lines = raw.split(b"\n")
    needle = NOTE_ENTRY_TYPE.encode()
    out: list[CustomEntry] = []
    for number, line in enumerate(lines, 1):
        if needle not in line:
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            if number == len(lines) or (number == len(lines) - 1 and not lines[-1]):
                continue  # a torn last line: the write is still in progress
            raise InvalidArgument(
                "notes.session_file",
                f"{file} line {number} is not valid JSON; the notes lifetime budget cannot "
                "be counted",
            ) from None
        if (
            isinstance(obj, dict)
            and obj.get("type") == "custom"
            and obj.get("customType") == NOTE_ENTRY_TYPE
        ):
            entry_id = obj.get("id")
            out.append(
                CustomEntry(
                    custom_type=NOTE_ENTRY_TYPE,
                    data=obj.get("data"),
                    entry_id=entry_id if isinstance(entry_id, str) else None,
                )
            )
    return tuple(out)
