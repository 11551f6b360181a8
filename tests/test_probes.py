"""The probes: each is registered and built as it says, each shows its capability gap (at least 0.1 per
round, computed exactly and measured on paired rounds), and each probe's optimum is checked like the
oracle's: brute force on small rounds, and no scripted agent beats it on paired rounds beyond the interval."""

from __future__ import annotations

import dataclasses
import itertools

import gymnasium as gym
import numpy as np
import pytest

from war_env.core.rewards import outcome_reward
import war_env  # noqa: F401  (registers the probes)
from war_env.agents import make_agent
from war_env.agents.lead import best_lead, lead_cost
from war_env.core.bots import Leader, Pool, make_bot
from war_env.core.cards import parse_piles
from war_env.core.clock import TimedRound
from war_env.core.observation import INDEX, OBSERVATION_SIZE
from war_env.core.optimum import OURS, THEIRS, TimingProblem, evaluate
from war_env.core.probes import MIN_GAP, PROBES
from war_env.core.rules import WarConfig
from war_env.envs.latency import WarLatencyEnv
from war_env.envs.probes import WarMemoryEnv
from war_env.evaluation import play_round, play_rounds
from war_env.evaluation.probes import clairvoyant_records, exact_gaps, seat_moves
from war_env.league.probes import records_of
from war_env.league.stats import bootstrap_mean

FS, IDLE = 0.02, 0.01  # the probes' weights as costs


# --- registered, and built as they say ---------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(PROBES))
def test_every_probe_is_a_registered_env_with_its_opponent_latency_and_rewards(name):
    probe = PROBES[name]
    env = gym.make(probe.env_id).unwrapped
    assert env.opponent_bot == make_bot(probe.opponent) and env.config == probe.config()
    assert env.config.reward_false_start == -FS and env.config.reward_idle_tick == -IDLE
    size = {"latency": 18 + env.config.max_delay, "war": 16, "inference": 19 + env.config.max_delay}[probe.observation]
    observation, _ = env.reset(seed=0)
    assert env.observation_space.shape == (size,) == observation.shape
    assert gym.make(probe.env_id, opponent="instant").unwrapped.opponent_bot == make_bot("instant")
    assert gym.make(probe.env_id, config=WarConfig()).unwrapped.config == WarConfig()


@pytest.mark.parametrize("name", sorted(PROBES))
def test_being_taken_over_costs_more_than_the_timing_of_the_longest_round_played_the_simple_way(name):
    # With War-v0's takeover weight (-1) a seat that never pressed, taken over after 30 idle ticks, paid less
    # than the oracle's timing (every learner found it: docs/probes.md). press_once pays exactly its latency in
    # idle ticks a move (it never false-starts), and the oracle less in expectation: a takeover must cost more
    # than that over the longest of the dealt rounds, with a margin for longer ones.
    config = PROBES[name].config()
    longest_round = config.max_delay * IDLE * seat_moves(config).max()
    assert -config.reward_takeover >= 10 * longest_round, (config.reward_takeover, longest_round)
    never = play_rounds("never", PROBES[name].opponent, config, [0], env_id=PROBES[name].env_id)[0]
    assert never.takeover[0] and never.episode_return <= config.reward_takeover + outcome_reward(config, never.winner, 0)


def test_the_inference_observation_shows_how_long_the_opponent_took_last_time():
    env = gym.make("WarInference-v0", opponent="fixed:ticks=6").unwrapped
    observation, _ = env.reset(seed=0, options={"starter": 1})
    assert observation[-1] == 0  # it has not drawn yet
    while not observation[INDEX["can_draw"]]:
        observation, *_ = env.step(0)
    assert observation[-1] == pytest.approx(7 / 30)  # its draw came 6 ticks into its turn


# --- the gaps ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(PROBES))
def test_the_agent_lacking_the_capability_loses_at_least_the_minimum_gap_per_round(name):
    probe = PROBES[name]
    gaps = exact_gaps(probe)
    assert gaps.gap(probe.lacking) >= MIN_GAP
    assert gaps.gap(gaps.best_simple) >= MIN_GAP  # the score's 0 and 1 are apart too
    assert min(gaps.gap(agent) for agent in gaps.per_move) == pytest.approx(0.0, abs=1e-12)  # the oracle's own


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(PROBES))
def test_on_paired_rounds_the_lacking_agent_loses_what_the_computation_says_and_nobody_beats_the_oracle(name):
    probe = PROBES[name]
    seeds = range(40)
    oracle, _ = records_of(probe, "oracle", seeds)
    gaps = exact_gaps(probe)
    for agent in [probe.lacking, *probe.simple, "anticipate"]:
        records, _ = records_of(probe, agent, seeds)
        regret = bootstrap_mean([o.episode_return - r.episode_return for o, r in zip(oracle, records)])
        assert regret["high"] >= 0, (agent, regret)
        if agent == probe.lacking:
            assert regret["low"] >= MIN_GAP, regret
            assert regret["low"] - 0.05 <= gaps.gap(agent) <= regret["high"] + 0.05, (gaps.gap(agent), regret)


