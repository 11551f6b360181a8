"""The league: every agent against every opponent over the same paired rounds, with a report.

Round ``i`` of every pairing is ``env.reset(seed=seed + i)``: the same deal, starter and round key,
and because every random event inside a round is hashed from that key, the same cards fall the
same way whatever the players' timing. Differences between agents are therefore not the luck of
the deal. Rounds are played in *shards* (a picklable description: agent spec, opponent spec, env
keyword arguments, a list of (round index, seed)); ``play_shard(shard)`` is the one source of
``RoundRecord``s, run in this process or in worker processes (``--workers N``), with results that do
not depend on the number of workers.

A run folder holds ``config.json`` (what to play), ``rounds.jsonl`` (one record per round, appended
and flushed as rounds finish; ``--resume RUN`` continues from it), then ``results.json`` (the
numbers, schema ``scripts/results.schema.json``), ``report.md`` (the same for people),
``run.json`` (versions, commit, timing) and PNG plots. Report files are written atomically.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import math
import os
import subprocess
import sys
import time
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from queue import Empty

import numpy as np

from agents import BASELINES, make_agent
from war_env.atomic import write_atomic
from war_env.bots import BOTS, make_bot
from war_env.engine import END_REASONS
from war_env.env import make_config
from war_env.fastpath import agent_reaction_model, play_rounds
from war_env.records import RoundRecord, play_round
from war_env.rules import WarConfig
from war_env.specs import parse_spec

DEFAULT_OPPONENTS = ("instant", "human", "uniform", "absent")
DEFAULT_ROUNDS = 1600
DEFAULT_SEED = 0
DEFAULT_SHARD_ROUNDS = 20
DEFAULT_WORKERS = os.cpu_count() or 1
CONFIDENCE = 0.95
BOOTSTRAP_RESAMPLES = 2000
WIN_RATE_TARGET_WIDTH = 0.05
SCHEMA_VERSION = 1
SCHEMA_PATH = Path(__file__).with_name("results.schema.json")
ROOT = Path(__file__).resolve().parent.parent


# --- what to play ------------------------------------------------------------------------------
@dataclass(frozen=True)
class League:
    """Everything that decides the numbers of a run (workers and shard size do not)."""

    agents: tuple[str, ...]
    opponents: tuple[str, ...]
    rounds: int
    seed: int
    env_kwargs: dict = field(default_factory=dict)

    def __post_init__(self):
        for kind, specs in (("agents", self.agents), ("opponents", self.opponents)):
            if not specs:
                raise ValueError(f"a league needs at least one of {kind}")
            duplicates = sorted(spec for spec, count in Counter(specs).items() if count > 1)
            if duplicates:
                raise ValueError(f"{kind} listed twice: {duplicates}")
        if isinstance(self.rounds, bool) or not isinstance(self.rounds, int) or self.rounds < 1:
            raise ValueError(f"rounds must be a whole number >= 1, got {self.rounds!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise ValueError(f"seed must be a whole number >= 0, got {self.seed!r}")

    @property
    def config(self) -> WarConfig:
        return make_config(None, dict(self.env_kwargs))

    def round_seed(self, index: int) -> int:
        return self.seed + index

    def to_dict(self) -> dict:
        return {"agents": list(self.agents), "opponents": list(self.opponents), "rounds": self.rounds,
                "seed": self.seed, "env_kwargs": dict(self.env_kwargs)}

    @classmethod
    def from_dict(cls, data: dict) -> League:
        return cls(tuple(data["agents"]), tuple(data["opponents"]), data["rounds"], data["seed"],
                   dict(data["env_kwargs"]))

    def config_hash(self) -> str:
        """sha256 of the league with the rules fully resolved (defaults spelt out)."""
        canonical = {**self.to_dict(), "env_kwargs": None, "rules": asdict(self.config)}
        digest = hashlib.sha256(json.dumps(canonical, sort_keys=True).encode()).hexdigest()
        return f"sha256:{digest[:16]}"


@dataclass(frozen=True)
class Shard:
    """A batch of rounds of one pairing; small and picklable, so any process can play it."""

    agent: str
    opponent: str
    env_kwargs: tuple[tuple[str, object], ...]
    rounds: tuple[tuple[int, int], ...]
    """(round index, seed) pairs."""


def make_opponent(spec: str, config: WarConfig):
    """A bot spec (``instant``, ``human``, ``fixed:ticks=5``, ...) gives the env's opponent bot; any
    other spec is an agent playing seat 1 (``prompt``, ``ppo:PATH``). ``human`` is the bot."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"an opponent spec must be a non-empty string like 'human' or 'prompt', got {spec!r}")
    if spec.partition(":")[0].strip().lower() in BOTS:
        return make_bot(spec)
    return make_agent(spec, config=config)


