"""``results.json``: every number of a run, a pure function of the league and its round records."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict

from war_env.data import results_schema_file
from war_env.engine import END_REASONS
from war_env.league.league import League
from war_env.league.stats import CONFIDENCE, bootstrap_mean, bootstrap_ratio, quantile_95, scaled, wilson
from war_env.records import RoundRecord
from war_env.rules import WarConfig

SCHEMA_VERSION = 1
WIN_RATE_TARGET_WIDTH = 0.05


def pairing_stats(records: list[RoundRecord], config: WarConfig, reference: list[RoundRecord] | None) -> dict:
    agent, opponent = records[0].agent, records[0].opponent
    n = len(records)
    returns = [r.episode_return for r in records]
    draws = [r.reaction_ticks for r in records]
    pooled = [tick for ticks in draws for tick in ticks]
    reaction_mean = bootstrap_ratio([sum(t) for t in draws], [len(t) for t in draws])
    reaction_p95 = quantile_95(pooled)
    reasons = Counter(r.reason for r in records)
    stats = {
        "agent": agent,
        "opponent": opponent,
        "rounds": n,
        "return": bootstrap_mean(returns),
        "win": wilson(sum(r.winner == 0 for r in records), n),
        "draw": wilson(sum(r.winner is None for r in records), n),
        "loss": wilson(sum(r.winner == 1 for r in records), n),
        "agent_takeover": wilson(sum(r.takeover[0] for r in records), n),
        "opponent_takeover": wilson(sum(r.takeover[1] for r in records), n),
        "false_starts_per_round": bootstrap_mean([r.false_starts[0] for r in records]),
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
        "return_minus_reference": None,
    }
    if reference is not None:
        difference = [r.episode_return - ref.episode_return for r, ref in zip(records, reference)]
        stats["return_minus_reference"] = bootstrap_mean(difference)
    return stats


def card_outcome(record: RoundRecord) -> tuple:
    return (record.winner, record.reason, record.battles, record.wars, record.points, record.cards)


def summarise(league: League, indexed: dict[tuple[str, str, int], RoundRecord]) -> dict:
    """``results.json``: a pure function of the league and its records."""
    config = league.config
    reference_agent = league.agents[0]
    pairings = []
    for opponent in league.opponents:
        reference = [indexed[(reference_agent, opponent, i)] for i in range(league.rounds)]
        for agent in league.agents:
            records = [indexed[(agent, opponent, i)] for i in range(league.rounds)]
            pairings.append(pairing_stats(records, config, None if agent == reference_agent else reference))
    pairings.sort(key=lambda p: (league.agents.index(p["agent"]), league.opponents.index(p["opponent"])))
    overall = []
    for agent in league.agents:
        returns = [indexed[(agent, o, i)].episode_return for o in league.opponents for i in range(league.rounds)]
        overall.append({"agent": agent, "return": bootstrap_mean(returns)})
    widest = max(p["win"]["high"] - p["win"]["low"] for p in pairings)
    paired = all(
        len({card_outcome(indexed[(a, o, i)]) for a in league.agents for o in league.opponents}) == 1
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
        "reference_agent": reference_agent,
        "paired_card_outcomes_identical": paired,
        "widest_win_rate_interval": widest,
        "win_rate_target_width": WIN_RATE_TARGET_WIDTH,
        "agents": overall,
        "pairings": pairings,
    }


def validate_results(results: dict) -> None:
    """Check ``results`` against the shipped schema (``war_env/data/results.schema.json``); a failure is
    a bug in this module."""
    import jsonschema

    jsonschema.validate(results, json.loads(results_schema_file().read_text()))
