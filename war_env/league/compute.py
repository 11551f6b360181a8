"""Thinking time, measured and priced: the ``realtime`` part of a real-time run's results.

Per agent, over every decision of its rounds (``RoundRecord.compute_ticks`` / ``compute_seconds``): the
distribution of its compute time (median, 95th percentile, largest; in ticks and in seconds). Against bots,
where the ``oracle`` is the reference, its regret is split in three:

* **compute regret**: what the oracle loses when every press it sends is late by the agent's *measured*
  delays, on top of the rules' own latency (the two distributions convolved, given to ``war_env.core.optimum``
  as the action latency), against the oracle at the rules' latency alone. Priced per round, on the round's
  own deal (its moves, fixed by the cards, and who starts it): the expected cost of the round's moves under
  each oracle's policy, the opponent's takeover included (``optimum.round_costs``: once the opponent misses
  a turn its takeover bot draws at once, and a delayed oracle then loses less). Its interval is a bootstrap
  percentile over rounds at the pooled delay distribution (one solve per agent and opponent; the
  distribution's own sampling error is left out).
* **stall regret**: a decision later than ``delay_cap_ticks`` (``STALL_TICKS``, or less where ``PRICED_TICKS``
  or the solver's range, below the turn, leaves less beside the rules' latency) is a **stall**, priced
  by what its rounds lost: their regret beyond their compute regret, per round of the league. A 41-tick
  stall that hands the seat to the takeover bot costs that round its takeover, and that is where it shows.
* **policy regret**: the rest (the regret's interval, shifted by the other two values).

What the split assumes: the oracle at a latency may send a press on every tick while earlier ones are in
flight, while an agent that computes sends nothing until it answers; so the delayed oracle is a bound that
a busy agent cannot beat with that delay, and policy regret includes what being busy costs beyond the
delay. A stall round's regret includes the agent's own policy regret in that round.

How quiet the machine was (``machine``): the load average as the rounds started and ended, the CPU time of the
league's processes against its wall time, their involuntary context switches (over every session that played
rounds, as ``run.json`` records them, so a report-only ``--resume`` keeps them), and per agent the
**machine stalls**: decisions that missed more than one tick beyond what the agent's own compute time
explains (the wrapper woke late: the machine did not run it). ``contended`` says when the measurement is
suspect (``is_contended``).

A model agent's entry also has its size and threads (``model``): the parameters in its file's ``policy.pth``,
the file's bytes and the CPU threads it computed on (its spec's ``threads``).
"""

from __future__ import annotations

import os
import resource
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np

from war_env.agents import MODEL_ALGOS, model_spec
from war_env.agents.model_files import parameter_count
from war_env.core.deal import draw_deal
from war_env.core.latency import MAX_LATENCY, latency_probabilities
from war_env.core.optimum import OURS, THEIRS, round_costs
from war_env.core.specs import split_spec
from war_env.evaluation.records import RoundRecord
from war_env.league.league import League
from war_env.league.stats import bootstrap_mean, estimate

STALL_TICKS = 8
"""A decision later than this many ticks is a stall, priced apart (fewer where ``PRICED_TICKS`` leaves less beside
the rules' latency): at the game's 0.1 s ticks, 0.8 s of thinking."""
PRICED_TICKS = 10
"""The largest total delay (the rules' latency plus a measured delay) priced by the solver: a pricing pass costs
about ``2**delay`` per table, and a report solves each agent and opponent once and passes once per move of the
longest round (about 100 with the default rules): each tick beyond 10 doubles that, so at 16 ticks a pairing
takes minutes where at 10 it takes seconds."""
PROGRESS_AFTER = 1.0
"""Seconds of pricing after which each solve is announced on stderr."""


