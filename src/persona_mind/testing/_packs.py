"""``write_pack``: a valid schema-2 persona pack on disk, for tests of anything that needs one.

The pack has a ``[G]`` lead (``lead``) and the given specialists, each with a workspace
``docs`` entry and a ``packDocs`` reference that exists, so it passes validation and
resolves with real references. Edit the files afterwards to build the case under test.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ("write_pack",)

_LEAD = """---
name: lead
role: generalist
description: Leads the team.
docs:
  - library/personal/lead/
packDocs:
  - shared/
---
You lead the team.
"""

_SPEC = """---
name: {name}
role: specialist
description: The {name} specialist.
docs:
  - library/personal/{name}/
packDocs:
  - {name}/notes.md
---
You are {name}.
"""


def write_pack(
    root: Path,
    name: str = "demo",
    specialists: tuple[str, ...] = ("alpha", "beta"),
    version: str = "1.0.0",
) -> Path:
    """Write a valid pack at ``root`` (which must not exist yet) and return ``root``."""
    (root / "agents").mkdir(parents=True)
    (root / "references" / "shared").mkdir(parents=True)
    (root / "pack.yaml").write_text(
        f"schema: 2\nname: {name}\nversion: {version}\ndescription: The {name} team.\n",
        encoding="utf-8",
    )
    (root / "agents" / "lead.md").write_text(_LEAD, encoding="utf-8")
    (root / "references" / "shared" / "_index.md").write_text("# Shared refs\n", encoding="utf-8")
    for spec in specialists:
        (root / "agents" / f"{spec}.md").write_text(_SPEC.format(name=spec), encoding="utf-8")
        (root / "references" / spec).mkdir()
        (root / "references" / spec / "notes.md").write_text(f"{spec} notes\n", encoding="utf-8")
    return root
