"""Fault-suite options: ``--soak`` (or ``PERSONA_MIND_SOAK=1``) runs the long soaks."""

from __future__ import annotations

import contextlib
import os

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    # a root conftest may register it too, with the same meaning
    with contextlib.suppress(ValueError):
        parser.addoption(
            "--soak",
            action="store_true",
            default=False,
            help="run the fault suite's soak sizes (10,000 kill -9 cycles, 16x500 RMW, …)",
        )


def soak_enabled(config: pytest.Config) -> bool:
    """True when the soak sizes were asked for by flag or environment."""
    flag = False
    try:
        flag = bool(config.getoption("--soak"))
    except ValueError:  # option not registered when this conftest is not an initial one
        flag = False
    return flag or os.environ.get("PERSONA_MIND_SOAK") == "1"


@pytest.fixture
def soak(request: pytest.FixtureRequest) -> bool:
    return soak_enabled(request.config)
