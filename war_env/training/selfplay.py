"""Self-play: one Stable-Baselines3 policy trained for both seats of War.

How it works. Every seat sees the same 16-float observation from its own side (``war_env.core.observation``),
so one network can play either seat. The learner plays seat 0 of War-v0; the opponent at seat 1 is a
*frozen copy* of the learner (War-v0 takes any object with ``act(observation)`` as its opponent),
replaced by a fresh copy every ``refresh_every`` steps, at the first rollout boundary after them (an
on-policy model changes only between rollouts, so a shorter interval refreshes once per rollout). Each copy is a
snapshot saved with
``agents.model_files.save_model`` and loaded back with ``load_sb3_agent`` (weights only), so the run
folder keeps, in order, every opponent the learner met: ``opponent_000.zip`` (the untrained
learner), ``opponent_001.zip``, ... and the final ``model.zip``.

Hyperparameters, network, number of envs and the training-time reward weights come from the same
config file as ``war-train`` (the shipped ``<algo>.json``, read by ``war_env.training.config``): in
particular the training envs pay no win/loss reward, because a round's outcome does not depend on
timing (it is noise for the learner); the evaluation plays the game as given.

The frozen copies play deterministically (the most likely action): a sampling copy would reseed
torch's global generator at every round, which the learner's own sampling uses too.

After training, the final model plays a match against the first and the last opponent and against
the scripted ``prompt`` agent: each of the two sits in seat 0 for every deal, with the other in seat 1
(``war_env.evaluation.play_rounds``, the benchmark's paired loop). In War the cards alone decide who
wins a round (timing changes when, never who), so both win the same deals; what the match measures is
timing: returns, false starts, takeovers and reaction ticks, and the paired return difference.

    war-selfplay --timesteps 200000 --refresh-every 20000 --seed 0
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from war_env.agents import make_agent
from war_env.agents.algorithms import build_model, check_algorithm
from war_env.agents.base import Agent
from war_env.agents.model_files import save_model
from war_env.agents.sb3_agent import load_sb3_agent
from war_env.core.rules import WarConfig
from war_env.envs.war import WarEnv
from war_env.evaluation import play_rounds
from war_env.evaluation.records import RoundRecord
from war_env.evaluation.summary import RoundColumns, paired_difference
from war_env.support.threads import single_threaded_torch
from war_env.training.config import load_config, shipped_config_file

SNAPSHOT_NAME = "opponent_{:03d}.zip"
SELF_PLAY_ALGORITHMS = ("ppo", "a2c", "maskable_ppo")
"""On-policy only: DQN's replay buffer would mix transitions played against older opponents."""


# --- results --------------------------------------------------------------------------------------
def seat_summary(played: RoundColumns) -> dict:
    """One agent's play in seat 0 over a match's deals (the project's one summary of rounds, ``RoundColumns``)."""
    return {
        "rounds": played.rounds,
        "wins": played.count("won"),
        "losses": played.count("lost"),
        "mean_return": played.mean_return,
        "false_starts_per_round": played.false_starts_per_round,
        "takeover_rate": played.takeover_rate(),
        "mean_reaction_ticks": played.mean_reaction_ticks,
        "median_reaction_ticks": played.median_reaction_ticks,
    }


@dataclass
class MatchResult:
    """Two agents over the same deals: ``records[i]`` are agent ``i``'s rounds in seat 0, the other
    agent in seat 1; round ``k`` of both is dealt by the same seed (paired)."""

    names: tuple[str, str]
    deals: int
    records: tuple[list[RoundRecord], list[RoundRecord]]
    config: WarConfig

    def as_dict(self) -> dict:
        first, second = (RoundColumns.of_records(records, self.config) for records in self.records)
        return {
            "deals": self.deals,
            "agents": {name: seat_summary(played) for name, played in zip(self.names, (first, second))},
            "mean_return_difference": float(paired_difference(first, second).mean()),
        }


@dataclass
class SelfPlayResult:
    run_dir: str
    model_path: str
    snapshots: list[str]
    """The opponents the learner met, in order (the first is the untrained learner)."""
    timesteps: int
    refreshes: int
    opponent_ticks: int
    """Ticks the frozen opponents played during training (seat 1's ``act`` calls)."""
    seconds: float
    evaluation: dict
    """Opponent name -> ``MatchResult.as_dict()`` of the final model against it."""


# --- a match on paired deals -------------------------------------------------------------------------
def play_match(
    agents: tuple[Agent, Agent],
    deals: int,
    seed: int = 0,
    config: WarConfig | None = None,
    names: tuple[str, str] | None = None,
) -> MatchResult:
    """``agents[0]`` against ``agents[1]`` on deals ``seed .. seed + deals - 1``, each agent in seat 0
    for every deal with the other in seat 1. The two agents must be distinct objects (they may keep
    per-round state)."""
    if agents[0] is agents[1]:
        raise ValueError("play_match needs two distinct agent objects (load a model twice to play it against itself)")
    if isinstance(deals, bool) or not isinstance(deals, int) or deals < 1:
        raise ValueError(f"deals must be a whole number >= 1, got {deals!r}")
    config = config or WarConfig()
    seeds = range(seed, seed + deals)
    records = (play_rounds(agents[0], agents[1], config, seeds), play_rounds(agents[1], agents[0], config, seeds))
    names = tuple(names or (agents[0].spec(), agents[1].spec()))
    if names[0] == names[1]:  # e.g. a model against a second copy of itself
        names = (f"{names[0]} #1", f"{names[1]} #2")
    return MatchResult(names=names, deals=deals, records=records, config=config)


