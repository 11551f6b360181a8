"""A trained agent against the ``prompt`` baseline on held-out paired rounds, and the bar it must meet.

Both play round ``k`` as ``env.reset(seed=seed + k)`` through ``war_env.evaluation.play_rounds`` (the
benchmark's own loop), so the comparison is paired: same deal, starter and bot reactions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from war_env.envs.games import game_config
from war_env.evaluation import play_rounds
from war_env.evaluation.summary import RoundColumns, paired_difference

BASELINE = "prompt"
BAR = {"takeovers": 0, "false_starts_per_100_rounds_below": 1.0, "return_gap_at_most": 0.005}
"""The bar on held-out rounds, against the prompt baseline on the same deals: no
takeover, fewer than 1 false start per 100 rounds, a mean return at most 0.005 per round below prompt's.
``war-train`` holds both its best and its final model to it, ``war-curves`` every model of a curve."""


@dataclass(frozen=True)
class HeldOutRounds:
    """One agent over held-out rounds (round k = ``env.reset(seed=seed + k)``), summarised by the
    project's one summary of rounds (``RoundColumns``)."""

    agent: str
    opponent: str
    seed: int
    played: RoundColumns

    @property
    def rounds(self) -> int:
        return self.played.rounds

    @property
    def takeovers(self) -> int:
        return self.played.takeovers()

    @property
    def false_starts_per_100(self) -> float:
        return 100.0 * self.played.false_starts_per_round

    @property
    def mean_reaction_ticks(self) -> float | None:
        return self.played.mean_reaction_ticks

    def summary(self) -> dict:
        return {
            "agent": self.agent,
            "opponent": self.opponent,
            "rounds": self.rounds,
            "seed": self.seed,
            "mean_return": self.played.mean_return,
            "takeovers": self.takeovers,
            "false_starts": int(self.played.false_starts.sum()),
            "wins": self.played.count("won"),
            "mean_reaction_ticks": self.mean_reaction_ticks,
            "false_starts_per_100_rounds": self.false_starts_per_100,
        }


def held_out_stats(
    agent,
    opponent: str,
    env_args: dict,
    rounds: int,
    seed: int,
    trust_model_file: bool = False,
    env_id: str | None = None,
) -> HeldOutRounds:
    """``agent`` (an ``Agent`` or spec) over rounds ``seed .. seed + rounds - 1`` against ``opponent``, in the
    game ``env_id`` (``war_env.envs.games``; by default the one the rules choose)."""
    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
        raise ValueError(f"rounds must be a whole number >= 1, got {rounds!r}")
    config = game_config(env_id, env_args)
    records = play_rounds(
        agent, opponent, config, range(seed, seed + rounds), trust_model_file=trust_model_file, env_id=env_id
    )
    return HeldOutRounds(records[0].agent, records[0].opponent, seed, RoundColumns.of_records(records, config))


def compare_with_baseline(
    agent, opponent: str, env_args: dict, rounds: int, seed: int, trust_model_file: bool = False
) -> dict:
    """The agent and ``prompt`` on the same held-out deals, and the bar."""
    model_stats = held_out_stats(agent, opponent, env_args, rounds, seed, trust_model_file)
    return compare(model_stats, held_out_stats(BASELINE, opponent, env_args, rounds, seed, trust_model_file))


def compare(model_stats: HeldOutRounds, prompt_stats: HeldOutRounds) -> dict:
    """A model's held-out rounds against ``prompt``'s on the same deals (same rounds and seed), and the bar."""
    if (model_stats.rounds, model_stats.seed) != (prompt_stats.rounds, prompt_stats.seed):
        raise ValueError("a comparison needs the same held-out rounds for the model and prompt")
    rounds = model_stats.rounds
    gap = paired_difference(model_stats.played, prompt_stats.played)
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
    return bool(
        takeovers == BAR["takeovers"]
        and false_starts_per_100 < BAR["false_starts_per_100_rounds_below"]
        and return_gap <= BAR["return_gap_at_most"]
    )
