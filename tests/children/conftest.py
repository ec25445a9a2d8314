"""Fixtures for the child-runner tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from persona_mind.testing._fake_pi import fake_pi_command, write_fake_pi


@pytest.fixture
def fake_pi(tmp_path: Path) -> tuple[str, ...]:
    """Argv of the fake pi, through a wrapper script as a user would pass with --pi."""
    wrapper_dir = tmp_path / "bin"
    wrapper_dir.mkdir()
    return (str(write_fake_pi(wrapper_dir)),)


@pytest.fixture
def fake_pi_direct() -> tuple[str, ...]:
    return fake_pi_command()