def play_shard(shard: Shard, on_round: Callable[[RoundRecord], None] | None = None) -> list[RoundRecord]:
    """Play the shard's rounds: on the fast path when a bot meets a reaction-time agent, else tick by
    tick through War-v0. The records in the shard's order; ``on_round`` sees each one."""
    import gymnasium as gym

    import war_env  # noqa: F401  (registers War-v0)

    config = make_config(None, dict(shard.env_kwargs))
    env = gym.make("War-v0", opponent=make_opponent(shard.opponent, config), config=config).unwrapped
    agent = make_agent(shard.agent, config=config)
    if env.opponent_bot is not None and agent_reaction_model(agent, config) is not None:
        # Bot against a reaction-time agent: whole rounds in numpy, records equal to play_round's
        # (tests/test_fastpath.py).
        indices, seeds = zip(*shard.rounds) if shard.rounds else ((), ())
        records = play_rounds(config, agent, env.opponent_bot, seeds, indices=indices,
                              agent_spec=shard.agent, opponent_spec=shard.opponent)
        if on_round is not None:
            for record in records:
                on_round(record)
        return records
    records = []
    for index, seed in shard.rounds:
        record = play_round(env, agent, seed, index=index, agent_spec=shard.agent, opponent_spec=shard.opponent)
        records.append(record)
        if on_round is not None:
            on_round(record)
    env.close()
    return records


def make_shards(league: League, done: set[tuple[str, str, int]], shard_rounds: int) -> list[Shard]:
    """Shards of the rounds not yet in ``done``, pairing by pairing."""
    env_kwargs = tuple(sorted(league.env_kwargs.items()))
    shards = []
    for agent in league.agents:
        for opponent in league.opponents:
            todo = [(i, league.round_seed(i)) for i in range(league.rounds) if (agent, opponent, i) not in done]
            for start in range(0, len(todo), shard_rounds):
                shards.append(Shard(agent, opponent, env_kwargs, tuple(todo[start:start + shard_rounds])))
    return shards


# --- playing shards: in this process or in worker processes -----------------------------------
_worker_queue = None
_worker_parent = None


def _init_worker(queue, parent: int) -> None:
    global _worker_queue, _worker_parent
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's: it stops the workers itself
    _worker_queue, _worker_parent = queue, parent


def _send_round(record: RoundRecord) -> None:
    if os.getppid() != _worker_parent:  # the parent was killed: nobody will read this round
        os._exit(1)
    _worker_queue.put(record)


def _play_shard_in_worker(shard: Shard) -> int:
    """Stream each finished round to the parent at once, so a killed run loses none."""
    return len(play_shard(shard, on_round=_send_round))


def run_shards(shards: Sequence[Shard], workers: int, sink: Callable[[RoundRecord], None]) -> None:
    """Play every shard, calling ``sink`` once per finished round (in the parent process)."""
    if workers == 1:
        for shard in shards:
            play_shard(shard, on_round=sink)
        return
    import multiprocessing

    queue = multiprocessing.Queue()
    expected = sum(len(shard.rounds) for shard in shards)
    pool = multiprocessing.Pool(workers, initializer=_init_worker, initargs=(queue, os.getpid()))
    try:
        result = pool.map_async(_play_shard_in_worker, shards, chunksize=1)
        received = 0
        while received < expected:
            try:
                record = queue.get(timeout=0.2)
            except Empty:
                if result.ready() and not result.successful():
                    result.get()  # raises the worker's exception here
                continue
            sink(record)
            received += 1
        result.get()
        pool.close()
    finally:
        pool.terminate()  # on success the workers are idle; on an error or Ctrl-C they stop mid-round
        pool.join()


# --- rounds.jsonl ---------------------------------------------------------------------------------
def read_rounds(path: Path, repair: bool = False) -> list[RoundRecord]:
    """The records of ``rounds.jsonl``. A last line cut off by a crash (no newline at its end) is
    ignored, and with ``repair`` removed from the file, so appending continues on a clean line."""
    if not path.exists():
        return []
    data = path.read_bytes()
    complete = data[: data.rfind(b"\n") + 1]
    if repair and len(complete) < len(data):
        with open(path, "r+b") as handle:
            handle.truncate(len(complete))
    records = []
    for number, line in enumerate(complete.decode().splitlines(), start=1):
        try:
            records.append(RoundRecord.from_json(line))
        except (ValueError, TypeError) as error:
            raise ValueError(f"{path}:{number} is not a round record: {error}") from None
    return records


