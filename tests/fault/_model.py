"""Shared entry type and helpers of the fault suite."""

from __future__ import annotations

from pathlib import Path

import msgspec

from persona_mind.storage import StoreTarget


class Item(msgspec.Struct, frozen=True, kw_only=True):
    """One entry: an id and a payload that makes writes span several pages."""

    id: str
    pad: str = ""


def target_in(directory: Path) -> StoreTarget[Item]:
    return StoreTarget(path=directory / "store.json", entry_type=Item)


def appender(item_id: str, pad: int = 0):  # type: ignore[no-untyped-def]
    def mutation(entries: tuple[Item, ...]) -> tuple[Item, ...]:
        return (*entries[-40:], Item(id=item_id, pad="x" * pad))

    return mutation
