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

import gc
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone

import gymnasium as gym
import numpy as np

import war_env  # noqa: F401  (registers War-v0)
from war_env import batched
from war_env.agents import make_agent
from war_env.core.bots import ReactionModel
from war_env.core.cards import deal_from_permutation
from war_env.core.engine import Game
from war_env.core.rules import WarConfig
from war_env.envs.vector import WarVectorEnv
from war_env.envs.war import WarEnv
from war_env.evaluation import play_round
from war_env.evaluation.fastpath import random_deals, simulate
from war_env.support.extras import has_extra, install_hint

VECTOR_SIZES = (1, 16, 256, 4096)
WORKLOADS = ("draws as its turn opens", "presses every tick")
"""The vector env's workloads: the ``prompt`` agent's action (observation column 0, ``can_draw``) and
the ``eager`` agent's (1 on every tick); for CartPole the same loop reads the same column."""
REFERENCE_SHARE = 0.05
"""Without numba the vector env, the memory figures and the league run on the scalar reference, 20 to 100
times slower than the engine: they do this share of their work, so every section still honours ``budget``."""
MEMORY_ENV_STEPS = 10_000_000
"""Env steps of the memory figures at ``budget`` 1 with the engine."""
TARGET_ENV_STEPS_N256 = 5e6
TARGET_START_SECONDS = 3.0
TARGET_FAST_MLP_RATIO = 15.0
TARGET_FAST_MLP_RATE = 150_000
TARGET_FAST_LSTM_RATIO = 10.0
FAST_ROW = "fast_ppo {network} learning"
"""The rows of the fast trainer (``{network}``: MLP or LSTM), one per peer."""


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


def vector_env_loop(env_id: str, num_envs: int, steps: int, workload: str, **kwargs) -> Callable[[], float]:
    """``steps`` steps of a vector env under ``workload`` (one of ``WORKLOADS``); returns env-steps."""
    env = gym.make_vec(env_id, num_envs=num_envs, vectorization_mode="vector_entry_point", **kwargs)
    presses = np.ones(num_envs, dtype=np.int64)
    prompt = workload == WORKLOADS[0]
    observations, _ = env.reset(seed=0)
    observations, *_ = env.step(presses)  # compiles (or loads) the engine outside the timed runs

    def run() -> float:
        nonlocal observations
        for _ in range(steps):
            actions = (observations[:, 0] > 0.5).astype(np.int64) if prompt else presses
            observations, *_ = env.step(actions)
        return steps * num_envs

    return run


def fast_path_run(rounds: int, opponent: str, config: WarConfig) -> Callable[[], float]:
    """Whole rounds, ``opponent``'s reaction model at both seats; returns battles."""
    decks, starters, keys = random_deals(np.random.default_rng(0), rounds)
    models = (ReactionModel.of_bot(opponent, config, 0), ReactionModel.of_bot(opponent, config, 1))
    simulate(config, models, decks[:2], starters[:2], keys[:2])  # compiled outside the timed runs

    def run() -> float:
        return float(simulate(config, models, decks, starters, keys).column("battles").sum())

    return run


def tick_by_tick_run(rounds: int, opponent: str, config: WarConfig) -> Callable[[], float]:
    """The peer of the fast path: the same kind of rounds played through War-v0 one tick at a time
    (the agent is the opponent's reaction model, ``bot:SPEC``), as ``evaluation.play_round`` plays
    rounds the fast path does not cover; returns battles."""
    env = WarEnv(opponent=opponent, config=config)
    agent = make_agent(f"bot:{opponent}", config=config)

    def run() -> float:
        return float(sum(play_round(env, agent, seed).battles for seed in range(rounds)))

    return run


def cards_only_run(rounds: int, config: WarConfig) -> Callable[[], float]:
    """The fast path's card game alone (no clock); returns battles."""
    from war_env.batched.rounds import BatchedRounds

    decks, starters, keys = random_deals(np.random.default_rng(0), rounds)
    models = (ReactionModel.of_bot("instant", config, 0), ReactionModel.of_bot("instant", config, 1))

    def run() -> float:
        batch = BatchedRounds(config, rounds, models)
        batch.start(decks, starters, keys)
        batch.play_cards()
        return float(batch.table(np.arange(rounds)).column("battles").sum())

    run()  # compiled outside the timed runs
    return run


