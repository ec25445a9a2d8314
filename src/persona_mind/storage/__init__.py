"""The durable storage engine: atomic whole-file writes, strict reads, locks and quarantine.

Domain code persists only through a :class:`~persona_mind.storage.port.StorePort`; this
package is its engine. See ``docs/storage.md`` for the on-disk format and the durability
contract.
"""

from __future__ import annotations

from persona_mind.storage._atomic import (
    backup_path,
    ensure_dir,
    sweep_temps,
    temp_owner,
    write_atomic,
)
from persona_mind.storage._catalog import RECEIPTS, layout_catalog
from persona_mind.storage._codec import (
    ABSENT_FINGERPRINT,
    MAX_STORE_BYTES,
    decode_snapshot,
    encode_snapshot,
    fingerprint,
    fingerprint_of,
)
from persona_mind.storage._dirswap import (
    StagedDirectory,
    recover_swaps,
    remove_directory,
    stage_directory,
)
from persona_mind.storage._engine import FileStore
from persona_mind.storage._errors import (
    CasConflict,
    CorruptStore,
    HistoryBlocked,
    HistoryFull,
    LockOrderError,
    LockTimeout,
    OutcomeUncertain,
    StoreIOError,
    UnsafePath,
    UnsupportedVersion,
    WriteFailed,
)
from persona_mind.storage._fs import FileIdentity, FileSystem, OsFileSystem, ReadResult
from persona_mind.storage._history import (
    MAX_HISTORY_BYTES,
    MAX_RECEIPTS,
    ApplyResult,
    OptimizeHistory,
    Receipt,
    history_target,
)
from persona_mind.storage._kinds import ENVELOPE, Catalog, FileKind, anchor_of
from persona_mind.storage._lockplan import lock_path
from persona_mind.storage._locks import (
    DEFAULT_LOCK_TIMEOUT,
    FileLock,
    LockOwner,
    describe_holder,
    held_locks,
    locked,
)
from persona_mind.storage._marker import StoreQuarantined, marker_path
from persona_mind.storage._packfiles import DurablePackFiles
from persona_mind.storage._paths import (
    RESERVED_NAMES,
    Layout,
    agent_dir,
    confine,
    is_windows_reserved,
    project_identity,
    project_name,
    safe_name,
)
from persona_mind.storage._recover import Lost, RecoveryReport, move_aside
from persona_mind.storage._scan import Anomaly, Finding, ScanReport, check_document, check_store
from persona_mind.storage._stored import Stored
from persona_mind.storage.port import LockDomain, Mutation, Snapshot, StorePort, StoreTarget

__all__ = (
    "ABSENT_FINGERPRINT",
    "DEFAULT_LOCK_TIMEOUT",
    "ENVELOPE",
    "MAX_HISTORY_BYTES",
    "MAX_RECEIPTS",
    "MAX_STORE_BYTES",
    "RECEIPTS",
    "RESERVED_NAMES",
    "Anomaly",
    "ApplyResult",
    "CasConflict",
    "Catalog",
    "CorruptStore",
    "DurablePackFiles",
    "FileIdentity",
    "FileKind",
    "FileLock",
    "FileStore",
    "FileSystem",
    "Finding",
    "HistoryBlocked",
    "HistoryFull",
    "Layout",
    "LockDomain",
    "LockOrderError",
    "LockOwner",
    "LockTimeout",
    "Lost",
    "Mutation",
    "OptimizeHistory",
    "OsFileSystem",
    "OutcomeUncertain",
    "ReadResult",
    "Receipt",
    "RecoveryReport",
    "ScanReport",
    "Snapshot",
    "StagedDirectory",
    "StoreIOError",
    "StorePort",
    "StoreQuarantined",
    "StoreTarget",
    "Stored",
    "UnsafePath",
    "UnsupportedVersion",
    "WriteFailed",
    "agent_dir",
    "anchor_of",
    "backup_path",
    "check_document",
    "check_store",
    "confine",
    "decode_snapshot",
    "describe_holder",
    "encode_snapshot",
    "ensure_dir",
    "fingerprint",
    "fingerprint_of",
    "held_locks",
    "history_target",
    "is_windows_reserved",
    "layout_catalog",
    "lock_path",
    "locked",
    "marker_path",
    "move_aside",
    "project_identity",
    "project_name",
    "recover_swaps",
    "remove_directory",
    "safe_name",
    "stage_directory",
    "sweep_temps",
    "temp_owner",
    "write_atomic",
)
