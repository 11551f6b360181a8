"""Where a number comes from: package versions, the git commit of a source checkout, the machine.

One function for every file that records provenance (benchmark ``run.json``, training model cards).
"""

from __future__ import annotations

import os
import platform
import subprocess
from importlib import metadata
from pathlib import Path

PACKAGES = (
    "war-env",
    "gymnasium",
    "numpy",
    "scipy",
    "matplotlib",
    "numba",
    "stable-baselines3",
    "sb3-contrib",
    "torch",
)
SOURCE_ROOT = Path(__file__).resolve().parents[2]
"""The folder holding the ``war_env`` package: a git checkout in development, site-packages when installed."""


def package_versions(packages: tuple[str, ...] = PACKAGES) -> dict[str, str | None]:
    versions: dict[str, str | None] = {"python": platform.python_version()}
    for package in packages:
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = None
    return versions


def git_state() -> tuple[str | None, bool | None]:
    """(commit, uncommitted changes?) of the checkout the code runs from; ``(None, None)`` for an
    installed package (a site-packages folder inside some other repository is not that repository)."""
    top = _git("rev-parse", "--show-toplevel")
    if top is None or Path(top).resolve() != SOURCE_ROOT:
        return None, None
    status = _git("status", "--porcelain", "--untracked-files=no")
    return _git("rev-parse", "HEAD"), None if status is None else bool(status)


def provenance() -> dict:
    """Git commit (and whether the tree had changes), Python and package versions, machine."""
    commit, dirty = git_state()
    return {
        "git_commit": commit,
        "git_dirty": dirty,
        "versions": package_versions(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
    }


def _git(*args: str) -> str | None:
    try:
        done = subprocess.run(["git", "-C", str(SOURCE_ROOT), *args], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None
