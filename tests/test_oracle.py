"""The oracle agent, checked three ways through the real env: without latency it plays exactly like
`prompt`; on small deterministic rounds its return is the best of every press schedule, found by brute
force through the real TimedRound; and no scripted agent beats it on paired rounds beyond the interval.
Also the `anticipate` heuristic, which is built and reads the latency observation as the oracle does."""

from __future__ import annotations

import dataclasses
import itertools

import gymnasium as gym
import numpy as np
import pytest

import war_env  # noqa: F401
from war_env.agents import make_agent
from war_env.agents.lead import lead_cost
from war_env.agents.oracle import Oracle
from war_env.core.best_response import problem_with
from war_env.core.bots import make_bot
from war_env.core.cards import parse_piles
from war_env.core.clock import TimedRound
from war_env.core.probes import PROBES
from war_env.core.rewards import outcome_reward
from war_env.core.rules import WarConfig
from war_env.envs.latency import WarLatencyEnv
from war_env.evaluation import play_round, play_rounds
from war_env.evaluation.probe_gaps import exact_gaps
from war_env.league.stats import bootstrap_mean

BOTS = ["instant", "fixed:ticks=5", "uniform:low=1,high=10", "human", "absent"]


# --- 1. without latency the oracle is prompt --------------------------------------------------------------
@pytest.mark.parametrize("bot", BOTS)
def test_without_latency_the_oracle_plays_exactly_like_prompt_round_for_round(bot):
    config = WarConfig()
    oracle = make_agent("oracle", config=config, opponent=bot)
    oracle_env = WarLatencyEnv(opponent=bot, config=config)  # tick by tick, reading the latency observation
    prompt_env = gym.make("War-v0", opponent=bot)
    for seed in range(8):
        mine = play_round(oracle_env, oracle, seed)
        theirs = play_round(prompt_env, make_agent("prompt"), seed)
        assert dataclasses.replace(mine, agent="prompt") == theirs


def test_without_latency_the_fast_path_may_play_the_oracle_as_prompt_and_with_latency_it_may_not():
    plain = make_agent("oracle", config=WarConfig(), opponent="human")
    assert plain.presses_exactly_when_its_turn_is_open()
    assert plain.reaction_model(WarConfig()) == make_agent("prompt").reaction_model(WarConfig())
    delayed = make_agent("oracle", config=WarConfig(latency="fixed:ticks=2"), opponent="human")
    assert delayed.reaction_model(delayed.config) is None


# --- 2. brute force over press schedules, through the real clock ------------------------------------------
def timing_return(config: WarConfig, piles, starter: int, bot: str, schedule) -> tuple[float, bool]:
    """The summed tick rewards of a round whose agent presses in the ticks marked in ``schedule`` (then
    waits), and whether the round ended within it."""
    timed = TimedRound(config, parse_piles(piles), starter, round_key=7, controllers=(None, make_bot(bot)))
    total = 0.0
    for press in schedule:
        total += timed.tick(bool(press), False)[0]
        if timed.over:
            return total, True
    while not timed.over:
        total += timed.tick(False, False)[0]
    return total, True


def oracle_round(config: WarConfig, piles, starter: int, bot: str) -> tuple[float, int]:
    """The oracle's timing return through WarLatency-v0, and the ticks its round took."""
    env = WarLatencyEnv(opponent=bot, config=config)
    oracle = make_agent("oracle", config=config, opponent=bot)
    observation, _ = env.reset(options={"piles": piles, "starter": starter})
    total, terminated = 0.0, False
    while not terminated:
        observation, reward, terminated, _, info = env.step(oracle.act(observation))
        total += reward
    return total - outcome_reward(config, info["round"]["winner"], seat=0), info["round"]["ticks"]


@pytest.mark.parametrize("latency", ["fixed:ticks=1", "fixed:ticks=2", "fixed:ticks=3"])
@pytest.mark.parametrize("bot", ["instant", "fixed:ticks=1", "fixed:ticks=2"])
@pytest.mark.parametrize("starter", [0, 1])
def test_on_small_rounds_the_oracle_returns_the_best_of_every_press_schedule(latency, bot, starter):
    config = WarConfig(turn_seconds=0.5, latency=latency)  # 5 ticks a turn
    piles = [["AC", "KC"], ["2D", "3D"]]  # two battles, no war: each seat draws twice
    best_schedule_ticks = 11
    oracle, ticks = oracle_round(config, piles, starter, bot)
    assert ticks <= best_schedule_ticks  # its own schedule is among those searched
    best = max(
        timing_return(config, piles, starter, bot, schedule)[0]
        for schedule in itertools.product((0, 1), repeat=best_schedule_ticks)
    )
    assert oracle == pytest.approx(best, abs=1e-12)


@pytest.mark.parametrize("latency", ["fixed:ticks=2", "uniform:low=1,high=4"])
def test_through_the_env_the_oracle_costs_per_move_what_the_solver_says(latency):
    """Against `uniform` (never taken over) the timing cost per move measured in whole rounds through
    WarLatency-v0 is the solver's long-run cost per move (the first and last moves of a round aside)."""
    config = WarConfig(latency=latency)
    oracle = make_agent("oracle", config=config, opponent="uniform")
    records = play_rounds(oracle, "uniform", config, range(20))
    moves = sum(len(r.reaction_ticks[0]) for r in records)
    cost = sum(0.1 * r.false_starts[0] + 0.001 * sum(r.reaction_ticks[0]) for r in records)
    assert moves > 1000 and cost / moves == pytest.approx(oracle.policy.cost_per_move, rel=0.05)


