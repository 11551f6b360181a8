"""Learning steps/s of the fast PPO trainer (``war_env.training.fast_ppo``) against SB3's PPO and sb3-contrib's
RecurrentPPO: the same env (War-v0 against ``human`` on the batched engine, the shipped training rewards), the same
network (64-64 tanh actor and critic MLPs; for the LSTM, 64 units shared by both before them), one torch thread,
measured in turns in one run (``war-perf``'s training section; its figures: docs/results/training.md,
"Speed in war-perf").

Each peer is measured twice: with the fast trainer's own rollout and minibatch sizes (1024 envs x 64 steps,
minibatches of 8192 samples; RecurrentPPO: 128 envs x 64 steps, minibatches of 128 sequences, the same minibatches),
which isolates the implementation, and with the shipped SB3 config (4 envs x 250 steps, minibatches of 250), which
is what ``war-train --algo ppo`` runs. Every run learns whole rollouts; none is timed before its first update.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

ENV_ID = "War-v0"
NET_ARCH = {"pi": [64, 64], "vf": [64, 64]}
LSTM_UNITS = 64


@dataclass(frozen=True)
class PeerSettings:
    """How a Stable-Baselines3 peer is run: envs, steps per env per rollout, minibatch size, epochs."""

    label: str
    n_envs: int
    n_steps: int
    batch_size: int
    n_epochs: int = 4

    @property
    def rollout(self) -> int:
        return self.n_envs * self.n_steps


SAME_MLP = PeerSettings("the fast trainer's settings (1024 envs x 64 steps, minibatches of 8192)", 1024, 64, 8192)
SAME_LSTM = PeerSettings(
    "the fast trainer's minibatches (128 envs x 64 steps, minibatches of 128 sequences)", 128, 64, 8192
)
SHIPPED = PeerSettings("the shipped config (4 envs x 250 steps, minibatches of 250)", 4, 250, 250)


def fast_ppo_run(lstm_units: int, timesteps: int) -> Callable[[], float]:
    """The fast trainer with its default config (an LSTM of ``lstm_units`` before the MLPs when > 0); each run
    trains a fresh policy for ``timesteps`` (whole rollouts) and returns the steps learned."""
    from war_env.training.fast_ppo import FastPPOConfig, train_fast_ppo

    config = FastPPOConfig.with_overrides({"lstm_hidden_size": lstm_units})
    train_fast_ppo(config, 1, env_id=ENV_ID)  # the first calls (numba's cache, torch's kernels) outside the timing

    def run() -> float:
        return float(train_fast_ppo(config, timesteps, env_id=ENV_ID).timesteps)

    return run


def sb3_run(settings: PeerSettings, timesteps: int, recurrent: bool = False) -> Callable[[], float]:
    """SB3's PPO (``recurrent``: sb3-contrib's RecurrentPPO with one LSTM shared by the actor and the critic) on the
    batched env through the SB3 adapter; each run learns ``timesteps`` (at least one rollout)."""
    from war_env.envs.sb3_vec import WarSB3VecEnv
    from war_env.support.threads import single_threaded_torch
    from war_env.training.fast_ppo import WAR_TRAINING_REWARDS

    single_threaded_torch()
    env = WarSB3VecEnv(settings.n_envs, env_id=ENV_ID, **WAR_TRAINING_REWARDS)
    hyperparameters = {
        "n_steps": settings.n_steps,
        "batch_size": settings.batch_size,
        "n_epochs": settings.n_epochs,
        "gamma": 0.99,
        "gae_lambda": 0.95,
        "learning_rate": 1e-3,
        "normalize_advantage": False,
        "device": "cpu",
        "seed": 0,
    }
    if recurrent:
        from sb3_contrib import RecurrentPPO

        model = RecurrentPPO(
            "MlpLstmPolicy",
            env,
            policy_kwargs={
                "net_arch": NET_ARCH,
                "lstm_hidden_size": LSTM_UNITS,
                "shared_lstm": True,
                "enable_critic_lstm": False,
            },
            **hyperparameters,
        )
    else:
        from stable_baselines3 import PPO

        model = PPO("MlpPolicy", env, policy_kwargs={"net_arch": NET_ARCH}, **hyperparameters)
    model.learn(settings.rollout)  # warm up outside the timing
    steps = max(timesteps, settings.rollout)

    def run() -> float:
        model.learn(total_timesteps=steps, reset_num_timesteps=True)
        return float(model.num_timesteps)

    return run


def trainer_runs(budget: float) -> dict[str, list[tuple[str, Callable[[], float]]]]:
    """For the MLP and the LSTM: the fast trainer first, then its peers, each a (label, run) pair, measured in turns.
    ``budget`` 1 learns about two of the fast trainer's rollouts per run."""
    rollout = 1024 * 64
    steps = max(rollout, int(2 * rollout * budget))
    return {
        "MLP": [
            ("fast_ppo", fast_ppo_run(0, steps)),
            (f"SB3 PPO, {SAME_MLP.label}", sb3_run(SAME_MLP, steps)),
            (f"SB3 PPO, {SHIPPED.label}", sb3_run(SHIPPED, max(SHIPPED.rollout, int(10_000 * budget)))),
        ],
        "LSTM": [
            ("fast_ppo", fast_ppo_run(LSTM_UNITS, max(rollout, steps // 2))),
            (
                f"RecurrentPPO, {SAME_LSTM.label}",
                sb3_run(SAME_LSTM, max(SAME_LSTM.rollout, int(16_384 * budget)), recurrent=True),
            ),
            (
                f"RecurrentPPO, {SHIPPED.label}",
                sb3_run(SHIPPED, max(SHIPPED.rollout, int(2_000 * budget)), recurrent=True),
            ),
        ],
    }
