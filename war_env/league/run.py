"""A benchmark run: play the league's rounds into a run folder, then write results, report and plots.

A run folder holds ``config.json`` (what to play), ``rounds.jsonl.gz`` (one record per round, appended
and flushed as rounds finish, ``war_env.league.rounds_file``; ``resume`` continues from it), then
``results.json`` (the numbers, schema ``war_env/data/results.schema.json``), ``report.md`` (the same
for people), ``run.json`` (versions, commit, timing) and PNG plots. Report files are written atomically.

Everything is checked before the folder is made (the league, every player); a folder whose run
stopped before its first round (Ray could not be reached, say) is started again by the same command.
A run holds the folder's lock (``war_env.support.run_folder``) from its first read to its report.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from war_env.agents import BASELINES, Agent, check_commands_restated, make_agent, make_opponent, uses_opponent
from war_env.core.rules import WarConfig
from war_env.evaluation import observation_game
from war_env.evaluation.records import RoundRecord
from war_env.league.compute import MachineWatch, compute_summary, machine_while_playing
from war_env.league.league import (
    DEFAULT_OPPONENTS,
    DEFAULT_ROUNDS,
    DEFAULT_SEED,
    DEFAULT_SHARD_ROUNDS,
    League,
    Shard,
    make_shards,
    with_oracle,
)
from war_env.league.plots import PLOTS, make_plots
from war_env.league.report import ReportProgress, render_report
from war_env.league.results import summarise, validate_results
from war_env.league.rounds_file import ROUNDS_FILE, RoundsWriter, load_rounds, read_rounds
from war_env.league.stats import BOOTSTRAP_RESAMPLES
from war_env.league.workers import WorkerDied, run_shards, worker_cap
from war_env.support.atomic import write_atomic
from war_env.support.provenance import provenance
from war_env.support.run_folder import (
    RunFolderConflict,
    locked_run_folder,
    read_settings,
    record_session,
    refuse_started,
    write_settings,
)

CONFIG_FILE = "config.json"
RECORD_BYTES = 200
"""Disk per round in the rounds file, with room to spare: 90 bytes measured (a default league, gzip)."""
REPORT_BYTES = 1000
"""Memory per round of the report, with room to spare (docs/results/benchmark.md, "The report's memory"), above a
floor of ``REPORT_FLOOR_BYTES`` (the libraries)."""
REPORT_FLOOR_BYTES = 500_000_000
REPORT_STAGES = 4 + len(PLOTS)
"""The stages of writing a run's report that ``ReportProgress`` announces: reading the rounds, summarising them,
results.json, each plot, report.md."""


@dataclass
class BenchmarkRun:
    run_dir: Path
    results: dict
    rounds_played: int
    """Rounds played by this call (fewer than the league's when resuming)."""
    seconds: float
    rounds_per_second: float | None


def check_players(league: League, trust_model_file: bool = False) -> None:
    """Build every agent and opponent once (an agent built for its opponent, the ``oracle``, once per
    opponent), so a bad spec fails before any round is played (an ``exec:`` program is started, greeted and
    closed), and a model that sees a field the league's game does not show fails before the run folder is
    written (``observation_game``)."""
    config = league.config
    players = [make_opponent(spec, config=config, trust_model_file=trust_model_file) for spec in league.opponents]
    for spec in league.agents:
        for player in players if uses_opponent(spec) else [None]:
            agent = make_agent(spec, config=config, opponent=player, trust_model_file=trust_model_file)
            try:
                observation_game(league.env_id, config, agent)
            finally:
                agent.close()
    for player in players:
        if isinstance(player, Agent):  # an agent in seat 1 (an exec: program stops)
            player.close()


def run_league(
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
    trust_model_file: bool = False,
    realtime: bool = False,
    tick_seconds: float | None = None,
    env_id: str | None = None,
) -> BenchmarkRun:
    """Play the league (or the rest of the run in ``resume``) and write the report files. When every
    opponent is a bot the ``oracle`` plays too (first, unless listed) and is the reference of every regret.
    ``backend="ray"`` plays the shards as Ray tasks (``war_env.league.ray_backend``; ``workers`` = tasks
    in flight) on the cluster at ``address``, or on a local Ray instance without one.
    ``trust_model_file`` lets SB3 unpickle the model files of model agents: it comes from the caller
    (``war-bench --trust-model-file``) for this session only and is never read from the run folder.
    ``realtime`` plays every round in real time (``war_env.envs.realtime.RealTime``), each tick
    ``tick_seconds`` of wall time (default: the rules' ``tick_seconds``).
    On ``resume``, ``agents`` and ``opponents`` may be given only to restate the league's ``exec:`` specs:
    a run folder never starts a program that the command line does not name (``check_exec_restated``).
    ``env_id`` names the game (``war_env.envs.games``: a probe's); by default the rules choose it."""
    for name, value, minimum in (("workers", workers, 1), ("shard_rounds", shard_rounds, 1)):
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise ValueError(f"{name} must be a whole number >= {minimum}, got {value!r}")
    if backend not in ("local", "ray") or (address is not None and backend != "ray"):
        raise ValueError(
            f"backend must be 'local' or 'ray' (an address only with 'ray'), got {backend!r}, address {address!r}"
        )
    if backend == "ray":  # Ray is imported by war_env.league.ray_backend only
        from war_env.league.ray_backend import check_reachable

        check_reachable(address)
    if tick_seconds is not None and not realtime:
        raise ValueError("tick_seconds is the length of a tick in real time: give it with realtime (--realtime)")
    if resume is not None:
        given = [
            name
            for name, value in (
                ("rounds", rounds),
                ("seed", seed),
                ("env_kwargs", env_kwargs),
                ("out", out),
                ("realtime", realtime or None),
                ("env_id", env_id),
            )
            if value is not None
        ]
        if given:
            raise ValueError(f"a resumed run takes its league from {resume}/{CONFIG_FILE}; do not also give {given}")
        run_dir = Path(resume)
        league = read_league(run_dir)
        check_exec_restated(league, agents or (), opponents or (), run_dir)
    else:
        opponents = tuple(opponents or DEFAULT_OPPONENTS)
        env_kwargs = dict(env_kwargs or {})
        seconds = (tick_seconds or WarConfig.from_kwargs(env_kwargs).tick_seconds) if realtime else None
        league = League(
            with_oracle(tuple(agents or BASELINES), opponents),
            opponents,
            DEFAULT_ROUNDS if rounds is None else rounds,
            DEFAULT_SEED if seed is None else seed,
            env_kwargs,
            seconds,
            env_id,
        )
        run_dir = Path(out) if out is not None else Path("runs") / "bench" / datetime.now().strftime("%Y%m%d-%H%M%S")
    check_room(league, run_dir)
    check_players(league, trust_model_file)
    if league.realtime is not None and workers > 1:
        print(
            f"war-bench: real time with {workers} workers: they share this machine's CPUs, and their contention "
            "counts in the agents' compute times (measure with --workers 1)",
            file=sys.stderr,
        )
    with locked_run_folder(run_dir, "war-bench"):
        if resume is None:
            _start_folder(run_dir, league)
        return _run(league, run_dir, workers, shard_rounds, progress, backend, address, trust_model_file)


def check_room(league: League, run_dir: Path) -> None:
    """Refuse a league whose rounds file would not fit on the disk of ``run_dir``, or whose report would not
    fit in this machine's memory, before anything is written (``League`` itself caps the rounds)."""
    disk = RECORD_BYTES * league.records
    free = shutil.disk_usage(_nearest_existing(run_dir)).free
    if disk > free:
        raise ValueError(
            f"a league of {league.records:,} rounds needs about {disk / 1e9:,.1f} GB for its rounds file, "
            f"and {run_dir} has {free / 1e9:,.1f} GB free: play fewer --rounds"
        )
    memory = REPORT_FLOOR_BYTES + REPORT_BYTES * league.records
    total = _physical_memory()
    if total is not None and memory > total:
        raise ValueError(
            f"a league of {league.records:,} rounds needs about {memory / 1e9:,.1f} GB of memory for its "
            f"report, and this machine has {total / 1e9:,.1f} GB: play fewer --rounds"
        )


def _nearest_existing(path: Path) -> Path:
    path = path.absolute()
    while not path.exists():
        path = path.parent
    return path


def _physical_memory() -> int | None:
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):  # not on every system
        return None


