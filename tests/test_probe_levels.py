"""The probes' difficulty scales: every level is a probe as the default is (registered by its env id's ``level``
keyword, the minimum gap kept, its figures exact), the memory levels ask to count further and further, and a stack of
``k`` frames sees only ``k - 2`` ticks into the opponent's turn, so its line is exact too."""

from __future__ import annotations

import dataclasses
import itertools

import gymnasium as gym
import numpy as np
import pytest
from test_probes import FS, IDLE, finite_horizon_cost

import war_env  # noqa: F401  (registers the probes)
from war_env.agents.lead import lead_cost
from war_env.agents.oracle import timing_state
from war_env.core.best_response import Inferring, pool_policy, problem_with
from war_env.core.bots import make_bot
from war_env.core.observation import INDEX, OBSERVATION_SIZE
from war_env.core.optimum import OURS, THEIRS, State, evaluate, evaluate_policy, solve, solve_pool
from war_env.core.probes import MIN_GAP, PROBES, probe_named
from war_env.evaluation.paired_rounds import play_rounds_batched
from war_env.evaluation.probe_gaps import clairvoyant_records, exact_gaps
from war_env.evaluation.probe_levels import (
    NO_REACTION,
    WINDOWS,
    all_levels,
    counting_depth,
    last_reaction_line,
    last_reaction_policies,
    least_after_waits,
    least_over_chance,
    level_figures,
    played_with_actions_line,
    pressing_after_waits,
    pressing_up_to,
    single_problem,
    window_line,
    window_reach,
)
from war_env.league.probe_figures import records_of
from war_env.league.stats import bootstrap_mean
from war_env.league.suite import run_suite
from war_env.scripts.probe_figures import main

WITH_LEVELS = [name for name, probe in PROBES.items() if probe.levels]
LEVELS = [(name, n) for name in WITH_LEVELS for n in range(1, len(PROBES[name].levels) + 1)]
MEMORY_DEPTHS = (5, 8, 16, 17, 23)
"""How far each memory level asks a seat to count, easiest first: the levels' design, which the solver confirms."""


# --- the levels are probes, made by the env id's level keyword ----------------------------------------------------
@pytest.mark.parametrize("name", WITH_LEVELS)
def test_a_family_has_three_levels_or_more_and_its_default_level_is_the_rows_own_opponent(name):
    probe = PROBES[name]
    assert len(probe.levels) >= 3
    assert len({level.opponent for level in probe.levels}) == len(probe.levels)
    assert probe.levels[probe.default_level - 1].opponent == probe.opponent
    for level in probe.levels:
        assert make_bot(level.opponent).spec() == level.opponent  # a bot spec, written as the bot writes it


@pytest.mark.parametrize("name, level", LEVELS)
def test_the_env_id_with_a_level_plays_that_levels_opponent_single_and_batched(name, level):
    probe = PROBES[name]
    env = gym.make(probe.env_id, level=level).unwrapped
    assert env.opponent_bot == make_bot(probe.levels[level - 1].opponent) and env.config == probe.config()
    envs = gym.make_vec(probe.env_id, num_envs=2, vectorization_mode="vector_entry_point", level=level)
    assert envs.unwrapped.opponent_bot == make_bot(probe.levels[level - 1].opponent)


def test_the_default_env_is_the_default_level():
    for name in WITH_LEVELS:
        probe = PROBES[name]
        default = gym.make(probe.env_id).unwrapped.opponent_bot
        assert default == gym.make(probe.env_id, level=probe.default_level).unwrapped.opponent_bot


def test_a_level_out_of_range_an_opponent_beside_a_level_and_a_probe_without_levels_are_refused_in_one_line():
    with pytest.raises(ValueError, match=r"WarMemory-v1 has levels 1 to 5, got level=0"):
        gym.make("WarMemory-v1", level=0)
    with pytest.raises(ValueError, match="takes a level or an opponent, not both"):
        gym.make("WarMemory-v1", level=1, opponent="human")
    with pytest.raises(ValueError, match="WarMemory-v1 has no levels"):
        dataclasses.replace(PROBES["memory"], levels=()).at_level(1)


