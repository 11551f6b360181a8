"""PPO at the engine's speed: the batched vector env stepped in one call, one batched policy call per step.

``war-train --algo fast_ppo`` (``run_fast_ppo``; ``train_fast_ppo`` is the loop without a run folder). PPO as
Stable-Baselines3 and CleanRL compute it (clipped surrogate, value loss, GAE, Adam with eps 1e-5, gradient-norm
clipping, orthogonal initialisation), written for War's batched env (``envs.games.make_vector_game``: War-v0,
WarLatency-v0 and every probe, the numba engine):

* **Rollout**: ``num_envs`` rounds step together for ``rollout_steps`` steps; each step is one call of the policy
  on the whole batch (torch, no gradient) and one call of the env, nothing per round in Python. The env's
  next-step autoreset (Gymnasium's default) spends one step per finished round dealing the next one; that step's
  action is ignored, so its sample is left out of the loss (``valid``), as in docs/training.md's single-file PPO.
* **Advantages**: GAE over the rollout (``advantages_and_returns``), cut where a round ended; the same numbers as
  SB3's ``RolloutBuffer.compute_returns_and_advantage`` (``tests/test_fast_ppo.py``).
* **Variants** (``FastPPOConfig``): an MLP (SB3's ``MlpPolicy``: separate actor and critic MLPs), the same on the
  last ``frame_stack`` observations (SB3's ``VecFrameStack``: oldest first, zeros before a round's first), or an
  LSTM before both MLPs (``lstm_hidden_size`` > 0) trained on sequences as CleanRL's ``ppo_atari_lstm``: the
  LSTM's state at the start of each rollout is kept, the state is reset where a round starts, and minibatches are
  whole envs' sequences (``minibatch_size // rollout_steps`` envs each), replayed from that state.
* **Speed**: torch on one thread (``support.threads``); tanh computed as ``2 sigmoid(2x) - 1`` (the same function;
  torch's CPU tanh is six times slower than its sigmoid and was a third of an update); the LSTM over a sequence
  runs as few ``nn.LSTM`` calls as there are distinct round starts in it, not one call per step.

The model is saved as a ``fast_ppo`` model file (``war_env.agents.fast_model``), played by ``war-bench`` as
``fast_ppo:PATH``, with the config, seed, opponent and env id in its header.
"""

from __future__ import annotations

import io
import json
import time
import warnings
from dataclasses import asdict, dataclass, fields
from pathlib import Path

import numpy as np

from war_env.agents.fast_model import (
    FAST_ACTIVATIONS,
    FastNetwork,
    ObservationScaling,
    card_encoding,
    frame_width,
    save_fast_model,
)
from war_env.agents.model_files import MAX_FRAME_STACK, shown
from war_env.envs.games import default_opponent, game_config, game_fields, game_id, make_vector_game
from war_env.support.atomic import write_atomic
from war_env.support.provenance import provenance
from war_env.support.run_folder import (
    RunFolderConflict,
    locked_run_folder,
    read_settings,
    record_session,
    refuse_started,
    write_settings,
)
from war_env.support.threads import single_threaded_torch

OUTCOME_FREE_REWARDS = {"reward_win": 0.0, "reward_loss": 0.0}
"""The probes' training rewards: only the card outcome's weight goes (it does not depend on timing, so it is noise
for the learner and cannot change the optimum); the probe's own weights stay, as in ``experiments.learners`` (the -0.1
idle tick below would change the optimum a probe measures)."""
WAR_TRAINING_REWARDS = {"reward_win": 0.0, "reward_loss": 0.0, "reward_idle_tick": -0.1}
"""War-v0's and WarLatency-v0's training rewards: the shipped SB3 configs' ``train_env`` (docs/training.md, "Why
the policy collapsed"). On War-v0 the optimum stays "draw as the turn opens"; with latency waiting becomes dearer
than in the rules (docs/latency.md), but with the rules' -0.001 the fast trainer's five seeds on WarLatency-v0
all learned never to press (taken over in every round, 458,752 steps each)."""


