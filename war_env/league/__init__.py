"""The benchmark league: every agent against every opponent on paired rounds, with a report.

``run_league(...)`` is what ``war-bench`` runs (``war_env.scripts.benchmark`` only parses its
arguments). The pieces, by what they are:

* ``league``: ``League`` (what to play), ``Shard`` (a picklable batch of rounds), ``play_shard``;
* ``workers``: shards in spawned worker processes, each finished round streamed to the parent;
* ``ray_backend``: shards as Ray tasks (the ``distributed`` extra);
* ``rounds_file``: ``rounds.jsonl.gz`` written round by round, read back and checked against the league;
* ``stats``: estimates with intervals; ``results``: ``results.json``;
* ``plots``, ``report``: the PNGs and ``report.md``;
* ``run``: a run folder from start (or resume) to report;
* ``latency_table``: finished runs side by side per move (docs/latency.md).
"""

from war_env.league.league import (
    DEFAULT_OPPONENTS,
    DEFAULT_ROUNDS,
    DEFAULT_SEED,
    DEFAULT_SHARD_ROUNDS,
    League,
    Shard,
    make_shards,
    play_shard,
)
from war_env.league.rounds_file import ROUNDS_FILE, RoundsWriter, load_rounds, read_rounds
from war_env.league.run import BenchmarkRun, run_league
from war_env.league.workers import run_shards

__all__ = [
    "DEFAULT_OPPONENTS",
    "DEFAULT_ROUNDS",
    "DEFAULT_SEED",
    "DEFAULT_SHARD_ROUNDS",
    "ROUNDS_FILE",
    "BenchmarkRun",
    "League",
    "RoundsWriter",
    "Shard",
    "load_rounds",
    "make_shards",
    "play_shard",
    "read_rounds",
    "run_league",
    "run_shards",
]
