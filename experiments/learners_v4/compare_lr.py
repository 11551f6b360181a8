"""learners_v4 (learning rate 2.5e-4) against learners_v2 (1e-3), learner by learner and probe by probe, on the final
models' regrets (the same suite deals: 200 paired rounds, suite seed 0): the probability that a run at the smaller
rate loses less per round than a run at the table's (stratified bootstrap), the median regrets, and the runs that
show the capability. Run from the repository's root: python experiments/learners_v4/compare_lr.py [FOLDER]
(FOLDER: another table at 2.5e-4 with a learners.json, such as experiments/learners_v5; its fast learners are
compared, each at its own budget)."""

import json
import sys
from pathlib import Path

import numpy as np

from war_env.experiments.learners import LEARNERS
from war_env.league.report import fmt
from war_env.league.stats import probability_of_improvement

here = Path(__file__).parent
smaller = json.loads((Path(sys.argv[1]) if len(sys.argv) > 1 else here).joinpath("learners.json").read_text())
table = json.loads((here.parent / "learners_v2" / "learners.json").read_text())
print(
    "| learner | probe | P(2.5e-4's regret < 1e-3's) | median regret at 2.5e-4 | at 1e-3 | capability at 2.5e-4 "
    "| at 1e-3 | budget at 2.5e-4 | at 1e-3 |"
)
print("|---|---|---|---|---|---|---|---|---|")
for name, row in smaller["learners"].items():
    if not LEARNERS[name].fast:  # the learning rate is the fast learners'
        continue
    for probe, regrets in row["regrets"].items():
        before = table["learners"][name]["regrets"][probe]
        improvement = probability_of_improvement([-np.array(regrets)], [-np.array(before)])
        print(
            f"| {name} | {probe} | {fmt(improvement, 2)} | {np.median(regrets):.3f} | {np.median(before):.3f} "
            f"| {sum(row['capability'][probe])} of {len(regrets)} "
            f"| {sum(table['learners'][name]['capability'][probe])} of {len(before)} "
            f"| {smaller['budgets'][name]:,} | {table['budgets'][name]:,} |"
        )