@dataclass(frozen=True)
class FastPPOConfig:
    """The fast PPO trainer's settings (``war-train --algo fast_ppo --set KEY=VALUE``); every field is checked."""

    num_envs: int = 1024
    """Rounds played at once by the batched env; one policy call per step covers all of them."""
    rollout_steps: int = 64
    """Steps of every round per rollout: an update learns from ``num_envs * rollout_steps`` samples."""
    epochs: int = 4
    """Passes over each rollout."""
    minibatch_size: int = 8192
    """Samples per gradient step; the LSTM takes ``minibatch_size // rollout_steps`` whole envs' sequences."""
    learning_rate: float = 1e-3
    """Adam's step size (eps 1e-5, as SB3's PPO), constant. 1e-3 is the rate War-v0's and WarLatency-v0's five-seed
    checks reach the oracle with; each learner of the probes' learners' table carries its own (docs/probes.md, "The
    table")."""
    gamma: float = 0.99
    """Discount per step. 0.99 (not the SB3 configs' 0.9): a takeover 30 ticks ahead weighs 0.99^30 = 0.74 of its
    cost now (0.9^30 = 0.04), so the probes' long-range consequences are visible."""
    gae_lambda: float = 0.95
    """GAE's lambda: the bias-variance trade of the advantages."""
    clip_range: float = 0.2
    """PPO's clip of the probability ratio."""
    ent_coef: float = 0.0
    """Weight of the entropy bonus."""
    vf_coef: float = 0.5
    """Weight of the value loss."""
    max_grad_norm: float = 0.5
    """Gradients are clipped to this global norm."""
    normalize_advantage: bool = False
    """Scale each minibatch's advantages to unit variance. Off, as in the shipped SB3 configs: on reward-free
    rollouts it turns value noise into full-size steps (docs/training.md, "Why the policy collapsed")."""
    normalize_observation: bool = False
    """Scale every observation field by running statistics (SB3's ``VecNormalize``, CleanRL's
    ``NormalizeObservation``: ``(x - mean) / sqrt(var + 1e-8)`` clipped at 10), updated with every step's
    observations; the model file keeps them, so ``fast_ppo:PATH`` plays the model exactly as it trained."""
    previous_action: bool = False
    """End every frame with the policy's previous action (0 at a round's first tick): what it pressed is not in the
    memory probe's observation, and the agent knows it when it plays."""
    one_hot_cards: bool = False
    """Give the policy each card field (``own_card``, ``opponent_card``: rank value / 14) as a one-hot vector over its
    14 values (none, 2..14) in the field's place, read from the raw observation (``fast_model.CardEncoding``; not
    standardised by ``normalize_observation``); the model file records it, so ``fast_ppo:PATH`` encodes alike. A
    function of the rank that is not monotone, as the reading probe's parity, is then one weight per rank."""
    lstm_forget_bias: float = 0.0
    """The LSTM's forget-gate bias at the start (torch's ``bias_ih``; ``bias_hh`` starts at 0). 1 keeps the state
    from earlier ticks open at first (Jozefowicz et al. 2015); 0 is torch's initialisation with zeros."""
    eval_every: int = 0
    """Env steps between evaluations of the greedy policy (0: none): ``eval_rounds`` rounds of the game as given
    (its own rewards) on fixed seeds from ``EVALUATION_SEED``, which no suite or held-out comparison deals; the best
    mean return is kept as ``RUN/best.zip`` beside the last model, ``RUN/final.zip``."""
    eval_rounds: int = 256
    """Rounds of each evaluation (one per sub-env of an evaluation env)."""
    hidden: tuple[int, ...] = (64, 64)
    """Layer sizes of the actor's MLP and of the critic's (SB3's default ``pi`` and ``vf``)."""
    activation: str = "tanh"
    """``tanh`` (SB3's default) or ``relu``."""
    lstm_hidden_size: int = 0
    """Units of an LSTM before both MLPs (shared by the actor and the critic); 0: no LSTM (an MLP policy)."""
    frame_stack: int = 1
    """Observations the policy sees at once (1: the current one)."""
    checkpoint_every: int = 0
    """Env steps between checkpoints (0: none): each is a model file ``RUN/checkpoints/fast_ppo_<steps>_steps.zip``
    (``fast_ppo:PATH`` plays it) with the optimizer's state beside it, from which ``war-train --resume RUN`` goes on."""
    train_rewards: dict | None = None
    """Reward weights of the training envs (``WarConfig`` fields), or ``None``: ``WAR_TRAINING_REWARDS`` on War-v0
    and WarLatency-v0, ``OUTCOME_FREE_REWARDS`` on a probe. Evaluation always plays the game as given."""

    def __post_init__(self):
        if isinstance(self.hidden, list):
            object.__setattr__(self, "hidden", tuple(self.hidden))
        for name, low, high in (
            ("num_envs", 1, 65536),
            ("rollout_steps", 1, 4096),
            ("epochs", 1, 1000),
            ("minibatch_size", 1, 1 << 22),
            ("frame_stack", 1, MAX_FRAME_STACK),
            ("checkpoint_every", 0, 1 << 62),
            ("eval_every", 0, 1 << 62),
            ("eval_rounds", 1, 65536),
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise ValueError(
                    f"fast_ppo config: {name} must be a whole number in [{low}, {high}], got {shown(value)}"
                )
        for name, low, high in (
            ("learning_rate", 0.0, 1.0),
            ("gamma", 0.0, 1.0),
            ("gae_lambda", 0.0, 1.0),
            ("clip_range", 0.0, 10.0),
            ("ent_coef", 0.0, 10.0),
            ("vf_coef", 0.0, 10.0),
            ("max_grad_norm", 0.0, 1e6),
        ):
            value = getattr(self, name)
            if (
                isinstance(value, bool)
                or not isinstance(value, (int, float))
                or not low < value <= high
                and not (name in ("ent_coef", "gae_lambda") and value == 0)
            ):
                raise ValueError(f"fast_ppo config: {name} must be a number in ({low}, {high}], got {shown(value)}")
        for name in ("normalize_advantage", "normalize_observation", "previous_action", "one_hot_cards"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"fast_ppo config: {name} must be true or false, got {shown(getattr(self, name))}")
        bias = self.lstm_forget_bias
        if isinstance(bias, bool) or not isinstance(bias, (int, float)) or not -10.0 <= bias <= 10.0:
            raise ValueError(f"fast_ppo config: lstm_forget_bias must be a number in [-10, 10], got {shown(bias)}")
        if self.train_rewards is not None and (
            not isinstance(self.train_rewards, dict)
            or not all(isinstance(key, str) and key.startswith("reward_") for key in self.train_rewards)
        ):
            raise ValueError(
                f"fast_ppo config: train_rewards must be an object of reward_* weights, got {shown(self.train_rewards)}"
            )
        FastNetwork(1, self.hidden, self.activation, self.lstm_hidden_size)  # checks the network's fields

    @classmethod
    def with_overrides(cls, overrides: dict | None) -> FastPPOConfig:
        """The defaults with ``overrides`` (``--set`` values: ``hidden=64x64`` is a layer list), checked."""
        known = {field.name for field in fields(cls)}
        unknown = sorted(set(overrides or {}) - known)
        if unknown:
            raise ValueError(f"unknown fast_ppo setting(s) {unknown}; known: {sorted(known)}")
        values = dict(overrides or {})
        if isinstance(values.get("hidden"), (str, int)):
            values["hidden"] = _layers(values["hidden"])
        for name in ("learning_rate", "lstm_forget_bias", "ent_coef"):
            if isinstance(values.get(name), int) and not isinstance(values.get(name), bool):
                values[name] = float(values[name])
        return cls(**values)

    def as_json(self) -> dict:
        return {**asdict(self), "hidden": list(self.hidden)}

    def rewards_for(self, env_id: str) -> dict:
        if self.train_rewards is not None:
            return dict(self.train_rewards)
        return dict(WAR_TRAINING_REWARDS if env_id in ("War-v0", "WarLatency-v0") else OUTCOME_FREE_REWARDS)


def _layers(text) -> tuple[int, ...]:
    parts = str(text).lower().split("x")
    if not all(part.isascii() and part.isdigit() for part in parts):
        raise ValueError(f"fast_ppo config: hidden must be layer sizes such as 64x64, got {shown(text)}")
    return tuple(int(part) for part in parts)


# --- advantages ----------------------------------------------------------------------------------------
def advantages_and_returns(
    rewards: np.ndarray, values: np.ndarray, dones: np.ndarray, last_values: np.ndarray, gamma: float, gae_lambda: float
) -> tuple[np.ndarray, np.ndarray]:
    """GAE over a rollout of shape ``(steps, envs)``: ``dones[t]`` is 1 where a round ended at step ``t`` (no value
    is bootstrapped across it), ``last_values`` the values of the observations after the last step. Returns
    ``(advantages, returns)``, ``returns = advantages + values``: SB3's ``compute_returns_and_advantage``, whose
    ``episode_starts[t + 1]`` is ``dones[t]`` here."""
    advantages = np.zeros_like(values)
    following = np.zeros_like(last_values)
    next_values = last_values
    for t in range(len(rewards) - 1, -1, -1):
        going_on = 1.0 - dones[t]
        delta = rewards[t] + gamma * next_values * going_on - values[t]
        following = delta + gamma * gae_lambda * going_on * following
        advantages[t] = following
        next_values = values[t]
    return advantages, advantages + values


# --- the network ----------------------------------------------------------------------------------------
def build_policy(network: FastNetwork, forget_bias: float = 0.0):
    """The torch module of ``network``: its state dict has exactly ``network.shapes()``; the LSTM's forget gate
    starts with the bias ``forget_bias`` (torch orders its gates input, forget, cell, output)."""
    torch = single_threaded_torch()
    from torch import nn

    class FastTanh(torch.autograd.Function):
        """tanh as ``2 sigmoid(2x) - 1`` (see the module docstring), its gradient ``1 - tanh^2``. It overwrites its
        input, a linear layer's fresh output that the layer's own gradient does not need: no new tensor of the
        batch's size (10% of a minibatch step)."""

        @staticmethod
        def forward(ctx, x):
            ctx.mark_dirty(x)
            y = x.mul_(2.0).sigmoid_().mul_(2.0).sub_(1.0)
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad):
            (y,) = ctx.saved_tensors
            return torch.ops.aten.tanh_backward(grad, y)  # torch's own fused kernel: grad * (1 - y^2)

    class Tanh(nn.Module):
        def forward(self, x):
            return FastTanh.apply(x)

    activation = {"tanh": Tanh, "relu": nn.ReLU}[network.activation]

    def mlp(inputs: int, outputs: int, last_gain: float) -> nn.Sequential:
        sizes, modules = [inputs, *network.hidden, outputs], []
        for layer, (fan_in, fan_out) in enumerate(zip(sizes, sizes[1:])):
            linear = nn.Linear(fan_in, fan_out)
            nn.init.orthogonal_(linear.weight, last_gain if layer == len(sizes) - 2 else np.sqrt(2))
            nn.init.zeros_(linear.bias)
            modules += [linear, activation()] if layer < len(sizes) - 2 else [linear]
        return nn.Sequential(*modules)

    class Policy(nn.Module):
        def __init__(self):
            super().__init__()
            body = network.inputs
            if network.recurrent:
                self.lstm = nn.LSTM(network.inputs, network.lstm_hidden_size)
                for name, parameter in self.lstm.named_parameters():
                    (nn.init.zeros_ if "bias" in name else lambda p: nn.init.orthogonal_(p, 1.0))(parameter)
                units = network.lstm_hidden_size
                with torch.no_grad():
                    self.lstm.bias_ih_l0[units : 2 * units] = forget_bias
                body = network.lstm_hidden_size
            self.actor = mlp(body, 2, 0.01)  # SB3's gains: sqrt 2 inside, 0.01 for the actions, 1 for the value
            self.critic = mlp(body, 1, 1.0)

        def features(self, x, starts, state):
            """``x`` ``(steps, envs, inputs)`` -> the MLPs' inputs and the LSTM's state after it; ``starts``
            ``(steps, envs)`` is 1 where a round starts (the state is zeroed before that step)."""
            if not network.recurrent:
                return x, state
            h, c = state
            cuts = torch.nonzero(starts[1:].any(dim=1)).flatten().add_(1).tolist()
            outputs = []
            for begin, end in zip([0, *cuts], [*cuts, len(x)]):  # one nn.LSTM call between two round starts
                keep = (1.0 - starts[begin]).unsqueeze(-1)
                out, (h, c) = self.lstm(x[begin:end], ((h * keep).unsqueeze(0), (c * keep).unsqueeze(0)))
                h, c = h[0], c[0]
                outputs.append(out)
            return torch.cat(outputs) if len(outputs) > 1 else outputs[0], (h, c)

    return Policy()