def index_records(records: Iterable[RoundRecord], league: League) -> dict[tuple[str, str, int], RoundRecord]:
    """Records by (agent, opponent, round); refuses records that do not belong to the league."""
    indexed: dict[tuple[str, str, int], RoundRecord] = {}
    for record in records:
        key = (record.agent, record.opponent, record.round)
        if (record.agent not in league.agents or record.opponent not in league.opponents
                or not 0 <= record.round < league.rounds or record.seed != league.round_seed(record.round)):
            raise ValueError(f"round record {key} (seed {record.seed}) does not belong to this league")
        if key in indexed and indexed[key] != record:
            raise ValueError(f"two different records for round {key} in rounds.jsonl")
        indexed[key] = record
    return indexed


# --- statistics ------------------------------------------------------------------------------------
def estimate(value, low, high, method: str, **extra) -> dict:
    def clean(number):
        return None if number is None or not math.isfinite(number) else float(number)

    return {"value": clean(value), "low": clean(low), "high": clean(high), "method": method, **extra}


def wilson(count: int, n: int) -> dict:
    """A rate with its Wilson score interval."""
    from scipy.stats import binomtest

    if n == 0:
        return estimate(None, None, None, "wilson", count=0)
    interval = binomtest(count, n).proportion_ci(CONFIDENCE, method="wilson")
    return estimate(count / n, interval.low, interval.high, "wilson", count=count)


def _rng(*arrays: np.ndarray) -> np.random.Generator:
    """The bootstrap RNG is fixed by the data resampled: a run's numbers are reproducible, and equal
    data (battles of paired rounds, say) get equal intervals."""
    return np.random.default_rng(zlib.crc32(b"".join(np.ascontiguousarray(a, dtype=float).tobytes() for a in arrays)))


_bootstrap_cache: dict[bytes, dict] = {}


def _cached(kind: str, arrays: tuple[np.ndarray, ...], compute: Callable[[], dict]) -> dict:
    key = hashlib.sha256(kind.encode() + b"".join(a.tobytes() for a in arrays)).digest()
    if key not in _bootstrap_cache:
        _bootstrap_cache[key] = compute()
    return dict(_bootstrap_cache[key])


def bootstrap_mean(values: Sequence[float]) -> dict:
    """A mean with its percentile-bootstrap interval."""
    x = np.asarray(values, dtype=float)
    return _cached("mean", (x,), lambda: _bootstrap_mean(x))


def _bootstrap_mean(x: np.ndarray) -> dict:
    from scipy.stats import bootstrap

    method = f"bootstrap percentile ({BOOTSTRAP_RESAMPLES} resamples)"
    if x.size == 0:
        return estimate(None, None, None, method)
    if np.all(x == x[0]):  # no spread to resample
        return estimate(x[0], x[0], x[0], method)
    result = bootstrap((x,), np.mean, confidence_level=CONFIDENCE, n_resamples=BOOTSTRAP_RESAMPLES,
                       method="percentile", rng=_rng(x))
    return estimate(x.mean(), result.confidence_interval.low, result.confidence_interval.high, method)


def bootstrap_ratio(sums: Sequence[float], counts: Sequence[float]) -> dict:
    """sum(sums) / sum(counts) (a mean over draws) with a bootstrap over rounds, which keeps the
    draws of one round together."""
    s, c = np.asarray(sums, dtype=float), np.asarray(counts, dtype=float)
    return _cached("ratio", (s, c), lambda: _bootstrap_ratio(s, c))


def _bootstrap_ratio(s: np.ndarray, c: np.ndarray) -> dict:
    from scipy.stats import bootstrap

    method = f"bootstrap percentile over rounds ({BOOTSTRAP_RESAMPLES} resamples)"
    if c.sum() == 0:
        return estimate(None, None, None, method)
    value = s.sum() / c.sum()
    rounds_with_draws = c > 0
    per_round = s[rounds_with_draws] / c[rounds_with_draws]
    if rounds_with_draws.sum() < 2 or np.all(per_round == per_round[0]):
        return estimate(value, value, value, method)
    with np.errstate(invalid="ignore", divide="ignore"):
        result = bootstrap((s, c), lambda a, b, axis=-1: a.sum(axis) / b.sum(axis), paired=True,
                           confidence_level=CONFIDENCE, n_resamples=BOOTSTRAP_RESAMPLES, method="percentile",
                           rng=_rng(s, c))
    return estimate(value, result.confidence_interval.low, result.confidence_interval.high, method)


