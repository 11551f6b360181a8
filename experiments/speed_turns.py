"""War's vector env loop at N = 4096 timed alone and in turns with its peers (docs/results/speed.md).

`war-perf` times War in turns with CartPole so that a change of load falls on both; this shows what the turns
themselves cost War, whose state does not fit in L2. Medians of 9 runs of `war-perf`'s own loop (presses every
tick, 97 steps a run, reading the ended rounds' info), CPU time per step.

    python experiments/speed_turns.py
"""

import statistics
import time

from war_env.perf.workloads import WORKLOADS, vector_env_loop

STEPS, RUNS = 97, 9


def micros_per_step(loop) -> float:
    start = time.process_time()
    loop()
    return (time.process_time() - start) / STEPS * 1e6


def main() -> None:
    workload = WORKLOADS[1]
    war = vector_env_loop("War-v0", 4096, STEPS, workload)
    cartpole = vector_env_loop("CartPole-v1", 4096, STEPS, workload)
    quiet = vector_env_loop("War-v0", 4096, STEPS, workload, round_info=False)
    for label, peers in (
        ("alone", []),
        ("in turns with CartPole", [cartpole]),
        ("with CartPole and War", [cartpole, quiet]),
    ):
        times = []
        for _ in range(RUNS):
            times.append(micros_per_step(war))
            for peer in peers:
                peer()
        print(f"War's loop {label}: {statistics.median(times):.1f} us per step")
    print(f"CartPole's loop alone: {statistics.median(micros_per_step(cartpole) for _ in range(RUNS)):.1f} us per step")


if __name__ == "__main__":
    main()
