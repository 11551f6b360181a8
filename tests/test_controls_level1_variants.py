"""The negative controls' probe rows of experiments/controls/level1_variants.py: anticipation at level 1 where a press
counts only while the agent's own turn is open, and inference with the opponent's last reaction hidden. Each is the
probe's game with only that changed (the same deals, the same rewards for a policy the change does not touch), and
its vector env is its single env step for step."""

import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from test_vector_probes import probe_side_by_side

sys.path.insert(0, str(Path(__file__).parents[1] / "experiments" / "controls"))
import level1_variants  # noqa: E402

level1_variants.register()
NO_AHEAD, NO_REACTION = level1_variants.NO_AHEAD.env_id, level1_variants.NO_REACTION.env_id


def play(env, actions_for, seed, steps):
    """Observations, rewards and action masks of ``steps`` steps from ``reset(seed=seed)``, ``actions_for(step,
    action_mask)`` choosing each action; a new round after each one ends."""
    observation, info = env.reset(seed=seed)
    seen = []
    for step in range(steps):
        action = actions_for(step, info["action_mask"])
        observation, reward, terminated, truncated, info = env.step(action)
        seen.append((observation.copy(), reward, info["action_mask"].copy()))
        if terminated or truncated:
            observation, info = env.reset()
    return seen


def test_a_press_while_its_turn_is_closed_is_a_wait():
    # pressing at random against pressing only where the turn is open: the same game in the no-ahead env
    rng = np.random.default_rng(0)
    presses = rng.random(3000) < 0.4
    anywhere = play(gym.make(NO_AHEAD), lambda step, mask: int(presses[step]), 5, 3000)
    in_turn = play(gym.make(NO_AHEAD), lambda step, mask: int(presses[step] and mask[1]), 5, 3000)
    for (a, ra, ma), (b, rb, mb) in zip(anywhere, in_turn, strict=True):
        np.testing.assert_array_equal(a, b)
        assert ra == rb
        np.testing.assert_array_equal(ma, mb)
    # ... and in the anticipation env at level 1 pressing only in turn is that game too, pressing anywhere is not
    probe = play(gym.make("WarAnticipation-v1", level=1), lambda step, mask: int(presses[step] and mask[1]), 5, 3000)
    assert [reward for _, reward, _ in probe] == [reward for _, reward, _ in in_turn]
    free = play(gym.make("WarAnticipation-v1", level=1), lambda step, mask: int(presses[step]), 5, 3000)
    assert [reward for _, reward, _ in free] != [reward for _, reward, _ in anywhere]


def test_the_no_reaction_env_is_inference_with_the_reaction_shown_as_0():
    env = gym.make(NO_REACTION)
    column = env.unwrapped.fields_for(env.unwrapped.config).index("opponent_reaction")
    rng = np.random.default_rng(1)
    presses = rng.random(3000) < 0.3
    hidden = play(env, lambda step, mask: int(presses[step]), 7, 3000)
    shown = play(gym.make("WarInference-v0"), lambda step, mask: int(presses[step]), 7, 3000)
    assert all(observation[column] == 0.0 for observation, _, _ in hidden)
    assert any(observation[column] > 0.0 for observation, _, _ in shown)
    for (a, ra, _), (b, rb, _) in zip(hidden, shown, strict=True):
        np.testing.assert_array_equal(np.delete(a, column), np.delete(b, column))
        assert ra == rb


@pytest.mark.parametrize("env_id", [NO_AHEAD, NO_REACTION])
def test_each_variant_on_the_batched_engine_is_its_single_env(env_id, backend):
    ended = probe_side_by_side(env_id, 0.3, 3, 1500, backend)
    assert len(ended) >= 3