def compute_summary(league: League, records: Iterable[RoundRecord], results: dict, machine: dict | None = None) -> dict:
    """The ``realtime`` entry of ``results.json`` for ``league`` (played in real time) from its records;
    ``machine`` is what ``MachineWatch`` measured while the rounds were played (``machine_while_playing``; ``None``:
    not measured)."""
    cap = delay_cap(league.config)
    ticks: dict[str, list[np.ndarray]] = {agent: [] for agent in league.agents}
    seconds: dict[str, list[float]] = {agent: [] for agent in league.agents}
    rounds: dict[tuple[str, str], list[PricedRound]] = {}
    reference_returns: dict[tuple[str, int], float] = {}
    for record in records:
        ticks[record.agent].append(np.asarray(record.compute_ticks, dtype=np.int64))
        seconds[record.agent].extend(record.compute_seconds)
        rounds.setdefault((record.agent, record.opponent), []).append(PricedRound.of(record, cap))
        if record.agent == league.oracle_reference:
            reference_returns[(record.opponent, record.round)] = record.episode_return
    priced = league.oracle_reference is not None
    regrets = {entry["agent"]: entry["regret"] for entry in results["agents"]}
    pricing = Pricing(league)
    agents = []
    for agent in league.agents:
        mine = np.concatenate(ticks[agent]) if ticks[agent] else np.zeros(0, np.int64)
        spent = np.asarray(seconds[agent])
        entry = {
            "agent": agent,
            "decisions": int(mine.size),
            "ticks": _quantiles(mine),
            "seconds": _quantiles(spent),
            "capped_share": float(np.mean(mine > cap)) if mine.size else 0.0,
            "machine_stalls": machine_stalls(mine, spent, league.realtime),
            **model_facts(agent),
        }
        if priced and mine.size:
            mine_rounds = {opponent: rounds.get((agent, opponent), []) for opponent in league.opponents}
            entry.update(pricing.split(agent, mine_rounds, reference_returns, regrets[agent]))
        agents.append(entry)
    return {
        "tick_seconds": league.realtime,
        "delay_cap_ticks": cap,
        "rule_latency": league.config.latency,
        "machine": None if machine is None else {**machine, **contention(machine, agents)},
        "agents": agents,
    }


def delay_cap(config) -> int:
    """The largest measured delay priced as a delay (``STALL_TICKS``, within ``PRICED_TICKS`` and the solver's
    range beside the rules' latency); later decisions are stalls."""
    rule = len(latency_probabilities(config.latency)) - 1
    return max(0, min(STALL_TICKS, min(PRICED_TICKS, MAX_LATENCY, config.turn_ticks - 1) - rule))


@dataclass(frozen=True)
class PricedRound:
    """What pricing needs of one round of an agent: its deal (moves, starter), its delays and its return."""

    round: int
    moves: int
    starter: int
    counts: np.ndarray
    """Decisions 0, 1, ..., ``cap`` ticks late (stalls left out)."""
    stalls: int
    largest_stall: int
    episode_return: float

    @classmethod
    def of(cls, record: RoundRecord, cap: int) -> PricedRound:
        ticks = np.asarray(record.compute_ticks, dtype=np.int64)
        late = ticks[ticks > cap]
        return cls(
            record.round,
            record.battles + record.wars,
            round_starter(record.seed),
            np.bincount(ticks[ticks <= cap], minlength=cap + 1),
            int(late.size),
            int(late.max()) if late.size else 0,
            record.episode_return,
        )


@lru_cache(maxsize=1 << 17)  # every pairing plays the same seeds
def round_starter(seed: int) -> int:
    """The seat that starts the round dealt by ``seed`` (War-v0 deals from ``np.random.default_rng(seed)``)."""
    return draw_deal(np.random.default_rng(seed))[1]


def delay_distribution(counts: np.ndarray) -> tuple[float, ...]:
    """P(delay = d), d = 0 .. the largest, of counted decisions (no decision: no delay)."""
    counts = np.trim_zeros(np.asarray(counts), "b").astype(float)
    return tuple((counts / counts.sum()).tolist()) if counts.size else (1.0,)


