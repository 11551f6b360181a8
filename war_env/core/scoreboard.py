"""The scoreboard across rounds: rounds won by each seat, draws, and each round's result."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from war_env.core.round_info import RoundResult


@dataclass
class Scoreboard:
    rounds_won: list[int] = field(default_factory=lambda: [0, 0])
    draws: int = 0
    results: list[RoundResult] = field(default_factory=list)
    _result_dicts: list[dict] = field(default_factory=list, init=False, repr=False, compare=False)
    """``asdict`` of each result, made once: ``as_dict`` runs at the end of every round, and
    converting every past result again each time made a long-lived env slower round by round."""

    def record(self, result: RoundResult) -> None:
        if result.winner is None:
            self.draws += 1
        else:
            self.rounds_won[result.winner] += 1
        self.results.append(result)

    @property
    def rounds(self) -> int:
        return len(self.results)

    @property
    def last_winner(self) -> int | None:
        return self.results[-1].winner if self.results else None

    def as_dict(self) -> dict:
        return {
            "rounds": self.rounds,
            "rounds_won": tuple(self.rounds_won),
            "draws": self.draws,
            "last_winner": self.last_winner,
            "results": self._results_as_dicts(),
        }

    def _results_as_dicts(self) -> list[dict]:
        cache = self._result_dicts
        if len(cache) > len(self.results):  # results were cut back: start again
            cache.clear()
        for result in self.results[len(cache) :]:  # results appended since (record or directly)
            cache.append(asdict(result))
        return [dict(entry) for entry in cache]  # fresh dicts: callers may change what they get
