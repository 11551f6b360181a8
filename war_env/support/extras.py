"""The optional parts of war-env (pip extras) and the one error that names a missing one.

``import war_env`` needs only gymnasium and numpy. Everything else is an extra; code that needs one
calls ``require(extras, what)`` first, so a user without it reads one line that says what to install
instead of a ``ModuleNotFoundError`` from deep inside.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence

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


def install_hint(extras: str | Sequence[str]) -> str:
    """The pip commands that install ``extras``, both ways a user can have war-env: by name (an index such
    as PyPI) or from a clone of the repository, where the name alone would look for it on the index."""
    names = ",".join((extras,) if isinstance(extras, str) else extras)
    return f'pip install "war-env[{names}]" (or, from a clone, pip install -e ".[{names}]")'


class MissingExtra(ImportError):
    """Extras that a command or module needs are not installed; the message names every one of them
    and the pip command that installs them all (``install_hint``)."""

    def __init__(self, extras: Sequence[str], what: str, missing: list[str]):
        self.extras = tuple(extras)
        names = " and ".join(f'"{extra}"' for extra in self.extras)
        plural = "s" if len(self.extras) > 1 else ""
        super().__init__(
            f"{what} needs the {names} extra{plural} (missing: {', '.join(missing)}): {install_hint(self.extras)}"
        )


def missing_modules(extra: str) -> list[str]:
    if extra not in EXTRAS:
        raise ValueError(f"unknown extra {extra!r}; known: {', '.join(EXTRAS)}")
    return [module for module in EXTRAS[extra] if importlib.util.find_spec(module) is None]


def has_extra(extra: str) -> bool:
    return not missing_modules(extra)


def require(extras: str | Sequence[str], what: str) -> None:
    """Raise ``MissingExtra`` unless every module of ``extras`` (one name or several) can be imported,
    naming all the missing extras at once; ``what`` names the command or module that needs them
    (``"war-bench"``, ``"war_env.envs.sb3_vec"``)."""
    extras = (extras,) if isinstance(extras, str) else tuple(extras)
    missing = {extra: missing_modules(extra) for extra in extras}
    absent = [extra for extra in extras if missing[extra]]
    if absent:
        modules = list(dict.fromkeys(module for extra in absent for module in missing[extra]))
        raise MissingExtra(absent, what, modules)
