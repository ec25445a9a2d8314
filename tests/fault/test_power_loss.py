"""F2: simulated power loss over the FaultyFileSystem, with negative controls.

Every acknowledged write must survive a power loss at any seam call, and the store must be
old-or-new, never torn. Negative controls: turning either fsync of the protocol into a
no-op must make the same checker report a violation — proof the harness sees the bug.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest

from persona_mind.storage import CorruptStore, FileStore, OsFileSystem, Snapshot
from persona_mind.testing._faultfs import CrashMode, FaultyFileSystem, PowerLoss
from tests.fault._model import Item, appender, target_in

WALL = 1_700_000_000.0


def run_and_crash(
    directory: Path,
    seed: int,
    *,
    crash_at: int | None,
    mode: CrashMode,
    skip_file_fsync: bool = False,
    skip_dir_fsync: bool = False,
    ops: int = 4,
) -> list[str]:
    """Run ``ops`` mutations, lose power, recover; return the checker's violations."""
    directory.mkdir(parents=True)
    target = target_in(directory)
    FileStore(wall=lambda: WALL).mutate(target, appender("init", pad=5000))
    fs = FaultyFileSystem(seed=seed)
    fs.skip_file_fsync = skip_file_fsync
    fs.skip_dir_fsync = skip_dir_fsync
    fs.track(directory)
    store = FileStore(fs=fs, wall=lambda: WALL)
    acked: list[Snapshot[Item]] = [FileStore(wall=lambda: WALL).read(target)]  # type: ignore[list-item]
    if crash_at is not None:
        fs.crash_at(crash_at)
    in_flight: tuple[int, tuple[Item, ...]] | None = None
    for i in range(ops):
        mutation = appender(f"op{i}", pad=5000)
        last = acked[-1]
        try:
            acked.append(store.mutate(target, mutation))
        except PowerLoss:
            in_flight = (last.sequence + 1, mutation(last.entries))
            break
    fs.crash(mode)
    violations: list[str] = []
    try:
        after = FileStore(fs=OsFileSystem()).read(target)
    except CorruptStore as exc:
        return [f"unreadable after power loss: {exc.reason}"]
    last = acked[-1]
    if after is None:
        return ["store vanished"]
    if (after.sequence, after.entries) == (last.sequence, last.entries):
        return violations
    if in_flight is not None and (after.sequence, after.entries) == in_flight:
        return violations
    violations.append(f"acked sequence {last.sequence} lost: found sequence {after.sequence}")
    return violations


def test_f2_power_loss_at_every_point_keeps_acked_writes(tmp_path: Path, soak: bool) -> None:
    """0 lost acknowledged writes and 0 torn stores over random crash points and modes."""
    rng = random.Random(2026)
    rounds = 2000 if soak else 250
    states = 0
    for seed in range(rounds):
        crash_at = rng.randint(1, 90) if seed % 5 else None  # every 5th: crash after all acks
        mode: CrashMode = rng.choice(("drop", "garble", "random"))
        violations = run_and_crash(tmp_path / f"r{seed}", seed, crash_at=crash_at, mode=mode)
        assert violations == [], f"seed {seed} crash_at {crash_at} mode {mode}: {violations}"
        states += 1
    assert states == rounds


@pytest.mark.parametrize(
    ("skipped", "mode"),
    [("fsync(tmp)", "drop"), ("fsync(tmp)", "garble"), ("fsync(dir)", "drop")],
)
def test_f2_negative_control_missing_fsync_is_detected(
    tmp_path: Path, skipped: str, mode: CrashMode
) -> None:
    """Removing either fsync from the protocol makes the power-loss checker fail."""
    violations = run_and_crash(
        tmp_path / "neg",
        7,
        crash_at=None,
        mode=mode,
        skip_file_fsync=skipped == "fsync(tmp)",
        skip_dir_fsync=skipped == "fsync(dir)",
    )
    assert violations, f"the checker did not notice the missing {skipped}"


def test_f2_negative_controls_caught_under_random_crashes(tmp_path: Path) -> None:
    """Across random crash points each missing fsync is caught at least once."""
    caught = {"file": 0, "dir": 0}
    for seed in range(40):
        for kind in caught:
            violations = run_and_crash(
                tmp_path / f"{kind}{seed}",
                seed,
                crash_at=None,
                mode="random",
                skip_file_fsync=kind == "file",
                skip_dir_fsync=kind == "dir",
            )
            caught[kind] += bool(violations)
    assert caught["file"] > 0
    assert caught["dir"] > 0


def test_f2_every_crash_point_of_one_mutation_in_every_mode(
    tmp_path: Path, record_property: Callable[[str, object], None]
) -> None:
    """Deterministic sweep: a power loss at each seam call of a mutation, in each mode."""
    states = 0
    for k in range(1, 24):  # a mutation makes ~21 seam calls; k past the end = after the ack
        modes: tuple[CrashMode, ...] = ("drop", "garble", "random")
        for mode in modes:
            violations = run_and_crash(tmp_path / f"k{k}{mode}", k, crash_at=k, mode=mode, ops=1)
            assert violations == [], f"crash at call {k} ({mode}): {violations}"
            states += 1
    record_property("power_loss_states", states)