@pytest.mark.slow
def test_the_lead_costs_what_the_solver_evaluates_for_it_and_the_best_lead_is_the_least_of_them():
    config = WarConfig(latency="uniform:low=2,high=5", reward_false_start=-FS, reward_idle_tick=-IDLE)
    reactions = tuple(make_bot("uniform:low=3,high=12").reaction_probabilities(config))
    problem = TimingProblem(config.turn_ticks, config.latency_probabilities, reactions, FS, IDLE, 1.0)

    def leading(ticks):
        def rule(phase, elapsed, masks):
            return (masks == 0) & ((phase == OURS) | (ticks is not None and elapsed == ticks))
        return rule

    costs = {ticks: evaluate(problem, leading(ticks)) for ticks in [None, *range(config.turn_ticks)]}
    for ticks, cost in costs.items():
        assert lead_cost(problem, ticks) == pytest.approx(cost, abs=1e-12)
    assert costs[best_lead(problem)] == pytest.approx(min(costs.values()), abs=1e-12)


# --- memory: the optimum is the game's, and no memoryless policy gets near it --------------------------------
def test_counting_from_war_v0_fields_plays_exactly_the_oracle_of_the_game():
    probe = PROBES["memory"]
    config, bot = probe.config(), probe.opponent
    counting = make_agent("counting", config=config, opponent=bot)
    memory_env = WarMemoryEnv()
    assert memory_env.observation_space.shape == (OBSERVATION_SIZE,)
    oracle = play_rounds("oracle", bot, config, range(12))
    mine = [play_round(memory_env, counting, seed, index=index) for index, seed in enumerate(range(12))]
    assert [dataclasses.replace(r, agent="oracle") for r in mine] == oracle


def test_counting_needs_a_fixed_latency():
    with pytest.raises(ValueError, match="needs a fixed latency"):
        make_agent("counting", config=WarConfig(latency="uniform:low=1,high=3"), opponent="human")


def test_no_memoryless_policy_beats_pressing_once_in_the_memory_probe():
    """From War-v0's fields the opponent's turn looks the same on every tick, so a memoryless policy presses
    there with one probability; on its own turn it sees its clock, not its presses in flight. Every such
    policy (a grid of probabilities, pressing on any one tick of its own turn) costs at least press_once."""
    probe = PROBES["memory"]
    config = probe.config()
    reactions = tuple(make_bot(probe.opponent).reaction_probabilities(config))
    problem = TimingProblem(config.turn_ticks, config.latency_probabilities, reactions, FS, IDLE, 1.0)
    once = lead_cost(problem, None)
    for q, own_tick in itertools.product([0.0, 0.01, 0.05, 0.1, 0.3, 1.0], [0, 1, 3]):
        def memoryless(phase, elapsed, masks, q=q, own_tick=own_tick):
            if phase == THEIRS:
                return np.full(len(masks), q)
            return np.full(len(masks), elapsed == own_tick, dtype=bool)
        assert evaluate(problem, memoryless) >= once - 1e-12


# --- inference: Bayes-optimal, brute force on small rounds --------------------------------------------------
def best_return(config, piles, starter, bot, schedules_from=None) -> float:
    """The best summed tick rewards over every press schedule of a round against a deterministic bot."""
    ticks = 12
    best = -np.inf
    for schedule in itertools.product((0, 1), repeat=ticks):
        timed = TimedRound(config, parse_piles(piles), starter, round_key=7, controllers=(None, bot))
        total = 0.0
        for press in schedule:
            total += timed.tick(bool(press), False)[0]
            if timed.over:
                break
        while not timed.over:
            total += timed.tick(False, False)[0]
        best = max(best, total)
    return best


