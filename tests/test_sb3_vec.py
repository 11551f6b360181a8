"""The SB3 adapter: SB3's conventions (same-step autoreset, terminal_observation, TimeLimit.truncated)
checked against SB3's own DummyVecEnv over single War-v0 envs, under VecCheckNan, and a few PPO steps."""

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("stable_baselines3")

from stable_baselines3.common.vec_env import DummyVecEnv, VecCheckNan, VecMonitor  # noqa: E402

import war_env  # noqa: E402,F401
from war_env.envs.sb3_vec import WarSB3VecEnv  # noqa: E402


def dummy_vec_env(num_envs, env_id="War-v0", **kwargs):
    return DummyVecEnv([lambda: gym.make(env_id, **kwargs) for _ in range(num_envs)])


def step_side_by_side(ours, theirs, num_envs: int, seed: int, steps: int, draw_probability: float) -> tuple[int, int]:
    """Steps both vec envs with the same random actions and asserts every output equal; returns how
    many episodes ended and how many of those were truncated."""
    ours.seed(seed)
    theirs.seed(seed)
    np.testing.assert_array_equal(ours.reset(), theirs.reset())
    rng = np.random.default_rng(seed)
    finished = truncated = 0
    for _ in range(steps):
        actions = (rng.random(num_envs) < draw_probability).astype(np.int64)
        obs_a, rew_a, done_a, infos_a = ours.step(actions)
        obs_b, rew_b, done_b, infos_b = theirs.step(actions)
        np.testing.assert_array_equal(obs_a, obs_b)
        np.testing.assert_array_equal(rew_a, rew_b)
        np.testing.assert_array_equal(done_a, done_b)
        for info_a, info_b in zip(infos_a, infos_b):
            assert info_a["TimeLimit.truncated"] == info_b["TimeLimit.truncated"]
            assert ("terminal_observation" in info_a) == ("terminal_observation" in info_b)
            if "terminal_observation" in info_a:
                np.testing.assert_array_equal(info_a["terminal_observation"], info_b["terminal_observation"])
                finished += 1
                truncated += info_a["TimeLimit.truncated"]
            if "round" in info_b:
                assert info_a["round"] == info_b["round"]
    return finished, truncated


@pytest.mark.parametrize("opponent, max_episode_steps", [("human", None), ("instant", 120), ("absent", None)])
def test_the_adapter_steps_exactly_like_sb3s_dummy_vec_env(opponent, max_episode_steps):
    num_envs = 4
    ours = WarSB3VecEnv(num_envs, opponent=opponent, max_episode_steps=max_episode_steps)
    theirs = dummy_vec_env(num_envs, opponent=opponent, max_episode_steps=max_episode_steps)
    finished, truncated = step_side_by_side(ours, theirs, num_envs, seed=11, steps=1500, draw_probability=0.25)
    assert finished >= 2
    if max_episode_steps is not None:
        assert truncated > 0


def test_the_adapter_passes_sb3s_nan_check_and_monitor():
    env = VecMonitor(VecCheckNan(WarSB3VecEnv(3, opponent="human"), raise_exception=True))
    env.seed(0)
    observations = env.reset()
    assert observations.shape == (3, 16) and observations.dtype == np.float32
    episodes = 0
    for _ in range(600):
        observations, rewards, dones, infos = env.step(np.ones(3, dtype=np.int64))
        assert rewards.dtype == np.float32 and dones.dtype == bool
        episodes += sum("episode" in info for info in infos)
    assert episodes > 0


def test_action_masks_are_served_per_env_for_maskable_ppo():
    env = WarSB3VecEnv(2, opponent="instant")
    env.reset()
    masks = env.env_method("action_masks")
    assert len(masks) == 2 and all(mask.shape == (2,) and mask[0] for mask in masks)
    with pytest.raises(AttributeError, match="action_masks"):
        env.env_method("render")


def test_ppo_trains_a_few_steps_on_the_batched_env():
    torch = pytest.importorskip("torch")
    from stable_baselines3 import PPO

    torch.set_num_threads(1)
    env = WarSB3VecEnv(8, opponent="human")
    model = PPO("MlpPolicy", env, n_steps=16, batch_size=64, n_epochs=1, seed=0, device="cpu")
    model.learn(total_timesteps=256)
    assert model.num_timesteps >= 256
    actions, _ = model.predict(env.reset(), deterministic=True)
    assert actions.shape == (8,)


