"""What ``war-perf`` times: each loop built ready to run (compiled, warmed up), returning the work it did.

A loop's first step (or first batch) is taken when it is built, so nothing compiled is timed.
"""

from __future__ import annotations

import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass, field

import gymnasium as gym
import numpy as np

import war_env  # noqa: F401  (registers War-v0)
from war_env.agents import make_agent
from war_env.core.bots import ReactionModel
from war_env.core.cards import deal_from_permutation
from war_env.core.engine import Game
from war_env.core.round_info import RoundInfo
from war_env.core.rules import WarConfig
from war_env.envs.vector import WarVectorEnv
from war_env.envs.war import WarEnv
from war_env.evaluation import play_round
from war_env.evaluation.fastpath import random_deals, simulate

VECTOR_SIZES = (1, 16, 256, 4096)
WORKLOADS = ("draws as its turn opens", "presses every tick")
"""The vector env's workloads: the ``prompt`` agent's action (observation column 0, ``can_draw``) and
the ``eager`` agent's (1 on every tick); for CartPole the same loop reads the same column."""
REFERENCE_SHARE = 0.05
"""Without numba the vector env, the memory figures and the league run on the scalar reference, 20 to 100
times slower than the engine: they do this share of their work, so every section still honours ``budget``."""
ROUND_FIELDS = RoundInfo.field_names()
VECTOR_WARMUP_STEPS = 3_000
"""Steps before a vector env loop is timed: from a reset, War's rounds end at their long-run rate (about six a
step at N = 4096) after some 2,500 steps; before, fewer rounds end and the info of ended rounds costs less."""
MEMORY_ENV_STEPS = 10_000_000
"""Env steps of the memory figures at ``budget`` 1 with the engine."""


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


def vector_env_loop(
    env_id: str, num_envs: int, steps: int, workload: str, warmup: int = VECTOR_WARMUP_STEPS, **kwargs
) -> Callable[[], float]:
    """``steps`` steps of a vector env under ``workload`` (one of ``WORKLOADS``), reading the info of the
    rounds that ended as a training loop does, timed after ``warmup`` steps; returns env-steps."""
    env = gym.make_vec(env_id, num_envs=num_envs, vectorization_mode="vector_entry_point", **kwargs)
    presses = np.ones(num_envs, dtype=np.int64)
    prompt = workload == WORKLOADS[0]
    observations, _ = env.reset(seed=0)
    last = {}

    def run(steps: int = steps) -> float:
        nonlocal observations
        for _ in range(steps):
            actions = (observations[:, 0] > 0.5).astype(np.int64) if prompt else presses
            observations, _, _, _, infos = env.step(actions)
            if "round" in infos:  # War's rounds that ended, every field (CartPole's info is empty)
                ended = np.flatnonzero(infos["_round"])
                last["rounds"] = {name: infos["round"][name][ended] for name in ROUND_FIELDS}
        return steps * num_envs

    run(warmup)  # compiles (or loads) the engine outside the timed runs
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
    read +5 to +120 kB from run to run: the last step's info (the reaction ticks of the rounds
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


def vector_run_steps(num_envs: int, budget: float) -> int:
    """Steps of one timed run of a vector env of ``num_envs``: about ``budget`` seconds' worth."""
    return max(5, int(budget * 400000 / num_envs) if num_envs > 1 else int(20000 * budget))
