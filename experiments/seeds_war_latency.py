"""Five seeds of fast_ppo on War-v0 and WarLatency-v0 (latency fixed:ticks=2, against human): each final model and
the oracle on the same 1,000 held-out paired rounds (seed 2,000,000); the regret per round to the oracle."""

import json
import sys
import time

from war_env.agents import make_agent
from war_env.core.bots import make_bot
from war_env.envs.games import game_config
from war_env.evaluation import play_rounds
from war_env.evaluation.summary import RoundColumns
from war_env.training.fast_ppo import run_fast_ppo

out = sys.argv[1]
budget = int(sys.argv[2])
rounds = 1000
for env_id in sys.argv[3].split(","):
    config = game_config(env_id, {})
    seeds = range(2_000_000, 2_000_000 + rounds)
    oracle = play_rounds(
        make_agent("oracle", config=config, opponent=make_bot("human")), "human", config, seeds, env_id=env_id
    )
    oracle_returns = RoundColumns.of_records(oracle, config).returns
    for seed in range(int(sys.argv[4]) if len(sys.argv) > 4 else 5):
        started = time.perf_counter()
        run = run_fast_ppo(
            f"{out}/{env_id}-s{seed}", budget, seed=seed, env_id=env_id, opponent="human", bench_rounds=0
        )
        records = play_rounds(make_agent(f"fast_ppo:{run.model}"), "human", config, seeds, env_id=env_id)
        columns = RoundColumns.of_records(records, config)
        gap = oracle_returns - columns.returns
        print(
            json.dumps(
                {
                    "env_id": env_id,
                    "seed": seed,
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
