"""How fast is War-v0, measured side by side with its peers in one run on one machine.

``war-perf`` prints one markdown table: each figure is the median of ``--repeats``
runs (wall clock; the median CPU time of the process is printed beside it, because on a shared
machine the wall clock also counts other people's work), and each ratio is War's figure over the
peer's, both measured in this run by the same loop:

* single env steps/s through ``gym.make``: War-v0 against CartPole-v1 and Blackjack-v1;
* ``WarVectorEnv`` env-steps/s at N = 1, 16, 256, 4096 against Gymnasium's numpy CartPole vector env
  (``gym.make_vec(..., vectorization_mode="vector_entry_point")``), with its default backend (the
  compiled numba kernels when numba is installed) and, when that is numba, again with
  ``backend="numpy"``; the kernels' compile time (or cache load) is measured apart and excluded
  from the throughput (every env takes one step before the clock starts);
* whole rounds and battles per second of the fast path (``war_env.fastpath.simulate``) against a
  plain pure-Python War of the same rules (``python_war_round`` below), both with human-bot timing;
* the benchmark league end to end (``war_env.league.run_league``, one worker, the default league);
* memory: the state of 4096 games, and its growth over a million vector env steps.
"""

from __future__ import annotations

import math
import os
import platform
import random
import statistics
import tempfile
import time
import tracemalloc
from bisect import bisect_right
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone

import gymnasium as gym
import numpy as np

import war_env  # noqa: F401  (registers War-v0)
from war_env.bots import make_bot
from war_env.fastpath import ReactionModel, play_cards, random_deals, simulate
from war_env.rules import WarConfig
from war_env.vector import WarVectorEnv

VECTOR_SIZES = (1, 16, 256, 4096)


@dataclass
class Timing:
    """Median wall and CPU seconds of repeated runs of one measurement, and the work it did."""

    work: float
    wall: float
    cpu: float

    @property
    def rate(self) -> float:
        return self.work / self.wall

    @property
    def cpu_rate(self) -> float:
        return self.work / self.cpu


def measure(run: Callable[[], float], repeats: int) -> Timing:
    """``run()`` does some work and returns how much (steps, rounds, ...); the medians of ``repeats``."""
    return measure_side_by_side([run], repeats)[0]


def measure_side_by_side(runs: list[Callable[[], float]], repeats: int) -> list[Timing]:
    """Several measurements taken in turns (a, b, a, b, ...), so that a change of load on a shared
    machine falls on all of them alike; the medians of ``repeats`` each."""
    walls = [[] for _ in runs]
    cpus = [[] for _ in runs]
    work = [0.0] * len(runs)
    for _ in range(repeats):
        for i, run in enumerate(runs):
            wall, cpu = time.perf_counter(), time.process_time()
            work[i] = run()
            walls[i].append(time.perf_counter() - wall)
            cpus[i].append(time.process_time() - cpu)
    return [Timing(w, statistics.median(wa), statistics.median(c)) for w, wa, c in zip(work, walls, cpus)]


# --- the loops ---------------------------------------------------------------------------------
def single_env_loop(env_id: str, steps: int, **kwargs) -> Callable[[], float]:
    """The plain Gymnasium loop: step with a fixed random action sequence, reset when a round ends."""
    env = gym.make(env_id, **kwargs)
    actions = np.random.default_rng(0).integers(0, 2, size=4096).tolist()

    def run() -> float:
        env.reset(seed=0)
        for i in range(steps):
            _, _, terminated, truncated, _ = env.step(actions[i & 4095])
            if terminated or truncated:
                env.reset()
        return steps

    return run


def vector_env_loop(env_id: str, num_envs: int, steps: int, **kwargs) -> Callable[[], float]:
    env = gym.make_vec(env_id, num_envs=num_envs, vectorization_mode="vector_entry_point", **kwargs)
    rng = np.random.default_rng(0)
    actions = [rng.integers(0, 2, size=num_envs) for _ in range(64)]
    env.reset(seed=0)
    env.step(actions[0])  # compiles (or loads) any JIT kernels outside the timed runs

    def run() -> float:
        for i in range(steps):
            env.step(actions[i & 63])
        return steps * num_envs

    return run


