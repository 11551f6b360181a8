"""The SB3 callbacks of a ``war-train`` run (stable-baselines3 is imported inside, the train extra)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from war_env.agents.sb3_model import save_model
from war_env.atomic import write_atomic
from war_env.training.config import TrainConfig


def make_callbacks(model_meta: dict, run_dir: Path, config: TrainConfig, eval_env, n_envs: int, best_so_far: float):
    """Round statistics for TensorBoard, atomic checkpoints, and the evaluation on held-out deals that
    saves ``best.zip``."""
    from stable_baselines3.common.callbacks import BaseCallback, CallbackList, EvalCallback

    if config.algorithm == "maskable_ppo":  # evaluates with the env's action_masks(), as it trains
        from sb3_contrib.common.maskable.callbacks import MaskableEvalCallback as EvalCallback

    class SaveAtomically(BaseCallback):
        """Checkpoints every ``every`` timesteps (or the best model when called by EvalCallback)."""

        def __init__(self, every: int = 0, best: bool = False):
            super().__init__()
            self.every, self.best, self.next_at = every, best, None

        def _on_step(self) -> bool:
            if self.best:
                save_model(self.model, run_dir / "best.zip", **model_meta)
                record = {"mean_reward": float(self.parent.best_mean_reward), "timesteps": self.num_timesteps}
                write_atomic(run_dir / "best.json", json.dumps(record))
                return True
            if self.next_at is None:
                self.next_at = (self.num_timesteps // self.every + 1) * self.every
            if self.num_timesteps >= self.next_at:
                self.next_at += self.every
                save_model(self.model, run_dir / "checkpoints" / f"ckpt_{self.num_timesteps}.zip", **model_meta)
            return True

    class RoundInfoLogger(BaseCallback):
        """TensorBoard: takeover rate, false starts and reaction ticks of the finished training rounds."""

        def _on_step(self) -> bool:
            for info in self.locals["infos"]:
                round_info = info.get("round")
                if round_info:
                    self.logger.record_mean("rollout/takeover_rate", float(round_info["takeover"][0]))
                    self.logger.record_mean("rollout/false_starts_per_round", float(round_info["false_starts"][0]))
                    reactions = round_info["reaction_ticks"][0]
                    if reactions:
                        self.logger.record_mean("rollout/mean_reaction_ticks", float(np.mean(reactions)))
            return True

    class HeldOutEval(EvalCallback):
        """EvalCallback that replays the same held-out deals at every evaluation."""

        def _on_step(self) -> bool:
            if self.eval_freq > 0 and self.n_calls % self.eval_freq == 0:
                self.eval_env.seed(config.evaluation["seed"])
            return super()._on_step()

    callbacks = [RoundInfoLogger()]
    if config.checkpoint_every_timesteps:
        callbacks.append(SaveAtomically(every=config.checkpoint_every_timesteps))
    if config.evaluation["every_timesteps"]:
        evaluation = HeldOutEval(
            eval_env,
            n_eval_episodes=config.evaluation["rounds"],
            eval_freq=max(1, config.evaluation["every_timesteps"] // n_envs),
            log_path=str(run_dir / "eval"),
            best_model_save_path=None,
            callback_on_new_best=SaveAtomically(best=True),
            deterministic=True,
            verbose=0,
        )
        evaluation.best_mean_reward = best_so_far
        callbacks.append(evaluation)
    return CallbackList(callbacks)
