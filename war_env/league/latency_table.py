"""The latency table of docs/latency.md: several benchmark runs (one per latency) side by side, per move.

One row per (run, opponent, agent): the paired regret to the run's reference (the ``oracle`` against
bots), false starts and idle ticks per move of the agent (per draw it made itself, a ratio estimate with
its bootstrap interval over rounds) and the share of rounds it was taken over. Run it on finished run
folders: ``python -m war_env.league.latency_table runs/bench/lat0 runs/bench/lat2 ...``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from war_env.core.rules import WarConfig
from war_env.league.report import fmt
from war_env.league.rounds_file import ROUNDS_FILE, load_rounds
from war_env.league.run import read_league
from war_env.league.stats import bootstrap_ratio

HEADER = ["latency", "opponent", "agent", "regret to the reference per round", "false starts per move",
          "idle ticks per move", "taken over (share of rounds)"]


def latency_table(run_dirs) -> str:
    """The markdown table of the runs in ``run_dirs`` (in that order). Every run's rounds are read as a
    resume reads them: each record checked against the run's league (``rounds_file.load_rounds``)."""
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    for run_dir in map(Path, run_dirs):
        results = json.loads((run_dir / "results.json").read_text())
        config = WarConfig(**results["rules"])
        rounds = load_rounds(run_dir / ROUNDS_FILE, read_league(run_dir)).pairings
        agents = [entry["agent"] for entry in results["agents"]]
        pairings = sorted(results["pairings"], key=lambda p: (results["config"]["opponents"].index(p["opponent"]),
                                                              agents.index(p["agent"])))
        for pairing in pairings:
            mine = rounds[(pairing["agent"], pairing["opponent"])]
            regret = ("reference" if pairing["agent"] == results["reference_agent"] else fmt(pairing["regret"]))
            lines.append("| " + " | ".join([
                f"`{config.latency}`", f"`{pairing['opponent']}`", f"`{pairing['agent']}`", regret,
                fmt(bootstrap_ratio(mine.false_starts, mine.reaction_count), 2),
                fmt(bootstrap_ratio(mine.idle_ticks, mine.reaction_count), 2),
                fmt(pairing["agent_takeover"], 3),
            ]) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(latency_table(sys.argv[1:]))
