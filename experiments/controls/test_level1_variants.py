"""The negative controls' probe rows of experiments/controls/level1_variants.py: anticipation at level 1 where a press
counts only in the agent's open turn with nothing in flight (and the first try, in its open turn alone), and
inference with the opponent's last reaction hidden. Each is the probe's game with only that changed (the same deals,
the same rewards for a policy the change does not touch), and its vector env is its single env step for step.

Kept beside the script, not in tests/: registering the rows adds probes to the project's table for the whole session,
which the suite's own tests of the published probes would then see. Run it alone:

    python -m pytest experiments/controls/test_level1_variants.py
"""

import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

from war_env.envs.games import game_config
from war_env.evaluation import play_rounds

sys.path[:0] = [str(Path(__file__).parent), str(Path(__file__).parents[2] / "tests")]
import conftest  # noqa: E402  (the suite's)
import level1_variants  # noqa: E402
from test_vector_probes import probe_side_by_side  # noqa: E402

backend = conftest.backend  # the suite's fixture: both engines of the vector env

level1_variants.register()
AFTER_OPEN = level1_variants.AFTER_OPEN.env_id
NO_AHEAD = level1_variants.NO_AHEAD.env_id
NO_REACTION = level1_variants.NO_REACTION.env_id


def play(env, actions_for, seed, steps):
    """Observations, rewards and action masks of ``steps`` steps from ``reset(seed=seed)``, ``actions_for(step,
    observation, action_mask)`` choosing each action; a new round after each one ends."""
    observation, info = env.reset(seed=seed)
    seen = []
    for step in range(steps):
        action = actions_for(step, observation, info["action_mask"])
        observation, reward, terminated, truncated, info = env.step(action)
        seen.append((observation.copy(), reward, info["action_mask"].copy()))
        if terminated or truncated:
            observation, info = env.reset()
    return seen


@pytest.mark.parametrize("env_id, nothing_in_flight", [(AFTER_OPEN, True), (NO_AHEAD, False)])
def test_a_press_counts_only_where_the_row_allows_it(env_id, nothing_in_flight):
    env = gym.make(env_id).unwrapped
    flight = level1_variants.in_flight_columns(type(env), env.config)
    rng = np.random.default_rng(0)
    presses = rng.random(3000) < 0.4

    def allowed(step, observation, mask):
        return int(presses[step] and mask[1] and not (nothing_in_flight and observation[flight].any()))

    def anywhere(step, observation, mask):
        return int(presses[step])

    # pressing at random against pressing only where it is allowed: the same game in the row's env
    free, kept = play(gym.make(env_id), anywhere, 5, 3000), play(gym.make(env_id), allowed, 5, 3000)
    for (a, ra, ma), (b, rb, mb) in zip(free, kept, strict=True):
        np.testing.assert_array_equal(a, b)
        assert ra == rb
        np.testing.assert_array_equal(ma, mb)
    # ... and in the anticipation env at level 1 pressing only where allowed is that game too, pressing anywhere is not
    probe = play(gym.make("WarAnticipation-v1", level=1), allowed, 5, 3000)
    assert [reward for _, reward, _ in probe] == [reward for _, reward, _ in kept]
    unmasked = play(gym.make("WarAnticipation-v1", level=1), anywhere, 5, 3000)
    assert [reward for _, reward, _ in unmasked] != [reward for _, reward, _ in free]


def test_after_its_turn_opens_the_oracle_plays_no_better_than_press_once_and_in_its_open_turn_it_still_does():
    # the anticipation oracle presses as its own draw lands: its turn still open, that press in flight
    config = game_config(AFTER_OPEN, {})
    opponent = level1_variants.AFTER_OPEN.opponent

    def total(agent, env_id):
        return sum(record.episode_return for record in play_rounds(agent, opponent, config, range(3), env_id=env_id))

    press_once = total("press_once", AFTER_OPEN)
    assert press_once == total("press_once", "WarAnticipation-v1")
    assert total("oracle", AFTER_OPEN) <= press_once
    # about 5.3 per round better than press_once, with the turn alone as without a mask
    assert total("oracle", NO_AHEAD) > press_once + 3 * 4
    assert total("oracle", "WarAnticipation-v1") > press_once + 3 * 4


def test_the_no_reaction_env_is_inference_with_the_reaction_shown_as_0():
    env = gym.make(NO_REACTION)
    column = env.unwrapped.fields_for(env.unwrapped.config).index("opponent_reaction")
    rng = np.random.default_rng(1)
    presses = rng.random(3000) < 0.3
    hidden = play(env, lambda step, observation, mask: int(presses[step]), 7, 3000)
    shown = play(gym.make("WarInference-v0"), lambda step, observation, mask: int(presses[step]), 7, 3000)
    assert all(observation[column] == 0.0 for observation, _, _ in hidden)
    assert any(observation[column] > 0.0 for observation, _, _ in shown)
    for (a, ra, _), (b, rb, _) in zip(hidden, shown, strict=True):
        np.testing.assert_array_equal(np.delete(a, column), np.delete(b, column))
        assert ra == rb


@pytest.mark.parametrize("env_id", [AFTER_OPEN, NO_AHEAD, NO_REACTION])
def test_each_variant_on_the_batched_engine_is_its_single_env(env_id, backend):
    ended = probe_side_by_side(env_id, 0.3, 3, 3000, backend)
    assert len(ended) >= 3
