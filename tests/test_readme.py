"""The README is a newcomer's first page: short, in Gymnasium's order, and every figure in it comes from the code.

tests/test_docs.py runs its example and checks its quote of the benchmark's report against the shipped run; this
checks the rest: where things are, the environments' table, and the rules' figures in its opening paragraph.
"""

from __future__ import annotations

import re
from pathlib import Path

import gymnasium as gym
import pytest

import war_env  # noqa: F401  (registers the env ids)
from war_env import WarConfig
from war_env.core.probes import PROBES

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
LINES = README.splitlines()
FIRST_SCREENS = "\n".join(LINES[:60])
"""What a newcomer reads first: install, the first example, every env id and the benchmark must be in it."""
REGISTERED = [env_id for env_id in gym.registry if env_id.startswith("War")]
ENV_ROW = re.compile(r"^\| `(?P<env_id>War\w*-v\d+)` \| (?P<size>\d+) floats \| (?P<latency>[^|]+?) \|", re.MULTILINE)


def test_the_readme_is_short():
    assert len(LINES) <= 120, f"README.md has {len(LINES)} lines: move the detail to a docs page"


@pytest.mark.parametrize(
    "what, text",
    [
        ("the install", "pip install ."),
        ("the two commands", "make run"),
        ("the first example", "<!-- runnable -->\n```python"),
        ("the benchmark", "## The benchmark"),
    ],
)
def test_a_newcomer_finds_it_in_the_first_sixty_lines(what, text):
    assert text in FIRST_SCREENS, f"{what} ({text!r}) is not in README.md's first 60 lines"


@pytest.mark.parametrize("env_id", REGISTERED)
def test_every_registered_env_id_is_in_the_first_sixty_lines(env_id):
    assert f"`{env_id}`" in FIRST_SCREENS


def test_the_readme_names_no_env_id_that_is_not_registered():
    named = set(re.findall(r"\bWar[A-Z]\w*-v\d+\b", README))
    assert named - set(REGISTERED) == set()


def test_the_environments_table_gives_each_env_its_observation_size_and_latency():
    rows = {row["env_id"]: row for row in ENV_ROW.finditer(README)}
    assert sorted(rows) == sorted(REGISTERED)
    for env_id, row in rows.items():
        env = gym.make(env_id)
        latency = env.unwrapped.config.latency
        assert int(row["size"]) == env.observation_space.shape[0], env_id
        assert row["latency"] == ("none" if latency == WarConfig().latency else f"`{latency}`"), env_id
        env.close()


def test_the_opening_paragraph_states_the_rules_defaults():
    rules = WarConfig()
    opening = " ".join(README.split("\n\n")[1].split())
    assert f"every tick of a {rules.tick_seconds:g} s clock" in opening
    assert f"whose {rules.turn_seconds:g} s turn timer runs out" in opening


NUMBER_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")


def test_the_counts_and_versions_it_states_are_the_projects():
    python = re.search(r'^requires-python = ">=(3\.\d+)"$', (ROOT / "pyproject.toml").read_text(), re.MULTILINE)
    assert f"(Python {python.group(1)} or later)" in README
    assert f"The {NUMBER_WORDS[len(PROBES)]} probes are" in README
