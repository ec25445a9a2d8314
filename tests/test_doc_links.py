"""Every relative link in README.md and docs/*.md names a file that exists.

Docs describe the tree as it is; a link to a moved or deleted page is the first sign a page
has gone stale, so it fails here rather than on a reader.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s#]+)(?:#[^)\s]*)?\)")


def _relative_links(page: Path) -> list[str]:
    links = LINK.findall(page.read_text(encoding="utf-8"))
    return [t for t in links if "://" not in t and not t.startswith("mailto:")]


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_relative_links_resolve(page: Path) -> None:
    missing = [t for t in _relative_links(page) if not (page.parent / t).exists()]
    assert missing == [], f"{page.relative_to(ROOT)} links to missing files: {missing}"