def timing_return(env, agent, piles, starter) -> float:
    observation, _ = env.reset(options={"piles": piles, "starter": starter})
    agent.reset(seed=0)
    total, terminated, info = 0.0, False, {}
    while not terminated:
        observation, reward, terminated, _, info = env.step(agent.act(observation))
        total += reward
    return total - outcome_reward(env.config, info["round"]["winner"], seat=0)


@pytest.mark.parametrize("latency", ["fixed:ticks=1", "fixed:ticks=2"])
@pytest.mark.parametrize("starter", [0, 1])
def test_on_small_rounds_the_bayes_optimal_oracle_is_the_best_policy_that_does_not_know_the_member(latency, starter):
    """A pool of `fixed:ticks=1` and `fixed:ticks=3`, two battles: a policy that does not know the member
    presses the same until the member's first draw shows it; brute force over every pair of schedules that
    agree until then gives the best expected return, and the pool's oracle reaches it."""
    config = WarConfig(turn_seconds=0.5, latency=latency, reward_false_start=-FS, reward_idle_tick=-IDLE)
    pool = Pool(fast=1, slow=3, width=1)
    piles, ticks = [["AC", "KC"], ["2D", "3D"]], 11
    runs = {}
    for member, bot in enumerate(pool.windows()):
        for schedule in itertools.product((0, 1), repeat=ticks):
            timed = TimedRound(config, parse_piles(piles), starter, round_key=7, controllers=(None, bot))
            total, first_draw = 0.0, None
            for tick, press in enumerate(schedule, start=1):
                total += timed.tick(bool(press), False)[0]
                if first_draw is None and timed.game.moves[1] > 0:
                    first_draw = tick  # the member shows itself in this tick: later presses may differ
                if timed.over:
                    break
            while not timed.over:
                total += timed.tick(False, False)[0]
            runs[member, schedule] = (total, first_draw)
    best_slow_after = {}
    for (member, schedule), (total, _) in runs.items():
        if member == 1:
            for shown in range(ticks + 1):
                key = (shown, schedule[:shown])
                best_slow_after[key] = max(best_slow_after.get(key, -np.inf), total)
    bayes_best = max(pool.prior[0] * total + pool.prior[1] * best_slow_after[first_draw, schedule[:first_draw]]
                     for (member, schedule), (total, first_draw) in runs.items() if member == 0)
    oracle = make_agent("oracle", config=config, opponent=pool)
    played = sum(share * timing_return(WarLatencyEnv(opponent=bot, config=config), oracle, piles, starter)
                 for share, bot in zip(pool.prior, pool.windows()))
    assert played == pytest.approx(bayes_best, abs=1e-12)


@pytest.mark.slow
def test_the_clairvoyant_loses_nothing_to_the_bayes_oracle_but_the_price_of_the_first_turns():
    probe = PROBES["inference"]
    seeds = range(40)
    oracle, _ = records_of(probe, "oracle", seeds)
    clairvoyant = clairvoyant_records(probe, seeds)
    edge = bootstrap_mean([c.episode_return - o.episode_return for o, c in zip(oracle, clairvoyant)])
    assert edge["low"] >= 0 and edge["value"] == pytest.approx(exact_gaps(probe).oracle_once, abs=0.01)


# --- reading the table: brute force on small rounds ------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("latency", ["fixed:ticks=1", "fixed:ticks=2"])
@pytest.mark.parametrize("starter", [0, 1])
def test_on_small_rounds_the_table_reading_oracle_returns_the_best_of_every_press_schedule(latency, starter):
    """A leader that reacts in tick 1 when ahead and in tick 3 when not; the first battle puts one seat ahead."""
    config = WarConfig(turn_seconds=0.5, latency=latency, reward_false_start=-FS, reward_idle_tick=-IDLE)
    bot = Leader(ahead=1, behind=3, width=1)
    for piles in ([["AC", "KC"], ["2D", "3D"]], [["2C", "3C"], ["AD", "KD"]]):  # the leader behind, then ahead
        oracle = make_agent("oracle", config=config, opponent=bot)
        played = timing_return(WarLatencyEnv(opponent=bot, config=config), oracle, piles, starter)
        assert played == pytest.approx(best_return(config, piles, starter, bot), abs=1e-12)


def test_the_table_reading_oracle_refuses_a_leader_whose_turns_would_carry_presses_over():
    with pytest.raises(ValueError, match="exact only when every reaction window starts"):
        make_agent("oracle", config=WarConfig(latency="fixed:ticks=6"), opponent="leader:ahead=2,behind=10")
