"""Both seats as agents: PettingZoo's own checks, whole-round replays, equivalence with War-v0 when
player_1 is driven by a bot policy, and the takeover and false-start rules for either seat."""

from __future__ import annotations

import dataclasses
import random
import subprocess
import sys
import warnings

import numpy as np
import pytest

pettingzoo_test = pytest.importorskip("pettingzoo.test")
from gymnasium.utils.env_checker import data_equivalence  # noqa: E402

from war_env.agents import make_agent  # noqa: E402
from war_env.agents.base import Agent  # noqa: E402
from war_env.core.observation import INDEX, latency_fields  # noqa: E402
from war_env.core.rewards import outcome_reward  # noqa: E402
from war_env.core.rules import WarConfig  # noqa: E402
from war_env.envs.latency import WarLatencyEnv  # noqa: E402
from war_env.envs.multiagent import AGENTS, WarParallelEnv, env, foreseen_result, parallel_env  # noqa: E402
from war_env.envs.war import WarEnv  # noqa: E402

# The checkers warn about things that are our documented choices; every other warning fails the test.
EXPECTED_CHECKER_WARNINGS = (
    "ignoring unknown reset option",  # the checkers pass options={"options": 1}
    "Observation space for each agent probably",  # a Dict with an action_mask, as in PettingZoo classic
    "Observation is not a NumPy array",  # the same dict
)

CHECKER_CONFIGS = [
    {},  # the defaults: a masked random policy never false-starts and is rarely taken over
    {"turn_seconds": 0.2},  # two-tick turns: random policies are taken over often, agents leave
    {"target_points": 5, "pickup": "shuffled"},  # short rounds: many resets within the cycles
    {"latency": "fixed:ticks=2", "turn_seconds": 0.5},  # both seats' presses land later: false starts, takeovers
    {"latency": "uniform:low=0,high=4", "target_points": 5},  # random delays, some landing at once
]


class ReactAfter(Agent):
    """Draws ``ticks`` ticks after its turn opens, read from the observation alone: the timing of the
    bot ``fixed:ticks=N`` as a policy (``ticks >= turn_ticks`` never draws, like ``absent``)."""

    def __init__(self, ticks: int, turn_ticks: int = 30):
        self.ticks, self.turn_ticks = ticks, turn_ticks

    def act(self, observation) -> int:
        if observation[INDEX["can_draw"]] == 0:
            return 0
        elapsed = round((1.0 - float(observation[INDEX["timer_left"]])) * self.turn_ticks)
        return int(elapsed >= self.ticks)


def strict_warnings():
    catcher = warnings.catch_warnings()
    catcher.__enter__()
    warnings.simplefilter("error")
    for message in EXPECTED_CHECKER_WARNINGS:
        warnings.filterwarnings("ignore", message=message)
    return catcher


# --- PettingZoo's own checks ---------------------------------------------------------------------
@pytest.mark.parametrize("rules", CHECKER_CONFIGS)
def test_parallel_api_test_passes_with_many_cycles(rules):
    catcher = strict_warnings()
    try:
        pettingzoo_test.parallel_api_test(parallel_env(**rules), num_cycles=2000)
    finally:
        catcher.__exit__(None, None, None)


@pytest.mark.parametrize("rules", CHECKER_CONFIGS)
def test_api_test_passes_on_the_aec_form(rules):
    catcher = strict_warnings()
    try:
        pettingzoo_test.api_test(env(**rules), num_cycles=2000)
    finally:
        catcher.__exit__(None, None, None)


def test_pettingzoo_seed_tests_pass_on_both_forms():
    pettingzoo_test.parallel_seed_test(lambda: parallel_env(turn_seconds=0.5))
    pettingzoo_test.seed_test(lambda: env(turn_seconds=0.5))


# --- the same seed and actions give the same episode ----------------------------------------------
def play_random_round(par: WarParallelEnv, seed, action_seed: int, draw_probability: float, stir=False, options=None):
    """Every step of one round: (observations, rewards, terminations, truncations, infos)."""
    actions_rng = np.random.default_rng(action_seed)
    steps = [par.reset(seed=seed, options=options)]
    while par.agents:
        if stir:  # global RNGs must not matter
            np.random.seed(len(steps))
            random.seed(len(steps))
        actions = {agent: int(actions_rng.random() < draw_probability) for agent in par.agents}
        steps.append(par.step(actions))
    return steps