# --- training --------------------------------------------------------------------------------------------
@dataclass
class FastPPOResult:
    """What ``train_fast_ppo`` learned and how fast."""

    policy: object
    network: FastNetwork
    fields: tuple[str, ...]
    env_id: str
    timesteps: int
    seconds: float
    history: list[dict]
    """One entry per update: steps so far, wall seconds, the mean training return of the rounds that ended in it
    (and, at an evaluation, the greedy policy's mean return on the evaluation seeds)."""
    scaling: ObservationScaling | None = None
    """The observation statistics the policy was trained with at its last step (``normalize_observation``)."""
    evaluation: dict | None = None
    """The latest evaluation's steps and mean return, when the run evaluates (``eval_every``)."""

    @property
    def steps_per_second(self) -> float:
        return self.timesteps / self.seconds if self.seconds else float("nan")


@dataclass
class Checkpoint:
    """Where a run stood after an update: the policy's and the optimizer's state, the steps done, the wall seconds."""

    policy: dict
    optimizer: dict
    steps: int
    seconds: float
    scaling: ObservationScaling | None = None
    """The observation statistics at the checkpoint (``normalize_observation``)."""
    best_return: float | None = None
    """The best evaluation's mean return before the checkpoint (``RUN/best.zip``'s)."""


def train_fast_ppo(
    config: FastPPOConfig,
    timesteps: int,
    *,
    env_id: str | None = None,
    opponent: str | None = None,
    env_args: dict | None = None,
    seed: int = 0,
    log=None,
    start: Checkpoint | None = None,
    checkpoint=None,
    best=None,
) -> FastPPOResult:
    """Train for at least ``timesteps`` env steps (whole rollouts) on ``env_id``'s batched env (default War-v0)
    against ``opponent`` (default: a probe's own, else ``human``); ``env_args`` are rule keywords of the game.
    ``log(entry)`` is called after every update; ``checkpoint(result so far, the optimizer's state)`` after each update
    that passes a multiple of ``config.checkpoint_every`` steps; ``best(result so far)`` after each evaluation
    (``config.eval_every``) whose mean return beats every earlier one. From ``start`` the weights, the optimizer and
    the observation statistics go on where they stood, on new rounds (the sub-envs seeded from ``seed`` and the steps
    done, ``sub_env_seeds``): not bit-identical to a run that was not cut."""
    torch = single_threaded_torch()
    game = game_id(env_id, game_config(env_id, dict(env_args or {})))
    rules = game_config(game, {**config.rewards_for(game), **dict(env_args or {})})
    opponent = default_opponent(game) if opponent is None else opponent
    env = make_vector_game(game, config.num_envs, opponent, rules)
    shown = game_fields(game, rules)
    width = frame_width(shown, config.previous_action, config.one_hot_cards)
    network = FastNetwork(width * config.frame_stack, config.hidden, config.activation, config.lstm_hidden_size)
    torch.manual_seed(seed)
    policy = build_policy(network, config.lstm_forget_bias)
    optimizer = torch.optim.Adam(policy.parameters(), lr=config.learning_rate, eps=1e-5, foreach=True)
    done_steps, before = (0, 0.0) if start is None else (start.steps, start.seconds)
    statistics = RunningStatistics(len(shown)) if config.normalize_observation else None
    best_return = None
    if start is not None:
        policy.load_state_dict(start.policy)
        optimizer.load_state_dict(start.optimizer)
        if statistics is not None and start.scaling is not None:
            statistics.restore(start.scaling)
        best_return = start.best_return
    rollout = Rollout(
        config, network, env, sub_env_seeds(seed, done_steps, config.num_envs), torch, statistics, fields=shown
    )
    evaluation_game = (game, game_config(game, dict(env_args or {})), opponent)
    history, started, evaluation = [], time.perf_counter() - before, None

    def so_far(seconds: float) -> FastPPOResult:
        scaling = None if statistics is None else statistics.scaling()
        return FastPPOResult(policy, network, shown, game, done_steps, seconds, history, scaling, evaluation)

    while done_steps < timesteps:
        batch = rollout.collect(policy)
        update(policy, optimizer, batch, config, network, torch)
        per_update = config.num_envs * config.rollout_steps
        done_steps += per_update
        history.append({"steps": done_steps, **rollout.round_returns()})
        if _passes(done_steps, per_update, config.eval_every):
            mean_return = evaluate_greedy(policy, config, network, evaluation_game, statistics, torch)
            evaluation = {"steps": done_steps, "mean_return": mean_return, "rounds": config.eval_rounds}
            history[-1]["eval_mean_return"] = mean_return
            if best is not None and (best_return is None or mean_return > best_return):
                best_return = mean_return
                best(so_far(time.perf_counter() - started))
        seconds = time.perf_counter() - started
        history[-1]["seconds"] = round(seconds, 3)
        if log is not None:
            log(history[-1])
        if checkpoint is not None and _passes(done_steps, per_update, config.checkpoint_every):
            checkpoint(so_far(seconds), optimizer.state_dict())
    env.close()
    return so_far(time.perf_counter() - started)


