"""The probes: each is registered and built as it says, each shows its capability gap (at least 0.1 per
round, computed exactly and measured on paired rounds), and each probe's optimum is checked like the
oracle's: brute force on small rounds, and no scripted agent beats it on paired rounds beyond the interval."""

from __future__ import annotations

import dataclasses
import itertools
import sys
from functools import lru_cache
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import war_env  # noqa: F401  (registers the probes)
from war_env.agents import make_agent
from war_env.agents.lead import best_lead, lead_cost
from war_env.core.best_response import pool_policy, problem_with
from war_env.core.bots import Leader, Pool, make_bot
from war_env.core.cards import parse_piles
from war_env.core.clock import TimedRound
from war_env.core.observation import INDEX, OBSERVATION_SIZE
from war_env.core.optimum import OURS, THEIRS, TimingProblem, evaluate, solve
from war_env.core.probes import MIN_GAP, PROBES
from war_env.core.rewards import outcome_reward
from war_env.core.rules import WarConfig
from war_env.envs.latency import WarLatencyEnv
from war_env.envs.probe_envs import WarMemoryEnv
from war_env.evaluation import play_round, play_rounds
from war_env.evaluation.probe_gaps import (
    TABLE_FIELDS,
    best_field_reader,
    clairvoyant_records,
    exact_gaps,
    seat_moves,
    visible_table_fields,
)
from war_env.league.probe_figures import records_of
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
    assert never.takeover[0] and never.episode_return <= config.reward_takeover + outcome_reward(
        config, never.winner, 0
    )


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
    assert gaps.gap(probe.lacking) >= MIN_GAP and gaps.gap(gaps.lacking) >= MIN_GAP
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
    bayes_best = max(
        pool.prior[0] * total + pool.prior[1] * best_slow_after[first_draw, schedule[:first_draw]]
        for (member, schedule), (total, first_draw) in runs.items()
        if member == 0
    )
    oracle = make_agent("oracle", config=config, opponent=pool)
    played = sum(
        share * timing_return(WarLatencyEnv(opponent=bot, config=config), oracle, piles, starter)
        for share, bot in zip(pool.prior, pool.windows())
    )
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


# --- the price of not knowing: an independent finite-horizon Bayes DP ----------------------------------------
def finite_horizon_cost(reactions, prior, delay, fs, idle, moves, starts, known) -> float:
    """The least expected timing cost of a seat's next ``moves`` draws against a bot drawn from ``prior`` over
    ``reactions`` (one distribution per member, each always reacting, alike in the ticks they share), a fixed latency of
    ``delay`` >= 1 ticks, from the round's opening (``starts``: the seat's turn opens first; else the bot's),
    nothing in flight. ``known``: the member is told (the clairvoyant, the prior's mean of its costs), else the
    seat learns it from the bot's first draw in a tick only one member reacts in (Bayes: a draw in a shared tick
    leaves the prior). Written from the rules, not from the solver: each press in
    flight is its ticks to landing (0 lands this tick); a press lands ``delay`` ticks after it is sent; in the
    seat's turn a landing draws (the others are false starts), else an idle tick; in the bot's turn every
    landing is a false start, then the bot draws with its hazard; nothing costs after the seat's last draw."""
    reactions = [np.asarray(r, dtype=float) for r in reactions]
    ticks = len(reactions[0])

    def hazard(weights, elapsed):
        mass = [w * r[elapsed] for w, r in zip(weights, reactions)]
        left = sum(w * r[elapsed:].sum() for w, r in zip(weights, reactions))
        drawers = [k for k, m in enumerate(mass) if m > 0]
        return sum(mass) / left, drawers[0] if len(drawers) == 1 else None

    @lru_cache(maxsize=None)
    def value(n, ours, elapsed, in_flight, member):
        if n == 0:
            return 0.0
        weights = prior if member is None else [float(k == member) for k in range(len(prior))]
        best = np.inf
        for press in (False, True):
            landing = in_flight.count(0)
            later = tuple(sorted([t - 1 for t in in_flight if t > 0] + ([delay - 1] if press else [])))
            if ours:
                if landing:
                    cost = fs * (landing - 1) + value(n - 1, False, 0, later, member)
                elif elapsed == ticks - 1:
                    cost = np.inf  # the seat's own takeover: never the best
                else:
                    cost = idle + value(n, True, elapsed + 1, later, member)
            else:
                draws, drawer = hazard(weights, elapsed)
                cost = fs * landing
                if draws > 0:
                    cost += draws * value(n, True, 0, later, drawer)
                if draws < 1:
                    cost += (1 - draws) * value(n, False, elapsed + 1, later, member)
            best = min(best, cost)
        return best

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20_000))  # a draw's value calls the next tick's: ticks x moves deep
    try:
        if known:
            return sum(share * value(moves, starts, 0, (), k) for k, share in enumerate(prior))
        return value(moves, starts, 0, (), None)
    finally:
        sys.setrecursionlimit(limit)


