"""War-v0 through Gymnasium: the checkers, full rounds with every bot, rewards, info, bad input."""

import copy
import random
import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import war_env
from war_env.core.cards import CARD_CODES
from war_env.core.observation import INDEX, observe

BOTS = ["instant", "fixed:ticks=5", "uniform:low=1,high=10", "human", "absent"]


def prompt_action(info) -> int:
    return int(info["action_mask"][1])


def play_round(env, choose=prompt_action, seed=None, options=None):
    observation, info = env.reset(seed=seed, options=options)
    steps, total = [], 0.0
    while True:
        action = choose(info)
        observation, reward, terminated, truncated, info = env.step(action)
        steps.append((observation, reward, terminated, truncated))
        total += reward
        if terminated or truncated:
            return total, info, steps


# --- the checkers -----------------------------------------------------------------------------
def test_gymnasiums_env_checker_passes():
    from gymnasium.utils.env_checker import check_env

    check_env(gym.make("War-v0").unwrapped)
    check_env(gym.make("War-v0", render_mode="ansi").unwrapped)


def test_stable_baselines3s_env_checker_passes():
    sb3_checker = pytest.importorskip("stable_baselines3.common.env_checker")
    sb3_checker.check_env(gym.make("War-v0").unwrapped, warn=True)


def test_import_registers_war_v0_without_pygame_torch_or_ray():
    code = (
        "import sys, war_env, gymnasium; gymnasium.spec('War-v0'); print(sorted(m for m in "
        "('pygame', 'torch', 'ray', 'pettingzoo', 'stable_baselines3') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


# --- whole rounds -----------------------------------------------------------------------------
@pytest.mark.parametrize("opponent", BOTS)
def test_full_rounds_are_played_with_every_bot(opponent):
    env = gym.make("War-v0", opponent=opponent)
    for seed in range(3):
        _, info, steps = play_round(env, seed=seed)
        result = info["round"]
        assert result["reason"] in ("all_cards", "points", "battle_limit", "war_shortage")
        assert result["steps"] == len(steps) and result["ticks"] >= result["steps"]
        assert result["takeover"][0] is False
        assert sum(result["cards"]) <= 52
        if opponent == "absent":
            assert result["takeover"][1] is True
        if opponent == "instant":
            assert set(result["reaction_ticks"][1]) == {0}


def test_a_prompt_agent_gets_exactly_the_round_outcome_as_return():
    env = gym.make("War-v0", opponent="human")
    for seed in range(5):
        total, info, _ = play_round(env, seed=seed)
        winner = info["round"]["winner"]
        assert total == {0: 1.0, 1: -1.0, None: 0.0}[winner]
        assert info["round"]["false_starts"][0] == 0


def test_rewards_are_python_floats_and_flags_python_bools():
    env = gym.make("War-v0")
    env.reset(seed=0)
    _, reward, terminated, truncated, _ = env.step(0)
    assert type(reward) is float and type(terminated) is bool and type(truncated) is bool


def test_an_agent_that_never_draws_is_taken_over_and_the_round_is_played_out():
    env = gym.make("War-v0", opponent="instant")
    total, info, steps = play_round(env, choose=lambda info: 0, seed=1, options={"starter": 0})
    assert len(steps) == 30  # taken over at the end of the 30th tick of its first turn
    assert info["round"]["takeover"] == (True, False)
    assert info["round"]["ticks"] > 30 and info["round"]["reason"] in (
        "all_cards",
        "points",
        "battle_limit",
        "war_shortage",
    )
    outcome = {0: 1.0, 1: -1.0, None: 0.0}[info["round"]["winner"]]
    assert total == pytest.approx(outcome - 1.0 - 30 * 0.001)


def test_the_outcome_of_a_round_does_not_depend_on_timing():
    def outcome(choose):
        _, info, _ = play_round(gym.make("War-v0", opponent="human"), choose=choose, seed=11)
        r = info["round"]
        return r["winner"], r["reason"], r["battles"], r["points"], r["cards"]

    ticks = iter(range(10**6))
    slow_and_jumpy = lambda info: int(next(ticks) % 7 == 6)  # noqa: E731  (false starts and late draws)
    assert outcome(prompt_action) == outcome(slow_and_jumpy)


def test_a_policy_can_be_the_opponent_and_sees_its_own_seat():
    class PromptPolicy:
        seeds: list = []

        def reset(self, seed=None):
            self.seeds.append(seed)

        def act(self, observation):
            return int(observation[INDEX["can_draw"]])

    policy = PromptPolicy()
    env = gym.make("War-v0", opponent=policy)
    total, info, _ = play_round(env, seed=3)
    assert info["round"]["takeover"] == (False, False) and info["round"]["false_starts"] == (0, 0)
    assert set(info["round"]["reaction_ticks"][1]) == {0}
    assert len(policy.seeds) == 1 and isinstance(policy.seeds[0], int)


# --- info and the scoreboard ------------------------------------------------------------------
def test_the_last_step_carries_the_round_and_the_scoreboard():
    env = gym.make("War-v0", opponent="instant")
    winners = []
    for seed in range(4):
        _, info, _ = play_round(env, seed=seed)
        assert set(info["round"]) == {
            "winner",
            "reason",
            "battles",
            "wars",
            "points",
            "cards",
            "takeover",
            "false_starts",
            "reaction_ticks",
            "steps",
            "ticks",
        }
        winners.append(info["round"]["winner"])
    board = info["scoreboard"]
    assert board["rounds"] == 4 and board["last_winner"] == winners[-1]
    assert board["rounds_won"] == (winners.count(0), winners.count(1)) and board["draws"] == winners.count(None)
    _, info, _ = play_round(env, seed=9, options={"new_match": True})
    assert info["scoreboard"]["rounds"] == 1


def test_every_step_has_the_action_mask_and_action_masks_agrees():
    env = gym.make("War-v0", opponent="fixed:ticks=2")
    observation, info = env.reset(seed=0, options={"starter": 1})
    assert info["action_mask"].tolist() == [True, False] == env.unwrapped.action_masks().tolist()
    for _ in range(3):
        observation, _, _, _, info = env.step(0)
    assert info["action_mask"].tolist() == [True, True] == env.unwrapped.action_masks().tolist()
    assert observation[INDEX["can_draw"]] == 1.0 and observation[INDEX["timer_left"]] == 1.0


def test_dealt_piles_and_starter_are_used():
    env = gym.make("War-v0", opponent="instant")
    total, info, steps = play_round(
        env, seed=0, options={"piles": [["9C", "2C", "KC"], ["9D", "3D", "7D"]], "starter": 0}
    )
    assert info["round"]["winner"] == 0 and info["round"]["wars"] == 1 and info["round"]["cards"] == (6, 0)
    assert len(steps) == 4  # draw, bot draws (tie), war move, bot's war move


# --- determinism and what is hidden (properties) ---------------------------------------------
deals = st.tuples(st.permutations(CARD_CODES), st.integers(2, 52), st.integers(1, 51), st.sampled_from([0, 1]))
actions = st.lists(st.sampled_from([0, 0, 0, 1]), min_size=1, max_size=300)


def options_from(deal):
    cards, size, split, starter = deal
    split = min(split, size - 1)
    return {"piles": [list(cards[:split]), list(cards[split:size])], "starter": starter}


@settings(max_examples=60, deadline=None)
@given(deal=deals, actions=actions, opponent=st.sampled_from(BOTS), pickup=st.sampled_from(["in_order", "shuffled"]))
def test_cards_are_conserved_and_at_most_two_are_visible(deal, actions, opponent, pickup):
    options = options_from(deal)
    dealt = sorted(CARD_CODES.index(code) for pile in options["piles"] for code in pile)
    env = gym.make("War-v0", opponent=opponent, pickup=pickup, max_battles=40)
    env.reset(seed=0, options=options)
    game = env.unwrapped.round.game
    for action in actions:
        observation, _, terminated, _, _ = env.step(action)
        on_table = list(game.piles[0]) + list(game.piles[1]) + game.pot
        assert sorted(on_table) == dealt
        assert sum(card is not None for card in game.visible) <= 2
        assert observation[INDEX["own_pile"]] * 52 == pytest.approx(len(game.piles[0]))
        assert observation[INDEX["opponent_pile"]] * 52 == pytest.approx(len(game.piles[1]))
        assert observation[INDEX["pot"]] * 52 == pytest.approx(len(game.pot))
        if terminated:
            break


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31), actions=actions, opponent=st.sampled_from(BOTS))
def test_the_same_seed_gives_the_same_trajectory_whatever_the_global_rngs_do(seed, actions, opponent):
    def trajectory(stir: bool):
        env = gym.make("War-v0", opponent=opponent, pickup="shuffled")
        observation, _ = env.reset(seed=seed)
        out = [observation.tobytes()]
        for action in actions:
            if stir:
                random.random()
                np.random.random()
            observation, reward, terminated, _, info = env.step(action)
            out.append((observation.tobytes(), reward, terminated, str(info.get("round"))))
            if terminated:
                break
        return out

    assert trajectory(stir=False) == trajectory(stir=True)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31), actions=actions, shuffle_seed=st.integers(0, 1000))
