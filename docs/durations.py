"""Write docs/results/test-durations.md from a JUnit XML of the whole suite: ``make test-durations`` runs both.

Usage: ``python docs/durations.py RESULTS.xml OUT.md [--wall SECONDS] [--note TEXT]``. The report lists the
slowest tests (setup, call and teardown together, as pytest's JUnit XML counts them), each with whether it is
marked ``slow`` (left out of ``make test-fast``), and every test module's count and seconds, all of it and the
part ``make test-fast`` runs. Which tests are slow is read from pytest itself (``--collect-only -m slow``), so
the report and the markers cannot disagree.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from collections import defaultdict
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SLOWEST = 30
"""Tests listed one by one, slowest first."""


def durations(xml_file: Path) -> dict[str, float]:
    """Test id (``tests/test_x.py::name[param]``) -> seconds, from pytest's JUnit XML."""
    times = {}
    for case in ElementTree.parse(xml_file).iter("testcase"):
        module = case.get("classname", "").split(".")
        path = "/".join(module[:2]) + ".py" if len(module) >= 2 else case.get("file", "")
        if len(module) > 2:  # a test class: classname is tests.test_x.Class
            path += "::" + "::".join(module[2:])
        times[f"{path}::{case.get('name')}"] = float(case.get("time", 0.0))
    return times


def slow_tests() -> set[str]:
    """The ids of the tests marked ``slow``, as pytest collects them here."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--collect-only",
            "-q",
            "-m",
            "slow",
            "-p",
            "no:cacheprovider",
            "--numprocesses=0",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    return {line.strip() for line in done.stdout.splitlines() if "::" in line}


def report(times: dict[str, float], slow: set[str], wall: float | None, note: str) -> str:
    ranked = sorted(times.items(), key=lambda item: -item[1])
    total = sum(times.values())
    lines = [
        "# Test durations",
        "",
        f"Written by `make test-durations` (docs/durations.py) on {date.today().isoformat()}: {len(times)} tests, "
        f"{total:.0f} s of test time in all"
        + (f", {wall:.0f} s of wall time" if wall is not None else "")
        + ". "
        + note,
        "",
        '`make test-fast` runs every test not marked `slow` (`-m "not slow"`); `make test` runs them all (CI).',
        "A test is marked `slow` when it takes seconds because of what it must do (train a model, build a wheel,",
        "run a documented command in a fresh process), never to hide a test that could be made quick.",
        "",
        f"## The {SLOWEST} slowest",
        "",
        "| # | seconds | slow | test |",
        "|---|---|---|---|",
    ]
    for rank, (test, seconds) in enumerate(ranked[:SLOWEST], start=1):
        lines.append(f"| {rank} | {seconds:.1f} | {'yes' if test in slow else ''} | `{test}` |")
    modules: dict[str, list[tuple[str, float]]] = defaultdict(list)
    for test, seconds in times.items():
        modules[test.split("::")[0]].append((test, seconds))
    lines += [
        "",
        "## By module",
        "",
        "| module | tests | seconds | fast tests | their seconds |",
        "|---|---|---|---|---|",
    ]
    for module, tests in sorted(modules.items(), key=lambda item: -sum(s for _, s in item[1])):
        fast = [seconds for test, seconds in tests if test not in slow]
        lines.append(f"| `{module}` | {len(tests)} | {sum(s for _, s in tests):.1f} | {len(fast)} | {sum(fast):.1f} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("xml", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--wall", type=float, help="the run's wall time in seconds")
    parser.add_argument("--note", default="", help="a sentence on the machine and its load")
    args = parser.parse_args(argv)
    if not args.xml.is_file():
        parser.error(f"{args.xml}: no such JUnit XML file (run the suite with --junitxml={args.xml} first)")
    args.out.write_text(report(durations(args.xml), slow_tests(), args.wall, args.note))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
