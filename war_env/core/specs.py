"""Spec strings such as ``"human"``, ``"fixed:ticks=5"`` or ``"random:p=0.2"``: the one parser.

One small grammar for everything a user names on a command line or in ``gym.make``: a name,
optionally followed by ``:`` and comma-separated ``key=value`` pairs. Values become ``int``,
``float``, ``bool`` or ``None`` when they look like one, else stay strings (paths, for example).
The same ``key=value`` lists are what ``war-bench --env``, ``war-train --set`` and ``--env-arg`` take.
"""

from __future__ import annotations

import difflib
import inspect
from collections.abc import Callable, Iterable, Mapping


def split_spec(spec: str) -> tuple[str, str]:
    """``"Bot:fixed:ticks=5"`` -> ``("bot", "fixed:ticks=5")``: the lower-cased name and the text after
    the first ``:`` (empty when there is none)."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"a spec must be a non-empty string like 'name' or 'name:key=value', got {spec!r}")
    name, _, rest = spec.strip().partition(":")
    return name.strip().lower(), rest.strip()


def parse_spec(spec: str) -> tuple[str, dict[str, object]]:
    """``"random:p=0.2"`` -> ``("random", {"p": 0.2})``."""
    name, rest = split_spec(spec)
    return name, parse_assignments([rest] if rest else [], f"spec {spec!r}")


def parse_assignments(items: Iterable[str], where: str = "the arguments") -> dict[str, object]:
    """``["gamma=0.9", "a=1,b=shuffled"]`` -> ``{"gamma": 0.9, "a": 1, "b": "shuffled"}``; each item
    may hold several comma-separated pairs. A key given twice is an error (which one was meant?).
    A value that is a spec with parameters takes the rest of its item, commas included:
    ``"turn_seconds=2,latency=uniform:low=1,high=4"`` -> ``{"turn_seconds": 2, "latency":
    "uniform:low=1,high=4"}`` (so a spec value goes last in its item, or in an item of its own)."""
    result: dict[str, object] = {}
    for item in items:
        for pair in _pairs(item):
            key, sep, value = pair.partition("=")
            key = key.strip()
            if not sep or not key:
                raise ValueError(f"bad parameter {pair!r} in {where}: expected key=value")
            if key in result:
                raise ValueError(f"parameter {key!r} given twice in {where}")
            result[key] = parse_value(value.strip())
    return result


def _pairs(item: str) -> list[str]:
    pairs: list[str] = []
    for part in item.split(","):
        if pairs and _is_spec_with_parameters(pairs[-1].partition("=")[2]):
            pairs[-1] += "," + part
        else:
            pairs.append(part)
    return pairs


def _is_spec_with_parameters(value: str) -> bool:
    """``"uniform:low=1"``: a name, ``:``, then ``key=value`` (a path like ``C:/x`` has no ``=`` after it)."""
    name, colon, rest = value.partition(":")
    return bool(colon) and name.strip().isidentifier() and "=" in rest


def parse_value(text: str) -> object:
    """``None``, a bool, an int, a float, or the text itself. Numbers are written in ASCII without
    underscores: Python's ``int`` and ``float`` also take ``"１"``, ``"١"`` and ``"1_0"``, which then stay
    text here and are refused by whatever wanted a number, instead of being stored as written."""
    lowered = text.lower()
    if lowered in ("none", "null"):
        return None
    if lowered in ("true", "false"):
        return lowered == "true"
    if not text.isascii() or "_" in text:
        return text
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    return text


def build_from_spec(spec: str, registry: Mapping[str, Callable[..., object]], kind: str) -> object:
    """Look the spec's name up in ``registry`` and call it with the spec's parameters.

    Unknown names and parameters the constructor does not take get a ``ValueError`` that lists
    what is available and offers the closest name.
    """
    name, params = parse_spec(spec)
    if name not in registry:
        raise unknown_name(kind, name, spec, sorted(registry))
    accepted = spec_parameters(registry[name])
    for key in params:
        if key not in accepted:
            takes = f"it takes {', '.join(accepted)}" if accepted else "it takes none"
            raise ValueError(
                f"{kind} {name!r} has no parameter {key!r} (spec {spec!r}); {takes}{did_you_mean(key, accepted)}"
            )
    try:
        return registry[name](**params)
    except TypeError as error:
        raise ValueError(f"bad parameters for {kind} {name!r} in spec {spec!r}: {error}") from None


def spec_parameters(constructor: Callable[..., object]) -> list[str]:
    """The keyword parameters a spec may give ``constructor`` (``config`` and ``opponent`` are the caller's,
    never the spec's)."""
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return [
        parameter.name
        for parameter in inspect.signature(constructor).parameters.values()
        if parameter.kind in kinds and parameter.name not in ("config", "opponent")
    ]


def unknown_name(kind: str, name: str, spec: str, known: Iterable[str]) -> ValueError:
    known = list(known)
    return ValueError(f"unknown {kind} {name!r} in spec {spec!r}; known: {', '.join(known)}{did_you_mean(name, known)}")


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """``"; did you mean 'human'?"`` for the closest of ``choices`` (names before any ``:``), or ``""``."""
    by_name = {choice.split(":")[0]: choice for choice in choices}
    close = difflib.get_close_matches(word, list(by_name), n=1)
    return f"; did you mean {by_name[close[0]]!r}?" if close else ""