def check_exec_restated(league: League, agents: Sequence[str], opponents: Sequence[str], run_dir: Path) -> None:
    """On ``--resume``: the league's ``exec:`` agents and opponents restated on the command line, and nothing else
    (``check_commands_restated``)."""
    for kind, stored, given in (("agents", league.agents, agents), ("opponents", league.opponents, opponents)):
        check_commands_restated(stored, given, f"{run_dir}/{CONFIG_FILE}", f"--{kind}", f"war-bench --resume {run_dir}")


def read_league(run_dir: Path) -> League:
    """The league of a run folder's ``config.json``; a missing or foreign file is an error naming it."""
    return read_run_config(run_dir, CONFIG_FILE, "league", League.from_dict, "benchmark")


def read_run_config(run_dir: Path, name: str, key: str, from_dict, folder: str):
    """``from_dict`` of the object under ``key`` in the run folder's frozen settings ``name`` (a league's, a
    suite's); a missing file, or one that is not such a config, is an error naming it."""
    recorded = read_settings(run_dir, name, what=f"{folder} run")
    try:
        return from_dict(recorded[key])
    except (ValueError, KeyError, TypeError) as error:
        detail = f"missing key {error}" if isinstance(error, KeyError) else f"{type(error).__name__}: {error}"
        raise RunFolderConflict(f"{run_dir / name} is not a war-bench {key}: {detail}") from None


def _start_folder(run_dir: Path, league: League) -> None:
    """Write config.json, unless the folder holds a run that played a round (then --resume continues it)."""
    played = any((run_dir / name).exists() for name in ("results.json", "rounds.jsonl")) or read_rounds(
        run_dir / ROUNDS_FILE
    )
    if played:
        refuse_started(run_dir, "a run", f"continue it with --resume {run_dir}, or choose another --out")
    write_settings(run_dir / CONFIG_FILE, {"league": league.to_dict(), "config_hash": league.config_hash()})


