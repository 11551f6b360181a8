"""The reading probe's negative control scored against the reading probe's own oracle.

The suite of ``reading_no_card`` (``reading_no_card.py``) plays its models and its yardsticks with ``opponent_card``
hidden, so its ``oracle`` cannot read the card either (it plays as ``lead``): its regrets are not to the reading
probe's oracle. The rounds are the same deals (round i is ``env.reset(seed=i)`` in both probes, and hiding a field
changes no dynamics: the yardsticks that read no card return the same in both, which this script checks), so each
model's regret is the reading suite's oracle return minus the model's, per round, with the suite's bootstrap
interval, judged against the reading probe's line as the learners' table judges (the whole interval below it).

    python experiments/controls/score_no_card.py NO_CARD_PROBE_FOLDER READING_PROBE_FOLDER
"""

import sys
from pathlib import Path

import numpy as np

from war_env.core.probes import PROBES
from war_env.league.league import ORACLE
from war_env.league.rounds_file import ROUNDS_FILE, load_rounds
from war_env.league.run import read_league
from war_env.league.stats import bootstrap_mean
from war_env.training.probe_verdict import capability_line

sys.path.insert(0, str(Path(__file__).parent))
from reading_no_card import register  # noqa: E402  (the row beside this script)


def returns_of(folder: Path) -> dict[str, np.ndarray]:
    league = read_league(folder)
    pairings = load_rounds(folder / ROUNDS_FILE, league).pairings
    opponent = PROBES["reading"].opponent
    return {agent: np.asarray(pairings[(agent, opponent)].returns, dtype=float) for agent in league.agents}


def main(no_card: Path, reading: Path) -> None:
    register()
    hidden, shown = returns_of(no_card), returns_of(reading)
    for same in ("blind", "press_once"):  # they read no card: the same deals must give the same returns
        if not np.array_equal(hidden[same], shown[same]):
            raise SystemExit(f"{same} returns differ between the two suites: the rounds are not the same deals")
    oracle, line = shown[ORACLE], capability_line("reading")
    print(f"line: {line['yardstick']} {line['regret']:.3f}; oracle of the reading probe, {oracle.size} rounds")
    print(f"the no-card suite's own oracle: regret {np.mean(oracle - hidden[ORACLE]):.3f} (it cannot read the card)")
    print("| model | regret [95%] | below the line |")
    print("|---|---|---|")
    for agent, values in hidden.items():
        if values.size != oracle.size:
            raise SystemExit(f"{agent} played {values.size} rounds, the oracle {oracle.size}")
        regret = bootstrap_mean(oracle - values)
        below = "yes" if regret["high"] < line["regret"] else "no"
        print(f"| {agent} | {regret['value']:.3f} [{regret['low']:.3f}, {regret['high']:.3f}] | {below} |")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit("usage: score_no_card.py NO_CARD_PROBE_FOLDER READING_PROBE_FOLDER")
    main(Path(sys.argv[1]), Path(sys.argv[2]))
