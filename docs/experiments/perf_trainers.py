"""war-perf's trainer rows alone (the same functions war-perf calls): python docs/experiments/perf_trainers.py BUDGET REPEATS."""

from war_env.perf import measure_side_by_side, PerfResult, Row, FAST_ROW, _fast_targets, render, machine_info
from war_env.perf.trainers import trainer_runs
import os, sys

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
