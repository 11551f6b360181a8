"""The level-1 controls of anticipation and inference scored against the probe's own oracle and judged against a line.

The suites of ``level1_variants.py``'s rows play their yardsticks under the row's change, so their ``oracle`` is not
the probe's: this scores every model of the FOLDER suite (a variant's, or the probe's own) against the oracle of the
PROBE_FOLDER suite (the probe's, on the same deals: round i is ``env.reset(seed=i)`` in both, which the agents
that the change does not touch check: they must return the same in both), per round, with the suite's bootstrap
interval, and judges it against LINE: the exact regret of that yardstick at PROBE (``press_once``, ``blind``,
``lead``) or ``table`` (the learners' table's line, ``capability_line``). A model passes when the whole interval lies
below the line.

    python experiments/controls/score_level1.py FOLDER PROBE_FOLDER PROBE LINE SAME_AGENT...
"""

import sys
from pathlib import Path

import numpy as np

from war_env.core.probes import probe_named
from war_env.evaluation.probe_gaps import exact_gaps
from war_env.league.league import ORACLE
from war_env.league.rounds_file import ROUNDS_FILE, load_rounds
from war_env.league.run import read_league
from war_env.league.stats import bootstrap_mean
from war_env.training.probe_verdict import capability_line

sys.path.insert(0, str(Path(__file__).parent))
from level1_variants import register  # noqa: E402  (the rows beside this script)


def returns_of(folder: Path) -> dict[str, np.ndarray]:
    league = read_league(folder)
    (opponent,) = league.opponents
    pairings = load_rounds(folder / ROUNDS_FILE, league).pairings
    return {agent: np.asarray(pairings[(agent, opponent)].returns, dtype=float) for agent in league.agents}


def line_of(probe: str, name: str) -> tuple[str, float]:
    if name == "table":
        line = capability_line(probe)
        return f"the table's line ({line['yardstick']})", line["regret"]
    return name, exact_gaps(probe_named(probe)).gap(name)


def main(folder: Path, reference: Path, probe: str, line_name: str, same: list[str]) -> None:
    register()
    played, shown = returns_of(folder), returns_of(reference)
    for agent in same:  # agents the change does not touch: the same deals must give the same returns
        if not np.array_equal(played[agent], shown[agent]):
            raise SystemExit(f"{agent} returns differ between the two suites: the rounds are not the same deals")
    oracle = shown[ORACLE]
    yardstick, line = line_of(probe, line_name)
    print(f"line: {yardstick} {line:.3f} at {probe}; the oracle of {reference.name}, {oracle.size} rounds")
    print(f"checked the same in both suites: {', '.join(same)}")
    print("| agent | regret [95%] to the probe's oracle | below the line |")
    print("|---|---|---|")
    for agent, values in played.items():
        if values.size != oracle.size:
            raise SystemExit(f"{agent} played {values.size} rounds, the oracle {oracle.size}")
        regret = bootstrap_mean(oracle - values)
        below = "yes" if regret["high"] < line else "no"
        print(f"| {agent} | {regret['value']:.3f} [{regret['low']:.3f}, {regret['high']:.3f}] | {below} |")


if __name__ == "__main__":
    if len(sys.argv) < 5:
        raise SystemExit("usage: score_level1.py FOLDER PROBE_FOLDER PROBE LINE SAME_AGENT...")
    main(Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5:])