def fast_path_run(rounds: int, opponent: str, config: WarConfig, timing: bool = True,
                  backend: str = "auto") -> Callable[[], float]:
    """Whole rounds bot against bot; returns battles (rounds are ``rounds``)."""
    decks, starters, keys = random_deals(np.random.default_rng(0), rounds)
    models = (ReactionModel.of_bot(opponent, config, 0), ReactionModel.of_bot(opponent, config, 1))
    simulate(config, models, decks[:2], starters[:2], keys[:2], backend=backend)  # JIT kernels outside the timing

    def run() -> float:
        if timing:
            return float(simulate(config, models, decks, starters, keys, backend=backend).battles.sum())
        return float(play_cards(config, decks, starters, keys).battles.sum())

    return run


def python_war_round(rng: random.Random, cdfs, config: WarConfig) -> int:
    """A straightforward pure-Python round of War under the project's rules (deal, starter, battles,
    wars with face-down cards, the shortage rule, points, the battle limit, in-order pickup) with each
    move's reaction tick drawn from the bots' CDFs and takeover when it misses the timer. Returns the
    battles played (ticks and takeovers are counted too, as the fast path does)."""
    deck = list(range(52))
    rng.shuffle(deck)
    piles = (deque(deck[:26]), deque(deck[26:]))
    starter = rng.randrange(2)
    order = (starter, 1 - starter)
    turn_ticks = config.turn_ticks
    points, taken, ticks, battles = [0, 0], [False, False], 0, 0

    def move(seat: int) -> None:
        nonlocal ticks
        reaction = 0 if taken[seat] else bisect_right(cdfs[seat], rng.random())
        if reaction >= turn_ticks:
            taken[seat], reaction = True, turn_ticks - 1
        ticks += 1 + reaction

    while True:
        battles += 1
        pot, face_up = [], []
        for seat in order:
            move(seat)
            face_up.append(piles[seat].popleft())
            pot.append(face_up[-1])
        while face_up[0] >> 2 == face_up[1] >> 2:  # a war
            short = [len(pile) < config.cards_for_war for pile in piles]
            if short[0] or short[1]:
                if not (short[0] and short[1]):
                    winner = 1 if short[0] else 0
                    piles[winner].extend(pot)
                    piles[winner].extend(piles[1 - winner])
                    piles[1 - winner].clear()
                return battles
            face_up = []
            for seat in order:
                move(seat)
                for _ in range(config.war_face_down):
                    pot.append(piles[seat].popleft())
                face_up.append(piles[seat].popleft())
                pot.append(face_up[-1])
        winner = order[0] if face_up[0] >> 2 > face_up[1] >> 2 else order[1]
        piles[winner].extend(pot)
        points[winner] += 1
        if not piles[1 - winner] or points[winner] >= config.target_points or battles >= config.max_battles:
            return battles


def python_war_run(rounds: int, opponent: str, config: WarConfig) -> Callable[[], float]:
    cdf = make_bot(opponent).reaction_cdf(config)

    def run() -> float:
        rng = random.Random(0)
        return float(sum(python_war_round(rng, (cdf, cdf), config) for _ in range(rounds)))

    return run


def league_run(rounds: int) -> Callable[[], float]:
    """The benchmark's default league, one worker, into a fresh temporary folder; returns rounds."""
    from war_env.league import run_league as benchmark

    def run() -> float:
        with tempfile.TemporaryDirectory() as folder:
            result = benchmark(rounds=rounds, out=os.path.join(folder, "run"), workers=1, progress=False)
        return float(result.rounds_played)

    return run


def kernel_start_seconds() -> dict:
    """Seconds of the first compiled step in this process (numba compiles the kernels, or loads them
    from its on-disk cache), and which it was; empty without numba."""
    probe = WarVectorEnv(1, opponent="human")
    if probe.backend != "numba":
        return {}
    from war_env import vector_kernel

    probe.reset(seed=0)
    start = time.perf_counter()
    probe.step(np.ones(1, dtype=np.int64))
    seconds = time.perf_counter() - start
    cached = vector_kernel.step.stats.cache_hits
    return {"seconds": seconds, "from_cache": bool(sum(cached.values()))}


