"""The SB3 callbacks of a ``war-train`` run (stable-baselines3 is imported inside, the train extra)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np

from war_env.agents.model_files import save_model
from war_env.support.atomic import write_atomic
from war_env.training.config import TrainConfig

CHECKPOINT_NAME = re.compile(r"ckpt_(\d+)\.zip")
EVALUATIONS = "eval/evaluations.npz"
"""SB3's evaluation log in a run folder: ``timesteps``, ``results`` and ``ep_lengths``, one row per evaluation."""


def checkpoints(run_dir: Path) -> list[tuple[int, Path]]:
    """``checkpoints/ckpt_<timesteps>.zip`` of a run folder, newest first (other files there are not
    checkpoints and are left alone)."""
    found = [
        (int(match[1]), path)
        for path in (run_dir / "checkpoints").glob("*.zip")
        if (match := CHECKPOINT_NAME.fullmatch(path.name))
    ]
    return sorted(found, reverse=True)


def make_callbacks(
    model_meta: dict, run_dir: Path, config: TrainConfig, eval_env, n_envs: int, best_so_far: float, resumed_at: int = 0
):
    """Round statistics for TensorBoard, the evaluation on held-out deals that saves ``best.zip``, and
    atomic checkpoints, in that order: at a step that has both, the checkpoint is written after the
    evaluation is in the log, so a run killed in between resumes from the previous checkpoint and
    evaluates that step again instead of losing it. ``resumed_at``: the checkpoint's step count (0 for a
    new run); the evaluation log keeps what came before it, and the schedule goes on from it."""
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
                for _, old in checkpoints(run_dir)[config.keep_checkpoints :]:
                    old.unlink(missing_ok=True)
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
        _continue_history(evaluation, run_dir / EVALUATIONS, resumed_at)
        evaluation.n_calls = resumed_at // n_envs  # evaluations fall on the same steps as without the resume
        callbacks.append(evaluation)
    if config.checkpoint_every_timesteps:
        callbacks.append(SaveAtomically(every=config.checkpoint_every_timesteps))
    return CallbackList(callbacks)


def _continue_history(evaluation, log: Path, resumed_at: int) -> None:
    """A resumed run appends to the evaluation log: SB3's callback rewrites the whole file from its own
    lists at every evaluation, so they start from what the file holds up to the checkpoint's step count
    (what came after it, from a resume of an earlier checkpoint, is trained and evaluated again, and
    dropped, said on stderr). A file a crash left unreadable is kept aside (``evaluations.unreadable.npz``),
    not overwritten."""
    if not log.exists():
        return
    try:
        with np.load(log) as data:
            timesteps, results, lengths = (
                data["timesteps"].tolist(),
                data["results"].tolist(),
                data["ep_lengths"].tolist(),
            )
    except (OSError, ValueError, KeyError) as error:
        kept = log.with_name("evaluations.unreadable.npz")
        log.replace(kept)
        print(
            f"war-train: cannot read {log} ({error}); kept as {kept}, the evaluation log starts again", file=sys.stderr
        )
        return
    earlier = sum(step <= resumed_at for step in timesteps)  # the log is in step order
    if earlier < len(timesteps):
        print(
            f"war-train: resuming at {resumed_at} steps: the evaluations at {timesteps[earlier:]} steps come after "
            "it and are dropped from the log (those steps are trained and evaluated again)",
            file=sys.stderr,
        )
    evaluation.evaluations_timesteps = timesteps[:earlier]
    evaluation.evaluations_results = results[:earlier]
    evaluation.evaluations_length = lengths[:earlier]
