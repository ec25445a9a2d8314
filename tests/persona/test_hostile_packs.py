"""Hostile-pack corpus: every case is refused with a clear message (P-RESOLVER-10..13,
P-PACK-7/8/17/21, DEC-13/14), while valid but unusual packs are accepted (P-RESOLVER-12)."""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Callable
from pathlib import Path

import pytest

from persona_mind.persona import Limits, PackInvalid, load_pack
from tests.persona.conftest import write_pack

Mutate = Callable[[Path, Path], object]
"""(pack root, a folder outside the pack) -> None"""


def _agent(root: Path, name: str, text: str) -> None:
    (root / "agents" / name).write_text(text, encoding="utf-8")


def _set_field(field: str, value: str) -> Mutate:
    def mutate(root: Path, outside: Path) -> None:
        path = root / "agents" / "alpha.md"
        text = path.read_text(encoding="utf-8")
        path.write_text(
            text.replace("role: specialist", f"role: specialist\n{field}: {value}"),
            encoding="utf-8",
        )

    return mutate


def _pack_docs(value: str) -> Mutate:
    def mutate(root: Path, outside: Path) -> None:
        path = root / "agents" / "alpha.md"
        text = path.read_text(encoding="utf-8")
        path.write_text(text.replace("  - alpha/notes.md", f"  - {value}"), encoding="utf-8")

    return mutate


def _docs(value: str) -> Mutate:
    def mutate(root: Path, outside: Path) -> None:
        path = root / "agents" / "alpha.md"
        text = path.read_text(encoding="utf-8")
        path.write_text(
            text.replace("  - library/personal/alpha/", f"  - {value}"), encoding="utf-8"
        )

    return mutate


def _manifest(text: str) -> Mutate:
    def mutate(root: Path, outside: Path) -> None:
        (root / "pack.yaml").write_text(text, encoding="utf-8")

    return mutate


def _file(rel: str, data: bytes = b"x") -> Mutate:
    def mutate(root: Path, outside: Path) -> None:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)

    return mutate


def _bytes_name(name: bytes) -> Mutate:
    def mutate(root: Path, outside: Path) -> None:
        with open(os.path.join(os.fsencode(root / "references"), name), "wb") as fh:
            fh.write(b"x")

    return mutate


def _symlink(rel: str, target: Callable[[Path, Path], Path]) -> Mutate:
    def mutate(root: Path, outside: Path) -> None:
        link = root / rel
        link.parent.mkdir(parents=True, exist_ok=True)
        if link.exists():
            link.unlink()
        link.symlink_to(target(root, outside))

    return mutate


def _outside_file(root: Path, outside: Path) -> Path:
    path = outside / "secret.md"
    path.write_text("---\nname: x\nrole: specialist\n---\nsecret\n", encoding="utf-8")
    return path


def _remove_specialists(root: Path) -> None:
    for name in ("alpha", "beta"):
        (root / "agents" / f"{name}.md").unlink()


def _two(*mutations: Mutate) -> Mutate:
    def mutate(root: Path, outside: Path) -> None:
        for m in mutations:
            m(root, outside)

    return mutate


def _alias_bomb(levels: int = 6) -> str:
    """Ten aliases per level: 60 aliases expanding to a million values."""
    lines = ["l0: &l0 [" + ", ".join(["x"] * 10) + "]"]
    lines += [f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 10) + "]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


def _many_aliases(count: int = 70) -> str:
    """Many aliases of one-value anchors: small, but no hand-written file does this."""
    body = "schema: 2\nname: demo\nversion: 1.0.0\ndescription: &d d\n"
    return body + "".join(f"x{i}: *d\n" for i in range(count))


