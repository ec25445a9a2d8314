"""A throwaway Pi home for tests: ``models.json`` and ``settings.json`` aimed at a fake server.

``pi_agent_env`` is what an end-to-end test or a benchmark needs to run the real Pi against
:class:`~persona_mind.testing._fake_openai.FakeOpenAI` on 127.0.0.1: a provider whose models
point at the server (free, or priced so Pi's cost totals move), retries off, the fake model
as the default, and an environment without a user's own Pi or persona settings.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

__all__ = ("pi_agent_env",)


def pi_agent_env(
    agent_dir: Path,
    base_url: str,
    *,
    model: str = "fake-model",
    provider: str = "fake",
    extra_models: Iterable[str] = (),
    settings: Mapping[str, Any] | None = None,
    base_env: Mapping[str, str] | None = None,
    cost: Mapping[str, float] | None = None,
) -> dict[str, str]:
    """Write ``models.json`` + ``settings.json`` into ``agent_dir``; return the env for Pi.

    The provider offers ``model`` (the default) and any ``extra_models`` (to test switching),
    free unless ``cost`` gives Pi's per-million-token prices (``input``, ``output``,
    ``cacheRead``, ``cacheWrite``), so a test can watch Pi's cost totals move.

    The env is ``base_env`` (default ``os.environ``) without any ``PI_PERSONA_*``/
    ``PERSONA_MIND_DISABLE``/session-dir variables (tests must not inherit a user's), plus
    ``PI_CODING_AGENT_DIR``, ``PI_OFFLINE=1``, ``PI_SKIP_VERSION_CHECK=1``, ``PI_TELEMETRY=0``.
    Settings turn retries off (a provider error would cost ~14 s of backoff) and make the fake
    model the default, so ``--model`` is optional; ``settings`` entries override.
    """
    agent_dir.mkdir(parents=True, exist_ok=True)
    models = {
        "providers": {
            provider: {
                "baseUrl": base_url,
                "api": "openai-completions",
                "apiKey": "fake-key",
                "models": [
                    {
                        "id": model_id,
                        "name": f"Fake Model {model_id}",
                        "reasoning": False,
                        "input": ["text"],
                        "contextWindow": 128000,
                        "maxTokens": 4096,
                        "cost": {
                            "input": 0,
                            "output": 0,
                            "cacheRead": 0,
                            "cacheWrite": 0,
                            **(cost or {}),
                        },
                    }
                    for model_id in (model, *extra_models)
                ],
            }
        }
    }
    merged: dict[str, Any] = {
        "retry": {"enabled": False},
        "defaultProvider": provider,
        "defaultModel": model,
        "cacheWarming": "off",
    }
    merged.update(settings or {})
    (agent_dir / "models.json").write_text(json.dumps(models, indent=2), encoding="utf-8")
    (agent_dir / "settings.json").write_text(json.dumps(merged, indent=2), encoding="utf-8")
    env = {
        k: v
        for k, v in (os.environ if base_env is None else base_env).items()
        if not k.startswith("PI_PERSONA_")
        and k not in {"PERSONA_MIND_DISABLE", "PI_CODING_AGENT_SESSION_DIR"}
    }
    env.update(
        PI_CODING_AGENT_DIR=str(agent_dir),
        PI_OFFLINE="1",
        PI_SKIP_VERSION_CHECK="1",
        PI_TELEMETRY="0",
    )
    return env
