"""A small JSON Schema checker for ``docs/cli-schema.json`` (the subset msgspec emits).

Supports ``type``, ``properties``/``required``, ``additionalProperties``, ``items``,
``prefixItems``, ``anyOf``, ``enum``, ``const`` and local ``$ref``. Stricter than JSON
Schema in one way on purpose: an object with ``properties`` may hold no undeclared key, so
a field a command prints but the docs do not name is a failure.
"""

from __future__ import annotations

from typing import Any

_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
    "object": (dict,),
    "array": (list,),
}


def _is(value: object, name: str) -> bool:
    if name in ("integer", "number") and isinstance(value, bool):
        return False
    return isinstance(value, _TYPES[name])


def errors(value: object, schema: dict[str, Any], root: dict[str, Any], at: str = "$") -> list[str]:
    """Every way ``value`` breaks ``schema`` (empty when it conforms)."""
    if "$ref" in schema:
        name = schema["$ref"].removeprefix("#/$defs/")
        return errors(value, root["$defs"][name], root, at)
    if "anyOf" in schema:
        options = [errors(value, option, root, at) for option in schema["anyOf"]]
        if all(options):
            return [f"{at}: matches none of anyOf ({'; '.join(o[0] for o in options)})"]
        return []
    out: list[str] = []
    kind = schema.get("type")
    if kind is not None:
        kinds = kind if isinstance(kind, list) else [kind]
        if not any(_is(value, k) for k in kinds):
            return [f"{at}: expected {kind}, got {type(value).__name__}"]
    if "enum" in schema and value not in schema["enum"]:
        out.append(f"{at}: {value!r} not in {schema['enum']}")
    if "const" in schema and value != schema["const"]:
        out.append(f"{at}: {value!r} != {schema['const']!r}")
    if isinstance(value, dict):
        props: dict[str, Any] = schema.get("properties", {})
        for key in schema.get("required", []):
            if key not in value:
                out.append(f"{at}: missing required {key!r}")
        extra = schema.get("additionalProperties")
        for key, item in value.items():
            if key in props:
                out += errors(item, props[key], root, f"{at}.{key}")
            elif isinstance(extra, dict):
                out += errors(item, extra, root, f"{at}.{key}")
            elif props or extra is False:
                out.append(f"{at}: undeclared field {key!r}")
    if isinstance(value, list):
        prefix = schema.get("prefixItems", [])
        for i, item in enumerate(value):
            if i < len(prefix):
                out += errors(item, prefix[i], root, f"{at}[{i}]")
            elif isinstance(schema.get("items"), dict):
                out += errors(item, schema["items"], root, f"{at}[{i}]")
    return out
