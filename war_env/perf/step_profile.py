"""Where a vector-env step's time goes at N = 4096: ``python -m war_env.scripts.step_profile [--num-envs N]``.

Why War-v0's vector env gains less on CartPole's at N = 4096 than at smaller sizes: this times the pieces of one
``WarVectorEnv.step`` separately, each the least CPU time per step of several blocks (CPU time: the machine is
shared), and prints them per step and per env: the whole step as ``war-perf`` drives it, the compiled
``stepping.step`` alone, the observation of every round (``stepping.observe``, written on the steps where a card was
laid), a floor (a compiled loop that only touches one cache line of every round's record), the Python assembly of
``info["round"]`` (rounds end on nearly every step at this size), the observation copy, and CartPole's vector step
beside them. With ``--ratios`` also ``war-perf``'s N = 4096 ratios to CartPole, with War built with
``round_info=False`` as a third env in the turns. docs/results/speed.md ("Where a step's time goes at N = 4096")
quotes its figures. Needs numba (the ``fast`` extra).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass

import gymnasium as gym
import numba
import numpy as np

import war_env  # noqa: F401  (registers War-v0)
from war_env.batched import stepping
from war_env.batched.borrow import borrowed
from war_env.perf.harness import measure_side_by_side
from war_env.perf.workloads import VECTOR_WARMUP_STEPS, WORKLOADS, vector_env_loop


@dataclass
class Piece:
    """One timed piece of a step: the least CPU microseconds per step over the blocks."""

    name: str
    micros: float


@numba.njit(cache=True)
def _touch_records(state, rewards):
    """The floor of any step: one read and write in the first cache line of every round's record."""
    state, rewards = borrowed((state, rewards))
    for g in range(state.shape[0]):
        r = state[g]
        r.steps += 0
        rewards[g] = r.opens[0] + r.due[1]


@numba.njit(cache=True)
def _observe_all(state, params, observations, masks):
    """``stepping.observe`` for every round: what the step writes for a round in which a card was laid."""
    state, params, observations, masks = borrowed((state, params, observations, masks))
    for g in range(state.shape[0]):
        stepping.observe(state[g], params[0], observations[g], masks[g])


def least_cpu_micros(call: Callable[[], object], steps: int, blocks: int = 7) -> float:
    best = float("inf")
    for _ in range(blocks):
        start = time.process_time()
        for _ in range(steps):
            call()
        best = min(best, (time.process_time() - start) / steps * 1e6)
    return best


def timed_inside_step(env, owner: object, method: str, presses: np.ndarray, steps: int) -> float:
    """CPU microseconds per step of ``owner.method`` timed inside ``WarVectorEnv.step``, between the Python
    that surrounds it (a piece runs slower there than in a loop of its own: the rest evicts its data)."""
    original, spent = getattr(owner, method), [0.0]

    def timed(*args):
        start = time.process_time()
        result = original(*args)
        spent[0] += time.process_time() - start
        return result

    setattr(owner, method, timed)
    try:
        for _ in range(steps):
            env.step(presses)
    finally:
        delattr(owner, method)
    return spent[0] / steps * 1e6


