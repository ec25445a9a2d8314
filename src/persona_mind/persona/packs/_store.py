"""The global pack store under ``<agentDir>/persona/{official,custom,drafts}`` (P-PACK-1).

Reads are lock-free. Every mutation takes the cross-process pack-store lock, repairs any
interrupted swap, stages the new content beside its target and swaps it in by rename, then
records provenance in ``store.json``. Nothing here binds a session or changes the default
as a side effect (P-PACK-6, P-PACK-34): those are separate operations.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from persona_mind.persona._errors import AmbiguousPackName, PackInvalid, PackNotFound, Problem
from persona_mind.persona.packs._fsio import PackFiles, packs_lock
from persona_mind.persona.packs._model import Pack, PackSource
from persona_mind.persona.packs._names import is_valid_slug
from persona_mind.persona.packs._scan import Limits
from persona_mind.persona.packs._state import StoreState, now_iso, read_state, write_state
from persona_mind.persona.packs._validate import load_pack

if TYPE_CHECKING:
    from persona_mind.clock import Clock

__all__ = ("CATALOG_DIR", "InstalledPack", "PackStore", "default_agent_dir", "split_ref")

CATALOG_DIR = Path(__file__).parents[1] / "catalog"
"""The bundled offline catalog (official packs ship as package data)."""

T = TypeVar("T")
_SOURCES: tuple[PackSource, ...] = ("official", "custom")


def default_agent_dir() -> Path:
    """Pi's rule: ``$PI_CODING_AGENT_DIR``, else ``~/.pi/agent``."""
    env = os.environ.get("PI_CODING_AGENT_DIR")
    return Path(env).expanduser() if env else Path.home() / ".pi" / "agent"


def split_ref(ref: str) -> tuple[str | None, str]:
    """``official/x`` → (``official``, ``x``); ``x`` → (None, ``x``)."""
    if "/" in ref:
        source, _, name = ref.partition("/")
        return source, name
    return None, ref


@dataclass(frozen=True, slots=True)
class InstalledPack:
    """One installed pack as the list/status views see it (``pack`` is None when invalid)."""

    ref: str
    path: Path
    pack: Pack | None
    error: PackInvalid | None
    edited: bool


