"""Names moved to the layer that may import them keep one identity (issue 10 scope 7).

``BacklogItem`` lives in ``messages/`` (the Reminder protocol carries it) and ``Layout`` /
``project_identity`` in ``storage.layout`` (the domain names files with them); the old public
names re-export the very same objects, so nothing that decodes or isinstance-checks them
changes. The simulated host and the fake pi moved from ``testing`` to ``sim`` the same way.
The import direction itself is enforced by ``lint-imports`` (``scripts/check.sh``).
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest

from persona_mind import mind, sim, storage, testing
from persona_mind.messages import backlog
from persona_mind.messages.reminder import ArmReminders
from persona_mind.storage import layout


def test_backlog_item_is_one_type_in_mind_and_messages() -> None:
    assert mind.BacklogItem is backlog.BacklogItem
    item = mind.BacklogItem(id="b1", text="ship it", createdAt=1.0, updatedAt=1.0, expiresAt=9.0)
    assert ArmReminders(items=(item,)).items[0] is item


def test_backlog_item_keeps_its_on_disk_form() -> None:
    """The move changed no field: camelCase names, defaults, unknown fields refused."""
    raw = b'{"id":"b1","text":"t","createdAt":1.0,"updatedAt":2.0,"expiresAt":3.0}'
    item = msgspec.json.decode(raw, type=backlog.BacklogItem)
    assert (item.status, item.remindAt, item.live(2.5), item.live(3.0)) == (
        "open",
        None,
        True,
        False,
    )
    with pytest.raises(msgspec.ValidationError):
        msgspec.json.decode(raw[:-1] + b',"extra":1}', type=backlog.BacklogItem)


def test_memory_and_consolidation_values_are_one_type_in_mind_and_messages() -> None:
    """Fact and the Optimizer's answers live in messages/ (its protocol answers them)."""
    from persona_mind.messages import consolidation, memory, team  # noqa: PLC0415
    from persona_mind.mind.optimize import _inspect, _plans, _review, _stage  # noqa: PLC0415
    from persona_mind.persona.binding import _team  # noqa: PLC0415

    assert mind.Fact is memory.Fact
    assert (_plans.Plan, _plans.Applied) == (consolidation.Plan, consolidation.Applied)
    assert _inspect.Inspection is consolidation.Inspection
    assert _review.ReviewReport is consolidation.ReviewReport
    assert _stage.Replacement is consolidation.Replacement
    assert (_team.TeamSnapshot, _team.TeamMember) == (team.TeamSnapshot, team.TeamMember)


def test_the_owners_values_are_one_type_in_mind_storage_and_messages() -> None:
    from persona_mind.messages import owner, snapshot  # noqa: PLC0415
    from persona_mind.mind.notes import _ledger  # noqa: PLC0415
    from persona_mind.storage import port  # noqa: PLC0415

    assert mind.NotesTally is _ledger.NotesTally is owner.NotesTally
    assert (port.Snapshot, port.StoreTarget) == (snapshot.Snapshot, snapshot.StoreTarget)


def test_fact_keeps_its_on_disk_form() -> None:
    raw = b'{"id":"m_1","kind":"note","text":"t","recordedAt":1.0,"lastSeenAt":2.0}'
    fact = msgspec.json.decode(raw, type=mind.Fact)
    assert (fact.status, fact.tags, fact.live(3.0)) == ("active", (), True)
    with pytest.raises(msgspec.ValidationError):
        msgspec.json.decode(raw[:-1] + b',"extra":1}', type=mind.Fact)


def test_layout_is_one_type_in_storage_and_its_value_module() -> None:
    assert layout.Layout is storage.Layout
    assert layout.project_identity is storage.project_identity


def test_the_simulated_host_ships_outside_testing() -> None:
    """``persona_mind.sim`` holds SimHost and the fake pi; ``testing`` re-exports the same."""
    assert testing.SimHost is sim.SimHost
    assert testing.fake_pi_command is sim.fake_pi_command
    script = Path(sim.fake_pi_command()[-1])
    assert script.parent == Path(sim.__file__).resolve().parent
    assert set(sim.__all__) <= set(dir(sim))


def test_the_old_fake_pi_module_still_runs_the_fake() -> None:
    """``python -m persona_mind.testing._fake_pi`` (the old spelling) still answers a prompt."""
    done = subprocess.run(
        [sys.executable, "-m", "persona_mind.testing._fake_pi", "--mode", "json", "-p"],
        input="hello",
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    kinds = [json.loads(line)["type"] for line in done.stdout.splitlines()]
    assert kinds[0] == "session"
    assert kinds[-1] == "agent_settled"


def test_child_and_roundtable_values_live_in_messages() -> None:
    """Issue 10 scope 4: the child request/reply/progress values and the round-table
    progress/result are ``messages`` types; their old ``runners`` homes are gone, and a
    request survives the wire unchanged."""
    from persona_mind.messages import child  # noqa: PLC0415

    for old in ("_child_types", "_roundtable_progress"):
        assert importlib.util.find_spec(f"persona_mind.runners.{old}") is None, old
    persona = child.ChildPersona(name="a", qualified_id="p/a", role="specialist", system_prompt="s")
    request = child.ChildRequest(
        request_id="r1", kind="round1", persona=persona, prompt="q", model="m"
    )
    wire = msgspec.msgpack.encode(request)
    assert msgspec.msgpack.decode(wire, type=child.ChildRequest) == request


def test_child_errors_are_one_hierarchy_outside_runners() -> None:
    """Issue 10 scope 4: the child leaves live in ``persona_mind.child_errors`` under
    ``ChildError``; the ``runners.child`` facade hands out the same classes, the old
    runners module is gone, and the messages did not change."""
    from persona_mind import child_errors, errors  # noqa: PLC0415
    from persona_mind import children as child  # noqa: PLC0415

    assert importlib.util.find_spec("persona_mind.runners._child_errors") is None
    for name in child_errors.__all__:
        assert issubclass(getattr(child_errors, name), errors.ChildError), name
    assert child.SelectionInvalid is child_errors.SelectionInvalid
    assert str(child_errors.SelectionInvalid("the delegated query is empty")) == (
        "the team lead's specialist selection was invalid: the delegated query is empty; "
        "no specialist was started — ask again or rephrase the query"
    )


def test_roundtable_rules_live_in_the_persona_domain() -> None:
    """Issue 10 scope 4: the round-table prompts, selection schema, synthesis check and the
    progress tracker are Persona rules; their old runners home is gone."""
    from persona_mind.persona.children import _progress, _roundtable  # noqa: PLC0415

    assert _roundtable.__all__
    assert _progress.__all__
    assert importlib.util.find_spec("persona_mind.runners._roundtable_logic") is None
