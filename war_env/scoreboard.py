"""The scoreboard across rounds: rounds won by each seat, draws, and each round's result."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from war_env.engine import RoundResult


@dataclass
class Scoreboard:
    rounds_won: list[int] = field(default_factory=lambda: [0, 0])
    draws: int = 0
    results: list[RoundResult] = field(default_factory=list)

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
            "results": [asdict(result) for result in self.results],
        }
