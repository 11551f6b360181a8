"""The version a user installs is the newest one CHANGELOG.md describes, and the changelog reads in order."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

import gymnasium as gym

import war_env

CHANGELOG = Path(__file__).resolve().parent.parent / "CHANGELOG.md"
RELEASE = re.compile(r"^## \[(\d+)\.(\d+)\.(\d+)\] - (\d{4}-\d{2}-\d{2})$", re.MULTILINE)


def releases() -> list[tuple[tuple[int, int, int], date]]:
    """Each released version's heading in CHANGELOG.md, in the file's order: (major, minor, patch), its date."""
    return [
        ((int(major), int(minor), int(patch)), date.fromisoformat(day))
        for major, minor, patch, day in RELEASE.findall(CHANGELOG.read_text())
    ]


def test_the_package_version_is_the_newest_release_in_the_changelog():
    (newest, _), *_ = releases()
    assert war_env.__version__ == ".".join(map(str, newest)), "bump war_env.__version__ with CHANGELOG.md"


def test_the_changelog_opens_with_unreleased_then_goes_back_in_versions_and_dates():
    text = CHANGELOG.read_text()
    assert text.index("## [Unreleased]") < RELEASE.search(text).start()
    found = releases()
    assert len(found) >= 2
    for (newer, newer_day), (older, older_day) in zip(found, found[1:]):
        assert newer > older and newer_day >= older_day, (newer, older)


def test_every_registered_env_id_has_its_entry_in_the_changelog():
    text = CHANGELOG.read_text()
    registered = [env_id for env_id in gym.registry if env_id.startswith("War")]
    assert registered
    assert [env_id for env_id in registered if env_id not in text] == []