# --- the minimum gap at every level -------------------------------------------------------------------------------
@pytest.mark.parametrize("name, level", LEVELS)
def test_at_every_level_the_agent_lacking_the_capability_loses_at_least_the_minimum_gap(name, level):
    probe = PROBES[name].at_level(level)
    gaps = exact_gaps(probe)
    assert gaps.gap(probe.lacking) >= MIN_GAP and gaps.gap(gaps.lacking) >= MIN_GAP
    assert gaps.gap(gaps.best_simple) >= MIN_GAP  # the score's 0 and 1 are apart too
    assert min(gaps.gap(agent) for agent in gaps.per_move) == pytest.approx(0.0, abs=1e-12)  # the oracle's own
    figures = level_figures(PROBES[name], level)
    assert figures.lacking_gap == gaps.gap(gaps.lacking) and figures.oracle == gaps.per_round("oracle")


def test_the_default_levels_figures_are_the_probes_own():
    for name in WITH_LEVELS:
        probe = PROBES[name]
        figures, gaps = level_figures(probe, probe.default_level), exact_gaps(probe)
        assert figures.default and figures.oracle == gaps.per_round("oracle")
        assert figures.gaps == {agent: gaps.gap(agent) for agent in gaps.per_move if agent != "oracle"}


def test_anticipation_levels_add_one_mode_each():
    assert [make_bot(level.opponent).count for level in PROBES["anticipation"].levels] == [1, 2, 3]


@pytest.mark.parametrize("name", ["inference", "reading"])
def test_inference_and_reading_levels_make_the_capability_worth_less_and_less(name):
    """Inference: the fast bot's share grows; reading: the two windows share more ticks. What lacking the capability
    loses shrinks from level to level, and stays at least the minimum gap."""
    probe = PROBES[name]
    lacking = [level_figures(probe, n).lacking_gap for n in range(1, len(probe.levels) + 1)]
    assert lacking == sorted(lacking, reverse=True) and len(set(lacking)) == len(lacking) and lacking[-1] >= MIN_GAP


# --- inference: how much one reaction tells -----------------------------------------------------------------------
def test_at_each_inference_level_a_draw_names_the_bot_less_often():
    config = PROBES["inference"].config()
    named = [pool_policy(config, make_bot(level.opponent)).identifying for level in PROBES["inference"].levels]
    assert named == [(1.0, 1.0), (0.75, 0.75), (0.5, 0.5), (0.25, 0.25)]


@pytest.mark.parametrize("level", [2, 3])
def test_the_price_of_not_knowing_at_overlapping_levels_is_what_a_finite_horizon_bayes_dp_says(level):
    """The windows share ticks, so the belief stays the prior until a draw falls outside them: Bayes minus clairvoyant
    over a round's first 40 draws, from the DP written from the rules (tests/test_probes.py), for each seat that may
    start, is the solver's price (what is left after 40 draws is below 1e-8 here)."""
    config, pool = PROBES["inference"].config(), make_bot(PROBES["inference"].levels[level - 1].opponent)
    reactions = [window.reaction_probabilities(config) for window in pool.windows()]
    policy = pool_policy(config, pool)
    for starts, phase in ((True, OURS), (False, THEIRS)):
        costs = [
            finite_horizon_cost(reactions, pool.prior, config.max_delay, FS, IDLE, 40, starts, known)
            for known in (False, True)
        ]
        assert costs[0] - costs[1] == pytest.approx(policy.price_of_not_knowing(phase), abs=1e-8), phase


