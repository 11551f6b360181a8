"""TorchRL, the way its users build an env: ``GymEnv("War-v0")`` from the id, and ``GymWrapper`` around a
Gymnasium vector env. TorchRL's own ``check_env_specs`` checks every env, then a rollout plays whole rounds.

Short rounds (``target_points=2``) so that a few hundred steps finish several of them."""

import gymnasium as gym
import pytest
from gymnasium.vector import AutoresetMode

import war_env  # noqa: F401  (registers War-v0)

pytest.importorskip("torchrl", reason="the torchrl extra")
from torchrl.envs import GymEnv, GymWrapper, check_env_specs  # noqa: E402

SHORT = {"target_points": 2}
STEPS = 300


def rounds_finished(rollout) -> int:
    return int(rollout["next", "done"].sum())


def test_gym_env_builds_war_from_its_id_and_plays_rounds():
    # GymEnv passes frameskip to every env and drops it when the env says, in Python's words, that it has
    # no such keyword; War-v0 refuses it as an UnknownArgument (a TypeError) worded that way.
    env = GymEnv("War-v0", **SHORT)
    check_env_specs(env)
    rollout = env.rollout(STEPS, break_when_any_done=False)
    assert rollout["observation"].shape == (STEPS, 16)
    assert rounds_finished(rollout) >= 1
    env.close()


def test_gym_wrapper_over_a_sync_vector_env_with_autoreset_disabled_plays_rounds():
    # TorchRL resets finished sub-envs itself (reset(options={"reset_mask": ...})), which Gymnasium's
    # DISABLED autoreset mode leaves to the caller.
    vector = gym.make_vec("War-v0", num_envs=4, vectorization_mode="sync",
                          vector_kwargs={"autoreset_mode": AutoresetMode.DISABLED}, **SHORT)
    env = GymWrapper(vector)
    check_env_specs(env)
    rollout = env.rollout(STEPS, break_when_any_done=False)
    assert rollout.batch_size == (4, STEPS)
    assert rounds_finished(rollout) >= 4
    env.close()


def test_the_batched_vector_env_declares_its_autoreset_mode_where_torchrl_reads_it():
    vector = gym.make_vec("War-v0", num_envs=4)
    assert vector.autoreset_mode is vector.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    # TorchRL takes SAME_STEP or DISABLED only, and now says so instead of failing on a missing attribute.
    with pytest.raises(RuntimeError, match="auto-reset mode must be one of SAME_STEP or DISABLED"):
        GymWrapper(vector)


def test_gym_wrapper_over_the_batched_vector_env_with_autoreset_disabled_plays_rounds():
    vector = gym.make_vec("War-v0", num_envs=4, autoreset_mode=AutoresetMode.DISABLED, **SHORT)
    env = GymWrapper(vector)
    check_env_specs(env)
    rollout = env.rollout(STEPS, break_when_any_done=False)
    assert rollout.batch_size == (4, STEPS)
    assert rounds_finished(rollout) >= 4
