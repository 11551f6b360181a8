"""The probes' capability gaps, exact and measured, and their ladders: the tables of docs/probes.md
(``python -m war_env.scripts.probe_figures --rounds 500``, ``--ladder``).

For every probe of ``war_env.core.probes`` it prints one row per agent: the return it loses per round to the
``oracle`` computed exactly (``war_env.evaluation.probe_gaps.exact_gaps``) and measured on the same paired rounds
(the mean of the oracle's return minus the agent's, with its 95% paired bootstrap interval), and its score
(0 = the probe's best simple baseline or worse, 1 = the oracle, from the exact costs: ``stats.bound``). Each agent
plays from the probe's own env (``gym.make(probe.env_id)``) when it can read its observation, else (the agents that read
the opponent's clock, in the memory probe) from WarLatency-v0's observation of the same game, which the table
says. The inference probe adds the clairvoyant (the oracle of the member the pool drew), its upper bound.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from war_env.agents import make_agent
from war_env.core.bots import make_bot
from war_env.core.observation import observation_fields
from war_env.core.probes import PROBES, Probe, probe_named
from war_env.evaluation import observation_game, play_rounds
from war_env.evaluation.probe_gaps import BOUNDS, ProbeGaps, clairvoyant_records, exact_gaps, ladder
from war_env.evaluation.summary import RoundColumns, paired_difference
from war_env.league.stats import bootstrap_mean, bound


def agents_of(probe: Probe) -> list[str]:
    """The agents a probe's table shows: the oracle, its references (what the capability adds: ``counting`` for
    memory, ``blind`` in reading), the agent lacking the capability (``blind`` in inference) and the simple
    baselines."""
    return list(dict.fromkeys(["oracle", *probe.references, probe.lacking, *probe.simple]))


def yardsticks() -> frozenset[str]:
    """The yardsticks, from the probe table alone: every agent a probe plays for reference (``agents_of``) and its
    harnesses (the inference probe's clairvoyant), over all probes. They are built from the probes' own solution
    (``counting`` is the oracle's policy from a counted state), so a suite ranks only the agents given that are none
    of them."""
    return frozenset(name for probe in PROBES.values() for name in [*agents_of(probe), *probe.harnesses])


HARNESSES = {"clairvoyant": clairvoyant_records}
"""The reference rows a probe's own harness plays (``Probe.harnesses``), by name: ``(probe, seeds) -> records``."""


def records_of(probe: Probe, spec: str, seeds) -> tuple[list, bool]:
    """``spec``'s records on ``seeds`` in the probe's env, and whether it played from WarLatency-v0's
    observation instead (an agent that reads the opponent's clock, in a probe that hides it)."""
    config, bot = probe.config(), make_bot(probe.opponent)
    if spec in probe.harnesses:
        return HARNESSES[spec](probe, seeds), False
    agent = make_agent(spec, config=config, opponent=bot)
    records = play_rounds(agent, bot, config, seeds, env_id=probe.env_id)
    return records, observation_game(probe.env_id, config, agent) != probe.env_id


@dataclass(frozen=True)
class Row:
    probe: str
    agent: str
    exact: float | None
    measured: dict
    score: float | None
    note: str


def measure(probe: Probe, rounds: int, seed: int = 0) -> list[Row]:
    gaps, config = exact_gaps(probe), probe.config()
    seeds = range(seed, seed + rounds)
    oracle, oracle_elsewhere = records_of(probe, "oracle", seeds)
    names = agents_of(probe) + list(probe.harnesses)
    rows = []
    for name in names:
        records, elsewhere = (oracle, oracle_elsewhere) if name == "oracle" else records_of(probe, name, seeds)
        regret = bootstrap_mean(
            paired_difference(RoundColumns.of_records(oracle, config), RoundColumns.of_records(records, config))
        )
        exact = gaps.gap(name) if name in gaps.per_move else None
        note = "plays from WarLatency-v0's observation (it reads the opponent's clock)" if elsewhere else ""
        if name == "clairvoyant":
            note = "knows the pool's member from the start: the upper bound"
        if name == gaps.best_simple:
            note = "best simple baseline (score 0)"
        rows.append(Row(probe.name, name, exact, regret, score(gaps, name), note))
    return rows


def score(gaps: ProbeGaps, agent: str) -> float | None:
    """The bounded score from the exact costs per round: 0 = the probe's best simple baseline or worse, 1 = the oracle
    (``stats.bound``; the exact regret beside it says how much worse)."""
    if agent not in gaps.per_move:
        return None
    zero = gaps.per_round(gaps.best_simple)
    span = zero - gaps.per_round("oracle")
    return bound((zero - gaps.per_round(agent)) / span) if span > 0 else None


def table(rows: list[Row]) -> str:
    lines = [
        "| probe | agent | regret per round, exact | regret per round, measured | score | |",
        "|---|---|---|---|---|---|",
    ]
    for row in rows:
        m = row.measured
        measured = (
            "reference"
            if row.agent == "oracle"
            else (
                f"{m['value']:.3f} (exact)" if m.get("exact") else f"{m['value']:.3f} [{m['low']:.3f}, {m['high']:.3f}]"
            )
        )
        exact = "reference" if row.agent == "oracle" else ("" if row.exact is None else f"{row.exact:.3f}")
        score_text = "" if row.score is None else f"{row.score:.2f}"
        lines.append(f"| {row.probe} | `{row.agent}` | {exact} | {measured} | {score_text} | {row.note} |")
    return "\n".join(lines)


def ladder_table(names) -> str:
    """The ladder of simple rules of each probe named (``NAME`` or ``NAME@n``, ``probe_named``;
    ``evaluation.probe_gaps.ladder``): the best rule of each family, its exact cost per round and the oracle's margin
    over it."""
    lines = [
        "| probe | rung | the best rule | timing cost per round, exact | the oracle's margin |",
        "|---|---|---|---|---|",
    ]
    for name in names:
        probe = probe_named(name)
        gaps = exact_gaps(probe)
        lines.append(f"| {name} | the oracle | | {gaps.per_round('oracle'):.3f} | |")
        for rung in ladder(probe, gaps):
            margin = round(rung.margin, 12) + 0.0  # a tie to the last bits prints 0.000, not -0.000
            lines.append(f"| {name} | {rung.family} | {rung.rule} | {rung.per_round:.3f} | {margin:.3f} |")
    return "\n".join(lines)


OBSERVATION_NAMES = {
    "war": "War-v0's",
    "latency": "WarLatency-v0's",
    "inference": "WarLatency-v0's + `opponent_reaction`",
}
"""How the table of probes names each observation of ``core.observation.OBSERVATIONS`` (its key otherwise)."""


def probes_table(probes: Mapping[str, Probe] = PROBES) -> str:
    """The table of probes docs/probes.md opens with, one row per row of ``PROBES``: what each measures and how it
    is built."""
    lines = [
        "| probe | env id | capability (one sentence) | opponent | latency | observation | lacks it |",
        "|---|---|---|---|---|---|---|",
    ]
    for probe in probes.values():
        width = len(observation_fields(probe.observation, probe.config()))
        observation = f"{OBSERVATION_NAMES.get(probe.observation, f'`{probe.observation}`')} ({width})"
        if probe.hidden:
            observation += f", with {_listed(probe.hidden)} always 0"
        lacking = f"`{probe.lacking}`"
        if probe.lacking_yardstick in BOUNDS:
            lacking = f"`{probe.lacking_yardstick}` (the best reader of every other field; a bound), {lacking}"
        lines.append(
            f"| {probe.name} | `{probe.env_id}` | {probe.capability} | `{probe.opponent}` | `{probe.latency}` "
            f"| {observation} | {lacking} |"
        )
    return "\n".join(lines)


def _listed(names) -> str:
    quoted = [f"`{name}`" for name in names]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


def measure_probes(names, rounds: int, seed: int = 0) -> list[Row]:
    """Every row of the probes named (``measure``), in the order given; ``rounds`` paired rounds per agent."""
    if rounds < 2:
        raise ValueError(f"rounds must be at least 2 (a paired interval needs two rounds), got {rounds}")
    unknown = [name for name in names if name not in PROBES]
    if unknown:
        raise ValueError(f"unknown probes {unknown}; known: {', '.join(PROBES)}")
    return [row for name in names for row in measure(PROBES[name], rounds, seed)]