class Pricing:
    """The oracle's expected round costs at delay distributions, each (opponent, distribution) solved once."""

    def __init__(self, league: League):
        self.league = league
        self.rule = latency_probabilities(league.config.latency)
        self._costs: dict[tuple[str, tuple[float, ...]], np.ndarray] = {}
        self.started = time.monotonic()

    def round_regrets(self, opponent: str, delays: tuple[float, ...], played: list[PricedRound]) -> np.ndarray:
        """Per round: the expected timing cost of its moves for the oracle delayed by ``delays`` (on top of the
        rules' latency) minus the oracle's at the rules' latency, from the round's start."""
        if delays == (1.0,):  # never late: the oracle itself, nothing to solve
            return np.zeros(len(played))
        most = max((r.moves for r in played), default=0)
        delayed, plain = self.costs(opponent, delays, most), self.costs(opponent, (1.0,), most)
        return np.array([delayed[r.moves, r.starter] - plain[r.moves, r.starter] for r in played])

    def costs(self, opponent: str, delays: tuple[float, ...], moves: int) -> np.ndarray:
        """``optimum.round_costs`` of the oracle at latency (rules' latency) * ``delays``, rows 0 .. ``moves``
        (at least; a longer table met before serves)."""
        from war_env.agents.oracle import opponent_bot, solved, timing_problem

        key = (opponent, delays)
        if key not in self._costs or len(self._costs[key]) <= moves:
            latency = tuple(np.convolve(self.rule, delays).tolist())
            problem = replace(timing_problem(self.league.config, opponent_bot(opponent, "oracle")), latency=latency)
            delay = problem.max_delay
            self._say(f"solving the oracle against {opponent} at a latency of up to {delay} tick{'s' * (delay != 1)}")
            starts = (OURS, THEIRS)  # starter 0 (the seat) opens in its own turn, starter 1 in the opponent's
            self._costs[key] = round_costs(solved(problem), moves)[:, starts]
        return self._costs[key]

    def split(
        self, agent: str, rounds: dict[str, list[PricedRound]], reference_returns: dict, regret: dict | None
    ) -> dict:
        """``compute_regret``, ``stalls`` and ``policy_regret`` of an agent from its rounds per opponent."""
        self._say(f"pricing the thinking time of {agent}")
        compute, stalled = [], 0.0
        for opponent, played in rounds.items():
            if not played:
                continue
            delays = delay_distribution(np.sum([r.counts for r in played], axis=0))
            per_round = self.round_regrets(opponent, delays, played)
            compute.append(per_round)
            for r, priced in zip(played, per_round):
                if r.stalls and (opponent, r.round) in reference_returns:
                    stalled += reference_returns[(opponent, r.round)] - r.episode_return - priced
        compute = np.concatenate(compute) if compute else np.zeros(0)
        every = [r for played in rounds.values() for r in played]
        reference = agent == self.league.oracle_reference  # its regret is 0 by definition: nothing to split
        stalls = {
            "decisions": int(sum(r.stalls for r in every)),
            "rounds": int(sum(r.stalls > 0 for r in every)),
            "largest_ticks": int(max(r.largest_stall for r in every)),
            "regret": None if reference else float(stalled / len(every)),
        }
        interval = bootstrap_mean(compute)
        compute_regret = estimate(
            interval["value"],
            interval["low"],
            interval["high"],
            "bootstrap percentile over rounds of each round's expected cost at the pooled delay distribution",
            exact=bool(interval.get("exact")),
        )
        return {
            "compute_regret": compute_regret,
            "stalls": stalls,
            "policy_regret": None if reference else _shifted(regret, compute_regret["value"] + stalls["regret"]),
        }

    def _say(self, what: str) -> None:
        if time.monotonic() - self.started > PROGRESS_AFTER:
            print(
                f"war-bench: real-time report: {what} ({time.monotonic() - self.started:.0f} s so far)",
                file=sys.stderr,
                flush=True,
            )


def machine_stalls(ticks: np.ndarray, seconds: np.ndarray, tick_seconds: float) -> int:
    """Decisions that missed a tick or more beyond what the agent's own compute time explains: ``c`` seconds of
    thinking miss at most ``floor(c / tick) + 1`` ticks (the +1: the observation may be handed out late in its
    tick); more means the wrapper itself ran late (the machine did not run it)."""
    if not ticks.size:
        return 0
    explained = np.floor(np.asarray(seconds, dtype=float) / tick_seconds + 1e-9) + 1
    return int(np.sum(ticks > explained))


