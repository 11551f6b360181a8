"""Thinking time, measured and priced: the ``realtime`` part of a real-time run's results.

Per agent, over every decision of its rounds (``RoundRecord.compute_ticks`` / ``compute_seconds``): the
distribution of its compute time (median, 95th percentile, largest; in ticks and in seconds). Against bots,
where the ``oracle`` is the reference, its regret is split in two:

* **compute regret**: the oracle that acts with the agent's *measured* delay distribution (the share of
  decisions that were 0, 1, 2, ... ticks late, as an action latency: ``war_env.core.optimum`` solved with
  ``latency`` = that distribution) against the oracle with no delay, in return per round: the difference of
  their exact costs per move times the agent's mean moves per round (its draws). It is exact for the
  measured distribution; its interval is a bootstrap over the rounds (their delays and moves resampled,
  ``COMPUTE_RESAMPLES`` times, each resample's distribution solved exactly: about 0.1 s a solve).
* **policy regret**: the rest, the agent's measured regret minus its compute regret (its interval is the
  regret's, shifted: it leaves out the compute regret's sampling error).

What the split assumes: the oracle at a latency may send a press on every tick while earlier ones are in
flight, while an agent that computes sends nothing until it answers; so the delayed oracle is a bound that
a busy agent cannot beat with that delay, and policy regret includes what being busy costs beyond the
delay. Delays are capped at ``min(16, turn_ticks - 1)`` ticks (the solver's range; the share of capped
decisions is reported).

A model agent's entry also has its size and threads (``model``): the parameters in its file's ``policy.pth``,
the file's bytes and the CPU threads it computed on (its spec's ``threads``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import replace

import numpy as np

from war_env.agents import MODEL_ALGOS, model_spec
from war_env.agents.model_files import parameter_count
from war_env.core.latency import MAX_LATENCY
from war_env.core.specs import split_spec
from war_env.evaluation.records import RoundRecord
from war_env.league.league import League
from war_env.league.stats import CONFIDENCE, data_rng, estimate

COMPUTE_RESAMPLES = 100
"""Resamples of the compute regret's bootstrap: each is a solve (about 0.1 s) unless its delay distribution
was met before (always, when every decision had the same delay)."""


def compute_summary(league: League, records: Iterable[RoundRecord], results: dict) -> dict:
    """The ``realtime`` entry of ``results.json`` for ``league`` (played in real time) from its records."""
    cap = min(MAX_LATENCY, league.config.turn_ticks - 1)
    ticks: dict[tuple[str, str], list[int]] = {}
    seconds: dict[str, list[float]] = {agent: [] for agent in league.agents}
    rounds: dict[tuple[str, str], list[tuple[np.ndarray, int]]] = {}
    for record in records:
        pairing = (record.agent, record.opponent)
        ticks.setdefault(pairing, []).extend(record.compute_ticks)
        seconds[record.agent].extend(record.compute_seconds)
        rounds.setdefault(pairing, []).append((delay_counts(record.compute_ticks, cap), len(record.reaction_ticks[0])))
    priced = league.oracle_reference is not None
    regrets = {entry["agent"]: entry["regret"] for entry in results["agents"]}
    delays = Delays(league)
    agents = []
    for agent in league.agents:
        mine = np.concatenate([np.asarray(ticks.get((agent, opponent), []), dtype=np.int64)
                               for opponent in league.opponents])
        entry = {"agent": agent, "decisions": int(mine.size), "ticks": _quantiles(mine),
                 "seconds": _quantiles(np.asarray(seconds[agent])),
                 "capped_share": float(np.mean(mine > cap)) if mine.size else 0.0, **model_facts(agent)}
        if priced and mine.size:
            entry["compute_regret"] = delays.estimate({opponent: rounds[(agent, opponent)] for opponent in league.opponents})
            entry["policy_regret"] = _shifted(regrets[agent], entry["compute_regret"]["value"])
        agents.append(entry)
    return {"tick_seconds": league.realtime, "delay_cap_ticks": cap, "agents": agents}


def model_facts(spec: str) -> dict:
    """``{"model": {"parameters", "file_bytes", "threads"}}`` for a model agent's spec (the counts ``None``
    when its file cannot be read now), ``{}`` for any other agent."""
    if split_spec(spec)[0] not in MODEL_ALGOS:
        return {}
    _, path, threads = model_spec(spec)
    try:
        parameters, size = parameter_count(path), os.path.getsize(path)
    except (OSError, ValueError):
        parameters = size = None
    return {"model": {"parameters": parameters, "file_bytes": size, "threads": threads}}


def _quantiles(values: np.ndarray) -> dict:
    if not values.size:
        return {"median": None, "p95": None, "max": None}
    return {"median": float(np.quantile(values, 0.5)), "p95": float(np.quantile(values, 0.95)),
            "max": float(values.max())}


def delay_counts(ticks, cap: int) -> np.ndarray:
    """How many decisions were 0, 1, ..., ``cap`` (or more) ticks late."""
    return np.bincount(np.minimum(np.asarray(ticks, dtype=np.int64), cap), minlength=cap + 1)


def delay_distribution(ticks: np.ndarray, cap: int) -> tuple[float, ...]:
    """P(delay = d), d = 0 .. the largest (capped) delay, of measured compute ticks."""
    return _distribution(delay_counts(ticks, cap))


def _distribution(counts: np.ndarray) -> tuple[float, ...]:
    counts = np.trim_zeros(counts, "b").astype(float)
    return tuple((counts / counts.sum()).tolist()) if counts.size else (1.0,)


def compute_regret(league: League, opponent: str, ticks: np.ndarray, cap: int, moves: float) -> float:
    """Return per round lost to the measured delays by the oracle: (its cost per move at them - at none) x moves."""
    return Delays(league).regret(opponent, delay_counts(ticks, cap), moves)


class Delays:
    """The oracle's exact cost per move at delay distributions, each (opponent, distribution) solved once."""

    def __init__(self, league: League):
        self.league = league
        self._costs: dict[tuple[str, tuple[float, ...]], float] = {}

    def regret(self, opponent: str, counts: np.ndarray, moves: float) -> float:
        return (self._cost(opponent, _distribution(counts)) - self._cost(opponent, (1.0,))) * moves

    def estimate(self, rounds: dict[str, list[tuple[np.ndarray, int]]]) -> dict:
        """The compute regret, the mean over opponents of ``regret`` at each opponent's rounds (delay counts,
        moves) pooled, with a bootstrap percentile interval: the rounds resampled ``COMPUTE_RESAMPLES`` times
        (per opponent), each resample's delay distribution solved anew."""
        tables = {opponent: (np.array([c for c, _ in pairs]), np.array([m for _, m in pairs], dtype=float))
                  for opponent, pairs in rounds.items()}
        value = self._mean(tables, {opponent: np.arange(len(moves)) for opponent, (_, moves) in tables.items()})
        rng = data_rng(*(counts for counts, _ in tables.values()))
        resampled = [self._mean(tables, {opponent: rng.integers(len(moves), size=len(moves))
                                         for opponent, (_, moves) in tables.items()}) for _ in range(COMPUTE_RESAMPLES)]
        low, high = np.quantile(resampled, [(1 - CONFIDENCE) / 2, (1 + CONFIDENCE) / 2])
        return estimate(value, low, high, f"bootstrap percentile over rounds ({COMPUTE_RESAMPLES} resamples, each "
                        "solved)", exact=bool(min(resampled) == max(resampled) == value))

    def _mean(self, tables: dict, picks: dict) -> float:
        return float(np.mean([self.regret(opponent, counts[picks[opponent]].sum(axis=0), moves[picks[opponent]].mean())
                              for opponent, (counts, moves) in tables.items()]))

    def _cost(self, opponent: str, latency: tuple[float, ...]) -> float:
        from war_env.agents.oracle import opponent_bot, timing_problem
        from war_env.core.optimum import solve

        if (opponent, latency) not in self._costs:
            problem = timing_problem(self.league.config, opponent_bot(opponent, "oracle"))
            self._costs[(opponent, latency)] = solve(replace(problem, latency=latency)).cost_per_move
        return self._costs[(opponent, latency)]


def _shifted(regret: dict | None, by: float) -> dict | None:
    if regret is None:
        return None
    return {key: (value - by if isinstance(value, float) and key in ("value", "low", "high") else value)
            for key, value in regret.items()}
