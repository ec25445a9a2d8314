"""The pack store's small durable state: default pack, provenance records and drafts.

One JSON file, ``<agentDir>/persona/store.json``, replaced atomically under the pack-store
lock. Reads never write; a corrupt file is reported (with what to do), never read as
empty, because an empty state would silently drop the default and the provenance that
``update`` relies on.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from persona_mind.errors import PersonaError
from persona_mind.persona.packs._fsio import read_capped
from persona_mind.persona.packs._names import is_valid_slug

if TYPE_CHECKING:
    from persona_mind.clock import Clock
    from persona_mind.persona.packs._fsio import PackFiles

__all__ = (
    "DraftRecord",
    "PackRecord",
    "StoreState",
    "StoreStateCorrupt",
    "decode_state",
    "draft_dir",
    "draft_key",
    "is_store_ref",
    "now_iso",
    "read_state",
    "state_problem",
    "write_state",
)

STATE_VERSION = 1


class StoreStateCorrupt(PersonaError):
    """``store.json`` could not be decoded; it is left untouched for inspection."""


class PackRecord(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Provenance of one installed or custom pack."""

    origin: str
    """``catalog`` (official), ``create``, ``fork:<ref>`` or ``migrate:<workspace>``."""
    version: str
    """The version installed from ``origin`` (official) or last applied (custom)."""
    digest: str
    """Content digest as installed/updated (official) or last applied (custom)."""
    updatedAt: str  # noqa: N815 - camelCase on disk like the other store files


class DraftRecord(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A staged draft under ``drafts/<name>`` and the pack it will replace or create."""

    target: str
    base_digest: str
    """Digest of the target when the draft was staged (``""`` for a new pack)."""
    createdAt: str  # noqa: N815


class StoreState(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The whole state file."""

    version: int = STATE_VERSION
    default: str | None = None
    packs: dict[str, PackRecord] = msgspec.field(default_factory=dict)
    drafts: dict[str, DraftRecord] = msgspec.field(default_factory=dict)


_DECODER = msgspec.json.Decoder(StoreState)
_MAX_STATE = 4 * 1024 * 1024


def is_store_ref(ref: object) -> bool:
    """True for ``official/<name>`` or ``custom/<name>`` with a valid pack name."""
    if not isinstance(ref, str):
        return False
    source, sep, name = ref.partition("/")
    return bool(sep) and source in {"official", "custom"} and is_valid_slug(name)


def _name_problems(state: StoreState) -> list[str]:
    """Every name in the state that is not what a user could have typed (issue 15 item 4).

    ``store.json`` is read back from disk, so it is untrusted: a draft key ``../../victim``
    once made ``pack cancel`` delete a folder outside the store. Its names are held to the
    same rules as user input before any of them can reach a path.
    """
    bad: list[str] = []
    if state.default is not None and not is_store_ref(state.default):
        bad.append(f"default {state.default!r}")
    bad += [f"pack record {ref!r}" for ref in state.packs if not is_store_ref(ref)]
    for name, rec in state.drafts.items():
        if not (is_valid_slug(name) or is_store_ref(name)):
            bad.append(f"draft {name!r}")
        elif not is_store_ref(rec.target) or (
            draft_key(rec.target) != name and ("/" in name or rec.target.partition("/")[2] != name)
        ):
            bad.append(f"draft {name!r} targeting {rec.target!r}")
    return bad


def draft_key(target: str) -> str:
    """A draft is keyed by its target ref, so ``official/x`` and ``custom/x`` can both be
    edited at once (issue 13). Keys written before were the bare name; they still load."""
    return target


def draft_dir(root: Path, key: str) -> Path:
    """``<store>/drafts/<source>/<name>`` for a ref key, ``<store>/drafts/<name>`` for a
    bare (older) key. Keys are validated before use (they come from ``store.json`` too)."""
    if is_store_ref(key):
        source, _, name = key.partition("/")
        return root / "drafts" / source / name
    if is_valid_slug(key):
        return root / "drafts" / key
    raise StoreStateCorrupt(f"draft key {key!r} is not a pack name or reference")


def now_iso(clock: Clock) -> str:
    """UTC timestamp for records (display only; ordering never depends on it).

    The time is the injected clock's (the runtime's, or a test's ``ManualClock``): Persona
    never reads the system clock itself.
    """
    return dt.datetime.fromtimestamp(clock.wall(), dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def read_state(path: Path) -> StoreState:
    """The current state, or the empty state when the file does not exist yet.

    The file is classified before it is opened and read without following a symlink or
    blocking (a FIFO or a socket at ``store.json`` is refused, never waited on: issue 24
    M1), capped at 4 MiB.
    """
    try:
        raw = read_capped(path, _MAX_STATE)
    except FileNotFoundError:
        return StoreState()
    except IsADirectoryError as exc:
        raise StoreStateCorrupt(
            f"{path} is not a regular file ({exc.strerror}); move it aside to start over "
            "(installed packs stay on disk; only the default and provenance are lost)"
        ) from exc
    if raw is None:
        raise StoreStateCorrupt(f"{path} is larger than {_MAX_STATE} bytes; inspect or remove it")
    return decode_state(path, raw)


def decode_state(path: Path, raw: bytes) -> StoreState:
    """Decode ``store.json``'s bytes strictly, with the name rules; :class:`StoreStateCorrupt`
    says what is wrong and what to do."""
    try:
        state = _DECODER.decode(raw)
    except msgspec.DecodeError as exc:
        raise StoreStateCorrupt(
            f"{path} is not a valid pack-store state ({exc}); move it aside to start over "
            "(installed packs stay on disk; only the default and provenance are lost)"
        ) from exc
    if state.version != STATE_VERSION:
        raise StoreStateCorrupt(
            f"{path} has state version {state.version}; this persona-mind reads version "
            f"{STATE_VERSION}; upgrade persona-mind"
        )
    bad = _name_problems(state)
    if bad:
        shown = ", ".join(bad[:5]) + (f" and {len(bad) - 5} more" if len(bad) > 5 else "")
        raise StoreStateCorrupt(
            f"{path} names {shown}, which no pack or draft can be called (a pack reference "
            "is official/<name> or custom/<name>; a name is lowercase letters, digits, '.-_'). "
            "Nothing was touched; remove those entries from the file or move it aside"
        )
    return state


def state_problem(data: bytes) -> str | None:
    """Why ``store.json``'s bytes would not load (what :func:`read_state` would say), or
    ``None``: the check ``persona-mind store check`` runs on the pack store's index."""
    try:
        decode_state(Path("store.json"), data)
    except StoreStateCorrupt as exc:
        return str(exc).removeprefix("store.json ")
    return None


def write_state(files: PackFiles, path: Path, state: StoreState) -> None:
    """Replace the state file durably (call only under the pack-store lock)."""
    files.atomic_write(path, msgspec.json.format(msgspec.json.encode(state)) + b"\n")