class MachineWatch:
    """How quiet the machine was while the league played: made before, ``stop(workers)`` after (a dict)."""

    def __init__(self):
        self.load_before, self.wall = os.getloadavg(), time.monotonic()
        self.usage = _usage()

    def stop(self, workers: int) -> dict:
        wall = time.monotonic() - self.wall
        used = {key: after - before for (key, after), before in zip(_usage().items(), self.usage.values())}
        return {
            "cores": os.cpu_count() or 1,
            "workers": workers,
            "load_average_before": [round(x, 2) for x in self.load_before],
            "load_average_after": [round(x, 2) for x in os.getloadavg()],
            "wall_seconds": round(wall, 3),
            "cpu_seconds": round(used["cpu"], 3),
            "involuntary_switches": int(used["switches"]),
        }


def machine_while_playing(sessions: list[dict]) -> dict | None:
    """How loaded the machine was while the run's rounds were played, from the sessions that played them (their
    ``machine``, as ``run.json`` records them): one session's as it measured; several summed (wall, CPU,
    switches) with the highest load averages and workers of any. ``None`` when no session measured it."""
    measured = [session["machine"] for session in sessions if session.get("machine")]
    if not measured:
        return None
    highest = lambda key: [max(values) for values in zip(*(m[key] for m in measured))]  # noqa: E731
    return {
        "cores": max(m["cores"] for m in measured),
        "workers": max(m["workers"] for m in measured),
        "load_average_before": highest("load_average_before"),
        "load_average_after": highest("load_average_after"),
        "wall_seconds": round(sum(m["wall_seconds"] for m in measured), 3),
        "cpu_seconds": round(sum(m["cpu_seconds"] for m in measured), 3),
        "involuntary_switches": sum(m["involuntary_switches"] for m in measured),
        "sessions": len(measured),
    }


def _usage() -> dict:
    """CPU seconds and involuntary context switches of this process and its finished children (the workers)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return {
        "cpu": own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime,
        "switches": own.ru_nivcsw + children.ru_nivcsw,
    }


CONTENDED_STALL_SHARE = 0.001
"""Share of decisions that were machine stalls above which a run counts as contended."""


def is_contended(machine: dict, decisions: int, stalls: int) -> bool:
    """Contended: the 1-minute load average, before or after, was above the cores the league's workers left to
    others (other work wanted the CPUs), or more than ``CONTENDED_STALL_SHARE`` of decisions were machine stalls."""
    spare = machine["cores"] - machine["workers"]
    busy = max(machine["load_average_before"][0], machine["load_average_after"][0]) > spare
    return busy or (decisions > 0 and stalls / decisions > CONTENDED_STALL_SHARE)


def contention(machine: dict, agents: list[dict]) -> dict:
    decisions = sum(entry["decisions"] for entry in agents)
    stalls = sum(entry["machine_stalls"] for entry in agents)
    return {"machine_stalls": stalls, "contended": is_contended(machine, decisions, stalls)}


def model_facts(spec: str) -> dict:
    """``{"model": {"parameters", "file_bytes", "threads"}}`` for a model agent's spec (the counts ``None``
    when its file cannot be read now), ``{}`` for any other agent."""
    if split_spec(spec)[0] not in MODEL_ALGOS:
        return {}
    path, threads = model_spec(spec)[1:3]
    try:
        parameters, size = parameter_count(path), os.path.getsize(path)
    except (OSError, ValueError):
        parameters = size = None
    return {"model": {"parameters": parameters, "file_bytes": size, "threads": threads}}


def _quantiles(values: np.ndarray) -> dict:
    if not values.size:
        return {"median": None, "p95": None, "max": None}
    return {
        "median": float(np.quantile(values, 0.5)),
        "p95": float(np.quantile(values, 0.95)),
        "max": float(values.max()),
    }


def _shifted(regret: dict | None, by: float) -> dict | None:
    if regret is None:
        return None
    return {
        key: (value - by if isinstance(value, float) and key in ("value", "low", "high") else value)
        for key, value in regret.items()
    }