def profile(num_envs: int = 4096, steps: int = 200, warm_up: int = VECTOR_WARMUP_STEPS) -> tuple[list[Piece], float]:
    """The pieces of a step of ``num_envs`` sub-envs pressing on every tick, after ``warm_up`` steps (so
    that rounds end at their long-run rate); and the rounds that end per step."""
    env = gym.make_vec("War-v0", num_envs=num_envs, vectorization_mode="vector_entry_point")
    env.reset(seed=0)
    presses = np.ones(num_envs, dtype=np.int64)
    for _ in range(warm_up):
        env.step(presses)
    ended = sum(int(env.step(presses)[2].sum()) for _ in range(steps)) / steps
    engine, rounds = env._engine, env._engine.rounds
    rewards, terminated, truncated = np.empty(num_envs), np.empty(num_envs, bool), np.empty(num_envs, bool)
    outputs = (engine.observations, engine.masks, rewards, terminated, truncated)  # a StepOutputs, as BatchedSteps
    some_ended = np.zeros(num_envs, dtype=bool)
    some_ended[:: max(1, round(num_envs / max(ended, 1)))] = True  # as many as end on a step
    cartpole = gym.make_vec("CartPole-v1", num_envs=num_envs, vectorization_mode="vector_entry_point")
    cartpole.reset(seed=0)
    calls = {
        "WarVectorEnv.step (all of it)": lambda: env.step(presses),
        "stepping.step (the compiled kernel)": lambda: stepping.step(
            engine._arrays, engine._rules, presses, outputs, engine._pending, engine._latency
        ),
        "stepping.observe of every round (16 fields)": lambda: _observe_all(
            rounds.state, rounds.rules.params, engine.observations, engine.masks
        ),
        "floor: touch one cache line of every record": lambda: _touch_records(rounds.state, rewards),
        f"info['round'] with {some_ended.sum()} rounds ended": lambda: env._round_infos(some_ended),
        "observations.copy()": lambda: engine.observations.copy(),
        "CartPole-v1 vector step": lambda: cartpole.step(presses),
    }
    for call in calls.values():
        call()  # compiles or loads from numba's cache outside the timing
    pieces = [Piece(name, least_cpu_micros(call, steps)) for name, call in calls.items()]
    inside = [
        ("BatchedSteps.step (kernel + 3 output arrays), inside the step", engine, "step"),
        ("info['round'], inside the step", env, "_round_infos"),
    ]
    for place, (name, owner, method) in enumerate(inside, start=2):
        pieces.insert(place, Piece(name, min(timed_inside_step(env, owner, method, presses, steps) for _ in range(7))))
    return pieces, ended


@dataclass
class Ratio:
    """War's env-steps per CPU-second over CartPole's at one size and workload, ``war-perf``'s loop, in turns."""

    workload: str
    shipped: float
    without_round_info: float


def ratios(num_envs: int = 4096, steps: int = 97, repeats: int = 5) -> list[Ratio]:
    """``war-perf``'s N = 4096 rows (its loop, its 97 steps a run, medians of ``repeats``) with a third env in
    the turns: War with ``round_info=False``."""
    found = []
    for workload in WORKLOADS:
        loops = [
            vector_env_loop("War-v0", num_envs, steps, workload),
            vector_env_loop("War-v0", num_envs, steps, workload, round_info=False),
            vector_env_loop("CartPole-v1", num_envs, steps, workload),
        ]
        war, bare, cartpole = measure_side_by_side(loops, repeats)
        found.append(Ratio(workload, war.cpu_rate / cartpole.cpu_rate, bare.cpu_rate / cartpole.cpu_rate))
    return found


def profile_report(num_envs: int = 4096, steps: int = 200, with_ratios: bool = False) -> list[Piece]:
    """Print the pieces of a step (and with ``with_ratios`` War's ratios to CartPole) as markdown tables."""
    if num_envs < 1 or steps < 1:
        raise ValueError(f"--num-envs and --steps must be >= 1, got {num_envs} and {steps}")
    load = os.getloadavg()[0]
    pieces, ended = profile(num_envs, steps)
    print(
        f"N={num_envs}, presses every tick; {ended:.1f} rounds end per step; load average "
        f"{load:.1f} before, {os.getloadavg()[0]:.1f} after (least CPU time of 7 blocks of {steps} steps)"
    )
    print("| piece | us per step | ns per env |\n|---|---|---|")
    for piece in pieces:
        print(f"| {piece.name} | {piece.micros:.1f} | {piece.micros * 1e3 / num_envs:.1f} |")
    if with_ratios:
        load = os.getloadavg()[0]
        found = ratios(num_envs)
        print(
            f"\nWar over CartPole, env-steps per CPU-second (war-perf's loop, medians of 5; load average {load:.1f} "
            f"before, {os.getloadavg()[0]:.1f} after)"
        )
        print("| workload | War-v0 | War-v0, round_info=False |\n|---|---|---|")
        for ratio in found:
            print(f"| {ratio.workload} | {ratio.shipped:.2f} | {ratio.without_round_info:.2f} |")
    return pieces