@pytest.mark.parametrize("draw_probability", [0.5, 0.05])
def test_a_whole_round_replays_step_for_step_with_the_same_seed(draw_probability):
    for seed in range(4):
        first = play_random_round(WarParallelEnv(turn_seconds=1.0), seed, 100 + seed, draw_probability)
        second = play_random_round(WarParallelEnv(turn_seconds=1.0), seed, 100 + seed, draw_probability, stir=True)
        assert len(first) == len(second) > 10
        for index, (step_a, step_b) in enumerate(zip(first, second)):
            assert data_equivalence(step_a, step_b), f"seed {seed}: step {index} differs"


def test_reseeding_the_same_instance_replays_and_no_seed_continues_the_stream():
    par = WarParallelEnv()
    first = play_random_round(par, 7, 1, 0.3)
    par.reset()  # seed=None continues the stream: a new deal
    continued_deal = [list(pile) for pile in par.round.game.piles]
    again = play_random_round(par, 7, 1, 0.3, options={"new_match": True})  # a fresh scoreboard
    assert len(first) == len(again) and all(data_equivalence(a, b) for a, b in zip(first, again))
    assert continued_deal != _deal_of(WarParallelEnv(), 7)


def _deal_of(par: WarParallelEnv, seed: int) -> list[list[int]]:
    par.reset(seed=seed)
    return [list(pile) for pile in par.round.game.piles]


# --- equivalence with War-v0 ----------------------------------------------------------------------
def single_agent_trajectory(seed, action_seed, draw_probability, opponent, config=None):
    """War-v0 (WarLatency-v0 for a config with latency) with ``opponent`` at seat 1."""
    war = (WarLatencyEnv if config is not None and config.has_latency else WarEnv)(opponent=opponent, config=config)
    actions_rng = np.random.default_rng(action_seed)
    observation, info = war.reset(seed=seed)
    steps = [(observation, 0.0, False, info)]
    terminated = False
    while not terminated:
        observation, reward, terminated, truncated, info = war.step(int(actions_rng.random() < draw_probability))
        assert not truncated
        steps.append((observation, reward, terminated, info))
    return steps


def player_0_trajectory(seed, action_seed, draw_probability, player_1_policy, config=None):
    par = WarParallelEnv(config=config)
    actions_rng = np.random.default_rng(action_seed)
    observations, infos = par.reset(seed=seed)
    player_1_policy.reset(seed=infos["player_1"]["policy_seed"])  # what War-v0 does for its opponent
    steps = [(observations["player_0"], 0.0, False, infos["player_0"])]
    while "player_0" in par.agents:
        actions = {"player_0": int(actions_rng.random() < draw_probability)}
        if "player_1" in par.agents:
            actions["player_1"] = player_1_policy.act(observations["player_1"]["observation"])
        observations, rewards, terminations, truncations, infos = par.step(actions)
        assert not truncations["player_0"]
        steps.append((observations["player_0"], rewards["player_0"], terminations["player_0"], infos["player_0"]))
    return steps, par


def assert_player_0_matches_war_v0(single, multi):
    assert len(single) == len(multi)
    taken_over_before_the_end = "foreseen_result" in multi[-1][3]
    for index, ((obs_a, reward_a, done_a, info_a), (obs_b, reward_b, done_b, info_b)) in enumerate(zip(single, multi)):
        assert reward_a == reward_b and done_a == done_b, f"step {index}"
        if index == len(single) - 1 and taken_over_before_the_end:
            # War-v0 played the rest of the round at once, the parallel env goes on with player_1:
            # the last observations differ by design, the outcome (and so the reward) must agree.
            foreseen = info_b["foreseen_result"]
            for key in ("winner", "reason", "battles", "wars", "points", "cards"):
                assert data_equivalence(info_a["round"][key], foreseen[key]), key
            continue
        assert np.array_equal(obs_a, obs_b["observation"]), f"step {index}"
        assert np.array_equal(info_a["action_mask"], obs_b["action_mask"].astype(bool)), f"step {index}"
        assert index == 0 or set(info_a) - {"action_mask"} == set(info_b) - {"foreseen_result"}, f"step {index}"
    if not taken_over_before_the_end:
        assert data_equivalence(single[-1][3]["round"], multi[-1][3]["round"])
        assert data_equivalence(single[-1][3]["scoreboard"], multi[-1][3]["scoreboard"])