# --- training -------------------------------------------------------------------------------------
class FrozenOpponent(Agent):
    """Seat 1 during self-play: plays the current frozen copy of the learner; ``swap`` replaces it."""

    name = "frozen"

    def __init__(self, agent: Agent):
        self.agent = agent
        self.acts = 0
        """Ticks it has played (a check that the opponent really is consulted)."""

    def swap(self, agent: Agent) -> None:
        self.agent = agent

    def reset(self, seed: int | None = None) -> None:
        self.agent.reset(seed=seed)

    def act(self, observation) -> int:
        self.acts += 1
        return self.agent.act(observation)

    def spec(self) -> str:
        return self.agent.spec()


def self_play(
    timesteps: int = 200_000,
    refresh_every: int = 20_000,
    algo: str = "ppo",
    seed: int = 0,
    n_envs: int | None = None,
    run_dir: str | Path | None = None,
    eval_deals: int = 50,
    config: WarConfig | None = None,
    hyperparameters: dict | None = None,
    train_config: str | Path | None = None,
) -> SelfPlayResult:
    """Train one policy for both seats by self-play (see the module docstring) and evaluate it.

    ``train_config`` is a ``war-train`` config file (default: the shipped one for ``algo``);
    ``hyperparameters`` override its hyperparameters, ``n_envs`` its number of envs."""
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import DummyVecEnv

    single_threaded_torch()
    algo = check_algorithm(algo)
    if algo not in SELF_PLAY_ALGORITHMS:
        raise ValueError(
            f"self-play supports {list(SELF_PLAY_ALGORITHMS)}, got {algo!r} (an off-policy replay "
            "buffer would mix transitions against older opponents)"
        )
    settings = load_config(train_config or shipped_config_file(algo), overrides=hyperparameters)
    if settings.algorithm != algo:
        raise ValueError(f"config file {str(train_config)!r} is for {settings.algorithm!r}, not {algo!r}")
    n_envs = settings.n_envs if n_envs is None else n_envs
    for name, value, minimum in (
        ("timesteps", timesteps, 1),
        ("refresh_every", refresh_every, 1),
        ("n_envs", n_envs, 1),
        ("eval_deals", eval_deals, 1),
        ("seed", seed, 0),
    ):
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise ValueError(f"{name} must be a whole number >= {minimum}, got {value!r}")
    config = config or WarConfig()
    train_game = config.replace(**settings.train_env)
    run_dir = Path(run_dir or f"runs/selfplay/{algo}-seed{seed}-{time.strftime('%Y%m%d-%H%M%S')}")
    run_dir.mkdir(parents=True, exist_ok=True)
    policy_kwargs = settings.policy_kwargs
    started = time.perf_counter()

    snapshots: list[str] = []

    def snapshot(model) -> Agent:
        path = save_model(
            model, run_dir / SNAPSHOT_NAME.format(len(snapshots)), algo, policy_kwargs, selfplay_snapshot=len(snapshots)
        )
        snapshots.append(str(path))
        return load_sb3_agent(algo, str(path))

    opponent = FrozenOpponent(make_agent("never"))  # replaced by the untrained learner before any step
    vec_env = make_vec_env(
        WarEnv,
        n_envs=n_envs,
        seed=seed,
        vec_env_cls=DummyVecEnv,
        env_kwargs={"opponent": opponent, "config": train_game},
    )
    model = build_model(algo, vec_env, policy_kwargs, settings.hyperparameters, seed=seed, verbose=0)
    opponent.swap(snapshot(model))

    class RefreshOpponent(BaseCallback):
        """Once ``refresh_every`` learner steps have passed, the opponent becomes a fresh frozen copy. Checked as
        a rollout starts, the only moment an on-policy model has new weights: a copy taken inside a rollout
        would save the previous copy's weights again (``--refresh-every`` below a rollout did exactly that)."""

        def __init__(self):
            super().__init__()
            self.next_refresh = refresh_every

        def _on_rollout_start(self) -> None:
            if self.num_timesteps >= self.next_refresh:
                opponent.swap(snapshot(self.model))
                while self.next_refresh <= self.num_timesteps:
                    self.next_refresh += refresh_every

        def _on_step(self) -> bool:
            return True

    model.learn(total_timesteps=timesteps, callback=RefreshOpponent())
    model_path = save_model(model, run_dir / "model.zip", algo, policy_kwargs, selfplay_snapshots=len(snapshots))
    vec_env.close()

    evaluation = {}
    opponents = {"first opponent (untrained)": snapshots[0], "last opponent": snapshots[-1], "prompt": "prompt"}
    if len(snapshots) == 1:  # never refreshed: the last opponent is the first
        del opponents["last opponent"]
    for label, spec in opponents.items():
        other = make_agent(spec, config=config) if spec == "prompt" else load_sb3_agent(algo, spec)
        learner = load_sb3_agent(algo, str(model_path))
        match = play_match(
            (learner, other), eval_deals, seed=10_000 + seed, config=config, names=("final model", label)
        )
        evaluation[label] = match.as_dict()
    result = SelfPlayResult(
        run_dir=str(run_dir),
        model_path=str(model_path),
        snapshots=snapshots,
        timesteps=int(model.num_timesteps),
        refreshes=len(snapshots) - 1,
        opponent_ticks=opponent.acts,
        seconds=time.perf_counter() - started,
        evaluation=evaluation,
    )
    (run_dir / "selfplay.json").write_text(json.dumps(asdict(result), indent=2))
    return result