def _passes(done_steps: int, per_update: int, every: int) -> bool:
    """Whether the last update passed a multiple of ``every`` steps (never when ``every`` is 0)."""
    return bool(every) and done_steps // every > (done_steps - per_update) // every


EVALUATION_SEED = 3_000_000
"""The first seed of the evaluations that pick ``best.zip`` (``eval_every``): rounds ``EVALUATION_SEED + i``. The
suites deal from seed 0, ``war-train``'s held-out comparison from 2,000,000: none of them deals these rounds."""


def evaluate_greedy(policy, config: FastPPOConfig, network: FastNetwork, game: tuple, statistics, torch) -> float:
    """The greedy policy's mean return per round over ``config.eval_rounds`` rounds of ``game`` (env id, rules,
    opponent) on the evaluation seeds, its memory built as in training, the observation statistics frozen."""
    env_id, rules, opponent = game
    env = make_vector_game(env_id, config.eval_rounds, opponent, rules)
    seeds = [EVALUATION_SEED + i for i in range(config.eval_rounds)]
    frozen = None if statistics is None else statistics.frozen()
    try:
        returns = Rollout(config, network, env, seeds, torch, frozen, fields=game_fields(env_id, rules)).play_greedy(
            policy
        )
    finally:
        env.close()
    return float(returns.mean())


class RunningStatistics:
    """The running mean and variance of the observation fields (SB3's ``RunningMeanStd``, the statistics of its
    ``VecNormalize``), updated with every step's observations unless frozen (an evaluation)."""

    def __init__(self, fields: int, learning: bool = True):
        from stable_baselines3.common.running_mean_std import RunningMeanStd

        self.moments = RunningMeanStd(shape=(fields,))
        self.learning = learning

    def scaled(self, observations: np.ndarray) -> np.ndarray:
        if self.learning:
            self.moments.update(np.asarray(observations, np.float64))
        return self.scaling().apply(observations)

    def scaling(self) -> ObservationScaling:
        return ObservationScaling(self.moments.mean.copy(), self.moments.var.copy(), float(self.moments.count))

    def restore(self, scaling: ObservationScaling) -> None:
        self.moments.mean, self.moments.var, self.moments.count = scaling.mean.copy(), scaling.var.copy(), scaling.count

    def frozen(self) -> RunningStatistics:
        copy = RunningStatistics(self.moments.mean.size, learning=False)
        copy.restore(self.scaling())
        return copy