def test_the_inferring_oracle_waits_for_a_draw_that_only_one_member_makes():
    """Against windows 4-7 and 5-8 a draw 5 to 7 ticks in tells nothing; one 8 ticks in names the slow bot."""
    config, pool = PROBES["inference"].config(), make_bot("pool:fast=4,slow=5,width=4,share_fast=0.5")
    oracle = Inferring(pool_policy(config, pool))
    for drawn_at, named in ((6, None), (5, None), (8, 1)):
        oracle.press(State(THEIRS, drawn_at, False, 0), None)
        oracle.press(State(OURS, 0, False, 0), None)
        assert oracle.member == named, drawn_at
    oracle.press(State(THEIRS, 4, False, 0), None)
    oracle.press(State(OURS, 0, False, 0), None)
    assert oracle.member == 1  # named once, for the round


def test_a_pool_whose_members_differ_in_a_shared_tick_is_refused():
    config = PROBES["inference"].config()
    fast, slow = (
        problem_with(config, make_bot(spec).reaction_probabilities(config))
        for spec in ("uniform:low=4,high=7", "uniform:low=5,high=6")
    )
    with pytest.raises(ValueError, match="different probabilities"):
        solve_pool([fast, slow], [0.5, 0.5])
    with pytest.raises(ValueError, match="no draw names it"):
        solve_pool(
            [fast, problem_with(config, make_bot("uniform:low=4,high=7").reaction_probabilities(config))], [0.5, 0.5]
        )


@pytest.mark.slow
def test_at_the_hardest_inference_level_the_clairvoyant_loses_nothing_to_the_bayes_oracle_but_the_price():
    probe = PROBES["inference"].at_level(len(PROBES["inference"].levels))
    seeds = range(40)
    oracle, _ = records_of(probe, "oracle", seeds)
    clairvoyant = clairvoyant_records(probe, seeds)
    edge = bootstrap_mean([c.episode_return - o.episode_return for o, c in zip(oracle, clairvoyant)])
    assert edge["low"] >= -0.01 and edge["value"] == pytest.approx(exact_gaps(probe).oracle_once, abs=0.01)


# --- memory: how far it must count --------------------------------------------------------------------------------
def memory_levels():
    return [PROBES["memory"].at_level(n) for n in range(1, len(PROBES["memory"].levels) + 1)]


def test_each_memory_level_asks_to_count_further_and_the_oracle_presses_there():
    """The least tick into the opponent's turn up to which a policy must press to cost what the oracle does: one
    tick less costs more. At the one-mode levels the oracle's press lands the tick after the mode's last."""
    depths = []
    for probe in memory_levels():
        depth, problem = counting_depth(probe), single_problem(probe)
        oracle = solve(problem)
        assert pressing_up_to(problem, depth).cost_per_move == pytest.approx(oracle.cost_per_move, abs=1e-12)
        assert pressing_up_to(problem, depth - 1).cost_per_move > oracle.cost_per_move + 1e-6
        bot = make_bot(probe.opponent)
        if bot.count == 1:
            assert depth + problem.max_delay == bot.ticks()[-1] + 1  # it lands as the window ends
            assert oracle.press(State(THEIRS, depth, False, 0))
        depths.append(depth)
    assert tuple(depths) == MEMORY_DEPTHS


@pytest.mark.parametrize("level", range(1, len(PROBES["memory"].levels) + 1))
def test_no_memoryless_policy_beats_pressing_once_at_any_memory_level(level):
    """From War-v0's fields the opponent's turn looks the same on every tick, so a memoryless policy presses there
    with one probability; on its own turn it sees its clock, not its presses in flight."""
    problem = single_problem(PROBES["memory"].at_level(level))
    once = lead_cost(problem, None)
    for q, own_tick in itertools.product([0.0, 0.001, 0.01, 0.03, 0.05, 0.1, 0.3, 1.0], [0, 1, 3, 5]):

        def memoryless(phase, elapsed, masks, q=q, own_tick=own_tick):
            if phase == THEIRS:
                return np.full(len(masks), q)
            return np.full(len(masks), elapsed == own_tick, dtype=bool)

        assert evaluate(problem, memoryless) >= once - 1e-12, (q, own_tick)


