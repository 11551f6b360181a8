"""Torch on one thread wherever the package runs it (war_env/support/threads.py). The networks are tiny MLPs:
the same RecurrentPPO run took 301 s with torch's default threads and 12 s with one on a shared 2-core
machine (issue 31). A user's plain ``import torch`` takes as many threads as there are cores, so each test
starts torch on two threads and checks that the entry point brought it back to one."""

from __future__ import annotations

import pytest

pytest.importorskip("stable_baselines3", reason="the train extra")
import torch  # noqa: E402

from war_env.agents.algorithms import ALGORITHMS, algorithm_class  # noqa: E402
from war_env.scripts.train import cli as war_train  # noqa: E402
from war_env.training.selfplay import self_play  # noqa: E402

TINY = {"n_steps": 64, "batch_size": 64, "n_epochs": 1}


@pytest.fixture
def torch_on_two_threads():
    before = torch.get_num_threads()
    torch.set_num_threads(2)  # what a plain `import torch` gives on this project's 2-core machines
    yield
    torch.set_num_threads(before)


def test_war_train_trains_on_one_torch_thread(torch_on_two_threads, tmp_path):
    argv = [
        "--algo",
        "ppo",
        "--timesteps",
        "64",
        "--n-envs",
        "1",
        "--run-dir",
        str(tmp_path / "run"),
        "--bench-rounds",
        "2",
        "--no-progress-bar",
        "--set",
        "n_steps=64",
        "--set",
        "batch_size=64",
        "--set",
        "n_epochs=1",
    ]
    assert war_train(argv) == 0
    assert torch.get_num_threads() == 1


def test_war_selfplay_trains_on_one_torch_thread(torch_on_two_threads, tmp_path):
    self_play(timesteps=64, refresh_every=64, n_envs=1, run_dir=tmp_path, eval_deals=1, hyperparameters=TINY)
    assert torch.get_num_threads() == 1


@pytest.mark.parametrize("algo", sorted(ALGORITHMS))
def test_every_algorithm_a_model_is_built_or_loaded_with_runs_on_one_torch_thread(torch_on_two_threads, algo):
    # war-bench's model agents, war-curves, war-tune and war-perf all build or load models through this class
    algorithm_class(algo)
    assert torch.get_num_threads() == 1