def sub_env_seeds(seed: int, done_steps: int, num_envs: int) -> list[int]:
    """One seed per sub-env, from numpy's ``SeedSequence`` of the run's seed and the steps done (a resumed run deals
    new rounds). Not Gymnasium's ``seed + i``: with 1,024 sub-envs, runs of seeds 0 and 1 would share 1,023 sub-envs'
    deals, and a table's five seeds would see nearly the same rounds in the same order."""
    return np.random.SeedSequence([seed, done_steps]).generate_state(num_envs).tolist()


class Rollout:
    """The batched env (one sub-env per seed) and the policy's inputs across rollouts: the stacked frames (each the
    observation, scaled by ``statistics`` when given, its card fields one-hot when ``config.one_hot_cards``, and the
    previous action when ``config.previous_action``), the LSTM's state, which rounds start on the next step and which
    step only deals a new round (its action ignored). ``fields``: the game's observation fields, which
    ``config.one_hot_cards`` needs."""

    def __init__(
        self,
        config: FastPPOConfig,
        network: FastNetwork,
        env,
        seeds: list[int],
        torch,
        statistics=None,
        fields: tuple[str, ...] | None = None,
    ):
        self.config, self.network, self.env, self.torch = config, network, env, torch
        self.statistics = statistics
        if config.one_hot_cards and fields is None:
            raise ValueError("one_hot_cards: the rollout needs the game's observation fields to find its card fields")
        self.cards = card_encoding(fields, config.one_hot_cards)
        n = len(seeds)
        observations, _ = env.reset(seed=seeds)
        first = self._frame(observations, torch.zeros(n))
        self.width = first.shape[1]
        self.frames = torch.zeros((n, network.inputs))
        self.frames[:, -self.width :] = first
        self.starts = torch.ones(n)
        self.dealing = torch.zeros(n)
        units = network.lstm_hidden_size
        self.state = (torch.zeros(n, units), torch.zeros(n, units)) if network.recurrent else None
        self.running = np.zeros(n)
        self.ended: list[np.ndarray] = []

    def collect(self, policy) -> dict:
        torch, steps, n = self.torch, self.config.rollout_steps, self.config.num_envs
        buffers = {
            "inputs": torch.zeros((steps, n, self.network.inputs)),
            "actions": torch.zeros((steps, n), dtype=torch.long),
            "logprobs": torch.zeros((steps, n)),
            "values": torch.zeros((steps, n)),
            "starts": torch.zeros((steps, n)),
            "valid": torch.zeros((steps, n)),
        }
        rewards, dones = np.zeros((steps, n), np.float32), np.zeros((steps, n), np.float32)
        initial_state = None if self.state is None else (self.state[0].clone(), self.state[1].clone())
        with torch.no_grad():
            for t in range(steps):
                buffers["inputs"][t], buffers["starts"][t], buffers["valid"][t] = (
                    self.frames,
                    self.starts,
                    1.0 - self.dealing,
                )
                features, self.state = policy.features(self.frames.unsqueeze(0), self.starts.unsqueeze(0), self.state)
                logits, values = policy.actor(features[0]), policy.critic(features[0])[:, 0]
                log_policy = torch.log_softmax(logits, dim=1)
                actions = torch.rand(n).lt_(log_policy[:, 1].exp()).long()
                buffers["actions"][t], buffers["values"][t] = actions, values
                buffers["logprobs"][t] = log_policy.gather(1, actions.unsqueeze(1))[:, 0]
                observations, reward, terminated, truncated, _ = self.env.step(actions.numpy())
                rewards[t], dones[t] = reward, terminated | truncated
                self._advance(observations, dones[t], reward, actions)
            features, _ = policy.features(self.frames.unsqueeze(0), self.starts.unsqueeze(0), self.state)
            last_values = policy.critic(features[0])[:, 0].numpy()
        advantages, returns = advantages_and_returns(
            rewards, buffers["values"].numpy(), dones, last_values, self.config.gamma, self.config.gae_lambda
        )
        return {
            **buffers,
            "advantages": torch.from_numpy(advantages),
            "returns": torch.from_numpy(returns),
            "initial_state": initial_state,
        }

    def play_greedy(self, policy) -> np.ndarray:
        """Each sub-env's first round played with the greedy action (the actor's argmax, as ``fast_ppo:PATH``
        plays): its return."""
        torch = self.torch
        returns, finished = np.zeros(len(self.starts)), np.zeros(len(self.starts), bool)
        with torch.no_grad():
            while not finished.all():
                features, self.state = policy.features(self.frames.unsqueeze(0), self.starts.unsqueeze(0), self.state)
                actions = policy.actor(features[0]).argmax(dim=1)
                observations, reward, terminated, truncated, _ = self.env.step(actions.numpy())
                returns += np.where(finished, 0.0, reward)
                done = terminated | truncated
                finished |= done
                self._advance(observations, done.astype(np.float32), reward, actions)
        return returns

    def _frame(self, observations: np.ndarray, previous):
        """One frame per sub-env: the observation (scaled; its card fields one-hot, from the raw values) and, when the
        policy is given it, the previous action. The order, scale -> one-hot -> previous action -> frames stacked
        (-> the LSTM), is the agent's (``FastPPOAgent._seen``): the statistics keep one entry per raw field, and a
        one-hot column, 0 or 1 by construction, is not standardised (``CardEncoding``)."""
        torch = self.torch
        seen = observations if self.statistics is None else self.statistics.scaled(observations)
        if self.cards is not None:
            seen = self.cards.encode(observations, seen)
        frame = torch.from_numpy(np.asarray(seen, np.float32))
        return torch.cat((frame, previous.float().unsqueeze(1)), 1) if self.config.previous_action else frame

    def _advance(self, observations: np.ndarray, done: np.ndarray, reward: np.ndarray, actions) -> None:
        """After a step: a round that ended makes the next step a dealing step; a dealing step's observation is a
        new round's first (the frames before it are zeros, the previous action 0, the LSTM's state is reset)."""
        torch = self.torch
        self.starts = self.dealing
        self.dealing = torch.from_numpy(done)
        frame = self._frame(observations, actions * (1.0 - self.starts))
        if self.network.inputs > self.width:  # shift the frames: the oldest out, the newest last
            self.frames = torch.cat((self.frames[:, self.width :] * (1.0 - self.starts).unsqueeze(1), frame), 1)
        else:
            self.frames = frame
        self.running += reward
        if done.any():
            ended = done.astype(bool)
            self.ended.append(self.running[ended].copy())
            self.running[ended] = 0.0

    def round_returns(self) -> dict:
        """The rounds that ended since the last call: how many, and their mean training return."""
        ended = np.concatenate(self.ended) if self.ended else np.zeros(0)
        self.ended = []
        return {"rounds": int(ended.size), "mean_return": float(ended.mean()) if ended.size else None}