# --- memory: what a stack of k frames can reach -------------------------------------------------------------------
@pytest.mark.parametrize("frames", [2, 4, 6])
def test_a_stack_of_k_frames_tells_the_opponents_ticks_apart_up_to_k_minus_2_and_no_further(frames):
    """In the memory probe the last change a seat sees is its own draw: a window of the last ``k`` observations at
    tick e of the opponent's turn differs from every later tick's while it still holds the frame before that draw."""
    env = gym.make("WarMemory-v1", level=len(PROBES["memory"].levels)).unwrapped  # the opponent draws 27-28 in
    observation, _ = env.reset(seed=0, options={"starter": 0})
    seen, turns = [observation], []
    while len(turns) < 3 or len(seen) <= turns[-1] + 20:  # 20 ticks into the opponent's turn after the third
        drawing = bool(observation[INDEX["can_draw"]])
        observation, *_ = env.step(int(drawing))
        seen.append(observation)
        if drawing and not observation[INDEX["can_draw"]] and len(turns) < 3:
            turns.append(len(seen) - 1)  # the frame right after its own draw
    for drawn in turns:
        windows = [np.concatenate(seen[drawn + e - frames + 1 : drawn + e + 1]) for e in range(20)]
        reach = window_reach(frames)
        for e in range(reach + 1):
            assert all(not np.array_equal(windows[e], windows[later]) for later in range(e + 1, 20)), e
        assert all(np.array_equal(windows[reach + 1], windows[later]) for later in range(reach + 2, 20))


@pytest.mark.parametrize("level", range(1, len(PROBES["memory"].levels) + 1))
def test_a_window_reaches_the_oracle_exactly_when_the_level_counts_within_it(level):
    """Within its reach a stack of k frames can play the oracle; beyond it, the bound on what it pays stays at least
    the minimum gap above the oracle. One frame is memoryless: its bound is at most press_once's cost."""
    probe = PROBES["memory"].at_level(level)
    gaps, depth = exact_gaps(probe), counting_depth(probe)
    lines = {frames: window_line(probe, frames, gaps) - gaps.per_round("oracle") for frames in (1, *WINDOWS)}
    assert lines[1] <= gaps.gap("press_once") + 1e-9
    for frames in WINDOWS:
        assert -1e-9 <= lines[frames] <= lines[1] + 1e-9
        if depth <= window_reach(frames):
            assert lines[frames] == pytest.approx(0.0, abs=1e-9)
        else:
            assert lines[frames] >= MIN_GAP, (frames, lines[frames])  # a stack of k frames cannot reach the oracle
    assert level_figures(PROBES["memory"], level).windows == pytest.approx({k: lines[k] for k in WINDOWS})


@pytest.mark.parametrize("sees_actions", [0, 4])
@pytest.mark.parametrize("level", [1, 4, 5])
def test_the_window_line_is_the_least_over_the_press_probability_and_its_cost_is_the_policys(level, sees_actions):
    """The line's probability is the least cost's of a grid of others, and the solver's cost of the line's policy
    with that probability given is what an independent evaluation of the same stochastic policy finds: it presses
    with that probability where it cannot tell the tick (nor, seeing its last 4 actions, has pressed in them)."""
    problem = single_problem(PROBES["memory"].at_level(level))
    reach = window_reach(4)
    chance, line = least_over_chance(problem, reach, sees_actions)
    for other in (0.0, 0.01, 0.05, 0.1, 0.13, 0.2, 0.37, 0.5, 1.0):
        cost = pressing_up_to(problem, reach, other, sees_actions).cost_per_move
        assert cost >= line.cost_per_move - 1e-12, other

    def played(phase, elapsed, masks):
        chosen = np.array([float(line.press(State(phase, elapsed, False, int(m)))) for m in masks])
        if phase == THEIRS and elapsed > reach:
            recent = (masks & ((1 << sees_actions) - 1)) != 0  # bit a: its action a + 1 ticks ago
            return np.where(recent, chosen, chance)
        return chosen

    assert evaluate_policy(problem, played).cost_per_move == pytest.approx(line.cost_per_move, abs=1e-12)


