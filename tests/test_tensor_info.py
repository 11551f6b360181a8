"""TorchRL, the way its users build an env: ``GymEnv("War-v0")`` from the id, and ``GymWrapper`` around a
Gymnasium vector env. TorchRL's own ``check_env_specs`` checks every env, then a rollout plays whole rounds.

Short rounds (``target_points=2``) so that a few hundred steps finish several of them."""

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import war_env  # noqa: F401  (registers War-v0)
from war_env.envs.tensor_info import TensorInfo

pytest.importorskip("torchrl", reason="the torchrl extra")
import torch  # noqa: E402
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
    vector = gym.make_vec(
        "War-v0",
        num_envs=4,
        vectorization_mode="sync",
        vector_kwargs={"autoreset_mode": AutoresetMode.DISABLED},
        **SHORT,
    )
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


# --- same-step autoreset: TorchRL reads the whole info as a TensorDict ------------------------------------
def same_step_vector(vectorization_mode: str):
    if vectorization_mode == "sync":
        return gym.make_vec(
            "War-v0",
            num_envs=4,
            vectorization_mode="sync",
            vector_kwargs={"autoreset_mode": AutoresetMode.SAME_STEP},
            **SHORT,
        )
    return gym.make_vec("War-v0", num_envs=4, autoreset_mode=AutoresetMode.SAME_STEP, **SHORT)


def seeded_rollout(vector):
    env = GymWrapper(vector)
    env.set_seed(7)
    torch.manual_seed(0)  # the random actions of the rollout
    return env.rollout(STEPS, break_when_any_done=False)


@pytest.mark.parametrize("vectorization_mode", ["vector_entry_point", "sync"])
def test_same_step_autoreset_needs_tensor_info_because_a_round_s_info_holds_strings_and_lists(vectorization_mode):
    # The round that ended is in info["final_info"]["round"]: its reason (a string) and its reaction ticks
    # (a pair of arrays or lists, ragged across rounds) are no tensors, and TorchRL converts the whole info: it
    # stops with "TensorDict conversion only supports ... Got <class 'tuple'>" or, when it stacks ragged
    # pairs, "Node arity mismatch" (lists) or "all input arrays must have the same shape" (arrays).
    ragged = "TensorDict conversion only supports|Node arity mismatch|all input arrays must have the same shape"
    with pytest.raises(ValueError, match=ragged):
        seeded_rollout(same_step_vector(vectorization_mode))


@pytest.mark.parametrize("vectorization_mode", ["vector_entry_point", "sync"])
def test_same_step_autoreset_through_tensor_info_plays_step_for_step_as_disabled(vectorization_mode):
    env = GymWrapper(TensorInfo(same_step_vector(vectorization_mode)))
    check_env_specs(env)
    same_step = seeded_rollout(TensorInfo(same_step_vector(vectorization_mode)))
    kind = (
        {"vectorization_mode": "sync", "vector_kwargs": {"autoreset_mode": AutoresetMode.DISABLED}}
        if vectorization_mode == "sync"
        else {"autoreset_mode": AutoresetMode.DISABLED}
    )
    disabled = seeded_rollout(gym.make_vec("War-v0", num_envs=4, **kind, **SHORT))
    assert rounds_finished(same_step) >= 4
    # The observation that ended each round (from final_obs), not the next round's first one
    for key in ("action", ("next", "observation"), ("next", "reward"), ("next", "done"), "observation"):
        assert torch.equal(same_step[key], disabled[key]), key


def test_tensor_info_keeps_numbers_and_the_final_observations_and_drops_the_rest():
    vector = TensorInfo(same_step_vector("vector_entry_point"))
    vector.reset(seed=0)
    while True:
        *_, terminations, truncations, info = vector.step(np.ones(4, dtype=np.int64))
        if (terminations | truncations).any():
            break
    ended = info["_final_obs"]
    assert all(isinstance(info["final_obs"][i], np.ndarray) for i in np.flatnonzero(ended))
    assert set(info["final_info"]["round"]) >= {"winner", "battles", "points", "false_starts", "takeover"}
    assert not {"reason", "reaction_ticks"} & set(info["final_info"]["round"])
    assert vector.autoreset_mode is AutoresetMode.SAME_STEP
