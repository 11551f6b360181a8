"""How fast War-v0 is, side by side with its peers in one run on one machine (``war-perf``).

Every figure is the median of ``repeats`` runs, and each War figure is measured in turns with its peer
(War, peer, War, peer, ...) by the same loop, so that a change of load on a shared machine falls on
both; the table shows wall-clock rates, the ratio of War's figure to the peer's in wall and in CPU
time (the process's own CPU seconds: steadier on a busy machine), and War's rate per CPU-second.

* single env steps/s through ``gym.make``: War-v0 against CartPole-v1 and Blackjack-v1;
* the vector env at N = 1, 16, 256, 4096 against Gymnasium's numpy CartPole vector env
  (``gym.make_vec(..., vectorization_mode="vector_entry_point")``), with two workloads, the same loop
  for both envs: agents that draw as their turn opens (the action is observation column 0: ``prompt``)
  and agents that press on every tick (``eager``); and at N = 256 without numba (``backend="reference"``);
* the fast path (``war_env.evaluation.fastpath.simulate``: whole rounds, cards first, then the clock) against the
  same rounds played tick by tick through War-v0 (``evaluation.play_round``, the scalar reference), and
  its card game alone against ``engine.Game``'s;
* PPO (the shipped config) on the batched env through the SB3 adapter against SB3's ``DummyVecEnv``
  over War-v0 envs: frames/s, and the share of a training step spent in the env (the ``train`` extra);
* learning steps/s of the fast PPO trainer against SB3's PPO (MLP) and sb3-contrib's RecurrentPPO (LSTM), same env,
  network and one thread, each peer at the fast trainer's settings and at its shipped config
  (``war_env.perf.trainers``);
* the benchmark league end to end (one worker, the default league);
* how long a new process takes to import the engine and make its first compiled calls (numba loads them
  from its on-disk cache; ``cold=True`` also measures them compiled from an empty cache);
* memory: the state of 4096 games, before and after ten million env steps.

``budget`` scales every section; without numba the sections the engine speeds up do ``REFERENCE_SHARE`` of
their work (256 games and 500,000 env steps for the memory figures at budget 1).

Nothing compiled is timed: every loop takes a first step (or a first batch) before its clock starts.
"""

from __future__ import annotations

import math
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from war_env import batched
from war_env.core.rules import WarConfig
from war_env.perf.harness import Timing, machine_info, measure, measure_side_by_side
from war_env.perf.report import FAST_ROW, WITHOUT_ROUND_INFO, PerfResult, Row, render, targets, vector_row_name
from war_env.perf.workloads import (
    MEMORY_ENV_STEPS,
    REFERENCE_SHARE,
    VECTOR_SIZES,
    WORKLOADS,
    cards_only_run,
    engine_start,
    fast_path_run,
    league_run,
    memory_figures,
    reference_cards_run,
    single_env_loop,
    tick_by_tick_run,
    training_run,
    vector_env_loop,
    vector_run_steps,
)
from war_env.support.extras import has_extra, install_hint


def measure_all(
    repeats: int = 5,
    budget: float = 1.0,
    fast_rounds: int = 32768,
    league_rounds: int = 100,
    league: bool = True,
    memory: bool = True,
    training: bool = True,
    cold: bool = False,
    print_table: bool = True,
    progress: Callable[[str], None] | None = None,
) -> PerfResult:
    """Measure everything; ``budget`` scales the work of each measurement (1.0: about a second each).

    A full run takes minutes. ``progress`` is told each section as it starts (``started: NAME``), as it ends
    (``finished: NAME in S s``) and each one skipped (``skipped: WHY``); ``progress_to_stderr`` prints them.
    """
    say = progress or (lambda message: None)
    if repeats < 1 or not 0 < budget < math.inf or fast_rounds < 1 or league_rounds < 1:  # before minutes of work
        raise ValueError(
            f"repeats, fast_rounds and league_rounds must be >= 1 and budget a finite number > 0, got "
            f"repeats={repeats!r}, budget={budget!r}, fast_rounds={fast_rounds!r}, "
            f"league_rounds={league_rounds!r}"
        )
    compiled = batched.available()
    engine_budget = budget if compiled else budget * REFERENCE_SHARE  # the work of the sections the engine speeds up
    result = PerfResult(machine=machine_info())

    def skip(section: str) -> None:
        result.skipped.append(section)
        say(f"skipped: {section}")

    @contextmanager
    def section(name: str) -> Iterator[None]:
        say(f"started: {name}")
        started = time.perf_counter()
        yield
        say(f"finished: {name} in {time.perf_counter() - started:.1f} s")

    if compiled:
        with section("the engine's start in a new process"):
            result.start = engine_start()
        if cold:
            with section("the engine's start with an empty numba cache (compiling: minutes)"):
                with tempfile.TemporaryDirectory() as empty:
                    result.cold_start = engine_start(empty)
    else:
        skip(f"the engine's start and the fast path: numba is not installed ({install_hint('fast')})")
    with section("the single env against CartPole and Blackjack"):
        _single_env(result, repeats, budget)
    for num_envs in VECTOR_SIZES:
        with section(f"the vector env at N={num_envs} against CartPole's"):
            _vector_env(result, repeats, num_envs, engine_budget, compiled)
    if compiled:  # the same step without the per-round info (docs/results/speed.md: a third of a step at N = 4096)
        with section("the vector env at N=4096 without info['round']"):
            _vector_env_without_round_info(result, repeats, engine_budget)
        with section("the vector env at N=256 without numba"):
            _vector_env_without_numba(result, repeats, budget)
        with section("the fast path against War-v0 tick by tick"):
            _fast_path(result, repeats, budget, fast_rounds)
    if training and not has_extra("train"):
        skip(f'PPO training frames: the "train" extra is not installed ({install_hint("train")})')
    elif training:
        with section("PPO training on the batched env against DummyVecEnv"):
            _training_frames(result, repeats, budget)
        with section("building the fast PPO trainer's and SB3's learners"):
            from war_env.perf.trainers import trainer_runs

            learners_by_network = trainer_runs(budget)
        for network, learners in learners_by_network.items():
            with section(f"the fast PPO trainer ({network}) against SB3"):
                timings = measure_side_by_side([run for _, run in learners], max(1, min(repeats, 3)))
                for (peer_name, _), peer in zip(learners[1:], timings[1:]):
                    result.rows.append(Row(FAST_ROW.format(network=network), timings[0], peer_name, peer, "steps/s"))
    if league:
        rounds = max(1, round(league_rounds * engine_budget))
        with section(f"the benchmark league ({rounds} rounds per pairing)"):
            timing = measure(league_run(rounds), max(1, min(repeats, 3)))
            result.rows.append(
                Row(
                    f"benchmark league end to end ({rounds} rounds x {timing.work / rounds:.0f} pairings)",
                    timing,
                    unit="rounds/s",
                )
            )
    if memory:
        num_envs = 4096 if compiled else 256
        with section(f"memory of {num_envs} games"):
            result.memory = memory_figures(
                num_envs,
                max(num_envs, int(MEMORY_ENV_STEPS * engine_budget)),
                warm_up=max(10, int(500 * min(1.0, budget))),
            )
    result.machine["load_after"] = os.getloadavg()
    result.targets = targets(result)
    result.table = render(result)
    if print_table:
        print(result.table)
    return result


