"""The optional parts of war-env (pip extras) and the one error that names a missing one.

``import war_env`` needs only gymnasium and numpy. Everything else is an extra; code that needs one
calls ``require(extra, what)`` first, so a user without it reads one line that says what to install
instead of a ``ModuleNotFoundError`` from deep inside.
"""

from __future__ import annotations

import importlib.util

EXTRAS: dict[str, tuple[str, ...]] = {
    "bench": ("scipy", "matplotlib", "tqdm", "jsonschema", "filelock"),
    "train": ("stable_baselines3", "sb3_contrib", "torch", "tqdm", "rich", "filelock"),
    "render": ("pygame",),
    "multiagent": ("pettingzoo",),
    "distributed": ("ray", "grpc"),
    "fast": ("numba",),
    "zoo": ("rl_zoo3",),
    "torchrl": ("torchrl", "tensordict", "torch"),
    "web": ("starlette", "uvicorn", "websockets"),
}
"""Extra name -> the modules it installs that the code imports (pyproject.toml lists the packages)."""


class MissingExtra(ImportError):
    """An extra that a command or module needs is not installed; the message says how to get it."""

    def __init__(self, extra: str, what: str, missing: list[str]):
        self.extra = extra
        super().__init__(f'{what} needs the "{extra}" extra (missing: {", ".join(missing)}): '
                         f'pip install "war-env[{extra}]"')


def missing_modules(extra: str) -> list[str]:
    if extra not in EXTRAS:
        raise ValueError(f"unknown extra {extra!r}; known: {', '.join(EXTRAS)}")
    return [module for module in EXTRAS[extra] if importlib.util.find_spec(module) is None]


def has_extra(extra: str) -> bool:
    return not missing_modules(extra)


def require(extra: str, what: str) -> None:
    """Raise ``MissingExtra`` unless every module of ``extra`` can be imported; ``what`` names the
    command or module that needs it (``"war-bench"``, ``"war_env.envs.sb3_vec"``)."""
    missing = missing_modules(extra)
    if missing:
        raise MissingExtra(extra, what, missing)
