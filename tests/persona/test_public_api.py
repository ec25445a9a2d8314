"""The facade's ``__all__`` is exact: every name exists, every public name is listed."""

from __future__ import annotations

import types

import persona_mind.persona as facade


def test_all_names_exist_and_are_sorted_uniquely() -> None:
    """Style rule 1: the facade re-exports exactly its ``__all__``."""
    assert len(set(facade.__all__)) == len(facade.__all__)
    for name in facade.__all__:
        assert hasattr(facade, name), name


def test_no_public_name_is_missing_from_all() -> None:
    """Public (non-underscore, non-module) attributes are all in ``__all__``."""
    public = {
        n
        for n, v in vars(facade).items()
        if not n.startswith("_") and not isinstance(v, types.ModuleType) and n != "annotations"
    }
    assert public == set(facade.__all__)


def test_child_runner_contract() -> None:
    """What the child runner imports: TeamSnapshot/TeamMember and resolve_team."""
    fields = set(facade.TeamMember.__dataclass_fields__)
    assert {"name", "role", "description", "identity", "system_prompt", "tools", "model"} <= fields
    assert callable(facade.resolve_team)