class PackStore:
    """The pack store of one agent directory.

    ``files`` does every write (the durable implementation is
    ``persona_mind.storage.DurablePackFiles``) and ``clock`` stamps every record: both are
    injected by the runtime or the CLI, so Persona neither implements file IO nor reads
    the system clock.
    """

    def __init__(
        self,
        agent_dir: Path,
        *,
        files: PackFiles,
        clock: Clock,
        catalog_dir: Path | None = None,
        limits: Limits | None = None,
        lock_timeout: float = 30.0,
    ) -> None:
        self.agent_dir = Path(agent_dir)
        self.files = files
        self.clock = clock
        self.root = self.agent_dir / "persona"
        self.catalog_dir = catalog_dir or CATALOG_DIR
        self.limits = limits or Limits()
        self.lock_timeout = lock_timeout
        self.state_path = self.root / "store.json"

    # ---- paths and state -------------------------------------------------------------

    def dir_for(self, ref: str) -> Path:
        """The directory of ``official/<name>``, ``custom/<name>`` or ``drafts/<name>``."""
        source, name = split_ref(ref)
        if source not in {"official", "custom", "drafts"} or not is_valid_slug(name):
            raise PackNotFound(
                f"{ref!r} is not a pack reference; use official/<name> or custom/<name>"
            )
        return self.root / source / name

    def state(self) -> StoreState:
        """The current store state (never writes)."""
        return read_state(self.state_path)

    @contextmanager
    def mutation(self, purpose: str) -> Iterator[StoreState]:
        """Hold the store lock, repair interrupted swaps, and yield the current state."""
        with packs_lock(self.files, self.root, purpose, self.lock_timeout):
            # drafts live at drafts/<source>/<name> (older ones at drafts/<name>)
            for sub in ("official", "custom", "drafts", "drafts/official", "drafts/custom"):
                self.files.recover_swaps(self.root / sub)
            yield self.state()

    def save(self, state: StoreState) -> None:
        """Write the state (inside :meth:`mutation`)."""
        write_state(self.files, self.state_path, state)

    def now_iso(self) -> str:
        """The injected clock's time as a record timestamp (``updatedAt``, ``createdAt``)."""
        return now_iso(self.clock)

    # ---- reads -----------------------------------------------------------------------

    def installed_refs(self) -> list[str]:
        """Every ``official/*`` and ``custom/*`` folder, sorted."""
        refs: list[str] = []
        for source in _SOURCES:
            base = self.root / source
            if base.is_dir():
                refs.extend(
                    f"{source}/{p.name}"
                    for p in sorted(base.iterdir())
                    if not p.name.startswith(".") and (p.is_dir() or p.is_symlink())
                )
        return refs

    def load(self, ref: str, *, digest: bool = True) -> Pack:
        """Validate and return an installed pack (raises :class:`PackInvalid`)."""
        source, name = split_ref(ref)
        path = self.dir_for(ref)
        if not path.exists() and not path.is_symlink():
            raise PackNotFound(f"{ref} is not installed; `/persona pack list` shows what is")
        src: PackSource = "official" if source == "official" else "custom"
        return load_pack(path, src, expected_name=name, limits=self.limits, digest=digest)

    def installed(self) -> list[InstalledPack]:
        """Every installed pack, valid or not, with its local-edit flag."""
        state = self.state()
        out: list[InstalledPack] = []
        for ref in self.installed_refs():
            source, name = split_ref(ref)
            if not is_valid_slug(name):
                # A folder no pack can be called (``CON``, ``Bad Name``): listed as invalid
                # so list, status and doctor keep working; never loaded or operated on.
                problem = Problem(
                    "bad-name",
                    "",
                    f"the folder name {name!r} is not a valid pack name (lowercase letters, "
                    "digits, '.-_', no Windows device name); rename or remove the folder",
                )
                out.append(
                    InstalledPack(
                        ref=ref,
                        path=self.root / str(source) / name,
                        pack=None,
                        error=PackInvalid(ref, (problem,)),
                        edited=False,
                    )
                )
                continue
            try:
                pack, error = self.load(ref), None
            except PackInvalid as exc:
                pack, error = None, exc
            record = state.packs.get(ref)
            edited = bool(
                pack and record and ref.startswith("official/") and pack.digest != record.digest
            )
            out.append(InstalledPack(ref, self.dir_for(ref), pack, error, edited))
        return out

    def catalog(self) -> list[Pack]:
        """The bundled catalog's packs (each validated)."""
        packs: list[Pack] = []
        if self.catalog_dir.is_dir():
            for p in sorted(self.catalog_dir.iterdir()):
                if p.is_dir() and not p.name.startswith((".", "_")):
                    packs.append(load_pack(p, "catalog", expected_name=p.name, limits=self.limits))
        return packs

    def catalog_pack(self, name: str) -> Pack:
        """One catalog pack by bare name; bare install names resolve only here (P-PACK-26)."""
        path = self.catalog_dir / name
        if not is_valid_slug(name) or not path.is_dir():
            available = ", ".join(p.name for p in self.catalog()) or "none"
            raise PackNotFound(
                f"{name!r} is not in the bundled catalog (available: {available}); "
                "network catalogs are not supported"
            )
        return load_pack(path, "catalog", expected_name=name, limits=self.limits)

    def resolve(self, name: str) -> str:
        """An installed pack's ref from ``official/x``, ``custom/x`` or an unambiguous ``x``."""
        source, bare = split_ref(name)
        if source is not None:
            ref = f"{source}/{bare}"
            if source not in _SOURCES or ref not in self.installed_refs():
                raise PackNotFound(f"{name} is not installed; `/persona pack list` shows packs")
            return ref
        matches = tuple(r for r in self.installed_refs() if split_ref(r)[1] == bare)
        if not matches:
            raise PackNotFound(f"no installed pack is called {name!r}; `/persona pack list`")
        if len(matches) > 1:
            raise AmbiguousPackName(name, matches)
        return matches[0]

    def locally_edited(self, ref: str) -> bool:
        """True when an official pack's files differ from what was installed or updated."""
        record = self.state().packs.get(ref)
        if record is None or not ref.startswith("official/"):
            return False
        return self.load(ref).digest != record.digest

    def problem_if(self, ok: bool, code: str, ref: str, message: str) -> None:
        """Raise a one-problem :class:`PackInvalid` unless ``ok``."""
        if not ok:
            raise PackInvalid(ref, (Problem(code, "", message),))

    def run(self, purpose: str, fn: Callable[[StoreState], T]) -> T:
        """Run ``fn(state)`` inside one locked mutation."""
        with self.mutation(purpose) as state:
            return fn(state)
