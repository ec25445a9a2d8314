"""Memory that follows the repository (issue 23 item 4, M-SCOPE-13, P-CHAT-PLAN-4/7/9).

Real ``git init``/``git clone`` in temporary folders, the real Store actor through the
``Memory`` facade and the ``persona-mind memory`` CLI: two clones of one repository share
project memory after one approved link and not before; a fork (same root commit, another
remote) is never offered; a link is refused without approval; an export keyed by repository
identity imports into the matching clone at another path.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from persona_mind import Memory
from persona_mind.cli import main
from persona_mind.mind import MindRefusal
from persona_mind.mind._repo_identity import forget_identities, normalise_remote, repo_identity

_ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.invalid",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


def _git(*args: str, cwd: Path | None = None) -> None:
    subprocess.run(["git", *args], cwd=cwd, env=_ENV, check=True, capture_output=True)


@pytest.fixture(autouse=True)
def _fresh_identities() -> None:
    forget_identities()


@pytest.fixture
def repos(tmp_path: Path) -> dict[str, Path]:
    """An upstream with one commit, two clones of it, and a fork: a clone whose origin was
    re-pointed at another remote (same root commit, different repository)."""
    upstream = tmp_path / "upstream"
    _git("init", "-q", "-b", "main", str(upstream))
    (upstream / "README").write_text("hello\n")
    _git("add", "README", cwd=upstream)
    _git("commit", "-q", "-m", "root", cwd=upstream)
    out = {"upstream": upstream}
    for name in ("one", "two", "fork"):
        dest = tmp_path / "checkouts" / name / "app"
        dest.parent.mkdir(parents=True)
        _git("clone", "-q", str(upstream), str(dest))
        out[name] = dest
    _git("remote", "set-url", "origin", "git@github.com:someone-else/app.git", cwd=out["fork"])
    return out


def test_remote_spellings_normalise_to_one() -> None:
    same = {
        normalise_remote(u)
        for u in (
            "git@GitHub.com:acme/app.git",
            "ssh://git@github.com:22/acme/app",
            "https://user:s3cret@GITHUB.com/acme/app.git/",
            "http://github.com/acme/app",
        )
    }
    assert same == {"github.com/acme/app"}
    assert normalise_remote("https://github.com/acme/app-fork") != "github.com/acme/app"


def test_identity_is_root_commit_and_remote_and_none_outside_git(
    repos: dict[str, Path], tmp_path: Path
) -> None:
    one, fork = repo_identity(repos["one"]), repo_identity(repos["fork"])
    assert one is not None
    assert fork is not None
    assert one.roots == fork.roots  # a fork shares the root commit…
    assert not one.same_repository(fork)  # …but not the remote
    assert one.same_repository(repo_identity(repos["two"]))  # type: ignore[arg-type]
    plain = tmp_path / "plain"
    plain.mkdir()
    assert repo_identity(plain) is None  # not a repository: no identity, no error


@pytest.mark.asyncio
async def test_two_clones_share_project_memory_after_one_approved_link(
    repos: dict[str, Path], tmp_path: Path
) -> None:
    agent = tmp_path / "agent"
    async with Memory(agent_dir=agent, cwd=repos["one"]) as one:
        await one.remember("CI needs Docker", kind="gotcha", tier="project")
        assert one.repository.offers == ()  # nothing else known yet
    async with Memory(agent_dir=agent, cwd=repos["two"]) as two:
        assert [f.fact.text for f in await two.list("project")] == []  # not before a link
        assert [c.root for c in two.repository.offers] == [str(repos["one"])]
        with pytest.raises(MindRefusal) as refused:
            await two.link(str(repos["one"]), approved=False)
        assert refused.value.rule == "link.unapproved"
        assert [f.fact.text for f in await two.list("project")] == []  # refusal changed nothing
        await two.link(str(repos["one"]), approved=True)
        assert [f.fact.text for f in await two.list("project")] == ["CI needs Docker"]
        await two.remember("deploys go through Argo", kind="convention", tier="project")
    # the link is durable: a fresh open of either path sees both facts, and the path stays
    # each project's identity (M-SCOPE-13)
    async with Memory(agent_dir=agent, cwd=repos["one"]) as again:
        texts = sorted(f.fact.text for f in await again.list("project"))
        assert texts == ["CI needs Docker", "deploys go through Argo"]
    async with Memory(agent_dir=agent, cwd=repos["two"]) as two:
        assert two.scope.project is not None
        assert (two.scope.project.root, two.scope.project.linked) == (
            str(repos["two"]),
            str(repos["one"]),
        )
        assert await two.unlink() == str(repos["one"])
        assert [f.fact.text for f in await two.list("project")] == []  # its own files again


@pytest.mark.asyncio
async def test_a_fork_is_never_offered_nor_linked(repos: dict[str, Path], tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    async with Memory(agent_dir=agent, cwd=repos["one"]) as one:
        await one.remember("CI needs Docker", kind="gotcha", tier="project")
    async with Memory(agent_dir=agent, cwd=repos["fork"]) as fork:
        assert fork.repository.offers == ()
        with pytest.raises(MindRefusal) as refused:
            await fork.link(str(repos["one"]), approved=True)
        assert refused.value.rule == "link.not_candidate"
        assert [f.fact.text for f in await fork.list("project")] == []


def _cli(capsys: pytest.CaptureFixture[str], agent: Path, cwd: Path, *argv: str) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["memory", "--agent-dir", str(agent), "--cwd", str(cwd), *argv])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def test_cli_link_lists_refuses_without_yes_then_links(
    repos: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    agent = tmp_path / "agent"
    assert (
        _cli(capsys, agent, repos["one"], "remember", "CI needs Docker", "--tier", "project")[0]
        == 0
    )
    code, listed = _cli(capsys, agent, repos["two"], "link")
    assert code == 0
    assert f"same repository at {repos['one']}" in listed
    code, said = _cli(capsys, agent, repos["two"], "link", str(repos["one"]))
    assert code == 1
    assert "link.unapproved" in said
    assert "--yes" in said
    assert "CI needs Docker" not in _cli(capsys, agent, repos["two"], "list", "project")[1]
    code, said = _cli(capsys, agent, repos["two"], "link", str(repos["one"]), "--yes")
    assert code == 0
    assert "linked" in said
    assert "CI needs Docker" in _cli(capsys, agent, repos["two"], "list", "project")[1]
    code, said = _cli(capsys, agent, repos["fork"], "link", str(repos["one"]), "--yes")
    assert code == 1
    assert "link.not_candidate" in said
    code, said = _cli(capsys, agent, repos["two"], "link", "--unlink")
    assert code == 0
    assert f"unlinked from {repos['one']}" in said


def test_export_by_repo_imports_into_the_matching_clone_at_another_path(
    repos: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    laptop, desktop = tmp_path / "laptop-agent", tmp_path / "desktop-agent"
    assert (
        _cli(capsys, laptop, repos["one"], "remember", "CI needs Docker", "--tier", "project")[0]
        == 0
    )
    dump = tmp_path / "facts.jsonl"
    assert _cli(capsys, laptop, repos["one"], "export", "--by-repo", "--out", str(dump))[0] == 0
    header = json.loads(dump.read_text().splitlines()[0])
    assert header["repository"]["remote"] == normalise_remote(str(repos["upstream"]))
    # another machine knows this repository at another path (and a fork of it)
    assert _cli(capsys, desktop, repos["two"], "list")[0] == 0
    assert _cli(capsys, desktop, repos["fork"], "list")[0] == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    code, said = _cli(capsys, desktop, elsewhere, "import", str(dump), "--by-repo")
    assert code == 0
    assert f"project memory of {repos['two']}" in said
    assert "CI needs Docker" in _cli(capsys, desktop, repos["two"], "list", "project")[1]
    assert "CI needs Docker" not in _cli(capsys, desktop, repos["fork"], "list", "project")[1]
    # without a known clone the import is refused, nothing written
    empty = tmp_path / "empty-agent"
    code, said = _cli(capsys, empty, elsewhere, "import", str(dump), "--by-repo")
    assert code == 1
    assert "import.no_project" in said
    # a plain import of a --by-repo export still works (the header is skipped)
    code, said = _cli(capsys, empty, repos["fork"], "import", str(dump))
    assert code == 0
    assert "1 imported" in said


def test_store_check_knows_the_project_registry(
    repos: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    agent = tmp_path / "agent"
    assert _cli(capsys, agent, repos["one"], "list")[0] == 0
    assert (agent / "persona-mind" / "memory" / "repositories.json").exists()
    from persona_mind.cli._storage import file_catalog  # noqa: PLC0415

    kind = file_catalog().kind_of(agent / "persona-mind" / "memory" / "repositories.json", agent)
    assert kind is not None
    assert kind.name == "project registry"
    capsys.readouterr()
    assert main(["store", "check", str(agent / "persona-mind"), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["corrupt"] == []
    assert report["invalid"] == []
