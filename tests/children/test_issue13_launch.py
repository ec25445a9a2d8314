"""Issue 13, Persona item 9: declared model and skills reach children (P-RESOLVER-21,
P-ROUNDTABLE-19, P-CHILD-13), resolved against live host state, with a clear error."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import msgspec
import pytest
import pytest_asyncio

from persona_mind.child_errors import ChildUnavailable
from persona_mind.children import ChildRequest
from persona_mind.messages.host import HostEvent, PromptInjection, SessionStart
from persona_mind.persona import HostState
from persona_mind.runners._child_pi import PiBackend, pi_argv
from persona_mind.testing import ManualClock
from persona_mind.testing._scripted import ScriptedModel
from persona_mind.testing._simhost import SimHost
from tests.children._helpers import persona

SKILL = ("threat-model", "/opt/skills/threat-model/SKILL.md")


def _request(**fields: object) -> ChildRequest:
    who = msgspec.structs.replace(persona("critic"), **fields)
    return ChildRequest(request_id="r", kind="consult", persona=who, prompt="q", model="s/m")


def test_resolved_skills_are_loaded_and_the_declared_model_used() -> None:
    argv = pi_argv(
        ("pi",),
        _request(skills=("threat-model",), skill_paths=(SKILL[1],), model="acme/strong"),
        "rpc",
        None,
    )
    assert "--no-skills" in argv  # no discovery: exactly the persona's skills
    assert argv[argv.index("--skill") + 1] == SKILL[1]
    assert argv[argv.index("--model") + 1] == "acme/strong"


def test_declared_skills_with_unreported_host_state_are_never_switched_off() -> None:
    """The old argv ran --no-skills while the prompt listed skills to use."""
    argv = pi_argv(("pi",), _request(skills=("threat-model",)), "rpc", None)
    assert "--no-skills" not in argv
    assert "--skill" not in argv
    plain = pi_argv(("pi",), _request(), "rpc", None)
    assert "--no-skills" in plain
    assert plain[plain.index("--model") + 1] == "s/m"  # no declared model: the session's


def test_an_unavailable_persona_is_refused_before_spawn() -> None:
    backend = PiBackend(("/nonexistent/pi",), clock=ManualClock())
    with pytest.raises(ChildUnavailable, match="'threat-model' are not loaded"):
        backend.check(_request(unavailable="skill(s) 'threat-model' are not loaded in this Pi"))


@pytest.fixture
def model() -> ScriptedModel:
    return ScriptedModel(ManualClock())


@pytest_asyncio.fixture
async def host(tmp_path: Path, model: ScriptedModel) -> AsyncIterator[SimHost]:
    ws = tmp_path / "workspace"
    (ws / ".git").mkdir(parents=True)
    async with SimHost(
        agent_dir=tmp_path / "agent", cwd=ws, clock=ManualClock(), child_backend=model
    ) as sim:
        yield sim


def _report(host: SimHost, state: HostState) -> None:
    real = host.runtime.event
    skills = None if state.skills is None else tuple(state.skills.items())
    models = None if state.models is None else tuple(sorted(state.models))

    async def event(ev: HostEvent) -> PromptInjection | None:
        if isinstance(ev, SessionStart):
            ev = msgspec.structs.replace(ev, skills=skills, models=models)
        return await real(ev)

    host.runtime.event = event  # type: ignore[method-assign,assignment]


async def _team_with_declarations(host: SimHost) -> None:
    await host.start()
    result = await host.command("/persona pack install software-team")
    assert result.level == "info", result.text
    agent = host.agent_dir / "persona" / "official" / "software-team" / "agents"
    path = agent / "security-reviewer.md"
    text = path.read_text(encoding="utf-8")
    head, sep, rest = text.partition("\n")
    path.write_text(
        f"{head}{sep}skills:\n  - threat-model\nmodel: acme/strong\n{rest}", encoding="utf-8"
    )
    for command in ("/persona team select software-team", "/persona use architect"):
        result = await host.command(command)
        assert result.level == "info", result.text


@pytest.mark.asyncio
async def test_consult_child_gets_the_declared_model_and_skills_P_CHILD_13(
    host: SimHost, model: ScriptedModel
) -> None:
    _report(host, HostState(skills=dict([SKILL]), models=frozenset({"acme/strong"})))
    await _team_with_declarations(host)
    model.on(persona="security-reviewer", reply="Threat-modelled.")
    result = await host.call_tool(
        "persona_consult", {"consultant": "security-reviewer", "question": "Is it safe?"}
    )
    assert not result.is_error, result.text
    (call,) = model.calls
    assert call.persona.model == "acme/strong"
    assert call.persona.skill_paths == (SKILL[1],)
    assert "threat-model" in call.system_prompt  # the prompt lists the skill it now has


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("state", "match"),
    [
        (HostState(skills={}, models=frozenset({"acme/strong"})), "'threat-model' are not loaded"),
        (HostState(skills=dict([SKILL]), models=frozenset({"sim/x"})), "'acme/strong' is not"),
    ],
    ids=["skill-missing", "model-missing"],
)
async def test_unavailable_skill_or_model_is_a_clear_error_P_RESOLVER_21(
    host: SimHost, model: ScriptedModel, state: HostState, match: str
) -> None:
    _report(host, state)
    await _team_with_declarations(host)
    result = await host.call_tool(
        "persona_consult", {"consultant": "security-reviewer", "question": "Is it safe?"}
    )
    assert result.is_error
    assert match in result.text
    assert "security-reviewer" in result.text
    assert model.calls == []  # nothing launched