def test_the_observation_does_not_change_with_the_hidden_order_of_the_piles(seed, actions, shuffle_seed):
    env = gym.make("War-v0", opponent="uniform:low=0,high=8")
    env.reset(seed=seed)
    for action in actions:
        _, _, terminated, _, _ = env.step(action)
        if terminated:
            return
    timed = env.unwrapped.round
    reordered = copy.deepcopy(timed)
    rng = random.Random(shuffle_seed)
    for pile in reordered.game.piles:
        cards = list(pile)
        rng.shuffle(cards)
        pile.clear()
        pile.extend(cards)
    for seat in (0, 1):
        assert observe(reordered, seat).tolist() == observe(timed, seat).tolist()


def test_the_observation_stays_inside_its_space_over_a_whole_round():
    env = gym.make("War-v0", opponent="human", target_points=None)
    observation, info = env.reset(seed=5)
    space = env.observation_space
    while True:
        assert space.contains(observation)
        observation, _, terminated, _, info = env.step(prompt_action(info))
        if terminated:
            assert space.contains(observation)
            break


# --- bad input --------------------------------------------------------------------------------
@pytest.mark.parametrize("action", [2, -1, 0.5, 1.0, "1", None, True, np.array([0, 1]), np.float32(1)])
def test_an_invalid_action_is_rejected_with_a_clear_error(action):
    env = gym.make("War-v0").unwrapped
    env.reset(seed=0)
    with pytest.raises(ValueError, match="invalid action"):
        env.step(action)