def _run(
    league: League,
    run_dir: Path,
    workers: int,
    shard_rounds: int,
    progress: bool,
    backend: str,
    address: str | None,
    trust_model_file: bool,
) -> BenchmarkRun:
    """Play what ``run_dir``'s rounds file lacks, then write results, plots and report."""
    if (run_dir / "rounds.jsonl").exists():
        raise ValueError(
            f"{run_dir} was written by war-env 0.2 or older, whose rounds file was rounds.jsonl: "
            f"compress it to continue the run (gzip {run_dir / 'rounds.jsonl'})"
        )
    rounds_path = run_dir / ROUNDS_FILE
    earlier = load_rounds(rounds_path, league, repair=True, replay=True, trust_model_file=trust_model_file)
    if earlier.duplicates:
        print(f"war-bench: {earlier.duplicates} repeated line(s) dropped from {rounds_path}", file=sys.stderr)
    shards = make_shards(league, earlier.done(), shard_rounds, trust_model_file)
    todo = sum(len(shard.rounds) for shard in shards)
    started_at = datetime.now(timezone.utc).isoformat(timespec="seconds")
    started = time.perf_counter()
    watch = MachineWatch()
    workers = _play(shards, todo, workers, rounds_path, run_dir, progress, backend, address)
    seconds = time.perf_counter() - started
    rate = todo / seconds if todo and seconds > 0 else None
    session = None  # nothing played this session: nothing to record, nothing measured
    if todo:
        session = {
            "started_at": started_at,
            "backend": backend,
            "workers": workers,
            "rounds_played": todo,
            "seconds": round(seconds, 3),
            "rounds_per_second": rate,
            "trust_model_file": trust_model_file,
            "machine": watch.stop(workers),
        }

    expected = len(league.agents) * len(league.opponents) * league.rounds
    report = ReportProgress(REPORT_STAGES, enabled=progress)
    report.stage(f"reading and checking the {expected:,} rounds of {rounds_path.name}")
    rounds = load_rounds(rounds_path, league)
    if len(rounds) != expected:
        raise RuntimeError(f"{rounds_path} holds {len(rounds)} of {expected} rounds after playing; cannot report")
    replayed = {"replayed_on_resume": earlier.replayed} if earlier.replayed else {}  # checked by replaying them
    run = record_session(run_dir, session, provenance=provenance(), **replayed)
    report.stage(f"summarising them ({BOOTSTRAP_RESAMPLES:,} bootstrap resamples per interval)")
    results = summarise(league, rounds.pairings, reference=league.oracle_reference)
    if league.realtime is not None:  # the load of every session that played, a report-only one's included
        machine = machine_while_playing(run["sessions"])
        results["realtime"] = compute_summary(league, read_rounds(rounds_path), results, machine)
    report.stage("writing results.json")
    validate_results(results)
    write_atomic(run_dir / "results.json", json.dumps(results, indent=2) + "\n")
    plots = make_plots(league, rounds.pairings, results, run_dir, on_plot=lambda name: report.stage(f"plotting {name}"))
    report.stage("writing report.md")
    write_atomic(run_dir / "report.md", render_report(results, run, plots))
    return BenchmarkRun(run_dir, results, todo, seconds, rate)


def _play(
    shards: list[Shard],
    todo: int,
    workers: int,
    rounds_path: Path,
    run_dir: Path,
    progress: bool,
    backend: str = "local",
    address: str | None = None,
) -> int:
    """Play the shards into the rounds file; returns the workers that played them (capped by the work
    and the machine, or the Ray cluster, and said so on stderr when fewer than asked)."""
    from tqdm import tqdm

    if not shards:
        return workers
    if backend == "local":
        workers = _capped(worker_cap(workers, shards))
    with (
        RoundsWriter(rounds_path) as log,
        tqdm(total=todo, unit="round", disable=not progress, desc="league", smoothing=0.05) as bar,
    ):

        def record_round(record: RoundRecord) -> None:
            log.write(record)  # flushed: a crash loses at most this round
            bar.update()

        try:
            if backend == "ray":  # Ray is imported by war_env.league.ray_backend only
                from war_env.league.ray_backend import run_on_ray

                workers = run_on_ray(shards, workers, record_round, run_dir, address, on_cap=_capped)
            else:
                run_shards(shards, workers, record_round)
        except KeyboardInterrupt:
            bar.close()
            print(
                f"\ninterrupted: every finished round is in {rounds_path}; continue with: war-bench --resume {run_dir}",
                file=sys.stderr,
            )
            raise
        except WorkerDied as error:
            bar.close()
            raise WorkerDied(f"{error} in {rounds_path}; continue with: war-bench --resume {run_dir}") from None
    return workers


def _capped(cap: tuple[int, str | None]) -> int:
    workers, note = cap
    if note is not None:
        print(f"war-bench: {note}", file=sys.stderr)
    return workers