def test_the_price_of_not_knowing_the_member_is_what_a_finite_horizon_bayes_dp_says():
    """Bayes minus clairvoyant over the first 12 draws of a round, from the DP above, for each seat that may
    start: the solver's price (the inference probe's pool, its latency and weights). The old figure for the
    starting seat (0.015) counted its first move's cost per move (0.005) into the price."""
    probe = PROBES["inference"]
    config, pool = probe.config(), make_bot(probe.opponent)
    reactions = [window.reaction_probabilities(config) for window in pool.windows()]
    policy = pool_policy(config, pool)
    for starts, phase in ((True, OURS), (False, THEIRS)):
        costs = [
            finite_horizon_cost(reactions, pool.prior, config.max_delay, FS, IDLE, 12, starts, known)
            for known in (False, True)
        ]
        assert costs[0] - costs[1] == pytest.approx(policy.price_of_not_knowing(phase), abs=1e-9), phase
    assert policy.price_of_not_knowing(OURS) == pytest.approx(0.010, abs=5e-4)


def test_a_round_the_seat_starts_costs_its_first_turns_excess_beyond_the_cost_per_move():
    """The same DP for one bot: the draws' cost grows by the solver's cost per move, a round the bot starts costs
    ``opening_excess`` beyond the cost per move times its moves (its first turn opens with nothing in flight), and a
    round the seat starts costs ``first_turn_excess`` more than one the bot starts (its own first turn does)."""
    probe = PROBES["anticipation"]
    config = probe.config()
    reactions = [make_bot(probe.opponent).reaction_probabilities(config)]
    policy = solve(problem_with(config, reactions[0]))
    cost = {
        (starts, n): finite_horizon_cost(reactions, [1.0], config.max_delay, FS, IDLE, n, starts, True)
        for starts in (True, False)
        for n in (10, 11)
    }
    assert cost[False, 11] - cost[False, 10] == pytest.approx(policy.cost_per_move, abs=1e-9)
    assert cost[False, 11] - 11 * policy.cost_per_move == pytest.approx(policy.opening_excess, abs=1e-9)
    assert cost[True, 11] - cost[False, 11] == pytest.approx(policy.first_turn_excess, abs=1e-9)
    assert policy.first_turn_excess > 0.02  # 6 idle ticks (0.06) against 0.0316 a move


def test_a_per_round_figure_counts_the_first_turn_of_the_rounds_the_seat_starts():
    """press_once pays its latency on every move alike; the oracle's round opens with nothing in flight, and so does
    its first turn of a round it starts, so the exact per-round gap is below the per-move gap times the moves by
    those excesses."""
    gaps = exact_gaps(PROBES["anticipation"])
    per_move_times_moves = (gaps.per_move["press_once"] - gaps.per_move["oracle"]) * gaps.moves
    assert gaps.first_turn["press_once"] == pytest.approx(0.0, abs=1e-12)
    assert gaps.opening["press_once"] == pytest.approx(0.0, abs=1e-12)
    assert 0.4 < gaps.starts < 0.6
    assert per_move_times_moves - gaps.gap("press_once") == pytest.approx(
        gaps.opening["oracle"] + gaps.starts * gaps.first_turn["oracle"], abs=1e-12
    )
    assert per_move_times_moves - gaps.gap("press_once") > 0.01