M = 1024 * 1024
HOSTILE: list[tuple[str, Mutate, str]] = [
    ("packDocs-dotdot", _pack_docs("../outside.md"), "unsafe-path"),
    ("packDocs-deep-dotdot", _pack_docs("../../../../etc/passwd"), "unsafe-path"),
    ("packDocs-only-dotdot", _pack_docs(".."), "unsafe-path"),
    ("packDocs-absolute", _pack_docs("/etc/passwd"), "unsafe-path"),
    ("packDocs-drive", _pack_docs("'C:\\Windows\\x'"), "unsafe-path"),
    ("packDocs-drive-relative", _pack_docs("'C:x'"), "unsafe-path"),
    ("packDocs-unc", _pack_docs("'\\\\srv\\share\\x'"), "unsafe-path"),
    ("packDocs-backslash", _pack_docs("'alpha\\notes.md'"), "unsafe-path"),
    ("packDocs-nul", _pack_docs('"alpha/no\\0tes.md"'), "unsafe-path"),
    ("packDocs-reserved-segment", _pack_docs("alpha/CON"), "unsafe-path"),
    ("docs-dotdot", _docs("../../other-project/library/"), "unsafe-path"),
    ("docs-absolute", _docs("/home/someone/library/"), "unsafe-path"),
    ("packDocs-missing", _pack_docs("alpha/missing.md"), "missing-reference"),
    (
        "packDocs-via-link-to-agents",
        _two(
            _symlink("references/alpha/agents-link", lambda r, o: r / "agents"),
            _pack_docs("alpha/agents-link/lead.md"),
        ),
        "reference-escape",
    ),
    ("symlink-file-out", _symlink("references/alpha/leak.md", _outside_file), "symlink-escape"),
    ("symlink-dir-out", _symlink("references/outdir", lambda r, o: o), "symlink-escape"),
    ("symlink-agent-out", _symlink("agents/evil.md", _outside_file), "symlink-escape"),
    ("symlink-manifest-out", _symlink("pack.yaml", _outside_file), "symlink-escape"),
    (
        "symlink-to-other-pack",
        _symlink("references/peer", lambda r, o: r.parent / "peer-pack"),
        "symlink-escape",
    ),
    ("reserved-con", _file("references/CON.md"), "unsafe-name"),
    ("reserved-nul-lower", _file("references/nul.txt"), "unsafe-name"),
    ("reserved-com1", _file("references/COM1.md"), "unsafe-name"),
    ("reserved-lpt9", _file("references/lpt9"), "unsafe-name"),
    ("reserved-superscript", _file("references/COM¹.md"), "unsafe-name"),
    ("reserved-conin", _file("references/CONIN$"), "unsafe-name"),
    ("reserved-dir-aux", _file("references/aux/x.md"), "unsafe-name"),
    ("trailing-dot", _file("references/notes."), "unsafe-name"),
    ("trailing-space", _file("references/notes "), "unsafe-name"),
    ("colon-stream", _file("references/a:b.md"), "unsafe-name"),
    ("question-mark", _file("references/what?.md"), "unsafe-name"),
    ("star", _file("references/all*.md"), "unsafe-name"),
    ("pipe-and-angle", _file("references/a|b<c>.md"), "unsafe-name"),
    ("quote", _file('references/a"b.md'), "unsafe-name"),
    ("backslash-name", _file("references/a\\b.md"), "unsafe-name"),
    ("newline-name", _file("references/a\nb.md"), "unsafe-name"),
    ("non-utf8-name", _bytes_name(b"\xff\xfe.md"), "unsafe-name"),
    (
        "case-collision",
        _two(_file("references/Guide.md"), _file("references/guide.md")),
        "name-collision",
    ),
    (
        "nfc-nfd-collision",
        _two(
            _file("references/" + unicodedata.normalize("NFC", "café.md")),
            _file("references/" + unicodedata.normalize("NFD", "café.md")),
        ),
        "name-collision",
    ),
    (
        "two-generalists",
        lambda r, o: _agent(r, "lead2.md", "---\nname: lead2\nrole: generalist\n---\nx\n"),
        "generalist-count",
    ),
    ("no-generalist", lambda r, o: (r / "agents" / "lead.md").unlink(), "generalist-count"),
    (
        "no-specialist",
        lambda r, o: _remove_specialists(r),
        "no-specialist",
    ),
    ("manifest-malformed-yaml", _manifest("schema: 2\nname: [demo\n"), "bad-yaml"),
    ("manifest-list", _manifest("- schema\n- name\n"), "bad-manifest"),
    (
        "manifest-profiles",
        _manifest("schema: 2\nname: demo\nversion: 1.0.0\ndescription: d\nprofiles: [a]\n"),
        "manifest-extra-field",
    ),
    (
        "manifest-hooks",
        _manifest("schema: 2\nname: demo\nversion: 1.0.0\ndescription: d\nhooks: {post: rm}\n"),
        "manifest-extra-field",
    ),
    (
        "manifest-schema-1",
        _manifest("schema: 1\nname: demo\nversion: 1.0.0\ndescription: d\n"),
        "bad-schema",
    ),
    (
        "manifest-schema-string",
        _manifest("schema: '2'\nname: demo\nversion: 1.0.0\ndescription: d\n"),
        "bad-schema",
    ),
    (
        "manifest-schema-bool",
        _manifest("schema: true\nname: demo\nversion: 1.0.0\ndescription: d\n"),
        "bad-schema",
    ),
    (
        "manifest-version-not-semver",
        _manifest("schema: 2\nname: demo\nversion: '1.0'\ndescription: d\n"),
        "bad-version",
    ),
    (
        "manifest-empty-description",
        _manifest("schema: 2\nname: demo\nversion: 1.0.0\ndescription: ''\n"),
        "bad-description",
    ),
    (
        "manifest-name-mismatch",
        _manifest("schema: 2\nname: impostor\nversion: 1.0.0\ndescription: d\n"),
        "name-mismatch",
    ),
    ("manifest-missing-field", _manifest("schema: 2\nname: demo\n"), "manifest-missing-field"),
    ("manifest-missing", lambda r, o: (r / "pack.yaml").unlink(), "missing-manifest"),
    ("manifest-non-utf8", _file("pack.yaml", b"schema: 2\nname: d\xe9mo\n"), "not-utf8"),
    (
        "manifest-python-tag",
        _manifest("schema: !!python/object/apply:os.system ['true']\n"),
        "bad-yaml",
    ),
    ("manifest-alias-bomb", _manifest(_alias_bomb()), "bad-yaml"),
    ("manifest-many-aliases", _manifest(_many_aliases()), "bad-yaml"),
    (
        "frontmatter-missing",
        lambda r, o: _agent(r, "alpha.md", "You are alpha.\n"),
        "bad-frontmatter",
    ),
    (
        "frontmatter-unclosed",
        lambda r, o: _agent(r, "alpha.md", "---\nname: alpha\nrole: x\n"),
        "bad-frontmatter",
    ),
    (
        "frontmatter-malformed",
        lambda r, o: _agent(r, "alpha.md", "---\nname: [alpha\n---\nx\n"),
        "bad-frontmatter",
    ),
    (
        "frontmatter-alias-bomb",
        lambda r, o: _agent(
            r, "alpha.md", f"---\nname: alpha\nrole: specialist\n{_alias_bomb()}---\nx\n"
        ),
        "bad-frontmatter",
    ),
    (
        "frontmatter-python-tag",
        lambda r, o: _agent(
            r, "alpha.md", "---\nname: !!python/name:os.system\nrole: specialist\n---\nx\n"
        ),
        "bad-frontmatter",
    ),
    (
        "frontmatter-list",
        lambda r, o: _agent(r, "alpha.md", "---\n- a\n- b\n---\nx\n"),
        "bad-frontmatter",
    ),
    (
        "role-invalid",
        lambda r, o: _agent(r, "alpha.md", "---\nname: alpha\nrole: boss\n---\nx\n"),
        "bad-role",
    ),
    ("skills-not-strings", _set_field("skills", "{a: 1}"), "bad-field"),
    ("model-not-text", _set_field("model", "[a, b]"), "bad-field"),
    (
        "persona-name-spaces",
        lambda r, o: _agent(r, "alpha.md", "---\nname: Alpha Beta\nrole: specialist\n---\nx\n"),
        "bad-persona-name",
    ),
    (
        "duplicate-persona",
        lambda r, o: _agent(r, "alpha-copy.md", "---\nname: alpha\nrole: specialist\n---\nx\n"),
        "duplicate-persona",
    ),
    (
        "agent-non-utf8",
        _file("agents/alpha.md", b"---\nname: alpha\nrole: specialist\n---\n\xff\n"),
        "not-utf8",
    ),
    (
        "agent-huge",
        _file(
            "agents/alpha.md", b"---\nname: alpha\nrole: specialist\n---\n" + b"x" * (256 * 1024)
        ),
        "file-too-large",
    ),
    ("reference-huge", _file("references/big.bin", b"\0" * (8 * M + 1)), "file-too-large"),
    ("fifo", lambda r, o: os.mkfifo(r / "references" / "pipe"), "special-file"),
    (
        "hardlink-out",
        lambda r, o: os.link(_outside_file(r, o), r / "references" / "k.md"),
        "hardlink-escape",
    ),
    (
        "description-200k",
        lambda r, o: _agent(
            r,
            "alpha.md",
            f"---\nname: alpha\nrole: specialist\ndescription: {'x' * 204800}\n---\nx\n",
        ),
        "too-long",
    ),
    ("tools-comma", _set_field("tools", "['read,bash']"), "bad-field"),
    (
        "skills-too-many",
        _set_field("skills", repr([f"s{i}" for i in range(33)])),
        "too-many-entries",
    ),
    (
        "pack-description-too-long",
        _manifest(f"schema: 2\nname: demo\nversion: 1.0.0\ndescription: {'d' * 1025}\n"),
        "too-long",
    ),
    ("nested-pack-root", _file("references/inner/pack.yaml", b"schema: 2\n"), "nested-pack-root"),
]