@pytest.mark.parametrize("action", [0, 1, np.int64(1), np.array(1), np.array([0])])
def test_integer_actions_of_numpy_kinds_are_accepted(action):
    env = gym.make("War-v0").unwrapped
    env.reset(seed=0)
    env.step(action)


def test_stepping_before_reset_or_after_the_end_says_to_call_reset():
    env = war_env.WarEnv(opponent="instant")
    with pytest.raises(RuntimeError, match=r"reset\(\)"):
        env.step(0)
    with pytest.raises(RuntimeError, match=r"reset\(\)"):
        env.round_info()
    play_round(env, seed=0)
    with pytest.raises(RuntimeError, match=r"reset\(\)"):
        env.step(1)


@pytest.mark.parametrize(
    "options, message",
    [
        ({"pile": []}, "unknown reset option"),
        ({"piles": [["AS"], []]}, "pile 1 is empty"),
        ({"piles": [["AS", "AS"], ["KD"]]}, "duplicate card 'AS'"),
        ({"piles": [["AS"], ["1X"]]}, "unknown card code '1X'"),
        ({"piles": [["AS"]]}, "pair"),
        ({"starter": 2}, "starter must be 0"),
        ({"starter": "0"}, "starter must be 0"),
        ({"starter": True}, "starter must be 0"),
        ({"piles": None}, "piles must be a pair"),
        ({"piles": 5}, "piles must be a pair"),
        ({"piles": [["AS"], 5]}, "pile 1 must be a list"),
        ({"new_match": "no"}, "new_match must be True or False"),
        ({"new_match": 1}, "new_match must be True or False"),
    ],
)
def test_invalid_reset_options_are_named_in_the_error(options, message):
    env = gym.make("War-v0")
    with pytest.raises(ValueError, match=message):
        env.reset(seed=0, options=options)


@pytest.mark.parametrize("options", ["piles", ["piles"], {1: 2}])
def test_reset_options_must_be_a_dict(options):
    with pytest.raises(TypeError, match="reset options must be a dict"):
        gym.make("War-v0").reset(seed=0, options=options)


def test_a_refused_reset_keeps_the_scoreboard():
    env = gym.make("War-v0", opponent="instant").unwrapped
    play_round(env, seed=0)
    with pytest.raises(ValueError):
        env.reset(options={"new_match": "no"})
    with pytest.raises(ValueError):
        env.reset(options={"new_match": True, "piles": [["AS"], []]})
    assert env.scoreboard.rounds == 1


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"turn_seconds": 0.25}, ValueError, "whole number"),
        ({"war_face_down": -1}, ValueError, "war_face_down"),
        ({"speed": 3}, ValueError, r"War-v0 got an unexpected keyword argument 'speed'"),
        ({"opponent": "robot"}, ValueError, "unknown bot 'robot'"),
        ({"opponent": 3}, TypeError, "opponent must be"),
        ({"render_mode": "rgb"}, ValueError, "render_mode"),
        ({"config": {"war_face_down": 1}}, TypeError, "config must be a WarConfig"),
        ({"config": war_env.WarConfig(), "target_points": 5}, ValueError, "not both"),
    ],
)
def test_invalid_constructor_arguments_are_named_in_the_error(kwargs, error, message):
    with pytest.raises(error, match=message):
        gym.make("War-v0", **kwargs)


# --- rendering --------------------------------------------------------------------------------
def test_the_ansi_frame_shows_counts_visible_cards_the_war_bubble_and_the_result_box():
    env = gym.make("War-v0", opponent="instant", render_mode="ansi")
    env.reset(seed=0, options={"piles": [["9C", "2C", "KC"], ["9D", "3D", "7D"]], "starter": 0})
    assert "pile  3" in env.render() and "timer" in env.render()
    env.step(1)
    frame = env.render()
    assert "[##]" in frame and " 9C" not in frame  # laid, not revealed yet
    env.step(0)
    frame = env.render()
    assert " 9C]" in frame and " 9D]" in frame and "War!" in frame and "pile  2" in frame
    env.step(1)
    env.step(0)
    frame = env.render()
    assert " KC]" in frame and " 7D]" in frame and " 9C" not in frame
    assert "You won (all_cards)" in frame and "Rounds so far: You 1, Bot 0, draws 0" in frame