# --- reading: no field but the bot's card passes the probe ------------------------------------------------------
PROXIES = [
    ("own_pile", "opponent_pile"),
    ("own_points", "opponent_points"),
    ("battles",),
    ("own_card",),
    ("at_war", "pot", "started"),
    ("own_card", "at_war"),
]
"""Readers of the table that never look at the bot's card: the pile counts and the score (with memory, how they
change shows which card took the last trick), the battle count (how far into the round), the agent's own card (in a
war it ties with the bot's), the war, the pot and who started. Memory's proxies: tests/test_probe_gaps_reading.py."""


def test_no_reader_of_the_other_fields_passes_the_reading_probe_beyond_its_yardstick():
    """The yardstick of lacking the capability is the best policy that reads every shown field but the bot's card as
    each of its turns opens (its cost on the dealt turns themselves: at most what any such reader pays in
    expectation). Each proxy is either hidden by the probe (shown as 0: its reader is blind) or, built on half the
    deals and played on the other half, pays at least the yardstick."""
    probe = PROBES["reading"]
    gaps = exact_gaps(probe)
    yardstick = best_field_reader(probe, visible_table_fields(probe))
    assert gaps.lacking == "card_blind" and gaps.per_move["card_blind"] == yardstick.bound
    assert yardstick.bound <= yardstick.held_out <= gaps.per_move["blind"]
    assert gaps.gap("card_blind") >= MIN_GAP
    for proxy in PROXIES:
        reader = best_field_reader(probe, proxy)
        if set(proxy) & set(probe.hidden):
            assert set(proxy) <= set(probe.hidden), proxy  # shown as 0: their reader is blind
        else:
            assert reader.held_out >= yardstick.bound, (proxy, reader)
    reads = make_bot(probe.opponent).READS
    assert set(visible_table_fields(probe)) | set(probe.hidden) | set(reads) == set(TABLE_FIELDS)


def test_the_reading_probe_shows_the_cards_and_not_the_score_nor_the_pile_counts():
    env = gym.make(PROBES["reading"].env_id).unwrapped
    observation, _ = env.reset(seed=3)
    seen = [observation]
    while env.round.game.result is None:
        observation, *_ = env.step(1)
        seen.append(observation)
    seen = np.array(seen)
    for name in ("own_pile", "opponent_pile", "own_points", "opponent_points", "battles"):
        assert not seen[:, INDEX[name]].any(), name
    assert seen[:, INDEX["own_card"]].any() and seen[:, INDEX["opponent_card"]].any()


GYMNASIUM_SECTIONS = [
    "Description",
    "Action Space",
    "Observation Space",
    "Rewards",
    "Starting State",
    "Episode End",
    "Arguments",
    "Version History",
]


@pytest.mark.parametrize("name", sorted(PROBES))
def test_every_probe_env_says_its_sections_in_gymnasiums_order_with_its_own_figures(name):
    from war_env.envs.probe_envs import PROBE_ENVS

    env, probe = PROBE_ENVS[name], PROBES[name]
    doc = env.__doc__
    headings = [line.strip()[3:] for line in doc.splitlines() if line.strip().startswith("## ")]
    assert headings == GYMNASIUM_SECTIONS and "$" not in doc
    width = gym.make(probe.env_id).observation_space.shape[0]
    for own in (f'gymnasium.make("{probe.env_id}")', f"({width},)", probe.latency, probe.opponent):
        assert own in doc


def test_the_docs_list_every_probe_from_its_row():
    """docs/probes.md opens with the table of ``PROBES`` as ``probes_table`` renders it, and the README's table of
    envs gives each probe's id with its observation's width and its latency."""
    from war_env.league.probe_figures import probes_table

    root = Path(__file__).resolve().parent.parent
    assert probes_table() in (root / "docs" / "probes.md").read_text()
    readme = (root / "README.md").read_text()
    for probe in PROBES.values():
        width = gym.make(probe.env_id).observation_space.shape[0]
        assert f"| `{probe.env_id}` | {width} floats | `{probe.latency}` |" in readme, probe.env_id