@pytest.mark.parametrize(("case", "mutate", "code"), HOSTILE, ids=[c[0] for c in HOSTILE])
def test_hostile_pack_is_refused_with_a_clear_message(
    tmp_path: Path, case: str, mutate: Mutate, code: str
) -> None:
    """P-RESOLVER-11: every hostile pack is refused; the message names the file and the fix.
    (Includes P-PACK-8/35: manifests with profiles or hooks.)"""
    root = write_pack(tmp_path / "store" / "demo")
    outside = tmp_path / "outside"
    outside.mkdir()
    (tmp_path / "store" / "peer-pack").mkdir()
    mutate(root, outside)
    with pytest.raises(PackInvalid) as info:
        load_pack(root, "custom", expected_name="demo")
    assert code in info.value.codes, (case, info.value.codes)
    message = str(info.value)
    assert "refused" in message
    assert all(p.message for p in info.value.problems)


def test_the_hostile_corpus_has_at_least_forty_cases() -> None:
    """Acceptance: ≥ 40 hostile cases."""
    assert len(HOSTILE) >= 40


def test_pack_root_that_is_a_symlink_is_refused(tmp_path: Path) -> None:
    """A store folder swapped for a symlink is pack-root confusion (P-RESOLVER-11)."""
    real = write_pack(tmp_path / "real" / "demo")
    link = tmp_path / "store" / "demo"
    link.parent.mkdir()
    link.symlink_to(real)
    with pytest.raises(PackInvalid) as info:
        load_pack(link, "custom", expected_name="demo")
    assert info.value.codes == ("root-symlink",)