def update(policy, optimizer, batch: dict, config: FastPPOConfig, network: FastNetwork, torch) -> None:
    """``epochs`` passes of clipped PPO over the rollout: random minibatches of samples (MLP) or of whole envs'
    sequences replayed from the rollout's initial LSTM state (LSTM). Dealing steps weigh 0."""
    steps, n = config.rollout_steps, config.num_envs
    if network.recurrent:
        per_batch = max(1, config.minibatch_size // steps)
        for _ in range(config.epochs):
            for envs in torch.randperm(n).split(per_batch):
                state = (batch["initial_state"][0][envs], batch["initial_state"][1][envs])
                features, _ = policy.features(batch["inputs"][:, envs], batch["starts"][:, envs], state)
                _step(
                    policy,
                    optimizer,
                    config,
                    features.reshape(-1, features.shape[-1]),
                    {key: batch[key][:, envs].reshape(-1) for key in _SAMPLES},
                    torch,
                )
        return
    flat = {key: batch[key].reshape(steps * n, *batch[key].shape[2:]) for key in ("inputs", *_SAMPLES)}
    for _ in range(config.epochs):
        order = torch.randperm(steps * n)
        shuffled = {key: value[order] for key, value in flat.items()}  # one gather per epoch, then slices
        for begin in range(0, steps * n, config.minibatch_size):
            part = {key: value[begin : begin + config.minibatch_size] for key, value in shuffled.items()}
            _step(policy, optimizer, config, part.pop("inputs"), part, torch)


_SAMPLES = ("actions", "logprobs", "advantages", "returns", "valid")


def _step(policy, optimizer, config: FastPPOConfig, features, samples: dict, torch) -> None:
    log_policy = torch.log_softmax(policy.actor(features), dim=1)
    logprobs = log_policy.gather(1, samples["actions"].unsqueeze(1))[:, 0]
    advantages, weights = samples["advantages"], samples["valid"]
    total = weights.sum().clamp_min(1.0)
    if config.normalize_advantage:
        mean = (advantages * weights).sum() / total
        spread = (((advantages - mean) ** 2 * weights).sum() / total).sqrt()
        advantages = (advantages - mean) / (spread + 1e-8)
    ratio = (logprobs - samples["logprobs"]).exp()
    surrogate = torch.min(ratio * advantages, ratio.clamp(1 - config.clip_range, 1 + config.clip_range) * advantages)
    value_error = (policy.critic(features)[:, 0] - samples["returns"]).pow(2)
    loss = (-surrogate + 0.5 * config.vf_coef * value_error) * weights
    if config.ent_coef:
        entropy = -(log_policy.exp() * log_policy).sum(dim=1)
        loss = loss - config.ent_coef * entropy * weights
    optimizer.zero_grad(set_to_none=True)
    (loss.sum() / total).backward()
    torch.nn.utils.clip_grad_norm_(policy.parameters(), config.max_grad_norm)
    optimizer.step()


def save(result: FastPPOResult, path, config: FastPPOConfig, seed: int, opponent: str | None, env_args: dict) -> Path:
    """The trained policy as a ``fast_ppo`` model file (``fast_ppo:PATH``), with its latest evaluation."""
    return save_fast_model(
        path,
        result.policy.state_dict(),
        result.network,
        result.fields,
        config.frame_stack,
        result.env_id,
        previous_action=config.previous_action,
        scaling=result.scaling,
        one_hot_cards=config.one_hot_cards,
        evaluation=result.evaluation,
        config=config.as_json(),
        seed=seed,
        env_args=env_args,
        opponent=default_opponent(result.env_id) if opponent is None else opponent,
        num_timesteps=result.timesteps,
    )


class ProgressPrinter:
    """``log`` for ``run_fast_ppo`` that prints a line at most every ``every_seconds`` of training (and after the
    last update): the steps done (of ``timesteps`` when given), the steps/s since the previous line and the mean
    training return of the rounds that ended since it."""

    def __init__(self, timesteps: int | None = None, every_seconds: float = 30.0, out=print):
        self.timesteps, self.every_seconds, self.out = timesteps, every_seconds, out
        self.steps, self.seconds = 0, 0.0  # a resumed run's first line: its average since the run's start
        self.rounds, self.total = 0, 0.0

    def __call__(self, entry: dict) -> None:
        if entry.get("rounds"):
            self.rounds += entry["rounds"]
            self.total += entry["rounds"] * entry["mean_return"]
        last = self.timesteps is not None and entry["steps"] >= self.timesteps
        if entry["seconds"] - self.seconds < self.every_seconds and not last:
            return
        rate = (entry["steps"] - self.steps) / max(entry["seconds"] - self.seconds, 1e-9)
        budget = f"/{self.timesteps:,}" if self.timesteps else ""
        returns = (
            f"mean return {self.total / self.rounds:+.3f} over {self.rounds:,} rounds"
            if self.rounds
            else "no round ended"
        )
        self.out(f"  {entry['steps']:,}{budget} steps, {entry['seconds']:.0f} s, {rate:,.0f} steps/s; {returns}")
        self.steps, self.seconds, self.rounds, self.total = entry["steps"], entry["seconds"], 0, 0.0


# --- a run folder -------------------------------------------------------------------------------------------
@dataclass
class FastRun:
    run_dir: Path
    model: Path
    model_card: dict


SETTINGS_FILE = "config.json"
"""A run folder's settings (``war-train --resume RUN`` reads them back)."""
CHECKPOINT_NAME = "fast_ppo_{}_steps"
BEST_MODEL = "best.zip"
"""The model of the best evaluation (``eval_every``); ``final.zip`` is always the last model."""
FEW_ROUNDS = 10
"""Rounds each sub-env should finish in a run: below it, the budget warns. A run of 1,000,000 steps over 1,024
sub-envs can end with 3 rounds in all and a model that never presses; the probe runs that pass their lines in
experiments/learner_setup finish 2-5 rounds per sub-env, so the warning asks for a look; it is no verdict."""


def rounds_per_sub_env(result: FastPPOResult, config: FastPPOConfig) -> float:
    """Rounds finished in training per sub-env (the rounds counted since the run's start or its resume)."""
    return sum(entry.get("rounds") or 0 for entry in result.history) / config.num_envs


def few_rounds_warning(result: FastPPOResult, config: FastPPOConfig) -> str | None:
    """A warning when the budget let each sub-env finish fewer than ``FEW_ROUNDS`` rounds, else ``None``."""
    rounds = rounds_per_sub_env(result, config)
    if rounds >= FEW_ROUNDS:
        return None
    return (
        f"the budget of {result.timesteps:,} steps finished {rounds:.1f} rounds per sub-env ({config.num_envs} "
        f"sub-envs); with fewer than {FEW_ROUNDS} rounds each the policy has seen few rounds end: check its "
        "training curve and verdict before trusting it, or give more --timesteps or fewer sub-envs "
        "(--set num_envs=N)"
    )


OPTIMIZER_SUFFIX = ".optimizer.pth"


def run_fast_ppo(
    run_dir,
    timesteps: int | None,
    *,
    overrides: dict | None = None,
    env_id: str | None = None,
    opponent: str | None = None,
    env_args: dict | None = None,
    seed: int = 0,
    frame_stack: int = 1,
    bench_rounds: int = 500,
    bench_seed: int = 2_000_000,
    log=None,
    resume: bool = False,
) -> FastRun:
    """``war-train --algo fast_ppo``: train, then write ``RUN/final.zip`` (the last model), ``RUN/best.zip`` (the
    best evaluation's, with ``eval_every``), ``RUN/progress.jsonl`` (one line per update) and ``RUN/model_card.json``
    (settings, config, wall time, steps/s, rounds per sub-env, provenance and, unless ``bench_rounds`` is 0, the
    models on held-out paired rounds: on a probe played as defined, their regret to its oracle judged by the probe's
    line, ``probe_verdict.held_out_verdict``; elsewhere the final model against ``prompt`` with the bar, as
    ``war-train``'s SB3 runs).
    ``RUN/config.json`` holds the settings from the start, ``RUN/checkpoints/`` the checkpoints (``checkpoint_every``).

    ``resume``: go on with the run in ``run_dir`` from its latest checkpoint (from the start without one), every
    setting read from its config.json but ``timesteps`` (``None``: the folder's) and ``bench_*``; ``opponent`` may
    only restate the folder's, and must when it is an ``exec:`` spec (a folder never starts a program by itself)."""
    from war_env.agents.fast_model import load_fast_agent, read_fast_model
    from war_env.training.comparison import BASELINE, compare, held_out_stats
    from war_env.training.probe_verdict import held_out_verdict, probe_name

    run_dir = Path(run_dir)
    with locked_run_folder(run_dir, "war-train"):
        if (run_dir / "final.zip").exists():
            refuse_started(run_dir, "a model", "pick another --run-dir")
        if resume:
            settings = _settings_to_resume(run_dir, timesteps, opponent)
        else:
            settings = _new_settings(run_dir, timesteps, overrides, env_id, opponent, env_args, seed, frame_stack)
        config = FastPPOConfig.with_overrides(settings["config"])
        env_id, opponent, env_args, seed = (settings[key] for key in ("env_id", "opponent", "env_args", "seed"))
        start, lines = _latest_checkpoint(run_dir, config) if resume else (None, [])

        def record(entry):
            lines.append(json.dumps(entry))
            if log is not None:
                log(entry)

        def keep(so_far: FastPPOResult, optimizer: dict):
            stem = run_dir / "checkpoints" / CHECKPOINT_NAME.format(so_far.timesteps)
            save(so_far, stem.with_suffix(".zip"), config, seed, opponent, env_args)
            _save_optimizer(Path(str(stem) + OPTIMIZER_SUFFIX), optimizer, so_far.seconds)
            write_atomic(run_dir / "progress.jsonl", "\n".join(lines) + "\n")

        def keep_best(so_far: FastPPOResult):
            save(so_far, run_dir / BEST_MODEL, config, seed, opponent, env_args)

        result = train_fast_ppo(
            config,
            settings["timesteps"],
            env_id=env_id,
            opponent=opponent,
            env_args=env_args,
            seed=seed,
            log=record,
            start=start,
            checkpoint=keep,
            best=keep_best,
        )
        write_atomic(run_dir / "progress.jsonl", "\n".join(lines) + "\n")
        model = save(result, run_dir / "final.zip", config, seed, opponent, env_args)
        best_file = run_dir / BEST_MODEL
        card = {
            "algorithm": "fast_ppo",
            "model": {
                "final": "final.zip",
                "load": f"fast_ppo:{model}",
                "best": BEST_MODEL if best_file.is_file() else None,
                "best_evaluation": read_fast_model(best_file).metadata["evaluation"] if best_file.is_file() else None,
            },
            "env_id": result.env_id,
            "opponent": default_opponent(result.env_id) if opponent is None else opponent,
            "env_args": env_args,
            "seed": seed,
            "config": config.as_json(),
            "train_env_rewards": config.rewards_for(result.env_id),
            "timesteps": result.timesteps,
            "resumed_from_timesteps": start.steps if start is not None else None,
            "train_wall_seconds": round(result.seconds, 1),
            "steps_per_second": round(result.steps_per_second),
            "observation_fields": list(result.fields),
            "rounds_per_sub_env": rounds_per_sub_env(result, config),
            "provenance": provenance(),
        }
        too_few = few_rounds_warning(result, config)
        if too_few:
            card["warnings"] = [too_few]
            warnings.warn(too_few, stacklevel=2)
        probe = probe_name(result.env_id)
        as_defined = probe is not None and not env_args and card["opponent"] == default_opponent(result.env_id)
        if bench_rounds and as_defined:  # a probe is judged by its own line, not by prompt's bar
            card["probe_verdict"] = {
                name: {
                    **held_out_verdict(load_fast_agent(path), result.env_id, bench_rounds, bench_seed),
                    "model_file": path.name,
                }
                for name, path in (("final", model), ("best", best_file))
                if path.is_file()
            }
        elif bench_rounds:
            card_opponent = card["opponent"]
            prompt = held_out_stats(BASELINE, card_opponent, env_args, bench_rounds, bench_seed, env_id=result.env_id)
            mine = held_out_stats(
                load_fast_agent(model), card_opponent, env_args, bench_rounds, bench_seed, env_id=result.env_id
            )
            card["benchmark_final"] = {**compare(mine, prompt), "model_file": "final.zip"}
        write_atomic(run_dir / "model_card.json", json.dumps(card, indent=2))
        session = {"from_timesteps": start.steps if start is not None else 0, "to_timesteps": result.timesteps}
        record_session(run_dir, {**session, "train_wall_seconds": card["train_wall_seconds"]}, provenance=provenance())
    return FastRun(run_dir, model, card)


def _new_settings(run_dir: Path, timesteps, overrides, env_id, opponent, env_args, seed, frame_stack) -> dict:
    """The settings of a new run, checked, written to ``RUN/config.json`` (a folder holding a run is refused)."""
    overrides = dict(overrides or {})
    if frame_stack != 1:
        overrides.setdefault("frame_stack", frame_stack)
    config = FastPPOConfig.with_overrides(overrides)
    _check_timesteps(timesteps)
    if (run_dir / SETTINGS_FILE).exists():
        refuse_started(
            run_dir,
            "a run that did not finish",
            f"continue it with war-train --algo fast_ppo --resume {run_dir}, or pick another --run-dir",
        )
    settings = {
        "algorithm": "fast_ppo",
        "timesteps": timesteps,
        "config": config.as_json(),
        "env_id": env_id,
        "opponent": opponent,
        "env_args": dict(env_args or {}),
        "seed": seed,
    }
    write_settings(run_dir / SETTINGS_FILE, settings)
    return settings


def _settings_to_resume(run_dir: Path, timesteps, opponent) -> dict:
    """The folder's settings, with ``timesteps`` when given; ``opponent`` restates the folder's."""
    from war_env.agents import check_commands_restated

    path = run_dir / SETTINGS_FILE
    settings = read_settings(run_dir, SETTINGS_FILE, what="fast_ppo run")
    if settings.get("algorithm") != "fast_ppo":
        raise RunFolderConflict(
            f"cannot resume {str(run_dir)!r} with --algo fast_ppo: its {SETTINGS_FILE} is not a fast_ppo "
            "run's (an SB3 run is resumed without --algo fast_ppo)"
        )
    stored = settings.get("opponent")
    check_commands_restated(
        [stored] if stored else [],
        [opponent] if opponent else [],
        str(path),
        "--opponent",
        f"war-train --algo fast_ppo --resume {run_dir}",
    )
    if timesteps is not None:
        settings["timesteps"] = timesteps
    _check_timesteps(settings.get("timesteps"))
    return settings


def _check_timesteps(timesteps) -> None:
    if isinstance(timesteps, bool) or not isinstance(timesteps, int) or timesteps < 1:
        raise ValueError(f"timesteps must be a whole number >= 1, got {shown(timesteps)}")


def _save_optimizer(path: Path, optimizer: dict, seconds: float) -> None:
    """The optimizer's state beside its checkpoint's model file (a checkpoint counts once both are there)."""
    import torch

    buffer = io.BytesIO()
    torch.save({"optimizer": optimizer, "seconds": seconds}, buffer)
    write_atomic(path, buffer.getvalue())


def checkpoint_files(run_dir: Path) -> list[tuple[int, Path]]:
    """(steps, model file) of the run's complete checkpoints (the model and the optimizer's state beside it)."""
    found = []
    for path in (Path(run_dir) / "checkpoints").glob(CHECKPOINT_NAME.format("*") + ".zip"):
        steps = path.stem.removeprefix("fast_ppo_").removesuffix("_steps")
        if steps.isdigit() and Path(str(path.with_suffix("")) + OPTIMIZER_SUFFIX).is_file():
            found.append((int(steps), path))
    return found


def _latest_checkpoint(run_dir: Path, config: FastPPOConfig) -> tuple[Checkpoint | None, list[str]]:
    """The latest complete checkpoint of the run (read as any model file is: sizes checked, weights only) and the
    progress lines up to it; ``(None, [])`` when it has none."""
    import torch

    from war_env.agents.fast_model import read_fast_model
    from war_env.agents.pth_files import load_pth

    found = checkpoint_files(run_dir)
    if not found:
        return None, []
    steps, path = max(found)
    model = read_fast_model(path)
    where = f"checkpoint {str(path.with_suffix(''))!r}{OPTIMIZER_SUFFIX}"
    with open(str(path.with_suffix("")) + OPTIMIZER_SUFFIX, "rb") as stream:
        saved = load_pth(stream, 3 * 4 * model.network.parameters() + (1 << 16), where)
    if not isinstance(saved, dict) or not isinstance(saved.get("optimizer"), dict):
        raise ValueError(f"{where} holds no optimizer state")
    progress = run_dir / "progress.jsonl"
    lines = [
        line
        for line in (progress.read_text().splitlines() if progress.is_file() else [])
        if line and json.loads(line)["steps"] <= steps
    ]
    policy = {name: torch.from_numpy(weights.copy()) for name, weights in model.weights.items()}
    best = run_dir / BEST_MODEL
    best_return = read_fast_model(best).metadata["evaluation"]["mean_return"] if best.is_file() else None
    seconds = float(saved.get("seconds", 0.0))
    return Checkpoint(policy, saved["optimizer"], steps, seconds, model.scaling, best_return), lines


__all__ = [
    "FAST_ACTIVATIONS",
    "Checkpoint",
    "FastPPOConfig",
    "FastPPOResult",
    "ProgressPrinter",
    "advantages_and_returns",
    "build_policy",
    "checkpoint_files",
    "run_fast_ppo",
    "sub_env_seeds",
    "train_fast_ppo",
]
