"""The Makefile says what it does on its long steps: building the virtual environment (once, minutes) is
announced with its size and time before it starts and stage by stage, and ``make run`` says what comes."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def planned(target: str, tmp_path: Path) -> list[str]:
    """The commands ``make TARGET`` would run on a fresh clone (a virtual environment not yet built)."""
    # Under `make test` the outer make's MAKELEVEL and MAKEFLAGS would make this one print "Entering directory".
    outside_make = {key: value for key, value in os.environ.items() if key not in ("MAKELEVEL", "MAKEFLAGS", "MFLAGS")}
    done = subprocess.run(
        ["make", "--no-print-directory", "--dry-run", "--always-make", target, f"VENV={tmp_path / 'venv'}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        env=outside_make,
    )
    return done.stdout.splitlines()


def test_building_the_venv_says_what_and_how_long_before_it_starts_and_each_stage(tmp_path):
    commands = planned("install", tmp_path)
    said = [line for line in commands if line.startswith("echo ")]
    first_work = next(i for i, line in enumerate(commands) if " -m venv " in line)
    assert commands[0].startswith("echo") and "about 2.5 GB" in commands[0] and "minutes" in commands[0]
    assert "[1/3]" in commands[first_work - 1]
    assert [s for line in said for s in ("[1/3]", "[2/3]", "[3/3]") if s in line] == ["[1/3]", "[2/3]", "[3/3]"]
    assert "is ready" in said[-1]


def test_make_run_says_what_comes_before_the_league_starts(tmp_path):
    commands = planned("run", tmp_path)
    bench = next(i for i, line in enumerate(commands) if line.endswith("/bin/war-bench"))
    assert commands[bench - 1].startswith("echo") and "report (a line per stage)" in commands[bench - 1]