@pytest.mark.parametrize(
    ("limits", "code"),
    [
        (Limits(total_bytes=64), "pack-too-large"),
        (Limits(max_files=3), "too-many-files"),
        (Limits(max_depth=1), "too-deep"),
    ],
)
def test_tree_limits_refuse_oversized_packs(tmp_path: Path, limits: Limits, code: str) -> None:
    """Huge or deep trees are refused (resource boundary), naming the limit."""
    root = write_pack(tmp_path / "demo")
    _file("references/a/b/c/d.md")(root, tmp_path)
    with pytest.raises(PackInvalid) as info:
        load_pack(root, "custom", expected_name="demo", limits=limits)
    assert code in info.value.codes


@pytest.mark.parametrize(("size", "ok"), [(999, True), (1000, True), (1001, False)])
def test_agent_file_size_limit_at_n_minus_1_n_n_plus_1(tmp_path: Path, size: int, ok: bool) -> None:
    """The per-agent-file cap holds exactly at the limit."""
    root = write_pack(tmp_path / "demo")
    head = b"---\nname: alpha\nrole: specialist\n---\n"
    (root / "agents" / "alpha.md").write_bytes(head + b"x" * (size - len(head)))
    limits = Limits(agent_bytes=1000)
    if ok:
        load_pack(root, "custom", expected_name="demo", limits=limits)
    else:
        with pytest.raises(PackInvalid) as info:
            load_pack(root, "custom", expected_name="demo", limits=limits)
        assert info.value.codes == ("file-too-large",)


@pytest.mark.parametrize(("count", "ok"), [(7, True), (8, True), (9, False)])
def test_file_count_limit_at_n_minus_1_n_n_plus_1(tmp_path: Path, count: int, ok: bool) -> None:
    """The pack's file-count cap holds exactly at the limit (the base pack has 7 files)."""
    root = write_pack(tmp_path / "demo")
    for i in range(count - 7):
        _file(f"references/extra{i}.md")(root, tmp_path)
    limits = Limits(max_files=8)
    if ok:
        load_pack(root, "custom", expected_name="demo", limits=limits)
    else:
        with pytest.raises(PackInvalid):
            load_pack(root, "custom", expected_name="demo", limits=limits)


def test_every_problem_is_reported_in_one_pass(tmp_path: Path) -> None:
    """Validation collects all problems so the user fixes them together (P-HOST-15)."""
    root = write_pack(tmp_path / "demo")
    _file("references/CON.md")(root, tmp_path)
    _pack_docs("../x.md")(root, tmp_path)
    with pytest.raises(PackInvalid) as info:
        load_pack(root, "custom", expected_name="demo")
    assert {"unsafe-name", "unsafe-path"} <= set(info.value.codes)
