"""Write the README's quote of `make run`'s report from the shipped run in docs/runs/bench-default.

    .venv/bin/python docs/runs/quote.py          # after replacing results.json and run.json with a new run's

The quote is rendered by war_env.league.report.first_screen from results.json, and the sentence before it
takes its figures from results.json (the machine and the time a run took belong on a results page, not in the
README); tests/test_docs.py renders both again and compares, so the README cannot drift from the run it quotes.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from war_env.league.report import first_screen

ROOT = Path(__file__).resolve().parent.parent.parent
RUN = ROOT / "docs" / "runs" / "bench-default"
BEGIN, END = "<!-- quote: docs/runs/bench-default -->", "<!-- /quote -->"


def quote() -> str:
    """The README's text between the markers: where the figures come from, then the report's first screen."""
    results = json.loads((RUN / "results.json").read_text())
    league = results["config"]
    pairings = len(results["pairings"])
    intro = (
        f"The report of the run shipped in `docs/runs/bench-default` ({len(league['agents'])} agents x "
        f"{len(league['opponents'])} opponents x {league['rounds']} rounds = {pairings * league['rounds']:,} "
        f"rounds) opens with:"
    )
    return "\n".join([intro, ""] + [f"> {line}".rstrip() for line in first_screen(results)])


def write_readme() -> None:
    readme = ROOT / "README.md"
    text = readme.read_text()
    pattern = re.compile(re.escape(BEGIN) + ".*?" + re.escape(END), re.DOTALL)
    if not pattern.search(text):
        raise SystemExit(f"README.md has no {BEGIN} ... {END} block")
    readme.write_text(pattern.sub(lambda _: f"{BEGIN}\n{quote()}\n{END}", text))


if __name__ == "__main__":
    write_readme()
