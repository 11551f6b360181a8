"""``results.json``: every number of a run, a pure function of the league and its rounds (their columns,
``war_env.evaluation.summary.RoundColumns``: one summary for the league, training and self-play).

The headline is each agent's **regret**: how much return per round it loses to the reference agent
on the same deals (``reference - agent``, paired round by round), split by cause. A round's return
is a sum of four parts with the rule's reward weights (``core.rewards.return_by_cause``): the outcome (win, loss,
draw), false starts, idle ticks and the takeover. The cards of a round never depend on timing, so
on paired deals the outcome part is the same for every agent and the regret is all timing.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict

import numpy as np

from war_env.core.round_info import END_REASONS, REASONS
from war_env.core.rules import WarConfig
from war_env.data import results_schema_file
from war_env.evaluation.records import RoundRecord
from war_env.evaluation.summary import RoundColumns, paired_difference, paired_difference_by_cause
from war_env.league.league import League
from war_env.league.stats import CONFIDENCE, bootstrap_mean, bootstrap_ratio, quantile_95, scaled, wilson

SCHEMA_VERSION = 2
WIN_RATE_TARGET_WIDTH = 0.05
CAUSE_NAMES = {
    "outcome": "card outcome",
    "false_starts": "false starts",
    "idle_ticks": "idle ticks",
    "takeover": "takeovers",
}


Rounds = dict[tuple[str, str], RoundColumns]
"""A league's rounds, summarised: the columns of every pairing (agent, opponent), round i of each being
the deal of seed ``league.round_seed(i)`` (``rounds_file.load_rounds`` reads them)."""


def rounds_of(league: League, records: Iterable[RoundRecord]) -> Rounds:
    """The league's rounds from records in memory (a rounds file is read as a stream instead:
    ``rounds_file.load_rounds``, which also checks every record)."""
    turn_ticks = league.config.turn_ticks
    rounds = {
        (agent, opponent): RoundColumns(league.rounds, turn_ticks)
        for agent in league.agents
        for opponent in league.opponents
    }
    for record in records:
        rounds[(record.agent, record.opponent)].add(record.round, record)
    return rounds


def choose_reference(league: League, rounds: Rounds) -> str:
    """The agent the regrets are measured against when the caller names none: the one with the highest
    mean return over all its rounds (on an exact tie, the one listed first; an agent whose mean is
    not finite is never chosen unless all are). With the default rules that is ``prompt`` (draw on
    the first open tick), whose return is the best any timing can get."""
    means = {}
    for agent in league.agents:
        with np.errstate(over="ignore", invalid="ignore"):
            mean = float(np.mean([rounds[(agent, o)].returns for o in league.opponents]))
        means[agent] = mean if math.isfinite(mean) else -math.inf
    return max(league.agents, key=lambda agent: means[agent])  # max keeps the first of equal keys


def regret_by_cause(mine: list[RoundColumns], reference: list[RoundColumns], config: WarConfig) -> dict:
    """The mean paired gap (reference's part - the agent's) per cause over every round of the pairings
    given; the gaps add up to the regret. ``None`` for a gap that is not finite."""
    gaps = paired_difference_by_cause(RoundColumns.pooled(reference), RoundColumns.pooled(mine), config)
    with np.errstate(over="ignore", invalid="ignore"):
        means = {cause: float(np.mean(values)) for cause, values in gaps.items()}
    return {cause: mean if math.isfinite(mean) else None for cause, mean in means.items()}


def pairing_stats(
    agent: str, opponent: str, rounds: RoundColumns, config: WarConfig, reference: RoundColumns | None
) -> dict:
    n = len(rounds.returns)
    reaction_mean = bootstrap_ratio(rounds.reaction_sum, rounds.reaction_count)
    reaction_p95 = quantile_95(rounds.reaction_histogram)
    reasons = Counter(REASONS[code] for code in rounds.reason.tolist())
    regrets = None if reference is None else paired_difference(reference, rounds)
    return {
        "agent": agent,
        "opponent": opponent,
        "rounds": n,
        "return": bootstrap_mean(rounds.returns),
        "regret": None if reference is None else bootstrap_mean(regrets),
        "regret_by_cause": None if reference is None else regret_by_cause([rounds], [reference], config),
        "win": wilson(rounds.count("won"), n),
        "draw": wilson(rounds.count("drew"), n),
        "loss": wilson(rounds.count("lost"), n),
        "agent_takeover": wilson(rounds.takeovers(0), n),
        "opponent_takeover": wilson(rounds.takeovers(1), n),
        "false_starts_per_round": bootstrap_mean(rounds.false_starts),
        "idle_ticks_per_round": bootstrap_mean(rounds.idle_ticks),
        "reaction": {
            "draws": int(rounds.reaction_count.sum()),
            "mean_ticks": reaction_mean,
            "p95_ticks": reaction_p95,
            "mean_seconds": scaled(reaction_mean, config.tick_seconds),
            "p95_seconds": scaled(reaction_p95, config.tick_seconds),
        },
        "battles_per_round": bootstrap_mean(rounds.battles),
        "wars_per_round": bootstrap_mean(rounds.wars),
        "ticks_per_round": bootstrap_mean(rounds.ticks),
        "reasons": {reason: wilson(reasons.get(reason, 0), n) for reason in sorted(set(END_REASONS) | set(reasons))},
    }


def agent_stats(
    agent: str, rounds: list[RoundColumns], config: WarConfig, reference: list[RoundColumns] | None
) -> dict:
    """One agent over all its rounds (``rounds``: one pairing per opponent): its return, its regret to the
    reference and what the regret is made of. Round i is the same deal against every opponent, so the
    rounds are not independent across opponents: the intervals resample deals (the mean over opponents
    of deal i), not rounds, and are as wide as the deals make them."""
    with np.errstate(over="ignore", invalid="ignore"):
        returns = np.mean([pairing.returns for pairing in rounds], axis=0)
    regret, by_cause = None, None
    if reference is not None:
        with np.errstate(over="ignore", invalid="ignore"):
            regret = bootstrap_mean(
                np.mean([paired_difference(theirs, mine) for mine, theirs in zip(rounds, reference)], axis=0)
            )
        by_cause = regret_by_cause(rounds, reference, config)
    everything = RoundColumns.pooled(rounds)
    return {
        "agent": agent,
        "rounds": len(everything.returns),
        "return": bootstrap_mean(returns),
        "regret": regret,
        "regret_by_cause": by_cause,
        "false_starts_per_round": everything.false_starts_per_round,
        "idle_ticks_per_round": everything.idle_ticks_per_round,
        "takeover_share": everything.takeover_rate(),
    }


def summarise(league: League, rounds: Rounds, reference: str | None = None) -> dict:
    """``results.json``: a pure function of the league, its rounds and the reference agent (by default
    ``choose_reference``'s; a league against bots passes its ``oracle``)."""
    config = league.config
    if reference is None:
        reference = choose_reference(league, rounds)
    elif reference not in league.agents:
        raise ValueError(f"the reference agent {reference!r} is not one of the league's agents {list(league.agents)}")

    def pairings_of(agent: str) -> list[RoundColumns]:
        return [rounds[(agent, opponent)] for opponent in league.opponents]

    pairings = [
        pairing_stats(
            agent,
            opponent,
            rounds[(agent, opponent)],
            config,
            None if agent == reference else rounds[(reference, opponent)],
        )
        for agent in league.agents
        for opponent in league.opponents
    ]
    agents = [
        agent_stats(agent, pairings_of(agent), config, None if agent == reference else pairings_of(reference))
        for agent in league.agents
    ]
    widest = max(p["win"]["high"] - p["win"]["low"] for p in pairings)
    first = next(iter(rounds.values())).card_outcomes()
    paired = all(np.array_equal(pairing.card_outcomes(), first) for pairing in rounds.values())
    return {
        "schema_version": SCHEMA_VERSION,
        "config": league.to_dict(),
        "config_hash": league.config_hash(),
        "rules": asdict(config),
        "seeds": {
            "rule": "round i of every pairing: env.reset(seed=seed + i)",
            "first": league.round_seed(0),
            "last": league.round_seed(league.rounds - 1),
        },
        "confidence_level": CONFIDENCE,
        "reference_agent": reference,
        "paired_card_outcomes_identical": paired,
        "widest_win_rate_interval": widest,
        "win_rate_target_width": WIN_RATE_TARGET_WIDTH,
        "agents": agents,
        "pairings": pairings,
    }


def ranked(results: dict) -> list[dict]:
    """``results["agents"]`` best first: the reference, then by regret (a regret that is not finite last)."""

    def key(entry):
        if entry["agent"] == results["reference_agent"]:
            return (0, 0.0)
        value = entry["regret"]["value"]
        return (1, math.inf) if value is None else (1, value)

    return sorted(results["agents"], key=key)


def validate_results(results: dict) -> None:
    """Check ``results`` against the shipped schema (``war_env/data/results.schema.json``); a failure is
    a bug in this module."""
    import jsonschema

    jsonschema.validate(results, json.loads(results_schema_file().read_text()))
