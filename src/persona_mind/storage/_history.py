"""Durable optimizer receipts: prepared before the memory rename, settled after it.

``<store>.optimize-history.json`` holds a ``Snapshot[Receipt]`` per target, written with the
standard protocol and backup (M-OPTIMIZE-HISTORY-1, -5). :meth:`OptimizeHistory.apply` runs
a replacement under memory -> history -> store locks (M-OPTIMIZE-HISTORY-2):

1. settle what the store proves: a prepared receipt whose after-fingerprint the store shows
   is ``applied`` (its settle marker was lost to an OS crash), one whose before-fingerprint
   it shows is ``aborted`` — the apply was interrupted before the store's rename (a kill -9
   between the prepared receipt and the store write, issue 24 M2) — with a line saying so
   in the receipt's note; then refuse while any receipt is still *prepared*
   (``HistoryBlocked``, -7): its outcome is not proven;
2. CAS and generation checks and the pure mutation: a known pre-write conflict or lifecycle
   refusal is rejected and nothing is recorded (-9, -18);
3. evict the oldest *settled* receipts until the new one fits 32 receipts / 2 MiB; refuse if
   it cannot (``HistoryFull``, -3, -4, -6, -7);
4. write the receipt *prepared* (durable) — then write the store;
5. a failure before the rename settles the receipt ``aborted``; a failure after it (the
   directory fsync) leaves it *prepared* with outcome ``uncertain`` and raises
   ``OutcomeUncertain`` — never presumed applied or discarded (-8, -19, -20);
6. settle it ``applied`` by creating a *settle marker* ``<history>.settled-<id>`` beside it
   — written and closed, **not fsynced** (see below); if only that fails, the replacement
   still succeeded: the result carries a warning and the receipt stays prepared until
   reconciled (-10).

Why the settle needs no fsync of its own (docs/storage.md "Optimizer receipts"): the
marker is created only after the store write was *acknowledged* (file and directory
fsynced), so a marker that exists always tells the truth. A process crash (kill -9) cannot
lose a closed file's data — the page cache survives the process. Only an OS crash or
power loss can, and then the marker is missing, empty or torn: a marker counts only when
it decodes strictly and names the prepared receipt's id and after-fingerprint, so a lost
or torn one leaves the receipt *prepared* — never presumed — and ``reconcile`` (or the
next apply, which reconciles on fingerprint proof first) settles it when the store proves
the outcome. Every reader folds valid markers into the view; the next durable history
write (the next apply's prepared receipt, a reconcile, a resolve) folds them into the file
and then removes them. Apply thus costs one durable receipt write plus the store write.

:meth:`reconcile` settles prepared receipts only on proof (the store's fingerprint equals the
receipt's after- or before-fingerprint); anything else needs :meth:`resolve` by an operator.
"""

from __future__ import annotations

import secrets
from typing import Any, Literal, TypeVar

import msgspec

from persona_mind.errors import StorageError
from persona_mind.storage._codec import ABSENT_FINGERPRINT
from persona_mind.storage._engine import FileStore
from persona_mind.storage._errors import (
    HistoryBlocked,
    HistoryFull,
    OutcomeUncertain,
    StoreIOError,
    WriteFailed,
)
from persona_mind.storage._receipts import (
    MAX_HISTORY_BYTES,
    MAX_RECEIPTS,
    ApplyResult,
    Outcome,
    Receipt,
    SettleMarkers,
    encoded_size,
    history_target,
    replace_receipt,
    settle_marker,
)
from persona_mind.storage._stored import utc
from persona_mind.storage.port import Mutation, StoreTarget

__all__ = (
    "MAX_HISTORY_BYTES",
    "MAX_RECEIPTS",
    "ApplyResult",
    "OptimizeHistory",
    "Receipt",
    "history_target",
    "settle_marker",
)

E = TypeVar("E")

_SIZE_SLACK = 128
"""Per receipt, more than a snapshot's size can grow by besides the new receipt's own bytes
(a comma, longer sequence and timestamp digits, a folded receipt's settle fields)."""

_ABORTED_NOTE = (
    "settled aborted by the next apply at {at}: the store still showed its before-fingerprint, "
    "so the replacement never reached it (the apply was interrupted before the store write)"
)