@pytest.mark.parametrize("level", range(1, len(PROBES["memory"].levels) + 1))
def test_a_4_frame_stack_that_sees_its_actions_cannot_reach_the_oracle_at_any_memory_level(level):
    """Its bound tells it the tick whenever one of its last 4 actions was a press (more than it knows), so it lies
    at or below the bound of the stack without its actions; it still loses at least the minimum gap."""
    figures = level_figures(PROBES["memory"], level)
    assert MIN_GAP <= figures.windows_with_actions[4] <= figures.windows[4] + 1e-9


def test_the_presses_in_flight_show_no_more_actions_than_the_latency():
    problem = single_problem(PROBES["memory"].at_level(1))
    with pytest.raises(ValueError, match="show the last 6 actions"):
        pressing_up_to(problem, 2, 0.0, sees_actions=7)


@pytest.mark.parametrize("level", range(1, len(PROBES["memory"].levels) + 1))
def test_a_24_frame_stack_that_sees_its_actions_can_play_the_oracle_at_every_memory_level(level):
    """From the latency on its actions show its presses in flight, so it plays the solver's policy where it tells the
    tick, and past its reach one that reads only its presses in flight. At levels 1-4 the oracle presses within its
    reach; at level 5, 23 ticks in, on the first tick it no longer tells apart, which it knows by pressing there
    whenever nothing is in flight: without its actions it loses at least the minimum gap there."""
    probe = PROBES["memory"].at_level(level)
    gaps = exact_gaps(probe)
    oracle = gaps.per_round("oracle")
    assert played_with_actions_line(probe, 24, gaps) - oracle == pytest.approx(0.0, abs=1e-9)
    chance, _ = least_after_waits(single_problem(probe), window_reach(24))
    if counting_depth(probe) > window_reach(24):
        assert chance == 1.0 and window_line(probe, 24, gaps) - oracle >= MIN_GAP


@pytest.mark.parametrize("level", [4, 5])
def test_at_the_latency_the_played_line_lies_between_the_bound_and_the_longer_stacks_line(level):
    """A stack of 6 frames (the latency) that sees its actions: the policy it plays waits where something is in
    flight past its reach, where the bound tells it the tick, so it costs at least the bound; a 24-frame stack can
    play it too, so the 24-frame stack's line costs at most as much."""
    probe = PROBES["memory"].at_level(level)
    gaps = exact_gaps(probe)
    played = played_with_actions_line(probe, 6, gaps)
    assert played >= window_line(probe, 6, gaps, sees_actions=True) - 1e-9
    assert played_with_actions_line(probe, 24, gaps) <= played + 1e-9
    assert played <= gaps.per_round("press_once") + 1e-9  # pressing never past its reach is press_once at worst


def test_a_24_frame_stack_with_its_actions_plays_the_played_line_step_for_step():
    """The played line's policy at memory level 5, read from a window of the last 24 frames of War-v0's fields and
    previous actions only (zeros before the round's first), presses exactly where the policy does in the solver's state
    (read from the latency observation of the same game), tick by tick, over a round each seat starts."""
    probe = PROBES["memory"].at_level(5)
    problem, reach = single_problem(probe), window_reach(24)
    _, policy = least_after_waits(problem, reach)
    config, latency, T = probe.config(), problem.max_delay, problem.turn_ticks
    env = gym.make("WarLatency-v0", **probe.env_kwargs()).unwrapped

    def stack_presses(frames: list[np.ndarray], actions: list[int]) -> bool:
        newest = frames[-1]
        in_flight = sum(actions[-1 - age] << age for age in range(latency))  # bit a: its action a + 1 ticks ago
        taken = bool(newest[INDEX["opponent_taken_over"]] > 0.5)
        if newest[INDEX["can_draw"]] > 0.5:
            return policy.press(State(OURS, T - round(float(newest[INDEX["timer_left"]]) * T), taken, in_flight))
        alike = next((n for n in range(1, 25) if not np.array_equal(frames[-1 - n], newest)), 24)
        if alike < 24:  # its own turn's last frame, or the zeros before the round, mark the tick
            return policy.press(State(THEIRS, alike - 1, taken, in_flight))
        return in_flight == 0  # past its reach: presses with probability 1 where nothing is in flight

    for starter in (0, 1):
        observation, _ = env.reset(seed=3, options={"starter": starter})
        frames, actions, done, steps = [np.zeros(OBSERVATION_SIZE)] * 25, [0] * 24, False, 0
        while not done:
            frames = frames[1:] + [observation[:OBSERVATION_SIZE]]
            state = timing_state(observation, config, "test")
            press = stack_presses(frames, actions)
            assert press == policy.press(state), (starter, steps, state)
            observation, _, terminated, truncated, _ = env.step(int(press))
            actions, done, steps = actions[1:] + [int(press)], terminated or truncated, steps + 1
        assert steps > 1000


