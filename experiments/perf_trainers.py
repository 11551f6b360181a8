"""war-perf's trainer rows alone (the same functions war-perf calls): python experiments/perf_trainers.py BUDGET
REPEATS."""

import os
import sys

from war_env.perf.harness import machine_info, measure_side_by_side
from war_env.perf.report import FAST_ROW, PerfResult, Row, _fast_targets, render
from war_env.perf.trainers import trainer_runs

budget = float(sys.argv[1])
repeats = int(sys.argv[2])
result = PerfResult(machine=machine_info())
for network, learners in trainer_runs(budget).items():
    timings = measure_side_by_side([run for _, run in learners], repeats)
    for (peer_name, _), peer in zip(learners[1:], timings[1:]):
        result.rows.append(Row(FAST_ROW.format(network=network), timings[0], peer_name, peer, "steps/s"))
result.machine["load_after"] = os.getloadavg()
result.targets = _fast_targets(result)
print(render(result))
