"""Each run's training return per round in each eighth of its budget (the rounds that ended there, weighted by their
number), one line per seed: `python eighths.py TABLE_FOLDER PROBE LEARNER`.

Where every seed's policy plays the same timing, what is left to differ between the eighths is the rounds dealt: runs
whose sub-envs share their seeds (fast_ppo before commit 4d66b07: sub-env i of seed s seeded s + i) show the same
figures eighth by eighth, and the rise over the last eighth that `last_stretch` tests is the deals', not learning's."""

import json
import sys
from pathlib import Path

import numpy as np

folder, probe, learner = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
for run in sorted((folder / "runs" / probe).glob(f"{learner}-s*")):
    rows = [json.loads(line) for line in (run / "progress.jsonl").read_text().splitlines()]
    rows = [row for row in rows if row["mean_return"] is not None]
    steps, returns, rounds = (np.array([row[key] for row in rows]) for key in ("steps", "mean_return", "rounds"))
    budget = json.loads((run / "model_card.json").read_text())["timesteps"]  # config.json keeps a resumed run's first
    edges = np.linspace(0, budget, 9)
    eighths = [np.average(returns[inside], weights=rounds[inside])
               for inside in ((steps > low) & (steps <= high) for low, high in zip(edges[:-1], edges[1:]))]
    print(f"{run.name}: " + " ".join(f"{value:8.3f}" for value in eighths)
          + f"   last eighth minus the one before: {eighths[-1] - eighths[-2]:+.3f}")