def _single_env(result: PerfResult, repeats: int, budget: float) -> None:
    steps = max(1000, int(60000 * budget))
    war, cartpole, blackjack = measure_side_by_side(
        [single_env_loop(env_id, steps) for env_id in ("War-v0", "CartPole-v1", "Blackjack-v1")], repeats
    )
    result.rows.append(Row("single env via gym.make", war, "CartPole-v1", cartpole))
    result.rows.append(Row("single env via gym.make", war, "Blackjack-v1", blackjack))


def _vector_env(result: PerfResult, repeats: int, num_envs: int, engine_budget: float, compiled: bool) -> None:
    label = "" if compiled else "reference (no numba)"  # the vector env's default backend here
    vector_steps = vector_run_steps(num_envs, engine_budget)
    for workload in WORKLOADS:
        war_vec, cartpole = measure_side_by_side(
            [vector_env_loop(env_id, num_envs, vector_steps, workload) for env_id in ("War-v0", "CartPole-v1")],
            repeats,
        )
        result.rows.append(
            Row(vector_row_name(num_envs, workload, label), war_vec, "CartPole-v1 vector", cartpole, "env-steps/s")
        )


def _vector_env_without_round_info(result: PerfResult, repeats: int, engine_budget: float) -> None:
    steps = vector_run_steps(4096, engine_budget)
    for workload in WORKLOADS:
        quiet, cartpole = measure_side_by_side(
            [
                vector_env_loop("War-v0", 4096, steps, workload, round_info=False),
                vector_env_loop("CartPole-v1", 4096, steps, workload),
            ],
            repeats,
        )
        result.rows.append(
            Row(
                vector_row_name(4096, workload, WITHOUT_ROUND_INFO),
                quiet,
                "CartPole-v1 vector",
                cartpole,
                "env-steps/s",
            )
        )


def _vector_env_without_numba(result: PerfResult, repeats: int, budget: float) -> None:
    """What the same env does without numba."""
    steps = max(5, int(budget * 4000 / 256))
    reference, cartpole = measure_side_by_side(
        [
            vector_env_loop("War-v0", 256, steps, WORKLOADS[0], warmup=1, backend="reference"),
            vector_env_loop("CartPole-v1", 256, steps, WORKLOADS[0], warmup=1),
        ],
        repeats,
    )
    name = vector_row_name(256, WORKLOADS[0], "reference (no numba)")
    result.rows.append(Row(name, reference, "CartPole-v1 vector", cartpole, "env-steps/s"))


def _fast_path(result: PerfResult, repeats: int, budget: float, fast_rounds: int) -> None:
    config = WarConfig()
    peer_rounds = max(2, int(20 * budget))
    for opponent in ("human", "instant"):
        fast, peer = measure_side_by_side(
            [fast_path_run(fast_rounds, opponent, config), tick_by_tick_run(peer_rounds, opponent, config)], repeats
        )
        name = f"{opponent} vs {opponent}"
        result.rows.append(Row(f"fast path battles, {name}", fast, "War-v0 tick by tick", peer, "battles/s"))
        result.rows.append(
            Row(
                f"fast path rounds, {name}",
                Timing(fast_rounds, fast.wall, fast.cpu),
                "War-v0 tick by tick",
                Timing(peer_rounds, peer.wall, peer.cpu),
                "rounds/s",
            )
        )
    cards, peer = measure_side_by_side(
        [cards_only_run(fast_rounds, config), reference_cards_run(max(20, int(2000 * budget)), config)], repeats
    )
    result.rows.append(Row("fast path battles, cards only (no clock)", cards, "engine.Game", peer, "battles/s"))


def _training_frames(result: PerfResult, repeats: int, budget: float) -> None:
    timesteps = max(1000, int(10000 * budget))
    runs = {name: training_run(name, timesteps) for name in ("batched", "dummy")}
    ours, theirs = measure_side_by_side([run.run for run in runs.values()], max(1, min(repeats, 3)))
    result.rows.append(
        Row("PPO training frames (shipped config), batched env", ours, "DummyVecEnv over War-v0", theirs, "frames/s")
    )
    result.env_share = {f"{name} env": run.env_share for name, run in runs.items()}
