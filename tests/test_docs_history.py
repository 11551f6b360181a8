"""What a user reads says what the project does now: no issue numbers, no quoted machine loads.

An issue number sends a reader to a tracker they cannot see, and "load average 4.7" in a guide or a docstring
is the circumstance of one measurement passed off as a property of the code. History (what changed and why)
goes to CHANGELOG.md; a measurement's machine and load are said once, on the results page that gives it. This
holds the README, the guides and reference pages under docs/, and the docstrings and comments of the installed
code (war_env, agents, scripts) to that, as tests/test_layout.py holds the imports to the layers.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

HISTORY = re.compile(
    r"\bissues?[ -]?\d+"  # issue 31, issue-28, issues 21
    r"|(?<![\w&/])#\d+\b"  # #31 (not an HTML entity such as &#39;, nor a URL fragment)
    r"|\bload(?: average)?(?: of| was)? ~?\d"  # load average 4.7, load 1.4
    r"|\b\d+-core machine",  # this 2-core machine
    re.IGNORECASE,
)
"""What a user page or a docstring must not say: an issue number, a quoted machine load."""

SOURCE_FOLDERS = ("war_env", "agents", "scripts")

NOT_USER_PAGES = ("experiments/", "results/", "runs/", "_build/", "test-durations.md", "changelog.md")
"""Under docs/: experiment records, results pages (which state each measurement's machine and load once) and the
changelog (history is its subject)."""
USER_PAGES = [ROOT / "README.md"] + sorted(
    page
    for page in (ROOT / "docs").rglob("*.md")
    if not any(part in page.relative_to(ROOT / "docs").as_posix() for part in NOT_USER_PAGES)
)

STILL_TO_CLEAN: set[str] = set()
"""Pages whose history is being moved out while this test is new; each fails until it is clean, then the
strict xfail fails and the page comes off this list."""


def offences(text: str) -> list[str]:
    """Each line that names an issue or quotes a machine load, as ``line N: 'what it says'``."""
    return [f"line {text.count(chr(10), 0, found.start()) + 1}: {found.group(0)!r}" for found in HISTORY.finditer(text)]


def docstrings_and_comments(path: Path) -> list[tuple[int, str]]:
    """(line, text) of every string statement (module, class, function and attribute docstrings) and every
    comment of a Python file."""
    source = path.read_text()
    found = [
        (node.lineno, node.value.value)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
    ]
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            found.append((token.start[0], token.string))
    return found


HISTORY_SAID = ("when issue 31 timed it", "(Issue 28)", "issue-30's targets", "see #46", "load average 4.7",
                "a load average of 10-12", "(load 1.4, 4 December)", "on this 2-core machine")  # fmt: skip
PRESENT_SAID = ("the load average as the rounds started", "&#39;", "names #ranked", "a 4-core laptop",
                "issues are welcome", "page.html#1a", "a payload 5 bytes long")  # fmt: skip


@pytest.mark.parametrize("said", HISTORY_SAID)
def test_the_pattern_catches_an_issue_number_or_a_machine_load(said):
    assert HISTORY.search(said)


@pytest.mark.parametrize("said", PRESENT_SAID)
def test_the_pattern_lets_the_present_through(said):
    assert not HISTORY.search(said)


STILL_NAMING_RETIRED_IDS: set[str] = set()
"""Pages that still name an env id no longer registered, while their history moves out (strict xfail, as above)."""


def user_pages(still_failing: set[str]) -> list:
    """Every user page, those in ``still_failing`` expected to fail (strictly: once clean, they must leave the set)."""
    return [
        pytest.param(page, marks=pytest.mark.xfail(strict=True, reason="history still to move out"))
        if page.relative_to(ROOT).as_posix() in still_failing
        else page
        for page in USER_PAGES
    ]


PAGE_ID = {"ids": lambda page: page.relative_to(ROOT).as_posix()}


@pytest.mark.parametrize("page", user_pages(STILL_TO_CLEAN), **PAGE_ID)
def test_a_user_page_names_no_issue_and_no_machine_load(page):
    found = offences(page.read_text())
    assert not found, f"{page.relative_to(ROOT)}: {found} (history goes to CHANGELOG.md)"


@pytest.mark.parametrize("page", user_pages(STILL_NAMING_RETIRED_IDS), **PAGE_ID)
def test_a_user_page_names_only_env_ids_that_are_registered(page):
    """A retired id (WarMemory-v0) sends a reader to ``gym.make`` and an error; its history is the changelog's."""
    import gymnasium as gym

    import war_env  # noqa: F401  (registers the env ids)

    named = set(re.findall(r"\bWar[A-Z]\w*-v\d+\b", page.read_text()))
    assert named <= set(gym.registry), f"{page.relative_to(ROOT)} names {sorted(named - set(gym.registry))}"


def test_the_pages_still_to_clean_are_pages():
    known = {page.relative_to(ROOT).as_posix() for page in USER_PAGES}
    assert STILL_TO_CLEAN | STILL_NAMING_RETIRED_IDS <= known, (STILL_TO_CLEAN | STILL_NAMING_RETIRED_IDS) - known


def test_the_docstrings_and_comments_of_the_code_name_no_issue_and_no_machine_load():
    found = [
        f"{path.relative_to(ROOT)}:{line + text.count(chr(10), 0, match.start())}: {match.group(0)!r}"
        for folder in SOURCE_FOLDERS
        for path in sorted((ROOT / folder).rglob("*.py"))
        for line, text in docstrings_and_comments(path)
        for match in HISTORY.finditer(text)
    ]
    assert not found, "history goes to CHANGELOG.md:\n" + "\n".join(found)
