"""The five-seed checks of War-v0 and WarLatency-v0 (docs/results/training.md, experiments/seeds_war_latency.py) with
fast_ppo's practitioner's settings: each final model and the oracle on the same 1,000 held-out paired rounds (seed
2,000,000) against ``human``; the regret per round to the oracle.

    python experiments/learner_setup/war_checks.py OUT STEPS ENV_IDS SEEDS KEY=VALUE...
"""

import json
import sys
import time

from war_env.agents import make_agent
from war_env.core.bots import make_bot
from war_env.core.specs import parse_assignments
from war_env.envs.games import game_config
from war_env.evaluation import play_rounds
from war_env.evaluation.summary import RoundColumns
from war_env.training.fast_ppo import run_fast_ppo

out, budget, env_ids, seeds = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(","), int(sys.argv[4])
overrides = parse_assignments(sys.argv[5:], "settings")
rounds = 1000
for env_id in env_ids:
    config = game_config(env_id, {})
    deals = range(2_000_000, 2_000_000 + rounds)
    oracle = play_rounds(
        make_agent("oracle", config=config, opponent=make_bot("human")), "human", config, deals, env_id=env_id
    )
    oracle_returns = RoundColumns.of_records(oracle, config).returns
    for seed in range(seeds):
        started = time.perf_counter()
        run = run_fast_ppo(
            f"{out}/{env_id}-s{seed}",
            budget,
            overrides=overrides,
            seed=seed,
            env_id=env_id,
            opponent="human",
            bench_rounds=0,
        )
        records = play_rounds(make_agent(f"fast_ppo:{run.model}"), "human", config, deals, env_id=env_id)
        columns = RoundColumns.of_records(records, config)
        gap = oracle_returns - columns.returns
        print(
            json.dumps(
                {
                    "env_id": env_id,
                    "seed": seed,
                    "settings": overrides,
                    "steps": run.model_card["timesteps"],
                    "train_seconds": run.model_card["train_wall_seconds"],
                    "steps_per_second": run.model_card["steps_per_second"],
                    "regret_to_oracle": round(float(gap.mean()), 4),
                    "takeovers": int(columns.takeover[:, 0].sum()),
                    "false_starts_per_100": round(100 * float(columns.false_starts.sum()) / rounds, 2),
                }
            ),
            flush=True,
        )