def reference_cards_run(rounds: int, config: WarConfig) -> Callable[[], float]:
    """The scalar reference's card game alone: ``engine.Game`` drawn in turn to the end; returns battles."""
    decks, starters, keys = random_deals(np.random.default_rng(0), rounds)
    deals = [(deal_from_permutation(deck), int(starter), int(key)) for deck, starter, key in zip(decks, starters, keys)]

    def run() -> float:
        battles = 0
        for piles, starter, key in deals:
            battles += Game(config, piles, starter, key).play_to_end().battles
        return float(battles)

    return run


def league_run(rounds: int) -> Callable[[], float]:
    """The benchmark's default league, one worker, into a fresh temporary folder; returns rounds."""
    from war_env.league import run_league as benchmark

    def run() -> float:
        with tempfile.TemporaryDirectory() as folder:
            result = benchmark(rounds=rounds, out=os.path.join(folder, "run"), workers=1, progress=False)
        return float(result.rounds_played)

    return run


@dataclass
class TrainingRun:
    """A PPO model on one kind of training env, and the seconds its last run spent inside the env."""

    run: Callable[[], float]
    env_seconds: list[float] = field(default_factory=list)
    wall_seconds: list[float] = field(default_factory=list)

    @property
    def env_share(self) -> float:
        return statistics.median(env / wall for env, wall in zip(self.env_seconds, self.wall_seconds))


def training_run(vec_env: str, timesteps: int) -> TrainingRun:
    """PPO with the shipped config (its hyperparameters, its ``n_envs``) against the ``human`` bot on
    ``war_env.training.envs.make_vec(vec_env=...)``; each run learns ``timesteps`` frames."""
    from stable_baselines3.common.vec_env import VecEnvWrapper

    from war_env.agents.algorithms import build_model
    from war_env.support.threads import single_threaded_torch
    from war_env.training.config import load_config, shipped_config_file
    from war_env.training.envs import make_vec

    single_threaded_torch()
    config = load_config(shipped_config_file("ppo"))

    class EnvClock(VecEnvWrapper):
        """Adds up the seconds spent in the wrapped env's reset and step."""

        seconds = 0.0

        def reset(self):
            start = time.perf_counter()
            observations = self.venv.reset()
            EnvClock.seconds += time.perf_counter() - start
            return observations

        def step_wait(self):
            start = time.perf_counter()
            result = self.venv.step_wait()
            EnvClock.seconds += time.perf_counter() - start
            return result

    env = EnvClock(
        make_vec(config.train_env, "human", config.n_envs, seed=0, vec_env=vec_env, observation=config.observation)
    )
    model = build_model("ppo", env, config.policy_kwargs, config.hyperparameters, seed=0, verbose=0)
    model.learn(total_timesteps=config.hyperparameters["n_steps"] * config.n_envs)  # warm up outside the timing
    training = TrainingRun(lambda: 0.0)

    def run() -> float:
        EnvClock.seconds = 0.0
        start = time.perf_counter()
        model.learn(total_timesteps=timesteps, reset_num_timesteps=True)
        training.wall_seconds.append(time.perf_counter() - start)
        training.env_seconds.append(EnvClock.seconds)
        return float(model.num_timesteps)

    training.run = run
    return training


_START_PROBE = """
import json, time
start = time.perf_counter()
import numpy as np
from war_env.envs.vector import WarVectorEnv
env = WarVectorEnv(2, opponent="human")
env.reset(seed=0)
env.step(np.ones(2, dtype=np.int64))
vector = time.perf_counter() - start
from war_env.batched import stepping
from war_env.evaluation.fastpath import play_reaction_time_rounds
from war_env.agents import make_agent
play_reaction_time_rounds(make_agent("prompt"), "human", env.config, [1, 2])
total = time.perf_counter() - start
print(json.dumps({"vector_seconds": vector, "seconds": total,
                  "from_cache": bool(sum(stepping.step.stats.cache_hits.values()))}))
"""