def test_the_played_line_needs_a_fixed_latency_and_a_stack_that_sees_its_presses_in_flight():
    problem = single_problem(PROBES["memory"].at_level(1))
    spread = dataclasses.replace(problem, latency=(0.0,) * 5 + (0.5, 0.5))
    with pytest.raises(ValueError, match="fixed latency"):
        pressing_after_waits(spread, 2, 1.0)
    with pytest.raises(ValueError, match="does not see its presses of the last 6 ticks"):
        played_with_actions_line(PROBES["memory"].at_level(1), 5)


def test_the_figures_command_prints_every_level_of_the_probes_named(capsys):
    assert main(["--levels", "--probes", "memory", "anticipation"]) == []
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("| probe | level |") and lines[0].endswith("| 24 frames and actions lose at most |")
    assert all(line.endswith("| 0.000 |") for line in lines if line.startswith("| memory |"))
    assert len(lines) - 2 == len(PROBES["memory"].levels) + len(PROBES["anticipation"].levels)
    assert len(all_levels()) == len(LEVELS)


@pytest.mark.parametrize("name, level", [(name, len(PROBES[name].levels)) for name in WITH_LEVELS])
def test_each_sub_env_of_a_level_follows_the_single_env_of_that_level(name, level, backend):
    """The hardest level of each family (the reading probe's with windows that share ticks) on the batched engine:
    every sub-env is ``gym.make(env_id, level=n)``, step for step."""
    from test_vector_probes import probe_side_by_side

    ended = probe_side_by_side(PROBES[name].env_id, 0.3, 7, 800, backend, target_points=8, level=level)
    assert len(ended) >= 1


def test_a_suite_plays_a_probe_at_a_level_named_name_at_n(tmp_path):
    """``memory@5`` is the memory probe at its level 5, in the suite's folders, results and report."""
    run = run_suite((), ["memory@5"], 2, 0, tmp_path / "suite", progress=False)
    (played,) = run.results["probes"]
    assert played["name"] == "memory@5" and played["folder"] == "memory@5"
    assert played["opponent"] == PROBES["memory"].levels[4].opponent and played["env_id"] == "WarMemory-v1"
    assert set(played["agents"]) >= {"oracle", "press_once"}


def test_a_probe_name_with_a_level_is_refused_in_one_line_when_unknown_or_out_of_range():
    assert probe_named("memory") is PROBES["memory"]
    assert probe_named("inference@3").opponent == PROBES["inference"].levels[2].opponent
    for name, message in (("mem@1", "unknown probe 'mem'"), ("memory@x", "whole number"), ("memory@9", "levels 1 to")):
        with pytest.raises(ValueError, match=message):
            probe_named(name)


# --- inference: what the last reaction alone tells ----------------------------------------------------------------
INFERENCE_LEVELS = range(1, len(PROBES["inference"].levels) + 1)


