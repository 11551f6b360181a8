"""Self-play: one Stable-Baselines3 policy trained for both seats of War.

How it works. Every seat sees the same 16-float observation from its own side (``war_env.observation``),
so one network can play either seat. The learner plays seat 0 of War-v0; the opponent at seat 1 is a
*frozen copy* of the learner (War-v0 takes any object with ``act(observation)`` as its opponent),
replaced by a fresh copy every ``refresh_every`` steps. Each copy is a snapshot saved with
``agents.sb3_model.save_model`` and loaded back with ``load_sb3_agent`` (weights only), so the run
folder keeps, in order, every opponent the learner met: ``opponent_000.zip`` (the untrained
learner), ``opponent_001.zip``, ... and the final ``model.zip``.

Hyperparameters, network, number of envs and the training-time reward weights come from the same
config file as ``war-train`` (``configs/<algo>.json``, read by ``scripts.train.load_config``): in
particular the training envs pay no win/loss reward, because a round's outcome does not depend on
timing (it is noise for the learner); the evaluation plays the game as given.

The frozen copies play deterministically (the most likely action): a sampling copy would reseed
torch's global generator at every round, which the learner's own sampling uses too.

After training, the final model plays a match in the two-seat env (``war_env.multiagent``) against the
first and the last opponent and against the scripted ``prompt`` agent: every deal twice, seats swapped.
In War the cards alone decide who wins a round (timing changes when, never who), so across swapped
pairs each side wins half the decided rounds; what the match measures is timing: returns, false starts,
takeovers and reaction ticks per seat.

    python -m scripts.selfplay --timesteps 200000 --refresh-every 20000 --seed 0
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from agents.base import Agent
from war_env.rules import WarConfig

SNAPSHOT_NAME = "opponent_{:03d}.zip"
SELF_PLAY_ALGORITHMS = ("ppo", "a2c", "maskable_ppo")
"""On-policy only: DQN's replay buffer would mix transitions played against older opponents."""


# --- results --------------------------------------------------------------------------------------
@dataclass
class SeatRecord:
    """One agent's play over a match (all its rounds, whichever seat it sat in)."""

    rounds: int = 0
    wins: int = 0
    losses: int = 0
    total_return: float = 0.0
    false_starts: int = 0
    takeovers: int = 0
    reaction_ticks: list[int] = field(default_factory=list)

    def summary(self) -> dict:
        rounds = max(self.rounds, 1)
        return {
            "rounds": self.rounds,
            "wins": self.wins,
            "losses": self.losses,
            "mean_return": self.total_return / rounds,
            "false_starts_per_round": self.false_starts / rounds,
            "takeover_rate": self.takeovers / rounds,
            "mean_reaction_ticks": float(np.mean(self.reaction_ticks)) if self.reaction_ticks else None,
            "median_reaction_ticks": float(np.median(self.reaction_ticks)) if self.reaction_ticks else None,
        }


@dataclass
class MatchResult:
    """Two agents over the same deals, each deal played twice with the seats swapped."""

    names: tuple[str, str]
    deals: int
    records: tuple[SeatRecord, SeatRecord]

    def as_dict(self) -> dict:
        return {"deals": self.deals, "agents": {name: rec.summary() for name, rec in zip(self.names, self.records)}}


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


# --- a match in the two-seat env ------------------------------------------------------------------
def play_match(agents: tuple[Agent, Agent], deals: int, seed: int = 0, config: WarConfig | None = None,
               names: tuple[str, str] | None = None) -> MatchResult:
    """``agents[0]`` against ``agents[1]`` in ``WarParallelEnv``: deals ``seed .. seed + deals - 1``,
    each played twice with the seats swapped. The two agents must be distinct objects (they may keep
    per-round state)."""
    from war_env.multiagent import AGENTS, WarParallelEnv

    if agents[0] is agents[1]:
        raise ValueError("play_match needs two distinct agent objects (load a model twice to play it against itself)")
    if isinstance(deals, bool) or not isinstance(deals, int) or deals < 1:
        raise ValueError(f"deals must be a whole number >= 1, got {deals!r}")
    par = WarParallelEnv(config=config)
    records = (SeatRecord(), SeatRecord())
    for deal in range(deals):
        for seat_of in ((0, 1), (1, 0)):  # seat_of[i]: the seat agents[i] plays
            _play_round(par, agents, seat_of, seed + deal, records, AGENTS)
    names = tuple(names or (agents[0].spec(), agents[1].spec()))
    if names[0] == names[1]:  # e.g. a model against a second copy of itself
        names = (f"{names[0]} #1", f"{names[1]} #2")
    return MatchResult(names=names, deals=deals, records=records)


def _play_round(par, agents, seat_of, seed, records, agent_ids) -> None:
    player_of = {agent_ids[seat_of[i]]: i for i in range(2)}  # agent id -> index into agents
    observations, infos = par.reset(seed=seed)
    for agent_id, index in player_of.items():
        agents[index].reset(seed=infos[agent_id]["policy_seed"])
    returns = {agent_id: 0.0 for agent_id in player_of}
    last_info = {}
    while par.agents:
        actions = {agent_id: agents[player_of[agent_id]].act(observations[agent_id]["observation"]) for agent_id in par.agents}
        observations, rewards, _, _, infos = par.step(actions)
        for agent_id, reward in rewards.items():
            returns[agent_id] += reward
            if infos[agent_id]:
                last_info[agent_id] = infos[agent_id]
    result = par.result()
    for agent_id, index in player_of.items():
        seat, record, info = seat_of[index], records[index], last_info[agent_id]["round"]
        record.rounds += 1
        record.wins += result.winner == seat
        record.losses += result.winner == 1 - seat
        record.total_return += returns[agent_id]
        record.false_starts += info["false_starts"][seat]
        record.takeovers += info["takeover"][seat]
        record.reaction_ticks.extend(info["reaction_ticks"][seat])


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


