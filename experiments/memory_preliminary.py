"""Issue 28, item 6 (preliminary): fast_ppo on the memory probe, MLP vs 4 stacked frames vs LSTM(64), 2 seeds, one run
at a time; then every final model scored by the suite's memory probe (0 = its best simple baseline, 1 = the oracle).
usage: python experiments/memory_preliminary.py OUT STEPS ROUNDS [ENV_ID]
(the first log, memory_preliminary.log, is of WarMemory-v0, the probe before its v1 redesign; ENV_ID defaults to
the probe's id now)"""

import json
import sys
import time

from war_env.league.suite import run_suite
from war_env.training.fast_ppo import run_fast_ppo

out, steps, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
env_id = sys.argv[4] if len(sys.argv) > 4 else "WarMemory-v1"
VARIANTS = {"mlp": {}, "stack4": {"frame_stack": 4}, "lstm64": {"lstm_hidden_size": 64}}
specs = {}
for seed in (0, 1):
    for name, overrides in VARIANTS.items():
        started = time.perf_counter()
        run = run_fast_ppo(
            f"{out}/{name}-s{seed}", steps, overrides=overrides, env_id=env_id, seed=seed, bench_rounds=0
        )
        progress = [json.loads(line) for line in open(f"{out}/{name}-s{seed}/progress.jsonl")]
        last = [p["mean_return"] for p in progress[-10:] if p["mean_return"] is not None]
        print(
            json.dumps(
                {
                    "variant": name,
                    "seed": seed,
                    "steps": run.model_card["timesteps"],
                    "train_seconds": run.model_card["train_wall_seconds"],
                    "steps_per_second": run.model_card["steps_per_second"],
                    "training_return_last_10_updates": round(sum(last) / len(last), 3) if last else None,
                }
            ),
            flush=True,
        )
        specs[(name, seed)] = f"fast_ppo:{run.model}"
suite = run_suite(agents=list(specs.values()), probes=["memory"], rounds=rounds, out=f"{out}/suite", progress=False)
(memory,) = suite.results["probes"]
for (name, seed), spec in specs.items():
    entry = memory["agents"][spec]
    print(
        json.dumps(
            {"variant": name, "seed": seed, "score": entry.get("score"), "mean_return": entry.get("mean_return")}
        ),
        flush=True,
    )
