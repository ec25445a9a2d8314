"""`pi install "$(persona-mind pi-extension path)"` makes Pi load the bridge (issue 7, scope 4)."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from persona_mind.testing import (
    NODE_VERSION,
    PI_VERSION,
    FakeOpenAI,
    PiInstall,
    pi_agent_env,
)

from .conftest import REPO, WAIT, PiEnv, wait_pane

pytestmark = pytest.mark.e2e


def test_pi_install_of_the_printed_path_loads_the_extension(pienv: PiEnv) -> None:
    path = subprocess.run(
        [sys.executable, "-m", "persona_mind.cli", "pi-extension", "path"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    installed = subprocess.run(
        [*pienv.pi.argv, "install", path],
        env=pienv.env,
        cwd=pienv.cwd,
        capture_output=True,
        text=True,
        timeout=WAIT,
        check=False,
    )
    assert installed.returncode == 0, installed.stderr
    settings = json.loads((pienv.root / "agent" / "settings.json").read_text())
    assert len(settings["packages"]) == 1
    # No -e: Pi finds the extension through settings.json "packages" and its package.json.
    run = subprocess.run(
        [*pienv.pi.argv, "--no-session", "-p", "hi"],
        env=pienv.env,
        cwd=pienv.cwd,
        capture_output=True,
        text=True,
        timeout=WAIT,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert "stub_echo" in pienv.fake.tool_names(-1)
    assert "STUB-MEMORY-1" in pienv.fake.system_prompt(-1)


# -- issue 17, scope 5: README's "Use it in Pi" runs verbatim, with no environment variable --

README = REPO / "README.md"


def _commands(section: str) -> list[str]:
    """The shell lines of the first ```bash block under README's ``## section``."""
    part = README.read_text(encoding="utf-8").split(f"## {section}\n", 1)[1].split("\n## ", 1)[0]
    block = part.split("```bash\n", 1)[1].split("```", 1)[0]
    return [
        line for line in block.splitlines() if line.strip() and not line.lstrip().startswith("#")
    ]


def _checkout_copy(dest: Path, pi: PiInstall) -> None:
    """The project's files as a fresh clone has them, and the pinned Pi already in .cache/pi."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for rel in filter(None, listed.split("\0")):
        src = REPO / rel
        if src.is_file() and not src.is_symlink():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
    cache = dest / ".cache" / "pi"
    cache.mkdir(parents=True)
    for installed, name in ((pi.node, f"node-{NODE_VERSION}"), (pi.cli, f"pi-{PI_VERSION}")):
        top = next(p for p in installed.parents if p.name == name)
        (cache / name).symlink_to(top)


def test_readme_quick_start_and_use_it_in_pi_verbatim_need_no_env_var(
    pi: PiInstall, fake: FakeOpenAI, tmp_path: Path, tmux: list[str]
) -> None:
    """Quick start step 1, then "Use it in Pi" line by line in a fresh copy (issue 17).

    The shell has only HOME, TERM, PATH=/usr/bin:/bin and Pi's offline model settings: no
    PERSONA_MIND_* variable. `pi` runs interactively under tmux; its footer must say ready.
    """
    checkout, home = tmp_path / "persona-mind", tmp_path / "home"
    home.mkdir()
    _checkout_copy(checkout, pi)
    agent_env = pi_agent_env(home / ".pi" / "agent", fake.base_url)
    env = {
        "HOME": str(home),
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        # a Python 3.11+ as `python3` (the quick start's prerequisite), not this test's venv
        "PATH": f"{Path(sys.base_prefix) / 'bin'}{os.pathsep}/usr/bin{os.pathsep}/bin",
        **{k: v for k, v in agent_env.items() if k.startswith("PI_")},
    }
    assert not [k for k in env if k.startswith("PERSONA_MIND")]
    quick = _commands("Quick start")[0]
    done = subprocess.run(
        ["bash", "-c", quick], cwd=checkout, env=env, capture_output=True, text=True,
        timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert "demo finished" in done.stdout
    *setup, start = _commands("Use it in Pi")
    assert start == "pi"
    script = tmp_path / "use-it-in-pi.sh"
    log = tmp_path / "setup.log"  # the lines run verbatim; their output kept for a failure
    body = "\n".join(setup)
    script.write_text(f"set -e\n{{\n{body}\n}} >>{log} 2>&1\nexec {start}\n", encoding="utf-8")
    assignments = " ".join(shlex.quote(f"{k}={v}") for k, v in env.items())
    subprocess.run(
        [*tmux, "new-session", "-d", "-s", "pi", "-x", "160", "-y", "45", "-c",
         str(checkout), f"exec env -i {assignments} bash {shlex.quote(str(script))}"],
        check=True,
    )  # fmt: skip
    try:
        wait_pane(tmux, "persona-mind ready", timeout=WAIT * 2)
    except AssertionError as exc:
        raise AssertionError(f"{exc}\nsetup: {log.read_text()[-3000:]}") from None
    recorded = json.loads((checkout / "pi-extension" / "python.json").read_text())
    assert Path(recorded["python"]).parent == checkout / ".venv" / "bin"
    settings = json.loads((home / ".pi" / "agent" / "settings.json").read_text())
    agent = home / ".pi" / "agent"
    packages = [(agent / str(p)).resolve() for p in settings["packages"]]
    assert packages == [(checkout / "pi-extension").resolve()]  # Pi stores it relative
    subprocess.run([*tmux, "send-keys", "-t", "pi", "C-d"], check=True)


def test_a_sidecar_that_cannot_start_says_one_line_with_the_fix(
    pienv: PiEnv, tmp_path: Path
) -> None:
    """A Python without persona-mind: one short notice naming the fix, no traceback flood."""
    broken = tmp_path / "python-without-persona-mind"
    broken.write_text(
        "#!/bin/sh\necho 'Traceback (most recent call last):' >&2\n"
        "echo '  File \"<frozen runpy>\", line 189, in _run_module_as_main' >&2\n"
        "echo \"ModuleNotFoundError: No module named 'persona_mind'\" >&2\nexit 1\n",
        encoding="utf-8",
    )
    broken.chmod(0o755)
    pienv.env["PERSONA_MIND_PYTHON"] = str(broken)
    pienv.env["PERSONA_MIND_MAX_RESTARTS"] = "3"
    with pienv.rpc() as rpc:
        stopped = rpc.wait_notify("persona-mind stopped:")
        rpc.prompt("hello anyway")
    notes = [n for n in rpc.notifications() if "persona-mind" in n]
    assert all("\n" not in n and "Traceback" not in n for n in notes), notes
    assert f"{broken} cannot import persona_mind" in notes[0]
    assert "persona-mind pi-extension install" in notes[0]
    assert "PERSONA_MIND_PYTHON" in notes[0]
    # once when it first failed, once when it gave up: the retries in between are quiet
    assert len(notes) == 2, notes
    assert "run /reload to try again" in stopped["message"]
    assert pienv.bridge_log.read_text().count("start failed") == 4  # 1 start + 3 retries


def test_the_extension_uses_the_recorded_python_only_for_its_own_copy(
    pi: PiInstall, tmp_path: Path
) -> None:
    """findPython (sidecar.ts): env wins; a record for this extension dir is used; one that
    travelled (e.g. inside a wheel built from a checkout) is ignored."""
    ext = (REPO / "pi-extension").resolve()
    own, moved = tmp_path / "own.json", tmp_path / "moved.json"
    own.write_text(json.dumps({"python": "/bin/sh", "extensionDir": str(ext)}))
    moved.write_text(json.dumps({"python": "/bin/sh", "extensionDir": "/elsewhere"}))
    script = (
        f"import({json.dumps(str(ext / 'persona-mind' / 'sidecar.ts'))}).then((m) => {{"
        f"console.log(JSON.stringify(["
        f"m.findPython({{}}, {json.dumps(str(own))}).python,"
        f"m.findPython({{}}, {json.dumps(str(moved))}).python,"
        f"m.findPython({{PERSONA_MIND_PYTHON: '/x/py'}}, {json.dumps(str(own))}).python]))}})"
    )
    proc = subprocess.run(
        [str(pi.node), "--experimental-strip-types", "--no-warnings", "-e", script],
        capture_output=True,
        text=True,
        timeout=WAIT,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    used_own, used_moved, from_env = json.loads(proc.stdout)
    assert used_own == "/bin/sh"
    assert used_moved != "/bin/sh"
    assert from_env == "/x/py"