@pytest.mark.parametrize(
    "ticks, war_v0_opponent",
    [(4, "fixed:ticks=4"), (0, "instant"), (30, "absent"), (4, "policy"), (30, "policy")],
    ids=["fixed-bot", "instant-bot", "absent-bot", "fixed-policy", "absent-policy"],
)
def test_player_0_sees_exactly_war_v0_when_player_1_is_a_deterministic_bot(ticks, war_v0_opponent):
    """War-v0 with the bot as seat 1's controller (or the same policy as its opponent) and the
    parallel env with that timing driving player_1 give player_0 the same observations, rewards,
    masks and ends, step for step, for the same seed and the same player_0 actions."""
    endings = {"player_0 taken over": 0, "played to the end": 0}
    for draw_probability in (0.5, 0.12, 0.03):
        for seed in range(4):
            opponent = ReactAfter(ticks) if war_v0_opponent == "policy" else war_v0_opponent
            single = single_agent_trajectory(seed, seed + 50, draw_probability, opponent)
            multi, par = player_0_trajectory(seed, seed + 50, draw_probability, ReactAfter(ticks))
            assert_player_0_matches_war_v0(single, multi)
            endings["player_0 taken over" if par.round.taken_over[0] else "played to the end"] += 1
    assert all(endings.values()), endings  # both kinds of ending were compared


class SeedRecorder(Agent):
    def __init__(self):
        self.seeds = []

    def reset(self, seed=None):
        self.seeds.append(seed)

    def act(self, observation) -> int:
        return 0


def test_player_1s_policy_seed_is_the_one_war_v0_gives_its_opponent_policy():
    recorder = SeedRecorder()
    war, par = WarEnv(opponent=recorder), WarParallelEnv()
    for seed in range(5):
        war.reset(seed=seed)
        _, infos = par.reset(seed=seed)
        assert infos["player_1"]["policy_seed"] == recorder.seeds[-1]
        assert infos["player_0"]["policy_seed"] != infos["player_1"]["policy_seed"]
    assert len(set(recorder.seeds)) == 5


@pytest.mark.parametrize("spec", ["prompt", "bot:fixed:ticks=7", "human", "random:p=0.3"])
def test_the_equivalence_holds_for_the_project_agents_at_player_1_random_ones_too(spec):
    """The same with ``agents.make_agent`` policies: a random agent reset with the seed War-v0
    gives its opponent (``infos["player_1"]["policy_seed"]``) presses the same in both envs."""
    for draw_probability in (0.4, 0.05):
        for seed in range(3):
            single = single_agent_trajectory(seed, seed + 7, draw_probability, make_agent(spec))
            multi, _ = player_0_trajectory(seed, seed + 7, draw_probability, make_agent(spec))
            assert_player_0_matches_war_v0(single, multi)


@pytest.mark.parametrize("latency", ["fixed:ticks=2", "uniform:low=1,high=4"])
@pytest.mark.parametrize("spec", ["prompt", "random:p=0.3", "anticipate"])
def test_with_latency_player_0_sees_exactly_war_latency_v0_with_the_same_opponent_policy(latency, spec):
    """Both seats' presses are delayed, War-v0's policy opponent's too: the two-seat env with a policy
    at player_1 is WarLatency-v0 with that policy as its opponent, step for step, for player_0."""
    config = WarConfig(latency=latency)

    def policy():  # anticipate is built for an opponent bot's reaction times; here it only plays
        return make_agent(spec, config=config, opponent="human")

    for draw_probability in (0.4, 0.05):
        for seed in range(3):
            single = single_agent_trajectory(seed, seed + 7, draw_probability, policy(), config)
            multi, par = player_0_trajectory(seed, seed + 7, draw_probability, policy(), config)
            assert_player_0_matches_war_v0(single, multi)
            assert par.metadata["name"] == "war_latency_v0"
            assert multi[0][0]["observation"].shape == (len(latency_fields(config)),)


