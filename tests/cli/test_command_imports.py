"""What a command pays before it does anything: the parser of every ``persona-mind`` command
imports neither the distribution's metadata (read only to print an install hint) nor numpy
(the semantic model's, loaded only for commands that rank); a ``memory remember`` loads no
install hint and no numpy (its lock's portalocker reads its own version's metadata)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from persona_mind.cli import build_parser

HEAVY = ("importlib.metadata", "persona_mind.install", "numpy")


def _loaded_after(code: str, cwd: Path, env: dict[str, str] | None = None) -> dict[str, bool]:
    report = f"print(json.dumps({{m: m in sys.modules for m in {HEAVY!r}}}))"
    probe = f"{code}\nimport json, sys; {report}"
    done = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=cwd,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        check=True,
    )
    loaded: dict[str, bool] = json.loads(done.stdout.strip().splitlines()[-1])
    return loaded


def test_building_the_parser_loads_no_metadata_nor_numpy(tmp_path: Path) -> None:
    code = "from persona_mind.cli import build_parser; build_parser()"
    assert _loaded_after(code, tmp_path) == dict.fromkeys(HEAVY, False)


def test_remember_loads_no_metadata_nor_numpy(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    code = (
        "from persona_mind.cli import main\n"
        f"assert main(['memory', '--agent-dir', {str(tmp_path / 'agent')!r}, "
        "'remember', 'we deploy on Fridays']) == 0"
    )
    loaded = _loaded_after(code, repo)
    assert not loaded["persona_mind.install"]
    assert not loaded["numpy"]


def test_mcp_help_still_names_the_install_command(capsys: pytest.CaptureFixture[str]) -> None:
    from persona_mind.install import install_hint  # noqa: PLC0415

    with pytest.raises(SystemExit):
        build_parser().parse_args(["mcp", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert f"Needs the optional mcp extra: {' '.join(install_hint('mcp').split())}" in text


def test_memory_commands_ask_openblas_for_one_thread_unless_the_user_chose() -> None:
    from persona_mind.cli._memory import one_blas_thread  # noqa: PLC0415

    env: dict[str, str] = {}
    one_blas_thread(env)
    assert env == {"OPENBLAS_NUM_THREADS": "1"}
    chosen = {"OPENBLAS_NUM_THREADS": "4"}
    one_blas_thread(chosen)
    assert chosen == {"OPENBLAS_NUM_THREADS": "4"}


def test_recall_loads_numpy_with_one_openblas_thread(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    code = (
        "import os\n"
        "os.environ.pop('OPENBLAS_NUM_THREADS', None)\n"
        "from persona_mind.cli import main\n"
        f"assert main(['memory', '--agent-dir', {str(tmp_path / 'agent')!r}, "
        "'recall', 'deploy']) == 0\n"
        "assert os.environ['OPENBLAS_NUM_THREADS'] == '1'"
    )
    _loaded_after(code, repo, {"PERSONA_MIND_RANKER": "hybrid"})