def memory_figures(num_envs: int = 4096, steps: int = 250) -> dict:
    """State bytes of ``num_envs`` games, and traced memory before/after ``steps`` batched steps."""
    env = WarVectorEnv(num_envs, opponent="human")
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    actions = [rng.integers(0, 2, size=num_envs) for _ in range(64)]
    for i in range(100):  # warm up: every buffer reaches its working size
        env.step(actions[i & 63])
    state_before = env.state_nbytes()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for i in range(steps):
        env.step(actions[i & 63])
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    return {"num_envs": num_envs, "state_bytes": state_before, "state_bytes_after": env.state_nbytes(),
            "env_steps": steps * num_envs, "traced_growth_bytes": after - before}


# --- the table ---------------------------------------------------------------------------------
@dataclass
class Row:
    what: str
    war: Timing
    peer_name: str = ""
    peer: Timing | None = None
    unit: str = "steps/s"

    @property
    def ratio(self) -> float | None:
        return None if self.peer is None else self.war.rate / self.peer.rate

    @property
    def cpu_ratio(self) -> float | None:
        return None if self.peer is None else self.war.cpu_rate / self.peer.cpu_rate


@dataclass
class PerfResult:
    rows: list[Row] = field(default_factory=list)
    memory: dict = field(default_factory=dict)
    machine: dict = field(default_factory=dict)
    kernel_start: dict = field(default_factory=dict)
    table: str = ""


def machine_info() -> dict:
    model = platform.processor()
    try:
        with open("/proc/cpuinfo") as info:
            model = next((line.split(":", 1)[1].strip() for line in info if line.startswith("model name")), model)
    except OSError:
        pass
    return {"date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), "cpu": model,
            "cores": os.cpu_count(), "python": platform.python_version(), "numpy": np.__version__,
            "gymnasium": gym.__version__, "load_before": os.getloadavg()}


def _rate(value: float) -> str:
    for scale, suffix in ((1e6, "M"), (1e3, "k")):
        if value >= scale:
            return f"{value / scale:.3g}{suffix}"
    return f"{value:.3g}"