@pytest.mark.slow
@pytest.mark.parametrize("seeded", [True, False])
def test_vec_video_recorder_records_the_games_the_adapter_plays(tmp_path, seeded):
    """render_mode="rgb_array": SB3's VecVideoRecorder works, and its frames are those of SB3's
    DummyVecEnv over War-v0 envs playing the same games (seeded, or dealt by the adapter's own seeds)."""
    pytest.importorskip("pygame")
    pytest.importorskip("moviepy")
    from stable_baselines3.common.vec_env import VecVideoRecorder

    ours = WarSB3VecEnv(2, opponent="instant", max_episode_steps=150, render_mode="rgb_array")
    if seeded:
        ours.seed(3)
    recorder = VecVideoRecorder(ours, str(tmp_path), record_video_trigger=lambda step: step == 0, video_length=40)
    observations = recorder.reset()
    rng = np.random.default_rng(0)
    for _ in range(60):  # rounds end (takeovers, the time limit) and restart within the recording
        observations, *_ = recorder.step((rng.random(2) < 0.05).astype(np.int64))
    recorder.close()
    (video,) = tmp_path.glob("*.mp4")
    assert video.stat().st_size > 0 and recorder.frames_per_sec == 10  # War-v0's, not the default 30
    if seeded:
        theirs = DummyVecEnv(
            [
                lambda: gym.make("War-v0", opponent="instant", max_episode_steps=150, render_mode="rgb_array")
                for _ in range(2)
            ]
        )
        theirs.seed(3)
        theirs.reset()
        ours = WarSB3VecEnv(2, opponent="instant", max_episode_steps=150, render_mode="rgb_array")
        ours.seed(3)
        ours.reset()
        for step in range(60):
            actions = (rng.random(2) < 0.05).astype(np.int64)
            ours.step(actions)
            theirs.step(actions)
            if step % 20 == 0:
                np.testing.assert_array_equal(ours.render(), theirs.render())


def test_the_adapter_refuses_render_modes_it_cannot_draw():
    with pytest.raises(ValueError, match="rgb_array frames only"):
        WarSB3VecEnv(1, render_mode="human")


@pytest.mark.parametrize("latency", ["fixed:ticks=2", "uniform:low=1,high=4"])
def test_the_latency_adapter_steps_exactly_like_sb3s_dummy_vec_env_over_war_latency_v0(latency):
    num_envs = 3
    kwargs = {"opponent": "human", "max_episode_steps": 150, "latency": latency, "target_points": 10}
    ours = WarSB3VecEnv(num_envs, env_id="WarLatency-v0", **kwargs)
    theirs = dummy_vec_env(num_envs, env_id="WarLatency-v0", **kwargs)
    assert ours.observation_space == theirs.observation_space
    finished, _ = step_side_by_side(ours, theirs, num_envs, seed=5, steps=1200, draw_probability=0.3)
    assert finished >= 4


@pytest.mark.parametrize("env_id", ["WarMemory-v1", "WarInference-v0", "WarTableReading-v2"])
def test_the_adapter_steps_the_probes_exactly_like_sb3s_dummy_vec_env(env_id):
    num_envs = 3
    ours = WarSB3VecEnv(num_envs, env_id=env_id, max_episode_steps=200)
    theirs = dummy_vec_env(num_envs, env_id=env_id, max_episode_steps=200)
    assert ours.observation_space == theirs.observation_space
    assert ours.venv.opponent_bot == theirs.envs[0].unwrapped.opponent_bot  # the probe's own opponent
    finished, _ = step_side_by_side(ours, theirs, num_envs, seed=3, steps=1200, draw_probability=0.2)
    assert finished >= 4


def test_ppo_trains_on_the_batched_latency_env():
    from stable_baselines3 import PPO

    env = WarSB3VecEnv(4, env_id="WarLatency-v0", opponent="human", latency="uniform:low=1,high=3")
    model = PPO("MlpPolicy", env, n_steps=32, batch_size=64, n_epochs=1, seed=0, device="cpu")
    model.learn(256)
    assert model.observation_space.shape == (16 + 2 + 3,) and model.num_timesteps >= 256


def test_an_unknown_env_id_is_refused_in_one_line():
    with pytest.raises(ValueError, match="env_id must be one of"):
        WarSB3VecEnv(2, env_id="War-v1")
