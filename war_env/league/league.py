"""What a benchmark run plays: the ``League`` (agents x opponents x paired rounds) and its ``Shard``s.

Round ``i`` of every pairing is ``env.reset(seed=seed + i)``: the same deal, starter and round key,
and because every random event inside a round is hashed from that key, the same cards fall the
same way whatever the players' timing. Differences between agents are therefore not the luck of
the deal. Rounds are played in *shards* (a picklable description: agent spec, opponent spec, env
keyword arguments, a list of (round index, seed)); ``play_shard(shard)`` is the one source of
``RoundRecord``s, run in this process, in worker processes or as Ray tasks, with results that do not
depend on where it ran.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

from war_env.core.bots import BOTS
from war_env.core.rules import WarConfig
from war_env.core.specs import split_spec
from war_env.envs.games import check_env_id, game_config
from war_env.evaluation import play_rounds
from war_env.evaluation.records import RoundRecord

DEFAULT_OPPONENTS = ("instant", "human", "uniform", "absent")
DEFAULT_ROUNDS = 1600
DEFAULT_SEED = 0
DEFAULT_SHARD_ROUNDS = 20
MAX_LEAGUE_ROUNDS = 100_000_000
"""The most records (agents x opponents x rounds) a league may have: its report reads about 800 rounds a
second (docs/results/benchmark.md, "The report's memory"), so this many take a day and a half; more is refused
before anything is built or written (``war_env.league.run.check_room`` also weighs the machine's disk and memory)."""
ORACLE = "oracle"
"""The reference agent of a league whose opponents are all bots: the exact optimum (``war_env.core.optimum``)."""


@dataclass(frozen=True)
class League:
    """Everything that decides the numbers of a run (workers and shard size do not)."""

    agents: tuple[str, ...]
    opponents: tuple[str, ...]
    rounds: int
    seed: int
    env_kwargs: dict = field(default_factory=dict)
    realtime: float | None = None
    """Seconds of wall time per tick when the rounds are played in real time (``war-bench --realtime``:
    ``war_env.envs.realtime.RealTime``), else ``None`` (lock-step)."""
    env_id: str | None = None
    """The game (``war_env.envs.games``: a probe's, ``WarMemory-v1``); ``None``: War-v0, or WarLatency-v0 when the
    rules have latency (a league from before the probes)."""

    def __post_init__(self):
        for kind, specs in (("agents", self.agents), ("opponents", self.opponents)):
            if not specs:
                raise ValueError(f"a league needs at least one of {kind}")
            duplicates = sorted(spec for spec, count in Counter(specs).items() if count > 1)
            if duplicates:
                raise ValueError(f"{kind} listed twice: {duplicates}")
        if isinstance(self.rounds, bool) or not isinstance(self.rounds, int) or self.rounds < 1:
            raise ValueError(f"rounds must be a whole number >= 1, got {self.rounds!r}")
        if self.records > MAX_LEAGUE_ROUNDS:
            raise ValueError(
                f"rounds {self.rounds}: {len(self.agents)} agents x {len(self.opponents)} opponents x "
                f"{self.rounds} rounds is {self.records:,} rounds, above the {MAX_LEAGUE_ROUNDS:,} a "
                "league may play (its report would take days)"
            )
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise ValueError(f"seed must be a whole number >= 0, got {self.seed!r}")
        if self.realtime is not None and (
            isinstance(self.realtime, bool)
            or not isinstance(self.realtime, (int, float))
            or not 0 < self.realtime <= 60
        ):
            raise ValueError(f"realtime (seconds per tick) must be above 0 and at most 60, got {self.realtime!r}")
        if self.env_id is not None:
            check_env_id(self.env_id)

    @property
    def records(self) -> int:
        """The rounds the whole league plays: one record each."""
        return len(self.agents) * len(self.opponents) * self.rounds

    @property
    def oracle_reference(self) -> str | None:
        """``"oracle"`` when it plays in this league against bots only (then the regrets are measured
        against it), else ``None`` (the agent with the best mean return is the reference)."""
        return ORACLE if ORACLE in self.agents and all_bots(self.opponents) else None

    @property
    def config(self) -> WarConfig:
        """The rules: ``env_kwargs`` over the game's defaults (a probe's latency and reward weights)."""
        return game_config(self.env_id, self.env_kwargs)

    def round_seed(self, index: int) -> int:
        return self.seed + index

    def to_dict(self) -> dict:
        """The league as JSON (config.json, the config hash)."""
        data = {
            "agents": list(self.agents),
            "opponents": list(self.opponents),
            "rounds": self.rounds,
            "seed": self.seed,
            "env_kwargs": dict(self.env_kwargs),
        }
        # lock-step War-v0 leagues keep their form (and their hash): the optional keys only when set
        optional = {name: getattr(self, name) for name in ("realtime", "env_id") if getattr(self, name) is not None}
        return {**data, **optional}

    @classmethod
    def from_dict(cls, data: dict) -> League:
        return cls(
            tuple(data["agents"]),
            tuple(data["opponents"]),
            data["rounds"],
            data["seed"],
            dict(data["env_kwargs"]),
            data.get("realtime"),
            data.get("env_id"),
        )

    def config_hash(self) -> str:
        """sha256 of the league with the rules fully resolved (defaults spelt out, but for ``latency``
        when there is none)."""
        rules = asdict(self.config)
        if not self.config.has_latency:  # the hash of a league without latency is what it was before the field
            del rules["latency"]
        canonical = {**self.to_dict(), "env_kwargs": None, "rules": rules}
        digest = hashlib.sha256(json.dumps(canonical, sort_keys=True).encode()).hexdigest()
        return f"sha256:{digest[:16]}"


def all_bots(opponents) -> bool:
    """Whether every opponent spec names a bot (``war_env.agents.make_opponent``'s rule)."""
    return all(split_spec(spec)[0] in BOTS for spec in opponents)


def with_oracle(agents: tuple[str, ...], opponents: tuple[str, ...]) -> tuple[str, ...]:
    """The agents of a new league: the ``oracle`` first when every opponent is a bot (regret to the exact
    optimum heads every report), else the agents as given."""
    if ORACLE in agents or not all_bots(opponents):
        return agents
    return (ORACLE, *agents)


@dataclass(frozen=True)
class Shard:
    """A batch of rounds of one pairing; small and picklable, so any process can play it."""

    agent: str
    opponent: str
    env_kwargs: tuple[tuple[str, object], ...]
    rounds: tuple[tuple[int, int], ...]
    """(round index, seed) pairs."""
    trust_model_file: bool = False
    """From the command line of the run in progress only (``war-bench --trust-model-file``), never
    from a run folder: resuming someone else's run must not unpickle their model files."""
    realtime: float | None = None
    """The league's seconds per tick in real time, or ``None`` (lock-step)."""
    env_id: str | None = None
    """The league's game (``League.env_id``)."""


def play_shard(shard: Shard, on_round: Callable[[RoundRecord], None] | None = None) -> list[RoundRecord]:
    """Play the shard's rounds (``war_env.evaluation.play_rounds``: the fast path where it applies, else
    tick by tick). The records in the shard's order; ``on_round`` sees each one."""
    config = game_config(shard.env_id, dict(shard.env_kwargs))
    indices = [index for index, _ in shard.rounds]
    seeds = [seed for _, seed in shard.rounds]
    return play_rounds(
        shard.agent,
        shard.opponent,
        config,
        seeds,
        indices=indices,
        agent_spec=shard.agent,
        opponent_spec=shard.opponent,
        on_round=on_round,
        trust_model_file=shard.trust_model_file,
        realtime=shard.realtime,
        env_id=shard.env_id,
    )


def make_shards(
    league: League, done: set[tuple[str, str, int]], shard_rounds: int, trust_model_file: bool = False
) -> list[Shard]:
    """Shards of the rounds not yet in ``done``, pairing by pairing."""
    env_kwargs = tuple(sorted(league.env_kwargs.items()))
    shards = []
    for agent in league.agents:
        for opponent in league.opponents:
            todo = [(i, league.round_seed(i)) for i in range(league.rounds) if (agent, opponent, i) not in done]
            for start in range(0, len(todo), shard_rounds):
                shards.append(
                    Shard(
                        agent,
                        opponent,
                        env_kwargs,
                        tuple(todo[start : start + shard_rounds]),
                        trust_model_file,
                        league.realtime,
                        league.env_id,
                    )
                )
    return shards
