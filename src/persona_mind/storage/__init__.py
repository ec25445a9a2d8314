"""The durable storage engine: atomic whole-file writes, strict reads, locks and quarantine.

Domain code persists only through a :class:`~persona_mind.storage.port.StorePort`; this
package is its engine. See ``docs/storage.md`` for the on-disk format and the durability
contract.
"""

from __future__ import annotations

from persona_mind.storage._atomic import backup_path, ensure_dir, sweep_temps, write_atomic
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
from persona_mind.storage._engine import FileStore, lock_path
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
from persona_mind.storage._locks import (
    DEFAULT_LOCK_TIMEOUT,
    FileLock,
    LockOwner,
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
from persona_mind.storage._recover import Lost, RecoveryReport
from persona_mind.storage._scan import ScanReport
from persona_mind.storage._stored import Stored
from persona_mind.storage.port import LockDomain, Mutation, Snapshot, StorePort, StoreTarget

__all__ = (
    "ABSENT_FINGERPRINT",
    "DEFAULT_LOCK_TIMEOUT",
    "MAX_HISTORY_BYTES",
    "MAX_RECEIPTS",
    "MAX_STORE_BYTES",
    "RESERVED_NAMES",
    "ApplyResult",
    "CasConflict",
    "CorruptStore",
    "DurablePackFiles",
    "FileIdentity",
    "FileLock",
    "FileStore",
    "FileSystem",
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
    "backup_path",
    "confine",
    "decode_snapshot",
    "encode_snapshot",
    "ensure_dir",
    "fingerprint",
    "fingerprint_of",
    "held_locks",
    "history_target",
    "is_windows_reserved",
    "lock_path",
    "locked",
    "marker_path",
    "project_identity",
    "project_name",
    "recover_swaps",
    "remove_directory",
    "safe_name",
    "stage_directory",
    "sweep_temps",
    "write_atomic",
)
