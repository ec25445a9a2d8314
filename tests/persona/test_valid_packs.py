"""Valid but unusual packs are accepted (P-RESOLVER-12, P-PACK-20, P-HOST-15): validation
never refuses a harmless choice; it informs with warnings instead."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from persona_mind.persona import load_pack
from persona_mind.persona.packs._names import check_relative, check_segment
from tests.persona.conftest import write_pack


def _write(rel: str, data: bytes | str = "x") -> Callable[[Path], None]:
    def mutate(root: Path) -> None:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, str):
            path.write_text(data, encoding="utf-8")
        else:
            path.write_bytes(data)

    return mutate


def _no_refs(root: Path) -> None:
    for name in ("alpha", "beta"):
        (root / "agents" / f"{name}.md").write_text(
            f"---\nname: {name}\nrole: specialist\n---\nYou are {name}.\n", encoding="utf-8"
        )
    (root / "agents" / "lead.md").write_text(
        "---\nname: lead\nrole: generalist\n---\nLead.\n", encoding="utf-8"
    )


def _inner_link(root: Path) -> None:
    (root / "references" / "alpha" / "alias.md").symlink_to(
        root / "references" / "alpha" / "notes.md"
    )


UNUSUAL: list[tuple[str, Callable[[Path], object]]] = [
    ("no-references-at-all", _no_refs),
    ("unicode-and-spaces-names", _write("references/résumé notes v1.2.md")),
    (
        "windows-like-but-legal-names",
        lambda r: [
            _write(f"references/{n}")(r)
            for n in ("CONSOLE.md", "com10.md", "nullable.md", "auxiliary")
        ],
    ),
    ("extra-top-level-readme", _write("README.md", "# about this pack\n")),
    (
        "unknown-frontmatter-field",
        _write("agents/beta.md", "---\nname: beta\nrole: specialist\ncolor: blue\n---\nBeta.\n"),
    ),
    ("control-file-in-agents", _write("agents/_notes.md", "not a persona, no frontmatter\n")),
    (
        "nested-agent-folder",
        _write("agents/team/gamma.md", "---\nname: gamma\nrole: specialist\n---\nGamma.\n"),
    ),
    (
        "docs-as-single-string",
        _write(
            "agents/beta.md",
            "---\nname: beta\nrole: specialist\ndocs: library/personal/beta/\n---\nBeta.\n",
        ),
    ),
    (
        "packDocs-directory",
        _write(
            "agents/beta.md", "---\nname: beta\nrole: specialist\npackDocs: [alpha/]\n---\nB.\n"
        ),
    ),
    (
        "packDocs-dotdot-staying-inside",
        _write(
            "agents/beta.md",
            "---\nname: beta\nrole: specialist\npackDocs: [alpha/../shared/]\n---\n",
        ),
    ),
    ("binary-reference", _write("references/diagram.png", b"\x89PNG\r\n\x1a\n\xff\x00")),
    (
        "crlf-and-bom-agent",
        _write("agents/beta.md", "\ufeff---\r\nname: beta\r\nrole: specialist\r\n---\r\nBeta.\r\n"),
    ),
    (
        "no-persona-description",
        _write("agents/beta.md", "---\nname: beta\nrole: specialist\n---\nBeta.\n"),
    ),
    ("name-from-file-stem", _write("agents/delta.md", "---\nrole: specialist\n---\nDelta.\n")),
    ("symlink-inside-the-pack", _inner_link),
    ("empty-frontmatter-body", _write("agents/eps.md", "---\nrole: specialist\n---\n")),
    (
        "declares-tools-and-model",
        _write(
            "agents/beta.md",
            "---\nname: beta\nrole: specialist\ntools: [read, bash, edit]\n"
            "model: some/model\nskills: review\n---\nBeta.\n",
        ),
    ),
    (
        "hundreds-of-references",
        lambda r: [_write(f"references/bulk/{i:03}.md")(r) for i in range(300)],
    ),
]


@pytest.mark.parametrize(("case", "mutate"), UNUSUAL, ids=[c[0] for c in UNUSUAL])
def test_unusual_but_harmless_pack_is_accepted(
    tmp_path: Path, case: str, mutate: Callable[[Path], None]
) -> None:
    """P-RESOLVER-12/15/16: harmless choices load (frontmatter fields, docs as a string or a
    list); exactly one lead is derived."""
    root = write_pack(tmp_path / "demo")
    mutate(root)
    pack = load_pack(root, "custom", expected_name="demo")
    assert pack.lead is not None
    assert pack.specialists


def test_unknown_fields_and_extra_files_become_warnings(tmp_path: Path) -> None:
    """Inform, nudge, keep moving (P-HOST-15)."""
    root = write_pack(tmp_path / "demo")
    _write("README.md")(root)
    _write("agents/beta.md", "---\nname: beta\nrole: specialist\ncolor: blue\n---\nB\n")(root)
    pack = load_pack(root, "custom", expected_name="demo")
    joined = "\n".join(pack.warnings)
    assert "README.md" in joined
    assert "color" in joined


def test_control_files_are_not_personas(tmp_path: Path) -> None:
    """P-RESOLVER-14: `_` files are control files."""
    root = write_pack(tmp_path / "demo")
    _write("agents/_baseline.md", "---\nname: sneaky\nrole: generalist\n---\n")(root)
    pack = load_pack(root, "custom", expected_name="demo")
    assert pack.persona("sneaky") is None


def test_lead_is_listed_first_with_g_prefix(tmp_path: Path) -> None:
    """P-PACK-18: the derived [G] prefix; the stored name is unchanged."""
    pack = load_pack(write_pack(tmp_path / "demo"), "custom", expected_name="demo")
    assert pack.personas[0].label == "[G] lead"
    assert pack.personas[0].name == "lead"


@pytest.mark.parametrize(
    "name",
    ["CON", "con.txt", "Nul", "COM1.tar.gz", "lpt³", "conout$", "a:b", "x.", "y ", "é" * 128],
)
def test_non_portable_segments_are_refused(name: str) -> None:
    """DEC-13: reserved Windows names and over-long names are refused on every OS."""
    assert check_segment(name) is not None


@pytest.mark.parametrize(("n", "ok"), [(254, True), (255, True), (256, False)])
def test_segment_byte_length_limit(n: int, ok: bool) -> None:
    """Names up to 255 UTF-8 bytes are fine; 256 is refused."""
    assert (check_segment("a" * n) is None) is ok


@pytest.mark.parametrize("path", ["a/b", "a/../b", "./a", "library/personal/x/"])
def test_relative_paths_that_stay_inside_are_fine(path: str) -> None:
    """P-RESOLVER-12: any own content may be referenced."""
    assert check_relative(path) is None