# --- takeover and false starts --------------------------------------------------------------------
@pytest.mark.parametrize("idle_seat", [0, 1])
def test_a_seat_that_never_draws_is_taken_over_and_leaves_while_the_other_plays_on(idle_seat):
    par = WarParallelEnv(turn_seconds=1.0)  # 10-tick turns
    observations, _ = par.reset(seed=5, options={"starter": idle_seat})
    idle, active = AGENTS[idle_seat], AGENTS[1 - idle_seat]
    foreseen = foreseen_result(par.round.game)
    for _ in range(9):
        observations, rewards, terminations, _, _ = par.step({idle: 0, active: 0})
        assert rewards == {idle: pytest.approx(-0.001), active: 0.0}  # only the idle seat's turn is open
        assert par.agents == list(AGENTS)
    observations, rewards, terminations, truncations, infos = par.step({idle: 0, active: 0})
    assert terminations == {idle: True, active: False} and truncations == {idle: False, active: False}
    assert par.agents == [active]
    outcome = outcome_reward(WarConfig(), foreseen.winner, idle_seat)
    assert rewards[idle] == pytest.approx(-0.001 - 1.0 + outcome)
    assert infos[idle]["foreseen_result"] == dataclasses.asdict(foreseen)
    assert infos[idle]["round"]["takeover"][idle_seat] and infos[idle]["round"]["winner"] is None
    assert observations[idle]["observation"][INDEX["own_taken_over"]] == 1
    assert observations[active]["observation"][INDEX["opponent_taken_over"]] == 1
    with pytest.raises(ValueError, match="not live"):
        par.step({idle: 0, active: 0})
    steps_alone = 0
    while par.agents:  # the active seat plays on, drawing in turn, against the takeover bot
        observations, rewards, terminations, truncations, infos = par.step(
            {active: int(observations[active]["action_mask"][1])}
        )
        assert set(rewards) == {active}
        steps_alone += 1
    assert steps_alone > 10 and terminations[active]
    assert infos[active]["round"]["winner"] == foreseen.winner and infos[active]["round"]["reason"] == foreseen.reason
    assert infos[active]["round"]["takeover"] == (idle_seat == 0, idle_seat == 1)
    assert par.scoreboard.rounds == 1


def test_when_both_seats_are_taken_over_the_rest_of_the_round_is_played_at_once():
    par = WarParallelEnv(turn_seconds=1.0)
    par.reset(seed=5, options={"starter": 0})
    foreseen = foreseen_result(par.round.game)
    for _ in range(10):  # player_0 (the starter) is taken over on tick 10
        _, rewards, terminations, _, _ = par.step({agent: 0 for agent in par.agents})
    assert terminations["player_0"] and par.agents == ["player_1"]
    for _ in range(10):  # player_1's turn opened on tick 11: taken over on tick 20
        _, rewards, terminations, truncations, infos = par.step({"player_1": 0})
    assert terminations == {"player_1": True} and par.agents == []
    assert par.round.over and infos["player_1"]["round"]["takeover"] == (True, True)
    assert infos["player_1"]["round"]["steps"] == 20 and infos["player_1"]["round"]["ticks"] > 20
    assert par.round.game.result == foreseen
    assert rewards["player_1"] == pytest.approx(-0.001 - 1.0 + outcome_reward(WarConfig(), foreseen.winner, 1))
    assert infos["player_1"]["scoreboard"]["rounds"] == 1
    with pytest.raises(RuntimeError, match="reset"):
        par.step({})


def test_false_starts_of_both_seats_are_counted_penalised_and_move_no_card():
    par = WarParallelEnv()
    par.reset(seed=5, options={"starter": 0})
    # tick 1: only player_0's turn is open; player_1's press is a false start
    observations, rewards, *_ = par.step({"player_0": 1, "player_1": 1})
    assert rewards == {"player_0": 0.0, "player_1": pytest.approx(-0.1)}
    assert par.round.game.moves == [1, 0]
    assert observations["player_1"]["observation"][INDEX["has_drawn"]] == 0
    assert observations["player_1"]["observation"][INDEX["opponent_has_drawn"]] == 1
    # tick 2: player_1's turn is open; player_0 has drawn, so its press is a false start
    observations, rewards, *_ = par.step({"player_0": 1, "player_1": 0})
    assert rewards == {"player_0": pytest.approx(-0.1), "player_1": pytest.approx(-0.001)}
    assert par.round.game.moves == [1, 0]
    # tick 3: player_1 draws, the step is revealed
    par.step({"player_0": 0, "player_1": 1})
    assert par.round.game.moves == [1, 1] and par.round.false_starts == [1, 1]
    infos = {}
    observations = {agent: par._observe(agent) for agent in par.agents}
    while par.agents:
        observations, _, _, _, infos = par.step({a: int(observations[a]["action_mask"][1]) for a in par.agents})
    assert infos["player_0"]["round"]["false_starts"] == (1, 1)
    assert infos["player_0"]["round"]["takeover"] == (False, False)


