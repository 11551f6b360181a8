"""Spec strings such as ``"human"``, ``"fixed:ticks=5"`` or ``"random:p=0.2"``.

One small grammar for everything a user names on a command line or in ``gym.make``: a name,
optionally followed by ``:`` and comma-separated ``key=value`` pairs. Values become ``int``,
``float``, ``bool`` or ``None`` when they look like one, else stay strings (paths, for example).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping


def parse_spec(spec: str) -> tuple[str, dict[str, object]]:
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"a spec must be a non-empty string like 'name' or 'name:key=value', got {spec!r}")
    name, _, rest = spec.strip().partition(":")
    params: dict[str, object] = {}
    if rest:
        for item in rest.split(","):
            key, sep, value = item.partition("=")
            if not sep or not key.strip():
                raise ValueError(f"bad parameter {item!r} in spec {spec!r}: expected key=value")
            params[key.strip()] = _parse_value(value.strip())
    return name.strip().lower(), params


def _parse_value(text: str) -> object:
    lowered = text.lower()
    if lowered in ("none", "null"):
        return None
    if lowered in ("true", "false"):
        return lowered == "true"
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    return text


def build_from_spec(spec: str, registry: Mapping[str, Callable[..., object]], kind: str) -> object:
    """Look the spec's name up in ``registry`` and call it with the spec's parameters.

    Unknown names and parameters the constructor does not take get a ``ValueError`` that lists
    what is available.
    """
    name, params = parse_spec(spec)
    if name not in registry:
        raise ValueError(f"unknown {kind} {name!r} in spec {spec!r}; known: {', '.join(sorted(registry))}")
    try:
        return registry[name](**params)
    except TypeError as error:
        raise ValueError(f"bad parameters for {kind} {name!r} in spec {spec!r}: {error}") from None
