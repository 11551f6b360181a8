"""RL Baselines3 Zoo with War-v0: ``python -m war_env.training.rl_zoo SCRIPT`` runs a zoo script with War-v0
registered (record_video has no --gym-packages), and what the shipped zoo file says about the eval env
is what the zoo does: the eval env keeps the outcome rewards unless --eval-env-kwargs removes them."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from war_env.data import rl_zoo_file

pytest.importorskip("rl_zoo3")
ROOT = Path(__file__).resolve().parent.parent
TRAIN = ["--algo", "ppo", "--env", "War-v0", "-conf", str(rl_zoo_file("ppo")), "--seed", "0", "--num-threads", "1"]


def zoo(*arguments, cwd: Path) -> subprocess.CompletedProcess:
    done = subprocess.run(
        [sys.executable, "-m", "war_env.training.rl_zoo", *arguments],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=cwd,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done


@pytest.mark.slow
def test_record_video_records_a_zoo_model_playing_war(tmp_path):
    pytest.importorskip("pygame")
    pytest.importorskip("moviepy")
    zoo("train", *TRAIN, "-n", "500", "--eval-freq", "-1", "-f", "logs", cwd=tmp_path)
    zoo("record_video", "--algo", "ppo", "--env", "War-v0", "-f", "logs", "-n", "100", "-o", "videos", cwd=tmp_path)
    (video,) = (tmp_path / "videos").glob("*.mp4")
    assert video.stat().st_size > 10_000


@pytest.mark.slow
def test_the_zoo_eval_env_keeps_the_outcome_rewards_unless_told_otherwise(tmp_path):
    """The same seed trains the same model twice; its evaluations differ by exactly the outcome (+-1 per
    round) between the eval env as the zoo makes it and one given the training rewards."""
    evaluations = []
    for name, extra in (("as-is", []), ("training-scale", ["--eval-env-kwargs", "reward_win:0.0", "reward_loss:0.0"])):
        zoo(
            "train", *TRAIN, "-n", "500", "--eval-freq", "250", "--eval-episodes", "4", "-f", name, *extra, cwd=tmp_path
        )
        evaluations.append(np.load(tmp_path / name / "ppo" / "War-v0_1" / "evaluations.npz")["results"])
    as_is, training_scale = evaluations
    assert np.all(training_scale <= 0)  # idle ticks, false starts, takeovers: only costs
    outcome = as_is - training_scale
    assert set(np.round(outcome, 9).ravel()) <= {-1.0, 0.0, 1.0} and np.any(outcome != 0)


@pytest.mark.slow
def test_an_unknown_script_or_no_script_is_a_one_line_error():
    for arguments in ([], ["record_vidoe"]):
        done = subprocess.run(
            [sys.executable, "-m", "war_env.training.rl_zoo", *arguments],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=ROOT,
        )
        assert done.returncode != 0 and "usage: python -m war_env.training.rl_zoo SCRIPT" in done.stderr
        assert "Traceback" not in done.stderr