def render(result: PerfResult) -> str:
    m = result.machine
    lines = [
        f"War-v0 speed, {m['date']}: {m['cpu']} ({m['cores']} cores), Python {m['python']}, numpy {m['numpy']}, "
        f"Gymnasium {m['gymnasium']}; load average {m['load_before'][0]:.1f} before, {m['load_after'][0]:.1f} after",
        "",
        "| measurement | War | peer | peer figure | ratio (wall) | ratio (CPU) | War per CPU-second |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in result.rows:
        peer = "" if row.peer is None else _rate(row.peer.rate)
        ratio = "" if row.ratio is None else f"{row.ratio:.2f}"
        cpu_ratio = "" if row.cpu_ratio is None else f"{row.cpu_ratio:.2f}"
        lines.append(f"| {row.what} | {_rate(row.war.rate)} {row.unit} | {row.peer_name} | {peer} | {ratio} | "
                     f"{cpu_ratio} | {_rate(row.war.cpu_rate)} |")
    start = result.kernel_start
    if start:
        how = "loaded from numba's on-disk cache" if start["from_cache"] else "compiled by numba (no cache yet)"
        lines += ["", f"Default backend: numba kernels ({how} in {start['seconds']:.1f} s on the vector env's first "
                      "step; excluded from every figure above: each env steps once, and the fast path runs two "
                      "rounds, before timing). Rows marked 'numpy backend' use backend=\"numpy\"."]
    mem = result.memory
    if mem:
        lines += ["", f"Memory: state of {mem['num_envs']} games {mem['state_bytes'] / 1e6:.2f} MB "
                      f"({mem['state_bytes_after'] / 1e6:.2f} MB after {mem['env_steps']:,} more env steps); "
                      f"traced allocations grew by {mem['traced_growth_bytes'] / 1e3:.1f} kB over those steps."]
    return "\n".join(lines)


def measure_all(repeats: int = 5, budget: float = 1.0, fast_rounds: int = 32768, league_rounds: int = 100,
         league: bool = True, memory: bool = True, print_table: bool = True) -> PerfResult:
    """Measure everything; ``budget`` scales the work of each measurement (1.0: about a second each)."""
    if repeats < 1 or not 0 < budget < math.inf or fast_rounds < 1 or league_rounds < 1:  # before minutes of work
        raise ValueError(f"repeats, fast_rounds and league_rounds must be >= 1 and budget a finite number > 0, got "
                         f"repeats={repeats!r}, budget={budget!r}, fast_rounds={fast_rounds!r}, "
                         f"league_rounds={league_rounds!r}")
    result = PerfResult(machine=machine_info(), kernel_start=kernel_start_seconds())
    steps = max(1000, int(60000 * budget))
    war, cartpole, blackjack = measure_side_by_side(
        [single_env_loop(env_id, steps) for env_id in ("War-v0", "CartPole-v1", "Blackjack-v1")], repeats)
    result.rows.append(Row("single env via gym.make", war, "CartPole-v1", cartpole))
    result.rows.append(Row("single env via gym.make", war, "Blackjack-v1", blackjack))
    for num_envs in VECTOR_SIZES:
        vector_steps = max(20, int(budget * 400000 / num_envs) if num_envs > 1 else int(20000 * budget))
        loops = [vector_env_loop(env_id, num_envs, vector_steps) for env_id in ("War-v0", "CartPole-v1")]
        if result.kernel_start:  # the default backend is numba: the numpy one measured beside it
            loops.append(vector_env_loop("War-v0", num_envs, vector_steps, backend="numpy"))
        war_vec, cartpole, *numpy_vec = measure_side_by_side(loops, repeats)
        result.rows.append(Row(f"vector env N={num_envs}", war_vec, "CartPole-v1 vector", cartpole, "env-steps/s"))
        if numpy_vec:
            numpy_vec = numpy_vec[0]
            result.rows.append(Row(f"vector env N={num_envs}, numpy backend", numpy_vec, "CartPole-v1 vector",
                                   cartpole, "env-steps/s"))
    config = WarConfig()
    python_rounds = max(200, int(3000 * budget))
    baseline = None
    for opponent in ("human", "instant"):
        fast, peer = measure_side_by_side(
            [fast_path_run(fast_rounds, opponent, config), python_war_run(python_rounds, opponent, config)], repeats)
        baseline = baseline or peer
        result.rows.append(Row(f"fast path battles, {opponent} vs {opponent}", fast, "pure-Python War", peer, "battles/s"))
        rounds_fast = Timing(fast_rounds, fast.wall, fast.cpu)
        rounds_peer = Timing(python_rounds, peer.wall, peer.cpu)
        result.rows.append(Row(f"fast path rounds, {opponent} vs {opponent}", rounds_fast, "pure-Python War",
                               rounds_peer, "rounds/s"))
        if result.kernel_start:  # the clock was the compiled kernel: the numpy one beside it
            numpy_fast, peer = measure_side_by_side(
                [fast_path_run(fast_rounds, opponent, config, backend="numpy"),
                 python_war_run(python_rounds, opponent, config)], repeats)
            result.rows.append(Row(f"fast path battles, {opponent} vs {opponent}, numpy backend", numpy_fast,
                                   "pure-Python War", peer, "battles/s"))
    cards = measure(fast_path_run(fast_rounds, "human", config, timing=False), repeats)
    result.rows.append(Row("fast path battles, cards only (no clock)", cards, "pure-Python War", baseline, "battles/s"))
    if league:
        result.rows.append(Row(f"benchmark league end to end ({league_rounds} rounds x 24 pairings)",
                               measure(league_run(league_rounds), max(1, min(repeats, 3))), unit="rounds/s"))
    if memory:
        result.memory = memory_figures()
    result.machine["load_after"] = os.getloadavg()
    result.machine["battles_per_round"] = baseline.work / python_rounds
    result.table = render(result)
    if print_table:
        print(result.table)
    return result