@pytest.mark.parametrize("pickup", ["in_order", "shuffled"])
def test_the_foreseen_result_is_the_result_however_the_seats_time_their_draws(pickup):
    for seed in range(6):
        par = WarParallelEnv(pickup=pickup, turn_seconds=0.5)
        par.reset(seed=seed)
        foreseen = foreseen_result(par.round.game)
        play_random_round(par, seed, seed, draw_probability=0.2 + 0.1 * seed)
        assert par.round.game.result == foreseen


def test_max_cycles_truncates_the_live_agents_without_an_outcome():
    par = WarParallelEnv(max_cycles=5)
    par.reset(seed=1)
    for _ in range(4):
        _, _, _, truncations, _ = par.step({agent: 0 for agent in par.agents})
        assert not any(truncations.values())
    _, rewards, terminations, truncations, _ = par.step({agent: 0 for agent in par.agents})
    assert truncations == {"player_0": True, "player_1": True} and not any(terminations.values())
    assert par.agents == [] and not par.round.over and par.scoreboard.rounds == 0
    assert all(-0.01 < reward <= 0 for reward in rewards.values())


# --- bad input ------------------------------------------------------------------------------------
def test_bad_input_is_refused_with_a_clear_error():
    with pytest.raises(ValueError, match="max_cycles"):
        WarParallelEnv(max_cycles=0)
    with pytest.raises(ValueError, match="render_mode"):
        WarParallelEnv(render_mode="pixels")
    with pytest.raises(ValueError, match="War-v0 got an unexpected keyword argument"):
        WarParallelEnv(turn_secs=3)
    par = WarParallelEnv()
    with pytest.raises(RuntimeError, match="reset"):
        par.step({"player_0": 0, "player_1": 0})
    with pytest.raises(ValueError, match="unknown agent"):
        par.action_space("player_2")
    par.reset(seed=0)
    with pytest.raises(ValueError, match=r"no action for live agent\(s\) \['player_1'\]"):
        par.step({"player_0": 0})
    with pytest.raises(ValueError, match="player_1: invalid action 2"):
        par.step({"player_0": 0, "player_1": 2})
    with pytest.raises(TypeError, match="dict"):
        par.step([0, 1])
    with pytest.raises(ValueError, match="starter must be 0"):
        par.reset(options={"starter": 2})
    with pytest.warns(UserWarning, match="unknown reset option"):
        par.reset(options={"colour": "red"})
    with pytest.raises(ValueError, match="new_match must be True or False"):
        par.reset(options={"new_match": "no"})
    with pytest.raises(ValueError, match="piles must be a pair"):
        par.reset(options={"piles": None})
    with pytest.raises(TypeError, match="reset options must be a dict"):
        par.reset(options="piles")


def test_import_war_env_does_not_import_pettingzoo():
    code = "import sys, war_env; assert 'pettingzoo' not in sys.modules, 'pettingzoo imported'"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_the_ansi_frame_shows_the_table_with_the_agents_names():
    par = WarParallelEnv(render_mode="ansi")
    par.reset(seed=0)
    par.step({"player_0": 1, "player_1": 1})
    frame = par.render()
    assert isinstance(frame, str) and "tick 1" in frame and "player_0" in frame and "player_1" in frame


def test_the_rgb_array_frame_is_a_real_pygame_picture_of_the_table():
    pytest.importorskip("pygame")
    par = WarParallelEnv(render_mode="rgb_array")
    par.reset(seed=0)
    first = par.render()
    par.step({"player_0": 1, "player_1": 0})
    par.step({"player_0": 0, "player_1": 1})  # both drawn: the cards are revealed
    second = par.render()
    assert first.dtype == np.uint8 and first.ndim == 3 and first.shape[2] == 3 and first.shape == second.shape
    assert not np.array_equal(first, second)
    par.close()
    assert par._screen is None