class OptimizeHistory:
    """Receipt-guarded replacements of memory stores (see the module doc)."""

    def __init__(
        self,
        engine: FileStore,
        *,
        max_receipts: int = MAX_RECEIPTS,
        max_bytes: int = MAX_HISTORY_BYTES,
    ) -> None:
        self.engine = engine
        self.max_receipts = max_receipts
        self.max_bytes = max_bytes
        self.markers = SettleMarkers(engine.fs)

    def receipts(
        self, target: StoreTarget[Any], *, owner: str | None = None
    ) -> tuple[Receipt, ...]:
        """The receipts of ``target`` (newest last), optionally one owner's; never writes."""
        snap = self.engine.read(history_target(target))
        found, _ = self.markers.fold(target, () if snap is None else snap.entries)
        return tuple(r for r in found if owner is None or r.owner == owner)

    def _plan(self, target: StoreTarget[Any]) -> list[tuple[Any, Any]]:
        return self.engine.locks.history_plan(target.path)

    def _write_history(self, target: StoreTarget[Any], receipts: tuple[Receipt, ...]) -> None:
        hist = history_target(target)
        current = self.engine.load_locked(hist)
        prepared = self.engine.prepare_locked(hist, current, lambda _old: receipts)
        if prepared is not None:
            self.engine.commit_locked(hist, prepared)

    def apply(
        self,
        target: StoreTarget[E],
        mutation: Mutation[E],
        *,
        before: object,
        after: object,
        owner: str | None = None,
        generation: int | None = None,
        expect_fingerprint: str | None = None,
        note: str = "",
    ) -> ApplyResult[E]:
        """Replace ``target`` through ``mutation`` with a durable receipt (module doc steps)."""
        engine = self.engine
        try:
            with engine.hold(self._plan(target), "optimizer apply"):
                return self._apply_locked(
                    target, mutation, before, after, owner, generation, expect_fingerprint, note
                )
        except OSError as exc:
            raise StoreIOError(target.path, "applying an optimizer replacement to", exc) from exc

    def _apply_locked(
        self,
        target: StoreTarget[E],
        mutation: Mutation[E],
        before: object,
        after: object,
        owner: str | None,
        generation: int | None,
        expect_fingerprint: str | None,
        note: str,
    ) -> ApplyResult[E]:
        engine = self.engine
        hist = history_target(target)
        stored_hist = engine.load_locked(hist)
        receipts, folded = self.markers.fold(
            target, () if stored_hist is None else stored_hist.snapshot.entries
        )
        proven = self._settle_proven(target, receipts)
        if proven != receipts:  # recorded at once: `store history list` shows it too
            self._write_history(target, proven)
            self.markers.drop(folded)
            folded = []
            stored_hist = engine.load_locked(hist)
        receipts = proven
        open_ = [r.id for r in receipts if r.state == "prepared"]
        if open_:
            raise HistoryBlocked(
                f"refusing to replace {target.path.name}: receipt(s) {', '.join(open_)} are still "
                "prepared (an earlier replacement's outcome is unresolved); run "
                "`persona-mind store history reconcile` or resolve them by hand"
            )
        current = engine.load_locked(target)
        prepared = engine.prepare_locked(
            target, current, mutation, generation=generation, expect_fingerprint=expect_fingerprint
        )
        if prepared is None:
            raise StorageError(
                f"the replacement of {target.path.name} changes nothing; nothing was recorded"
            )
        receipt = Receipt(
            id=secrets.token_hex(8),
            state="prepared",
            outcome="pending",
            target=str(target.path),
            owner=owner,
            generation=generation,
            createdAt=utc(engine.wall()),
            beforeFingerprint=ABSENT_FINGERPRINT if current is None else current.fingerprint,
            afterFingerprint=prepared.fingerprint,
            before=msgspec.Raw(msgspec.json.encode(before)),
            after=msgspec.Raw(msgspec.json.encode(after)),
            note=note,
        )
        size = 0 if stored_hist is None else stored_hist.size
        if len(receipts) < self.max_receipts and (
            size + len(msgspec.json.encode(receipt)) + _SIZE_SLACK * (len(receipts) + 1)
            <= self.max_bytes
        ):
            kept = receipts  # fits for sure: the exact encoding is only needed near the cap
        else:
            kept = self._fit(target, receipts, receipt, hist.version)
        self._write_history(target, (*kept, receipt))  # prepared: durable before the rename
        self.markers.drop(folded)  # folded into that durable write
        try:
            written = engine.commit_locked(target, prepared)
        except WriteFailed as exc:
            if exc.replaced:
                self._try_settle(target, receipt, "uncertain", keep_prepared=True)
                raise OutcomeUncertain(
                    f"replacing {target.path.name} failed after the rename ({exc}); receipt "
                    f"{receipt.id} stays prepared with an uncertain outcome and blocks further "
                    "replacements until it is reconciled or resolved"
                ) from exc
            self._try_settle(target, receipt, "aborted")
            raise
        warnings: tuple[str, ...] = ()
        settled = self._mark_settled(target, receipt)
        if settled is None:
            warnings = (
                f"the replacement of {target.path.name} is committed, but receipt {receipt.id} "
                "could not be finalized; it stays prepared until "
                "`persona-mind store history reconcile` settles it",
            )
        return ApplyResult(written, settled or receipt, warnings)

    def _fit(
        self,
        target: StoreTarget[Any],
        receipts: tuple[Receipt, ...],
        new: Receipt,
        version: int,
    ) -> tuple[Receipt, ...]:
        kept = list(receipts)

        def too_big() -> bool:
            return (
                len(kept) + 1 > self.max_receipts
                or encoded_size((*kept, new), version) > self.max_bytes
            )

        while kept and too_big():
            victim = next((r for r in kept if r.state == "settled"), None)
            if victim is None:  # pragma: no cover - prepared receipts were refused above
                break
            kept.remove(victim)
        if too_big():
            raise HistoryFull(
                f"refusing to replace {target.path.name}: its receipt "
                f"({encoded_size((new,), version)} bytes) does not fit the history of at most "
                f"{self.max_receipts} receipts / {self.max_bytes} bytes; make a smaller change"
            )
        return tuple(kept)

    def _settle_proven(
        self, target: StoreTarget[Any], receipts: tuple[Receipt, ...]
    ) -> tuple[Receipt, ...]:
        """Under the locks: settle each prepared receipt the store's fingerprint proves.

        A *pending* one whose after-fingerprint the store shows is ``applied`` (its settle
        marker was lost to an OS crash). A pending or *uncertain* one whose
        before-fingerprint it shows is ``aborted``: the replacement is not in the store —
        the process died between the prepared receipt and the store's rename (kill -9), or
        the rename itself was lost — and the note says so (issue 24 M2). An uncertain one
        showing its after-fingerprint stays prepared (the directory fsync failed: its
        durability is unknown), and so does one the store matches on neither side.
        """
        if not any(r.state == "prepared" for r in receipts):
            return receipts
        current = self.engine.load_locked(target)
        actual = ABSENT_FINGERPRINT if current is None else current.fingerprint
        at = utc(self.engine.wall())
        out: list[Receipt] = []
        for r in receipts:
            if r.state != "prepared":
                out.append(r)
            elif r.outcome == "pending" and r.afterFingerprint == actual:
                out.append(
                    msgspec.structs.replace(r, state="settled", outcome="applied", settledAt=at)
                )
            elif r.outcome in ("pending", "uncertain") and r.beforeFingerprint == actual:
                note = _ABORTED_NOTE.format(at=at)
                out.append(
                    msgspec.structs.replace(
                        r,
                        state="settled",
                        outcome="aborted",
                        settledAt=at,
                        note=f"{r.note}; {note}" if r.note else note,
                    )
                )
            else:
                out.append(r)
        return tuple(out)

    def _mark_settled(self, target: StoreTarget[Any], receipt: Receipt) -> Receipt | None:
        """Settle ``receipt`` ``applied`` by its marker: created, written, closed, no fsync
        (the module doc argues why); ``None`` if that fails (it then stays prepared)."""
        final = msgspec.structs.replace(
            receipt, state="settled", outcome="applied", settledAt=utc(self.engine.wall())
        )
        return final if self.markers.write(target, receipt, final.settledAt or "") else None

    def _try_settle(
        self,
        target: StoreTarget[Any],
        receipt: Receipt,
        outcome: Outcome,
        *,
        keep_prepared: bool = False,
    ) -> Receipt | None:
        final = msgspec.structs.replace(
            receipt,
            state="prepared" if keep_prepared else "settled",
            outcome=outcome,
            settledAt=None if keep_prepared else utc(self.engine.wall()),
        )
        try:
            current = self.engine.load_locked(history_target(target))
            receipts = () if current is None else current.snapshot.entries
            self._write_history(target, replace_receipt(receipts, final))
        except (OSError, StorageError):
            return None
        return final

    def reconcile(self, target: StoreTarget[Any]) -> list[str]:
        """Settle prepared receipts whose outcome the store proves; report the rest."""
        report: list[str] = []
        with self.engine.hold(self._plan(target), "history reconcile"):
            stored = self.engine.load_locked(history_target(target))
            entries = () if stored is None else stored.snapshot.entries
            view, folded = self.markers.fold(target, entries)
            if folded:  # settled by markers: record them durably, then drop the markers
                self._write_history(target, view)
                self.markers.drop(folded)
            current = self.engine.load_locked(target)
            actual = ABSENT_FINGERPRINT if current is None else current.fingerprint
            for receipt in view:
                if receipt.state != "prepared":
                    continue
                if actual == receipt.afterFingerprint:
                    outcome: Outcome = "applied"
                elif actual == receipt.beforeFingerprint:
                    outcome = "aborted"
                else:
                    report.append(
                        f"{receipt.id}: store matches neither side; manual recovery required "
                        "(inspect it, then `persona-mind store history resolve`)"
                    )
                    continue
                settled = self._try_settle(target, receipt, outcome)
                report.append(f"{receipt.id}: {outcome if settled else 'could not be settled'}")
        return report

    def resolve(
        self, target: StoreTarget[Any], receipt_id: str, outcome: Literal["applied", "discarded"]
    ) -> Receipt:
        """An operator's explicit decision about one prepared receipt."""
        with self.engine.hold(self._plan(target), "history resolve"):
            stored = self.engine.load_locked(history_target(target))
            entries = () if stored is None else stored.snapshot.entries
            view, folded = self.markers.fold(target, entries)
            found = [r for r in view if r.id == receipt_id]
            if not found or found[0].state != "prepared":
                raise StorageError(f"no prepared receipt {receipt_id!r} for {target.path.name}")
            final = msgspec.structs.replace(
                found[0], state="settled", outcome=outcome, settledAt=utc(self.engine.wall())
            )
            self._write_history(target, replace_receipt(view, final))
            self.markers.drop(folded)
            return final