def engine_start(cache_dir: str | None = None) -> dict:
    """A new process imports the engine and makes its first vector env step and fast path call: the
    seconds, and whether numba loaded the step from its cache. ``cache_dir``: numba's cache folder
    (an empty one measures the compile); default: numba's own (``__pycache__`` beside the sources)."""
    environment = dict(os.environ)
    if cache_dir is not None:
        environment["NUMBA_CACHE_DIR"] = cache_dir
    done = subprocess.run(
        [sys.executable, "-c", _START_PROBE], capture_output=True, text=True, env=environment, timeout=1800
    )
    if done.returncode != 0:
        raise RuntimeError(f"the engine start probe failed: {done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def memory_figures(num_envs: int = 4096, env_steps: int = MEMORY_ENV_STEPS, warm_up: int = 500) -> dict:
    """State bytes of ``num_envs`` games, and traced memory, before and after ``env_steps`` env steps.
    Each reading (``_traced_bytes``) holds only the last step's observations alive (a fixed size) and
    follows a full garbage collection, so the difference is what the env kept. Without both, the figure
    read +5 to +120 kB from run to run (issue 31): the last step's info (the reaction ticks of the rounds
    that ended on that step) and the interpreter's free lists, which a full collection empties."""
    env = WarVectorEnv(num_envs, opponent="human")
    observations, _ = env.reset(seed=0)
    tracemalloc.start()
    warmed, rounds_ended = 0, False
    # Every buffer reaches its working size: the reaction logs, and the info's blank rows, made when the
    # first round ends (at --budget 0.05 the warm-up once ended before any round did: +459 kB "growth").
    while warmed < warm_up or not rounds_ended:
        observations, ended = _prompt_step(env, observations)
        warmed, rounds_ended = warmed + 1, rounds_ended or ended
    state_before = env.state_nbytes()
    before = _traced_bytes()
    steps = max(1, env_steps // num_envs)
    for _ in range(steps):
        observations, _ = _prompt_step(env, observations)
    after = _traced_bytes()
    tracemalloc.stop()
    return {
        "num_envs": num_envs,
        "state_bytes": state_before,
        "state_bytes_after": env.state_nbytes(),
        "env_steps": steps * num_envs,
        "traced_growth_bytes": after - before,
        "backend": env.backend,
    }


def _prompt_step(env: WarVectorEnv, observations: np.ndarray) -> tuple[np.ndarray, bool]:
    """One step of every game drawing as its turn opens: the observations, and whether a round ended (the
    rest of the step, its info above all, is let go here)."""
    observations, _, terminated, truncated, _ = env.step((observations[:, 0] > 0.5).astype(np.int64))
    return observations, bool((terminated | truncated).any())


def _traced_bytes() -> int:
    """Memory traced now that the collector has run (which also empties the free lists of floats, tuples and
    the like: memory the interpreter keeps for reuse, not memory the env holds)."""
    gc.collect()
    return tracemalloc.get_traced_memory()[0]


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
    start: dict = field(default_factory=dict)
    cold_start: dict = field(default_factory=dict)
    env_share: dict = field(default_factory=dict)
    targets: list[tuple[str, str, bool]] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    """Sections asked for and not measured, each with why (a missing extra) and how to install it."""
    table: str = ""

    def row(self, what: str) -> Row | None:
        return next((row for row in self.rows if row.what == what), None)


def machine_info() -> dict:
    model = platform.processor()
    try:
        with open("/proc/cpuinfo") as info:
            model = next((line.split(":", 1)[1].strip() for line in info if line.startswith("model name")), model)
    except OSError:
        pass
    return {
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu": model,
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "gymnasium": gym.__version__,
        "numba": _version("numba"),
        "load_before": os.getloadavg(),
    }


def _version(module: str) -> str:
    try:
        from importlib.metadata import version

        return version(module)
    except Exception:  # not installed
        return "not installed"


def _rate(value: float) -> str:
    for scale, suffix in ((1e6, "M"), (1e3, "k")):
        if value >= scale:
            return f"{value / scale:.3g}{suffix}"
    return f"{value:.3g}"


def _vector_steps(num_envs: int, budget: float) -> int:
    """Steps of one timed run of a vector env of ``num_envs``: about ``budget`` seconds' worth."""
    return max(5, int(budget * 400000 / num_envs) if num_envs > 1 else int(20000 * budget))


WITHOUT_ROUND_INFO = "round_info=False"
"""The vector env leaving ``info["round"]`` out (``WarVectorEnv(round_info=False)``): the row of its own step."""


def vector_row_name(num_envs: int, workload: str, variant: str = "") -> str:
    """The row of a vector env measurement: ``variant`` a backend (``reference (no numba)``) or
    ``WITHOUT_ROUND_INFO``."""
    if variant == WITHOUT_ROUND_INFO:
        return f"vector env N={num_envs}, {workload}, {variant}"
    return f"vector env N={num_envs}, {workload}" + (f", {variant} backend" if variant else "")


def targets(result: PerfResult) -> list[tuple[str, str, bool]]:
    """Each speed target of the project: what it asks, what was measured here, and whether it is met."""
    found = []
    ratios = [(workload, result.row(vector_row_name(4096, workload))) for workload in WORKLOADS]
    if all(row is not None for _, row in ratios):
        measured = "; ".join(f"{workload}: {row.ratio:.2f} wall, {row.cpu_ratio:.2f} CPU" for workload, row in ratios)
        found.append(
            (
                "vector env at N=4096 at least as fast as CartPole's vector env (ratio >= 1)",
                measured,
                all(min(row.ratio, row.cpu_ratio) >= 1 for _, row in ratios),
            )
        )
    quiet = [(workload, result.row(vector_row_name(4096, workload, WITHOUT_ROUND_INFO))) for workload in WORKLOADS]
    if all(row is not None for _, row in quiet):
        measured = "; ".join(f"{workload}: {row.ratio:.2f} wall, {row.cpu_ratio:.2f} CPU" for workload, row in quiet)
        found.append(
            (
                "vector env at N=4096 with round_info=False at least 1.2x CartPole's (issue 30)",
                measured,
                all(min(row.ratio, row.cpu_ratio) >= 1.2 for _, row in quiet),
            )
        )
    rates = [(workload, result.row(vector_row_name(256, workload))) for workload in WORKLOADS]
    if all(row is not None for _, row in rates):
        measured = "; ".join(
            f"{workload}: {_rate(row.war.rate)} wall, {_rate(row.war.cpu_rate)} per CPU-second"
            for workload, row in rates
        )
        found.append(
            (
                "vector env at N=256: at least 5M env-steps/s",
                measured,
                all(row.war.rate >= TARGET_ENV_STEPS_N256 for _, row in rates),
            )
        )
    if result.start:
        found.append(
            (
                f"first compiled calls of a new process (from numba's cache) under {TARGET_START_SECONDS:.0f} s",
                f"{result.start['seconds']:.2f} s ({'from the cache' if result.start['from_cache'] else 'compiled'})",
                result.start["from_cache"] and result.start["seconds"] < TARGET_START_SECONDS,
            )
        )
    found += _fast_targets(result)
    mem = result.memory
    if mem:
        flat = mem["state_bytes_after"] == mem["state_bytes"] and abs(mem["traced_growth_bytes"]) < 64e3
        found.append(
            (
                "memory per game flat over 10M env steps (fewer at --budget < 1 or without numba)",
                f"{mem['state_bytes'] / mem['num_envs']:.0f} bytes per game before, "
                f"{mem['state_bytes_after'] / mem['num_envs']:.0f} after {mem['env_steps']:,} env steps; traced "
                f"allocations {mem['traced_growth_bytes'] / 1e3:+.1f} kB",
                flat,
            )
        )
    return found


def _fast_targets(result: PerfResult) -> list[tuple[str, str, bool]]:
    """The fast trainer's targets (issue 28), judged against the SB3 peers at their shipped configs (what
    ``war-train`` runs); the ratio at the fast trainer's own settings is shown beside them."""
    found = []
    for network, ratio, rate in (
        ("MLP", TARGET_FAST_MLP_RATIO, TARGET_FAST_MLP_RATE),
        ("LSTM", TARGET_FAST_LSTM_RATIO, 0),
    ):
        rows = [row for row in result.rows if row.what == FAST_ROW.format(network=network)]
        if len(rows) != 2:
            continue
        same, shipped = rows
        measured = (
            f"{shipped.ratio:.1f}x wall, {shipped.cpu_ratio:.1f}x CPU against {shipped.peer_name}; "
            f"{same.ratio:.1f}x wall, {same.cpu_ratio:.1f}x CPU against {same.peer_name}; "
            f"{_rate(shipped.war.rate)} steps/s wall, {_rate(shipped.war.cpu_rate)} per CPU-second"
        )
        peer = "SB3's PPO" if network == "MLP" else "sb3-contrib's RecurrentPPO"
        wanted = f"fast_ppo {network} at least {ratio:.0f}x {peer} (shipped config)"
        met = min(shipped.ratio, shipped.cpu_ratio) >= ratio
        if rate:
            wanted += f" and {rate / 1e3:.0f}k steps per CPU-second"
            met = met and shipped.war.cpu_rate >= rate
        found.append((wanted, measured, met))
    return found


def render(result: PerfResult) -> str:
    m = result.machine
    lines = [
        f"War-v0 speed, {m['date']}: {m['cpu']} ({m['cores']} cores), Python {m['python']}, numpy {m['numpy']}, "
        f"Gymnasium {m['gymnasium']}, numba {m['numba']}; load average {m['load_before'][0]:.1f} before, "
        f"{m['load_after'][0]:.1f} after",
        "",
        "| measurement | War | peer | peer figure | ratio (wall) | ratio (CPU) | War per CPU-second |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in result.rows:
        peer = "" if row.peer is None else _rate(row.peer.rate)
        ratio = "" if row.ratio is None else f"{row.ratio:.2f}"
        cpu_ratio = "" if row.cpu_ratio is None else f"{row.cpu_ratio:.2f}"
        lines.append(
            f"| {row.what} | {_rate(row.war.rate)} {row.unit} | {row.peer_name} | {peer} | {ratio} | "
            f"{cpu_ratio} | {_rate(row.war.cpu_rate)} |"
        )
    if result.env_share:
        lines += [
            "",
            "Share of PPO's training time spent in the env: "
            + ", ".join(f"{name} {share:.0%}" for name, share in result.env_share.items())
            + ".",
        ]
    start = result.start
    if start:
        how = "loaded from numba's on-disk cache" if start["from_cache"] else "compiled by numba (no cache yet)"
        lines += [
            "",
            f"Engine start: a new process imports the engine and makes its first vector env step in "
            f"{start['vector_seconds']:.2f} s, its first fast-path rounds {start['seconds']:.2f} s after it "
            f"started ({how}); excluded from every figure above.",
        ]
    if result.cold_start:
        lines += [
            f"With an empty cache (numba compiles every kernel): {result.cold_start['vector_seconds']:.1f} s to "
            f"the first vector env step, {result.cold_start['seconds']:.1f} s in all."
        ]
    mem = result.memory
    if mem:
        lines += [
            "",
            f"Memory: state of {mem['num_envs']} games {mem['state_bytes'] / 1e6:.2f} MB "
            f"({mem['state_bytes_after'] / 1e6:.2f} MB after {mem['env_steps']:,} more env steps); "
            f"traced allocations grew by {mem['traced_growth_bytes'] / 1e3:.1f} kB over those steps.",
        ]
    if result.skipped:
        lines += [""] + [f"Not measured: {section}." for section in result.skipped]
    if result.targets:
        lines += ["", "| target | measured here | met |", "|---|---|---|"]
        lines += [
            f"| {target} | {measured} | {'yes' if met else '**no**'} |" for target, measured, met in result.targets
        ]
    return "\n".join(lines)


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
    ``progress`` is told each section as it starts and each one skipped (``progress_to_stderr``); a full run
    takes minutes."""
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
        say(f"skipping {section}")

    if compiled:
        say("the engine's start in a new process")
        result.start = engine_start()
        if cold:
            say("the engine's start with an empty numba cache (compiling: minutes)")
            with tempfile.TemporaryDirectory() as empty:
                result.cold_start = engine_start(empty)
    else:
        skip(f"the engine's start and the fast path: numba is not installed ({install_hint('fast')})")
    say("the single env against CartPole and Blackjack")
    steps = max(1000, int(60000 * budget))
    war, cartpole, blackjack = measure_side_by_side(
        [single_env_loop(env_id, steps) for env_id in ("War-v0", "CartPole-v1", "Blackjack-v1")], repeats
    )
    result.rows.append(Row("single env via gym.make", war, "CartPole-v1", cartpole))
    result.rows.append(Row("single env via gym.make", war, "Blackjack-v1", blackjack))
    label = "" if compiled else "reference (no numba)"  # the vector env's default backend here
    for num_envs in VECTOR_SIZES:
        vector_steps = _vector_steps(num_envs, engine_budget)
        say(f"the vector env at N={num_envs} against CartPole's")
        for workload in WORKLOADS:
            war_vec, cartpole = measure_side_by_side(
                [vector_env_loop(env_id, num_envs, vector_steps, workload) for env_id in ("War-v0", "CartPole-v1")],
                repeats,
            )
            result.rows.append(
                Row(vector_row_name(num_envs, workload, label), war_vec, "CartPole-v1 vector", cartpole, "env-steps/s")
            )
    if compiled:  # the same step without the per-round info (docs/speed.md: a third of a step at N = 4096)
        say("the vector env at N=4096 without info['round']")
        for workload in WORKLOADS:
            quiet, cartpole = measure_side_by_side(
                [
                    vector_env_loop("War-v0", 4096, _vector_steps(4096, engine_budget), workload, round_info=False),
                    vector_env_loop("CartPole-v1", 4096, _vector_steps(4096, engine_budget), workload),
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
    if compiled:  # what the same env does without numba
        say("the vector env at N=256 without numba")
        reference_steps = max(5, int(budget * 4000 / 256))
        reference, cartpole = measure_side_by_side(
            [
                vector_env_loop("War-v0", 256, reference_steps, WORKLOADS[0], backend="reference"),
                vector_env_loop("CartPole-v1", 256, reference_steps, WORKLOADS[0]),
            ],
            repeats,
        )
        result.rows.append(
            Row(
                vector_row_name(256, WORKLOADS[0], "reference (no numba)"),
                reference,
                "CartPole-v1 vector",
                cartpole,
                "env-steps/s",
            )
        )
    config = WarConfig()
    if compiled:
        say("the fast path against War-v0 tick by tick")
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
    if training and not has_extra("train"):
        skip(f'PPO training frames: the "train" extra is not installed ({install_hint("train")})')
    elif training:
        say("PPO training on the batched env against DummyVecEnv")
        timesteps = max(1000, int(10000 * budget))
        runs = {name: training_run(name, timesteps) for name in ("batched", "dummy")}
        ours, theirs = measure_side_by_side([run.run for run in runs.values()], max(1, min(repeats, 3)))
        result.rows.append(
            Row(
                "PPO training frames (shipped config), batched env", ours, "DummyVecEnv over War-v0", theirs, "frames/s"
            )
        )
        result.env_share = {f"{name} env": run.env_share for name, run in runs.items()}
        from war_env.perf.trainers import trainer_runs

        for network, learners in trainer_runs(budget).items():
            timings = measure_side_by_side([run for _, run in learners], max(1, min(repeats, 3)))
            for (peer_name, _), peer in zip(learners[1:], timings[1:]):
                result.rows.append(Row(FAST_ROW.format(network=network), timings[0], peer_name, peer, "steps/s"))
    if league:
        rounds = max(1, round(league_rounds * engine_budget))
        say(f"the benchmark league ({rounds} rounds per pairing)")
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
        say(f"memory of {num_envs} games")
        result.memory = memory_figures(
            num_envs, max(num_envs, int(MEMORY_ENV_STEPS * engine_budget)), warm_up=max(10, int(500 * min(1.0, budget)))
        )
    result.machine["load_after"] = os.getloadavg()
    result.targets = targets(result)
    result.table = render(result)
    if print_table:
        print(result.table)
    return result


def progress_to_stderr() -> Callable[[str], None]:
    """A ``progress`` for ``measure_all`` that prints one line per section to stderr, with the seconds since
    it was made (the table goes to stdout, so ``war-perf > table.md`` still shows them)."""
    started = time.perf_counter()

    def say(message: str) -> None:
        print(f"war-perf: {time.perf_counter() - started:.0f} s, {message}", file=sys.stderr, flush=True)

    return say
