"""The latency table of docs/latency.md: several benchmark runs (one per latency) side by side, per move.

One row per (run, opponent, agent): the paired regret to the run's reference (the ``oracle`` against
bots), false starts and idle ticks per move of the agent (per draw it made itself, a ratio estimate with
its bootstrap interval over rounds) and the share of rounds it was taken over. Run it on finished run
folders: ``python -m war_env.league.latency_table runs/bench/lat0 runs/bench/lat2 ...``.

Every number is computed from the run's ``config.json`` and its rounds, read as a resume reads them (each
record checked against the league, every round of the project's agents replayed: ``rounds_file``);
``results.json`` is not read, so an edited one changes nothing. A folder that does not read is one line
naming the file (and the line of a refused record).
"""

from __future__ import annotations

import sys
from pathlib import Path

from war_env.league.report import fmt
from war_env.league.results import summarise
from war_env.league.rounds_file import ROUNDS_FILE, load_rounds
from war_env.league.run import read_league
from war_env.league.stats import bootstrap_ratio

HEADER = [
    "latency",
    "opponent",
    "agent",
    "regret to the reference per round",
    "false starts per move",
    "idle ticks per move",
    "taken over (share of rounds)",
]


def latency_table(run_dirs) -> str:
    """The markdown table of the runs in ``run_dirs`` (in that order)."""
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    for run_dir in map(Path, run_dirs):
        league = read_league(run_dir)
        rounds = load_rounds(run_dir / ROUNDS_FILE, league, replay=True).pairings
        if not all(columns.complete for columns in rounds.values()):
            raise ValueError(
                f"{run_dir / ROUNDS_FILE} does not hold every round of the league: finish the run first "
                f"(war-bench --resume {run_dir})"
            )
        results = summarise(league, rounds, reference=league.oracle_reference)
        agents = [entry["agent"] for entry in results["agents"]]  # best first
        for pairing in sorted(
            results["pairings"], key=lambda p: (league.opponents.index(p["opponent"]), agents.index(p["agent"]))
        ):
            mine = rounds[(pairing["agent"], pairing["opponent"])]
            regret = "reference" if pairing["agent"] == results["reference_agent"] else fmt(pairing["regret"])
            lines.append(
                "| "
                + " | ".join(
                    [
                        f"`{league.config.latency}`",
                        f"`{pairing['opponent']}`",
                        f"`{pairing['agent']}`",
                        regret,
                        fmt(bootstrap_ratio(mine.false_starts, mine.reaction_count), 2),
                        fmt(bootstrap_ratio(mine.idle_ticks, mine.reaction_count), 2),
                        fmt(pairing["agent_takeover"], 3),
                    ]
                )
                + " |"
            )
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    """Print the table; a folder that does not read is one line on stderr and exit status 1."""
    try:
        print(latency_table(argv))
    except (ValueError, OSError) as error:
        print(f"latency_table: error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