# --- 3. nobody beats it on paired rounds -------------------------------------------------------------------
SCRIPTED = ["prompt", "eager", "random:p=0.2", "last_moment", "never", "human", "anticipate"]


@pytest.mark.slow
@pytest.mark.parametrize(
    "latency, bot",
    [("fixed:ticks=2", "human"), ("uniform:low=1,high=4", "uniform"), ("fixed:ticks=4", "fixed:ticks=5")],
)
def test_no_scripted_agent_beats_the_oracle_on_paired_rounds_beyond_the_interval(latency, bot):
    config = WarConfig(latency=latency)
    seeds = range(30)
    oracle = play_rounds("oracle", bot, config, seeds)
    for agent in SCRIPTED:
        records = play_rounds(agent, bot, config, seeds)
        regret = bootstrap_mean([o.episode_return - r.episode_return for o, r in zip(oracle, records)])
        assert regret["high"] >= 0, (agent, regret)


# --- building it ---------------------------------------------------------------------------------------------
def test_the_oracle_needs_a_bot_opponent():
    with pytest.raises(ValueError, match="built for an opponent bot"):
        make_agent("oracle")
    with pytest.raises(ValueError, match="needs a bot opponent.*unknown bot 'prompt'"):
        make_agent("oracle", opponent="prompt")
    with pytest.raises(ValueError, match="needs a bot opponent.*the agent 'prompt' playing seat 1"):
        make_agent("oracle", opponent=make_agent("prompt"))
    with pytest.raises(ValueError, match="needs a bot opponent"):
        play_rounds("oracle", "prompt", WarConfig(), [0])


def test_the_oracle_refuses_rewards_that_pay_for_bad_timing_and_the_war_v0_observation():
    with pytest.raises(ValueError, match="reward_false_start"):
        make_agent("oracle", config=WarConfig(reward_false_start=0.5), opponent="human")
    oracle = make_agent("oracle", config=WarConfig(latency="fixed:ticks=2"), opponent="human")
    observation, _ = gym.make("War-v0").reset(seed=0)
    with pytest.raises(ValueError, match="latency observation of WarLatency-v0 \\(20 values"):
        oracle.act(observation)


def test_the_oracle_is_solved_once_per_problem():
    config = WarConfig(latency="uniform:low=1,high=3")
    assert (
        make_agent("oracle", config=config, opponent="human").policy
        is make_agent("oracle", config=config, opponent="human").policy
    )
    assert isinstance(make_agent("oracle", config=config, opponent="human"), Oracle)


def test_anticipate_lands_every_press_on_the_opening_tick_against_a_predictable_opponent():
    config = WarConfig(latency="fixed:ticks=3")
    records = play_rounds("anticipate", "fixed:ticks=5", config, range(5))
    assert all(r.false_starts[0] == 0 for r in records)
    # only a starter's first move cannot be anticipated: its turn opens in tick 1, its press lands in tick 4
    assert all(set(r.reaction_ticks[0][1:]) == {0} and r.reaction_ticks[0][0] in (0, 3) for r in records)


def test_anticipate_without_latency_is_prompt():
    for bot in BOTS:
        anticipate = play_rounds("anticipate", bot, WarConfig(), range(5))
        prompt = play_rounds("prompt", bot, WarConfig(), range(5))
        assert [dataclasses.replace(r, agent="prompt") for r in anticipate] == prompt


def test_anticipate_presses_ahead_only_as_late_as_the_costs_allow():
    anticipate = make_agent("anticipate", config=WarConfig(latency="fixed:ticks=2"), opponent="human")
    # break-even: (1 - q) * 2 idle ticks saved (0.002) = q * one false start (0.1)
    assert anticipate.lead == 2 and anticipate.level == pytest.approx(0.1 / 0.102)
    probabilities = np.cumsum(make_bot("human").reaction_probabilities(WarConfig()))
    level = anticipate.level
    assert probabilities[anticipate.opponent_draw] >= level > probabilities[anticipate.opponent_draw - 1]


# the probes whose observation shows the opponent's clock, which anticipate reads
CLOCK_PROBES = [name for name, probe in PROBES.items() if probe.observation != "war"]


@pytest.mark.parametrize("name", CLOCK_PROBES)
def test_anticipate_is_one_fixed_lead_which_beats_waiting_to_see_and_never_the_best_lead(name):
    # issue 29: with the probes' weights (4-6 idle ticks cost more than a false start) its first level fell to 0
    # and it sent a sure false start every move, losing about 1.9 per round to press_once in inference and reading
    probe = PROBES[name]
    config, bot = probe.config(), make_bot(probe.opponent)
    anticipate = make_agent("anticipate", config=config, opponent=bot)
    ticks = anticipate.press_tick
    seeds = range(2)
    records = play_rounds(anticipate, bot, config, seeds, env_id=probe.env_id)
    same = play_rounds(f"lead:ticks={ticks}", bot, config, seeds, env_id=probe.env_id)
    assert [dataclasses.replace(r, agent=f"lead:ticks={ticks}") for r in records] == same
    parts = [
        (part.share, problem_with(config, part.bot.reaction_probabilities(config))) for part in bot.components(config)
    ]

    def cost(lead):
        return sum(weight * lead_cost(problem, lead) for weight, problem in parts)

    press_once, best = exact_gaps(probe).per_move["press_once"], exact_gaps(probe).per_move["lead"]
    assert cost(None) == pytest.approx(press_once) and best <= cost(ticks) < press_once
