"""Each run's training return per round in each eighth of its budget, as `last_stretch` bins it (the rounds that ended
there, weighted by their number), one line per seed: `python eighths.py TABLE_FOLDER PROBE LEARNER`.

Where every seed's policy plays the same timing, what is left to differ between the eighths is the rounds dealt: runs
whose sub-envs share their seeds (fast_ppo before commit 4d66b07: sub-env i of seed s seeded s + i) show the same
figures eighth by eighth, and the rise over the last eighth that `last_stretch` tests is the deals', not learning's."""

import sys
from pathlib import Path

from war_env.experiments.learners import LAST_STRETCH, _binned_runs

folder, probe, learner = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
seeds = sorted(int(run.name.rpartition("-s")[2]) for run in (folder / "runs" / probe).glob(f"{learner}-s*"))
for *_, per_seed in _binned_runs(folder, [learner], [probe], seeds, LAST_STRETCH):
    for seed, eighths in zip(seeds, per_seed):
        print(
            f"{learner}-s{seed}: "
            + " ".join(f"{value:8.3f}" for value in eighths)
            + f"   last eighth minus the one before: {eighths[-1] - eighths[-2]:+.3f}"
        )