@pytest.mark.parametrize("level", INFERENCE_LEVELS)
def test_reading_only_the_last_reaction_loses_between_the_oracle_and_blind(level):
    """A draw that names the member lets the next move play that member's optimum; one in a shared tick leaves the
    belief at the prior and the next move is played blind. So where every draw names the member (level 1) the line is
    the oracle's cost, and elsewhere it loses about blind's loss times the share of draws that name nobody."""
    probe = PROBES["inference"].at_level(level)
    gaps = exact_gaps(probe)
    loses = last_reaction_line(probe, gaps) - gaps.per_round("oracle")
    named = pool_policy(probe.config(), make_bot(probe.opponent)).identifying[0]
    assert 0 <= loses <= gaps.gap("blind")
    assert loses == pytest.approx((1 - named) * gaps.gap("blind"), abs=0.005)
    if level == 1:
        assert loses == pytest.approx(0, abs=1e-9)
    else:
        assert loses >= 0.1 and gaps.gap("blind") - loses >= 0.05


def test_at_the_hardest_inference_level_reading_the_last_reaction_beats_blind_by_less_than_the_minimum_gap():
    probe = PROBES["inference"].at_level(len(PROBES["inference"].levels))
    gaps = exact_gaps(probe)
    loses = last_reaction_line(probe, gaps) - gaps.per_round("oracle")
    assert gaps.gap("blind") - loses < MIN_GAP


def test_after_a_draw_in_a_shared_tick_the_reader_plays_blind_and_after_one_that_names_the_member_its_optimum():
    probe = PROBES["inference"].at_level(4)  # windows 4-7 and 5-8
    shares, policies = last_reaction_policies(probe)
    members = pool_policy(probe.config(), make_bot(probe.opponent)).members
    assert shares == {NO_REACTION: 0.0, 4: 0.125, 5: 0.25, 6: 0.25, 7: 0.25, 8: 0.125}
    for tick, alike in ((4, members[0]), (5, policies[NO_REACTION]), (7, policies[NO_REACTION]), (8, members[1])):
        assert np.array_equal(policies[tick].table(), alike.table()), tick


def test_a_last_reaction_is_refused_where_moves_do_not_add_up_or_the_bot_is_no_pool():
    with pytest.raises(ValueError, match="pool drawn per round"):
        last_reaction_policies(PROBES["memory"])
    late = dataclasses.replace(PROBES["inference"], latency="fixed:ticks=6")  # a press sent in its turn meets a draw
    with pytest.raises(ValueError, match="can meet it"):
        last_reaction_policies(late)


class LastReactionReader:
    """Plays ``last_reaction_policies`` from the current observation only: the solver's state and the opponent's
    last reaction (the inference observation's last field), nothing remembered."""

    def __init__(self, probe):
        self.config = probe.config()
        self.policies = last_reaction_policies(probe)[1]

    def press(self, observation: np.ndarray) -> bool:
        state = timing_state(observation, self.config, "last reaction")
        if state is None:
            return False
        tick = round(float(observation[-1]) * self.config.turn_ticks) - 1  # NO_REACTION before the first draw
        return self.policies[tick].press(state)

    def batch_policy(self):
        return lambda observations: np.array([self.press(row) for row in observations], dtype=np.int64)


@pytest.mark.slow
@pytest.mark.parametrize("level", [3, 4])
def test_on_paired_rounds_a_reader_of_the_last_reaction_loses_what_the_line_says(level):
    probe = PROBES["inference"].at_level(level)
    seeds = range(300)
    oracle, _ = records_of(probe, "oracle", seeds)
    reader = play_rounds_batched(
        LastReactionReader(probe),
        make_bot(probe.opponent),
        probe.config(),
        seeds,
        agent_spec="last-reaction",
        env_id=probe.env_id,
    )
    regret = bootstrap_mean([o.episode_return - r.episode_return for o, r in zip(oracle, reader)])
    gaps = exact_gaps(probe)
    assert regret["low"] <= last_reaction_line(probe, gaps) - gaps.per_round("oracle") <= regret["high"], regret
