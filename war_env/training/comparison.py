"""A trained agent against the ``prompt`` baseline on held-out paired rounds, and the bar it must meet.

Both play round ``k`` as ``env.reset(seed=seed + k)`` through ``war_env.evaluation.play_rounds`` (the
benchmark's own loop), so the comparison is paired: same deal, starter and bot reactions.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

import numpy as np

from war_env.core.rules import WarConfig
from war_env.evaluation import play_rounds
from war_env.evaluation.records import RoundRecord

BASELINE = "prompt"
BAR = {"takeovers": 0, "false_starts_per_100_rounds_below": 1.0, "return_gap_at_most": 0.005}
"""The bar on held-out rounds (issue 14: 1,000 of them), against the prompt baseline on the same deals: no
takeover, fewer than 1 false start per 100 rounds, a mean return at most 0.005 per round below prompt's.
``war-train`` holds both its best and its final model to it, ``war-curves`` every model of a curve."""


@dataclass
class RoundStats:
    """One agent over ``rounds`` held-out rounds (round k = ``env.reset(seed=seed + k)``)."""

    agent: str
    opponent: str
    rounds: int
    seed: int
    mean_return: float
    takeovers: int
    false_starts: int
    wins: int
    mean_reaction_ticks: float | None
    """Mean ticks from the opening of the agent's turn to its own draws (None: it never drew)."""
    returns: list[float] = field(repr=False, default_factory=list)

    @classmethod
    def of_records(cls, records: list[RoundRecord], seed: int) -> RoundStats:
        reactions = [tick for record in records for tick in record.reaction_ticks[0]]
        returns = [float(record.episode_return) for record in records]
        return cls(
            agent=records[0].agent,
            opponent=records[0].opponent,
            rounds=len(records),
            seed=seed,
            mean_return=float(np.mean(returns)),
            takeovers=sum(record.takeover[0] for record in records),
            false_starts=sum(record.false_starts[0] for record in records),
            wins=sum(record.winner == 0 for record in records),
            mean_reaction_ticks=float(np.mean(reactions)) if reactions else None,
            returns=returns,
        )

    @property
    def false_starts_per_100(self) -> float:
        return 100.0 * self.false_starts / self.rounds

    def summary(self) -> dict:
        out = asdict(self)
        out.pop("returns")
        out["false_starts_per_100_rounds"] = self.false_starts_per_100
        return out


def held_out_stats(agent, opponent: str, env_args: dict, rounds: int, seed: int,
                   trust_model_file: bool = False) -> RoundStats:
    """``agent`` (an ``Agent`` or spec) over rounds ``seed .. seed + rounds - 1`` against ``opponent``."""
    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
        raise ValueError(f"rounds must be a whole number >= 1, got {rounds!r}")
    config = WarConfig.from_kwargs(env_args)
    records = play_rounds(agent, opponent, config, range(seed, seed + rounds), trust_model_file=trust_model_file)
    return RoundStats.of_records(records, seed)


def compare_with_baseline(agent, opponent: str, env_args: dict, rounds: int, seed: int,
                          trust_model_file: bool = False) -> dict:
    """The agent and ``prompt`` on the same held-out deals, and the bar."""
    model_stats = held_out_stats(agent, opponent, env_args, rounds, seed, trust_model_file)
    return compare(model_stats, held_out_stats(BASELINE, opponent, env_args, rounds, seed, trust_model_file))


def compare(model_stats: RoundStats, prompt_stats: RoundStats) -> dict:
    """A model's held-out rounds against ``prompt``'s on the same deals (same rounds and seed), and the bar."""
    if (model_stats.rounds, model_stats.seed) != (prompt_stats.rounds, prompt_stats.seed):
        raise ValueError("a comparison needs the same held-out rounds for the model and prompt")
    rounds = model_stats.rounds
    gap = np.asarray(model_stats.returns) - np.asarray(prompt_stats.returns)
    return {
        "rounds": rounds,
        "seed": model_stats.seed,
        "opponent": model_stats.opponent,
        "pairing": "round k of both agents is env.reset(seed=seed + k): same deal, starter and bot reactions",
        "model": model_stats.summary(),
        "baseline": prompt_stats.summary(),
        "mean_return_difference": float(gap.mean()),
        "mean_return_difference_stderr": float(gap.std(ddof=1) / math.sqrt(rounds)) if rounds > 1 else None,
        "bar": {**BAR, "passed": meets_bar(model_stats.takeovers, model_stats.false_starts_per_100, -gap.mean())},
    }


def meets_bar(takeovers: int, false_starts_per_100: float, return_gap: float) -> bool:
    """``return_gap``: prompt's mean return minus the model's, on the same deals."""
    return bool(takeovers == BAR["takeovers"] and false_starts_per_100 < BAR["false_starts_per_100_rounds_below"]
                and return_gap <= BAR["return_gap_at_most"])