def main(
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

    ``train_config`` is a ``war-train`` config file (default ``configs/<algo>.json``);
    ``hyperparameters`` override its hyperparameters, ``n_envs`` its number of envs."""
    import torch
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import DummyVecEnv

    from agents import make_agent
    from agents.sb3_model import build_model, check_algorithm, load_sb3_agent, save_model
    from scripts.train import default_config_path, load_config
    from war_env.env import WarEnv

    torch.set_num_threads(1)
    algo = check_algorithm(algo)
    if algo not in SELF_PLAY_ALGORITHMS:
        raise ValueError(f"self-play supports {list(SELF_PLAY_ALGORITHMS)}, got {algo!r} (an off-policy replay "
                         "buffer would mix transitions against older opponents)")
    settings = load_config(train_config or default_config_path(algo), overrides=hyperparameters)
    if settings.algorithm != algo:
        raise ValueError(f"config file {str(train_config)!r} is for {settings.algorithm!r}, not {algo!r}")
    n_envs = settings.n_envs if n_envs is None else n_envs
    for name, value, minimum in (("timesteps", timesteps, 1), ("refresh_every", refresh_every, 1),
                                 ("n_envs", n_envs, 1), ("eval_deals", eval_deals, 1), ("seed", seed, 0)):
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
        path = save_model(model, run_dir / SNAPSHOT_NAME.format(len(snapshots)), algo, policy_kwargs,
                          selfplay_snapshot=len(snapshots))
        snapshots.append(str(path))
        return load_sb3_agent(algo, str(path))

    opponent = FrozenOpponent(make_agent("never"))  # replaced by the untrained learner before any step
    vec_env = make_vec_env(WarEnv, n_envs=n_envs, seed=seed, vec_env_cls=DummyVecEnv,
                           env_kwargs={"opponent": opponent, "config": train_game})
    model = build_model(algo, vec_env, policy_kwargs, settings.hyperparameters, seed=seed, verbose=0)
    opponent.swap(snapshot(model))

    class RefreshOpponent(BaseCallback):
        """Every ``refresh_every`` learner steps, the opponent becomes a fresh frozen copy."""

        def __init__(self):
            super().__init__()
            self.next_refresh = refresh_every

        def _on_step(self) -> bool:
            if self.num_timesteps >= self.next_refresh:
                opponent.swap(snapshot(self.model))
                self.next_refresh += refresh_every
            return True

    model.learn(total_timesteps=timesteps, callback=RefreshOpponent())
    model_path = save_model(model, run_dir / "model.zip", algo, policy_kwargs, selfplay_snapshots=len(snapshots))
    vec_env.close()

    evaluation = {}
    opponents = {"first opponent (untrained)": snapshots[0], "last opponent": snapshots[-1], "prompt": "prompt"}
    for label, spec in opponents.items():
        other = make_agent(spec, config=config) if spec == "prompt" else load_sb3_agent(algo, spec)
        learner = load_sb3_agent(algo, str(model_path))
        match = play_match((learner, other), eval_deals, seed=10_000 + seed, config=config, names=("final model", label))
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


def cli(argv: list[str] | None = None) -> int:
    """The ``war-selfplay`` command; returns the exit status for ``sys.exit`` (``main`` returns the result)."""
    parser = argparse.ArgumentParser(description="Train one SB3 policy for both seats of War by self-play.")
    parser.add_argument("--timesteps", type=int, default=200_000, help="learner steps in total")
    parser.add_argument("--refresh-every", type=int, default=20_000, help="learner steps between opponent refreshes")
    parser.add_argument("--algo", default="ppo", choices=SELF_PLAY_ALGORITHMS)
    parser.add_argument("--config", default=None, help="war-train config file (default: configs/ALGO.json)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--n-envs", type=int, default=None, help="default: the config file's n_envs")
    parser.add_argument("--run-dir", default=None, help="default: runs/selfplay/ALGO-seedN-TIME")
    parser.add_argument("--eval-deals", type=int, default=50, help="deals per evaluation match (each played twice)")
    parser.add_argument("--turn-seconds", type=float, default=None, help="the turn timer (WarConfig.turn_seconds)")
    args = parser.parse_args(argv)
    config = WarConfig(turn_seconds=args.turn_seconds) if args.turn_seconds is not None else WarConfig()
    result = main(args.timesteps, args.refresh_every, args.algo, args.seed, args.n_envs, args.run_dir,
                  args.eval_deals, config, train_config=args.config)
    print(f"run: {result.run_dir}  model: {result.model_path}  timesteps: {result.timesteps}  "
          f"refreshes: {result.refreshes}  seconds: {result.seconds:.0f}")
    for label, match in result.evaluation.items():
        for name, summary in match["agents"].items():
            print(f"vs {label:<28} {name:<28} " + "  ".join(f"{k}={_fmt(v)}" for k, v in summary.items()))
    return 0


def _fmt(value) -> str:
    return f"{value:.3f}" if isinstance(value, float) else str(value)


if __name__ == "__main__":
    sys.exit(cli())
