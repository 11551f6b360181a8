"""``results.json``: every number of a run, a pure function of the league and its round records.

The headline is each agent's **regret**: how much return per round it loses to the reference agent
on the same deals (``reference - agent``, paired round by round), split by cause. A round's return
is a sum of four parts with the rule's reward weights (``return_by_cause``): the outcome (win, loss,
draw), false starts, idle ticks and the takeover. The cards of a round never depend on timing, so
on paired deals the outcome part is the same for every agent and the regret is all timing.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import asdict

import numpy as np

from war_env.core import rewards
from war_env.core.rewards import CAUSES
from war_env.core.round_info import END_REASONS
from war_env.core.rules import WarConfig
from war_env.data import results_schema_file
from war_env.evaluation.records import RoundRecord
from war_env.league.league import League
from war_env.league.stats import CONFIDENCE, bootstrap_mean, bootstrap_ratio, quantile_95, scaled, wilson

SCHEMA_VERSION = 2
WIN_RATE_TARGET_WIDTH = 0.05
CAUSE_NAMES = {"outcome": "card outcome", "false_starts": "false starts", "idle_ticks": "idle ticks",
               "takeover": "takeovers"}


def idle_ticks(record: RoundRecord, config: WarConfig) -> int:
    """The agent's idle ticks in a round that ended by the rules (the league's): ``RoundInfo.idle_ticks``."""
    return record.idle_ticks(0, config.turn_ticks)


def return_by_cause(record: RoundRecord, config: WarConfig) -> dict[str, float]:
    """The agent's return split by cause (``rewards.return_by_cause``); the parts add up to
    ``record.episode_return``."""
    return rewards.return_by_cause(config, record.winner, record.false_starts[0], idle_ticks(record, config),
                                   record.takeover[0])


def choose_reference(league: League, indexed: dict[tuple[str, str, int], RoundRecord]) -> str:
    """The agent the regrets are measured against when the caller names none: the one with the highest
    mean return over all its rounds (on an exact tie, the one listed first; an agent whose mean is
    not finite is never chosen unless all are). With the default rules that is ``prompt`` (draw on
    the first open tick), whose return is the best any timing can get."""
    means = {}
    for agent in league.agents:
        with np.errstate(over="ignore", invalid="ignore"):
            mean = float(np.mean([indexed[(agent, o, i)].episode_return
                                  for o in league.opponents for i in range(league.rounds)]))
        means[agent] = mean if math.isfinite(mean) else -math.inf
    return max(league.agents, key=lambda agent: means[agent])  # max keeps the first of equal keys


def regret_by_cause(records: list[RoundRecord], reference: list[RoundRecord], config: WarConfig) -> dict:
    """The mean paired gap (reference's part - the agent's) per cause; the gaps add up to the regret.
    ``None`` for a gap that is not finite."""
    gaps = np.array([[ref_part - part for part, ref_part in
                      zip(return_by_cause(r, config).values(), return_by_cause(ref, config).values())]
                     for r, ref in zip(records, reference)])
    with np.errstate(over="ignore", invalid="ignore"):
        means = gaps.mean(axis=0)
    return {cause: float(mean) if math.isfinite(mean) else None for cause, mean in zip(CAUSES, means)}


def pairing_stats(records: list[RoundRecord], config: WarConfig, reference: list[RoundRecord] | None) -> dict:
    agent, opponent = records[0].agent, records[0].opponent
    n = len(records)
    draws = [r.reaction_ticks[0] for r in records]
    pooled = [tick for ticks in draws for tick in ticks]
    reaction_mean = bootstrap_ratio([sum(t) for t in draws], [len(t) for t in draws])
    reaction_p95 = quantile_95(pooled)
    reasons = Counter(r.reason for r in records)
    return {
        "agent": agent,
        "opponent": opponent,
        "rounds": n,
        "return": bootstrap_mean([r.episode_return for r in records]),
        "regret": None if reference is None else bootstrap_mean(_regrets(records, reference)),
        "regret_by_cause": None if reference is None else regret_by_cause(records, reference, config),
        "win": wilson(sum(r.winner == 0 for r in records), n),
        "draw": wilson(sum(r.winner is None for r in records), n),
        "loss": wilson(sum(r.winner == 1 for r in records), n),
        "agent_takeover": wilson(sum(r.takeover[0] for r in records), n),
        "opponent_takeover": wilson(sum(r.takeover[1] for r in records), n),
        "false_starts_per_round": bootstrap_mean([r.false_starts[0] for r in records]),
        "idle_ticks_per_round": bootstrap_mean([idle_ticks(r, config) for r in records]),
        "reaction": {
            "draws": len(pooled),
            "mean_ticks": reaction_mean,
            "p95_ticks": reaction_p95,
            "mean_seconds": scaled(reaction_mean, config.tick_seconds),
            "p95_seconds": scaled(reaction_p95, config.tick_seconds),
        },
        "battles_per_round": bootstrap_mean([r.battles for r in records]),
        "wars_per_round": bootstrap_mean([r.wars for r in records]),
        "ticks_per_round": bootstrap_mean([r.ticks for r in records]),
        "reasons": {reason: wilson(reasons.get(reason, 0), n) for reason in sorted(set(END_REASONS) | set(reasons))},
    }


def _regrets(records: list[RoundRecord], reference: list[RoundRecord]) -> list[float]:
    return [ref.episode_return - r.episode_return for r, ref in zip(records, reference)]


def agent_stats(agent: str, rounds: list[list[RoundRecord]], config: WarConfig,
                reference: list[list[RoundRecord]] | None) -> dict:
    """One agent over all its rounds, ``rounds[opponent][i]``: its return, its regret to the reference and
    what the regret is made of. Round i is the same deal against every opponent, so the rounds are not
    independent across opponents: the intervals resample deals (the mean over opponents of deal i),
    not rounds, and are as wide as the deals make them."""
    flat = [r for per_opponent in rounds for r in per_opponent]
    with np.errstate(over="ignore", invalid="ignore"):
        returns = np.mean([[r.episode_return for r in per_opponent] for per_opponent in rounds], axis=0)
    regret, by_cause = None, None
    if reference is not None:
        with np.errstate(over="ignore", invalid="ignore"):
            regret = bootstrap_mean(np.mean([_regrets(mine, theirs) for mine, theirs in zip(rounds, reference)], axis=0))
        by_cause = regret_by_cause(flat, [r for per_opponent in reference for r in per_opponent], config)
    return {
        "agent": agent,
        "rounds": len(flat),
        "return": bootstrap_mean(returns),
        "regret": regret,
        "regret_by_cause": by_cause,
        "false_starts_per_round": float(np.mean([r.false_starts[0] for r in flat])),
        "idle_ticks_per_round": float(np.mean([idle_ticks(r, config) for r in flat])),
        "takeover_share": float(np.mean([r.takeover[0] for r in flat])),
    }


def summarise(league: League, indexed: dict[tuple[str, str, int], RoundRecord], reference: str | None = None) -> dict:
    """``results.json``: a pure function of the league, its records and the reference agent (by default
    ``choose_reference``'s; the issue that adds an exact ``oracle`` agent passes it here)."""
    config = league.config
    if reference is None:
        reference = choose_reference(league, indexed)
    elif reference not in league.agents:
        raise ValueError(f"the reference agent {reference!r} is not one of the league's agents {list(league.agents)}")

    def rounds_of(agent: str) -> list[list[RoundRecord]]:
        return [[indexed[(agent, o, i)] for i in range(league.rounds)] for o in league.opponents]

    pairings = [pairing_stats(mine, config, None if agent == reference else theirs)
                for agent in league.agents for mine, theirs in zip(rounds_of(agent), rounds_of(reference))]
    agents = [agent_stats(agent, rounds_of(agent), config, None if agent == reference else rounds_of(reference))
              for agent in league.agents]
    widest = max(p["win"]["high"] - p["win"]["low"] for p in pairings)
    paired = all(
        len({indexed[(a, o, i)].card_outcome() for a in league.agents for o in league.opponents}) == 1
        for i in range(league.rounds)
    )
    return {
        "schema_version": SCHEMA_VERSION,
        "config": league.to_dict(),
        "config_hash": league.config_hash(),
        "rules": asdict(config),
        "seeds": {"rule": "round i of every pairing: env.reset(seed=seed + i)", "first": league.round_seed(0),
                  "last": league.round_seed(league.rounds - 1)},
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