def quantile_95(values: Sequence[int]) -> dict:
    """The 95th percentile with the distribution-free order-statistic interval (draws taken as independent)."""
    from scipy.stats import quantile_test

    method = "order statistics (scipy.stats.quantile_test)"
    x = np.asarray(values, dtype=float)
    if x.size == 0:
        return estimate(None, None, None, method)
    value = float(np.percentile(x, 95))
    interval = quantile_test(x, q=value, p=0.95).confidence_interval(CONFIDENCE)
    return estimate(value, interval.low, interval.high, method)


def scaled(entry: dict, factor: float) -> dict:
    return {**entry, **{key: None if entry[key] is None else entry[key] * factor for key in ("value", "low", "high")}}


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
    """Check ``results`` against ``scripts/results.schema.json`` (a bug in this script if it fails)."""
    import jsonschema

    jsonschema.validate(results, json.loads(SCHEMA_PATH.read_text()))


# --- files -----------------------------------------------------------------------------------------
def provenance() -> dict:
    """Where the numbers come from: git commit, Python and package versions, machine."""
    import platform
    from importlib import metadata

    def git(*args) -> str | None:
        try:
            done = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True, timeout=10)
        except (OSError, subprocess.SubprocessError):
            return None
        return done.stdout.strip() if done.returncode == 0 else None

    versions = {"python": platform.python_version()}
    for package in ("war-env", "gymnasium", "numpy", "scipy", "matplotlib", "tqdm", "stable-baselines3", "torch"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = None
    status = git("status", "--porcelain", "--untracked-files=no")
    return {
        "git_commit": git("rev-parse", "HEAD"),
        "git_dirty": None if status is None else bool(status),
        "versions": versions,
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
    }


# --- plots -----------------------------------------------------------------------------------------
def save_figure(figure, path: Path) -> None:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    write_atomic(path, buffer.getvalue())


def make_plots(league: League, indexed: dict, results: dict, run_dir: Path) -> dict[str, str]:
    """The three PNGs of the report; returns {file name: caption}."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    config = league.config
    plots = {}
    stats = {(p["agent"], p["opponent"]): p for p in results["pairings"]}

    figure, axes = plt.subplots(figsize=(2.2 + 1.6 * len(league.opponents), 4.5))
    width = 0.8 / len(league.agents)
    for a, agent in enumerate(league.agents):
        xs = np.arange(len(league.opponents)) + (a - (len(league.agents) - 1) / 2) * width
        entries = [stats[(agent, o)]["return"] for o in league.opponents]
        values = np.array([e["value"] for e in entries])
        errors = np.array([[e["value"] - e["low"] for e in entries], [e["high"] - e["value"] for e in entries]])
        axes.errorbar(xs, values, yerr=errors, fmt="o", capsize=3, label=agent)
    axes.set_xticks(np.arange(len(league.opponents)), league.opponents)
    axes.set_yscale("symlog", linthresh=1.0)
    axes.axhline(0, color="grey", linewidth=0.5)
    axes.set_xlabel("opponent")
    axes.set_ylabel("mean return per round (symlog)")
    axes.set_title(f"Mean return with {CONFIDENCE:.0%} bootstrap intervals, {league.rounds} paired rounds each")
    axes.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    save_figure(figure, run_dir / "return.png")
    plt.close(figure)
    plots["return.png"] = "mean return per agent and opponent, with 95% intervals"

    with_draws = [a for a in league.agents if any(indexed[(a, o, i)].reaction_ticks
                                                   for o in league.opponents for i in range(league.rounds))]
    if with_draws:
        figure, axes = plt.subplots(1, len(with_draws), figsize=(3.2 * len(with_draws), 3.2), squeeze=False)
        edges = np.arange(config.turn_ticks + 1) - 0.5
        for axis, agent in zip(axes[0], with_draws):
            counts = np.zeros(config.turn_ticks)
            for o in league.opponents:
                for i in range(league.rounds):
                    counts += np.bincount(indexed[(agent, o, i)].reaction_ticks, minlength=config.turn_ticks)
            axis.stairs(counts / counts.sum(), edges, fill=True)
            axis.set_title(agent, fontsize="small")
            axis.set_xlabel(f"reaction (ticks of {config.tick_seconds} s)")
        axes[0][0].set_ylabel("share of the agent's own draws")
        figure.suptitle("Reaction times of the agents' own draws (all opponents)")
        save_figure(figure, run_dir / "reaction_ticks.png")
        plt.close(figure)
        plots["reaction_ticks.png"] = "histogram of each agent's reaction times, in ticks after its turn opened"

    figure, axes = plt.subplots(1, len(league.opponents), figsize=(3.6 * len(league.opponents), 3.4),
                                squeeze=False, sharey=True)
    all_ticks = [r.ticks for r in indexed.values()]
    bins = np.geomspace(max(1, min(all_ticks)), max(all_ticks) + 1, 40)
    for axis, opponent in zip(axes[0], league.opponents):
        for agent in league.agents:
            counts, _ = np.histogram([indexed[(agent, opponent, i)].ticks for i in range(league.rounds)], bins=bins)
            axis.stairs(counts, bins, label=agent)
        axis.set_xscale("log")
        axis.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        axis.set_title(f"vs {opponent}", fontsize="small")
        axis.set_xlabel("ticks per round")
    axes[0][0].set_ylabel("rounds")
    axes[0][-1].legend(fontsize="x-small")
    figure.suptitle("Round length")
    save_figure(figure, run_dir / "round_length.png")
    plt.close(figure)
    plots["round_length.png"] = "distribution of round length in ticks, per opponent and agent"
    return plots


# --- the report ------------------------------------------------------------------------------------
def fmt(entry: dict | None, digits: int = 3) -> str:
    if entry is None or entry["value"] is None:
        return "–"
    if entry["low"] is None:
        return f"{entry['value']:.{digits}f}"
    return f"{entry['value']:.{digits}f} [{entry['low']:.{digits}f}, {entry['high']:.{digits}f}]"


def _rounds_for_width(width: float, rate: float = 0.5) -> int:
    """Rounds after which a 95% interval on a rate near ``rate`` is ``width`` wide (normal approximation)."""
    return math.ceil((2 * 1.96) ** 2 * rate * (1 - rate) / width**2)


def _session_text(session: dict) -> str:
    return (f"{session['rounds_played']} rounds with {session['workers']} worker(s) in {session['seconds']:.1f} s, "
            f"{session['rounds_per_second']:.1f} rounds/s")


def render_report(results: dict, run: dict, plots: dict[str, str]) -> str:
    league = results["config"]
    prov = run["provenance"]
    stats = {(p["agent"], p["opponent"]): p for p in results["pairings"]}
    agents, opponents = league["agents"], league["opponents"]
    played = sum(s["rounds_played"] for s in run["sessions"])
    seconds = sum(s["seconds"] for s in run["sessions"])
    non_default = {k: v for k, v in results["rules"].items() if getattr(WarConfig(), k) != v}
    lines = [
        "# War-v0 benchmark report",
        "",
        f"- agents: {', '.join(f'`{a}`' for a in agents)}",
        f"- opponents: {', '.join(f'`{o}`' for o in opponents)}",
        f"- rounds per pairing: {league['rounds']} (paired: {results['seeds']['rule']}, "
        f"seeds {results['seeds']['first']}..{results['seeds']['last']})",
        f"- rules: {'defaults' if not non_default else ', '.join(f'{k}={v}' for k, v in non_default.items())} "
        f"(turn {results['rules']['turn_seconds']} s = {round(results['rules']['turn_seconds'] / results['rules']['tick_seconds'])} "
        f"ticks of {results['rules']['tick_seconds']} s)",
        f"- config hash: `{results['config_hash']}`",
        f"- git commit: `{prov['git_commit']}`{' (working tree had uncommitted changes)' if prov['git_dirty'] else ''}",
        "- versions: " + ", ".join(f"{k} {v}" for k, v in prov["versions"].items() if v is not None),
        f"- machine: {prov['platform']}, {prov['cpus']} CPUs",
        f"- speed: {played} rounds played in {seconds:.1f} s = **{played / seconds if seconds else float('nan'):.1f} rounds/s** "
        f"({'; '.join(_session_text(session) for session in run['sessions'])})",
        "",
        "## How to read this",
        "",
        f"Every number comes with a {results['confidence_level']:.0%} interval `value [low, high]`. Rates (win, draw, "
        "loss, takeovers, end reasons) use the Wilson score interval; means per round (return, false starts, "
        f"battles, wars, ticks) a percentile bootstrap over rounds ({BOOTSTRAP_RESAMPLES} resamples, fixed RNG); the "
        "mean reaction time a bootstrap over rounds of the ratio (sum of reaction ticks / number of draws); the "
        "95th percentile of reaction time the order-statistic interval (draws treated as independent). "
        "Return is the agent's summed reward over a round (win +1, loss -1, takeover -1, false start -0.1, "
        "idle tick -0.001 with the default rules). Reaction times count the agent's own draws only, in ticks "
        "after its turn opened (seconds = ticks x tick length).",
        "",
        "Deals are paired: round i of every pairing has the same deal, starter and round key, and the cards "
        "of a round never depend on timing. So the card outcome (winner, battles, wars, points) of round i is "
        "the same in every pairing"
        + (" (checked on this run: identical in all pairings)." if results["paired_card_outcomes_identical"]
           else " - **but this run found pairings that differ; something is wrong**.")
        + " Win rates therefore measure the deals, not the agents; agents differ by what timing costs them "
        "(false starts, idle ticks, takeovers). The differences to the reference agent below are paired.",
        "",
        f"Widest win-rate interval: {results['widest_win_rate_interval']:.3f} "
        f"(target < {results['win_rate_target_width']}: "
        f"{'met' if results['widest_win_rate_interval'] < results['win_rate_target_width'] else 'NOT met'}; "
        f"a win rate near 1/2 needs about {_rounds_for_width(results['win_rate_target_width'])} rounds per pairing for it).",
        "",
        "## Mean return per round",
        "",
        "| agent | " + " | ".join(f"vs {o}" for o in opponents) + " | all opponents |",
        "|---|" + "---|" * (len(opponents) + 1),
    ]
    overall = {entry["agent"]: entry["return"] for entry in results["agents"]}
    for agent in agents:
        lines.append(f"| `{agent}` | " + " | ".join(fmt(stats[(agent, o)]["return"]) for o in opponents)
                     + f" | {fmt(overall[agent])} |")
    reference = results["reference_agent"]
    lines += ["", f"## Return minus `{reference}`'s on the same rounds (paired bootstrap)", "",
              "| agent | " + " | ".join(f"vs {o}" for o in opponents) + " |", "|---|" + "---|" * len(opponents)]
    for agent in agents:
        if agent != reference:
            lines.append(f"| `{agent}` | " + " | ".join(fmt(stats[(agent, o)]["return_minus_reference"]) for o in opponents) + " |")
    lines += ["", "## Outcomes and takeovers", "",
              "| agent | opponent | win | draw | loss | agent taken over | opponent taken over |", "|---|---|---|---|---|---|---|"]
    for agent in agents:
        for o in opponents:
            p = stats[(agent, o)]
            lines.append(f"| `{agent}` | `{o}` | {fmt(p['win'])} | {fmt(p['draw'])} | {fmt(p['loss'])} | "
                         f"{fmt(p['agent_takeover'])} | {fmt(p['opponent_takeover'])} |")
    lines += ["", "## Timing", "",
              "| agent | opponent | false starts / round | draws | mean reaction, ticks | p95 reaction, ticks | "
              "mean reaction, s | p95 reaction, s |", "|---|---|---|---|---|---|---|---|"]
    for agent in agents:
        for o in opponents:
            p = stats[(agent, o)]
            r = p["reaction"]
            lines.append(f"| `{agent}` | `{o}` | {fmt(p['false_starts_per_round'], 2)} | {r['draws']} | "
                         f"{fmt(r['mean_ticks'], 2)} | {fmt(r['p95_ticks'], 1)} | {fmt(r['mean_seconds'], 3)} | "
                         f"{fmt(r['p95_seconds'], 2)} |")
    reasons = sorted({reason for p in results["pairings"] for reason in p["reasons"]})
    lines += ["", "## Round length and how rounds ended", "",
              "| agent | opponent | battles / round | wars / round | ticks / round | "
              + " | ".join(reasons) + " |", "|---|---|---|---|---|" + "---|" * len(reasons)]
    for agent in agents:
        for o in opponents:
            p = stats[(agent, o)]
            lines.append(f"| `{agent}` | `{o}` | {fmt(p['battles_per_round'], 1)} | {fmt(p['wars_per_round'], 2)} | "
                         f"{fmt(p['ticks_per_round'], 0)} | " + " | ".join(fmt(p["reasons"][x]) for x in reasons) + " |")
    lines += ["", "## Plots", ""]
    for name, caption in plots.items():
        lines += [f"![{caption}]({name})", "", f"*{caption}*", ""]
    lines += ["## Files", "",
              "- `results.json`: these numbers for programs (schema: `scripts/results.schema.json` in the repository)",
              "- `rounds.jsonl`: one line per round (`war_env.records.RoundRecord`)",
              "- `config.json`: the league; `run.json`: provenance and timing", ""]
    return "\n".join(lines)


# --- the run -----------------------------------------------------------------------------------------
@dataclass
class BenchmarkRun:
    run_dir: Path
    results: dict
    rounds_played: int
    """Rounds played by this call (fewer than the league's when resuming)."""
    seconds: float
    rounds_per_second: float | None


def check_players(league: League) -> None:
    """Build every agent and opponent once, so a bad spec fails before any round is played."""
    config = league.config
    for spec in league.agents:
        make_agent(spec, config=config)
    for spec in league.opponents:
        make_opponent(spec, config)


def main(
    agents: Sequence[str] | None = None,
    opponents: Sequence[str] | None = None,
    rounds: int | None = None,
    seed: int | None = None,
    env_kwargs: dict | None = None,
    out: str | Path | None = None,
    workers: int = 1,
    resume: str | Path | None = None,
    shard_rounds: int = DEFAULT_SHARD_ROUNDS,
    progress: bool = True,
    backend: str = "local",
    address: str | None = None,
) -> BenchmarkRun:
    """Play the league (or the rest of the run in ``resume``) and write the report files.
    ``backend="ray"`` plays the shards as Ray tasks (``scripts/ray_backend.py``; ``workers`` = tasks
    in flight) on the cluster at ``address``, or on a local Ray instance without one."""
    for name, value, minimum in (("workers", workers, 1), ("shard_rounds", shard_rounds, 1)):
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise ValueError(f"{name} must be a whole number >= {minimum}, got {value!r}")
    if backend not in ("local", "ray") or (address is not None and backend != "ray"):
        raise ValueError(f"backend must be 'local' or 'ray' (an address only with 'ray'), got {backend!r}, "
                         f"address {address!r}")
    if resume is not None:
        given = [name for name, value in (("agents", agents), ("opponents", opponents), ("rounds", rounds),
                                          ("seed", seed), ("env_kwargs", env_kwargs), ("out", out)) if value is not None]
        if given:
            raise ValueError(f"a resumed run takes its league from {resume}/config.json; do not also give {given}")
        run_dir = Path(resume)
        if not (run_dir / "config.json").is_file():
            raise FileNotFoundError(f"{run_dir} is not a benchmark run folder (no config.json)")
        league = League.from_dict(json.loads((run_dir / "config.json").read_text())["league"])
    else:
        league = League(tuple(agents or BASELINES), tuple(opponents or DEFAULT_OPPONENTS),
                        DEFAULT_ROUNDS if rounds is None else rounds, DEFAULT_SEED if seed is None else seed,
                        dict(env_kwargs or {}))
        run_dir = Path(out) if out is not None else Path("runs") / "bench" / datetime.now().strftime("%Y%m%d-%H%M%S")
        if (run_dir / "config.json").exists():
            raise ValueError(f"{run_dir} already holds a run: continue it with --resume {run_dir}, or choose another --out")
    check_players(league)
    run_dir.mkdir(parents=True, exist_ok=True)
    if resume is None:
        write_atomic(run_dir / "config.json",
                     json.dumps({"league": league.to_dict(), "config_hash": league.config_hash()}, indent=2) + "\n")

    rounds_path = run_dir / "rounds.jsonl"
    done = index_records(read_rounds(rounds_path, repair=True), league)
    shards = make_shards(league, set(done), shard_rounds)
    todo = sum(len(shard.rounds) for shard in shards)
    started_at = datetime.now(timezone.utc).isoformat(timespec="seconds")
    started = time.perf_counter()
    _play(shards, todo, workers, rounds_path, run_dir, progress, backend, address)
    seconds = time.perf_counter() - started

    indexed = index_records(read_rounds(rounds_path), league)
    expected = len(league.agents) * len(league.opponents) * league.rounds
    if len(indexed) != expected:
        raise RuntimeError(f"{rounds_path} holds {len(indexed)} of {expected} rounds after playing; cannot report")
    results = summarise(league, indexed)
    validate_results(results)
    write_atomic(run_dir / "results.json", json.dumps(results, indent=2) + "\n")

    run_path = run_dir / "run.json"
    run = json.loads(run_path.read_text()) if run_path.exists() else {"sessions": []}
    run["provenance"] = provenance()
    rate = todo / seconds if todo and seconds > 0 else None
    if todo:
        run["sessions"].append({"started_at": started_at, "backend": backend, "workers": workers, "rounds_played": todo,
                                "seconds": round(seconds, 3), "rounds_per_second": rate})
    write_atomic(run_path, json.dumps(run, indent=2) + "\n")
    plots = make_plots(league, indexed, results, run_dir)
    write_atomic(run_dir / "report.md", render_report(results, run, plots))
    return BenchmarkRun(run_dir, results, todo, seconds, rate)


def _play(shards: list[Shard], todo: int, workers: int, rounds_path: Path, run_dir: Path, progress: bool,
          backend: str = "local", address: str | None = None) -> None:
    from tqdm import tqdm

    with open(rounds_path, "a", encoding="utf-8") as log, \
            tqdm(total=todo, unit="round", disable=not progress, desc="league", smoothing=0.05) as bar:

        def record_round(record: RoundRecord) -> None:
            log.write(record.to_json() + "\n")  # one write per line, flushed: a crash cuts at most this line
            log.flush()
            bar.update()

        try:
            if backend == "ray":  # Ray is imported by scripts/ray_backend.py only
                from scripts.ray_backend import run_on_ray

                run_on_ray(shards, workers, record_round, run_dir, address)
            else:
                run_shards(shards, workers, record_round)
        except KeyboardInterrupt:
            bar.close()
            print(f"\ninterrupted: every finished round is in {rounds_path}; continue with: "
                  f"war-bench --resume {run_dir}", file=sys.stderr)
            raise
        os.fsync(log.fileno())


def _env_kwargs(items: list[str] | None) -> dict | None:
    if not items:
        return None
    kwargs: dict = {}
    for item in items:
        kwargs.update(parse_spec(f"env:{item}")[1])
    return kwargs


def cli(argv: list[str] | None = None) -> int:
    """The ``war-bench`` command; returns the exit status for ``sys.exit`` (``main`` returns the run)."""
    parser = argparse.ArgumentParser(
        prog="war-bench", description="Play a league of agents against opponents on paired rounds and write a report.")
    parser.add_argument("--agents", nargs="+", metavar="SPEC", default=None,
                        help=f"agent specs (default: {' '.join(BASELINES)})")
    parser.add_argument("--opponents", nargs="+", metavar="SPEC", default=None,
                        help=f"opponent bot or agent specs (default: {' '.join(DEFAULT_OPPONENTS)})")
    parser.add_argument("--rounds", type=int, default=None, help=f"rounds per pairing (default: {DEFAULT_ROUNDS})")
    parser.add_argument("--seed", type=int, default=None, help=f"round i uses seed + i (default: {DEFAULT_SEED})")
    parser.add_argument("--env", action="append", metavar="KEY=VALUE[,KEY=VALUE]",
                        help="War-v0 rule/timer/reward arguments, e.g. --env turn_seconds=2,reward_idle_tick=0")
    parser.add_argument("--out", default=None, help="run folder (default: runs/bench/<date-time>)")
    parser.add_argument("--workers", type=int, default=DEFAULT_WORKERS,
                        help="worker processes (results do not depend on it; default: the number of CPUs)")
    parser.add_argument("--resume", metavar="RUN", default=None, help="continue the interrupted run in folder RUN")
    parser.add_argument("--shard-rounds", type=int, default=DEFAULT_SHARD_ROUNDS, help="rounds per task")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--backend", choices=("local", "ray"), default="local",
                        help="local worker processes, or Ray tasks (--workers = tasks in flight; needs the distributed extra)")
    parser.add_argument("--address", default=None,
                        help="with --backend ray: the cluster (auto, HOST:PORT, ray://HOST:10001); default: a local Ray instance")
    args = parser.parse_args(argv)
    try:
        run = main(args.agents, args.opponents, args.rounds, args.seed, _env_kwargs(args.env), args.out,
                   args.workers, args.resume, args.shard_rounds, progress=not args.quiet, backend=args.backend,
                   address=args.address)
    except KeyboardInterrupt:
        raise SystemExit(130) from None
    except RuntimeError as error:  # e.g. shards that failed on every retry (scripts/ray_backend.py)
        raise SystemExit(f"war-bench: {error}") from None
    except (ValueError, TypeError, FileNotFoundError) as error:
        parser.error(str(error))
    speed = f", {run.rounds_per_second:.1f} rounds/s" if run.rounds_per_second else ""
    print(f"played {run.rounds_played} rounds in {run.seconds:.1f} s{speed}")
    print(f"report: {run.run_dir / 'report.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(cli())
