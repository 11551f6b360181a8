"""Worker processes: a worker that dies is noticed, its unfinished rounds are played again on a new one
with the same records, a shard that kills every worker fails in one line, and --workers is capped by the
work and the machine."""

import contextlib
import functools
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from war_env.league import ROUNDS_FILE, Shard, play_shard, read_rounds, run_league
from war_env.league.workers import MAX_ATTEMPTS, WorkerDied, run_shards, usable_cpus, worker_cap

SHARDS = [
    Shard("random:p=0.2", "human", (), tuple((i, 50 + i) for i in range(start, start + 6))) for start in (0, 6, 12)
]


def _key(record):
    return record.agent, record.opponent, record.round


def _played_here(shards):
    return sorted((record for shard in shards for record in play_shard(shard)), key=_key)


def _signals_itself_once(signal_number: int, marks: Path, at_round: int, shard, on_round):
    """Plays like ``play_shard``, but the first worker to send ``at_round`` sends itself ``signal_number`` right
    after it (SIGKILL: it dies; SIGSTOP: it stops), leaving a mark in ``marks`` named after the signal."""

    def send(record):
        on_round(record)
        mark = marks / signal.Signals(signal_number).name
        if record.round == at_round and not mark.exists():
            mark.touch()
            os.kill(os.getpid(), signal_number)

    return play_shard(shard, on_round=send)


def _always_dies(at_round: int, shard, on_round):
    """A shard holding ``at_round`` kills its worker every time (a model that crashes its process)."""
    if any(index == at_round for index, _ in shard.rounds):
        os.kill(os.getpid(), signal.SIGKILL)
    return play_shard(shard, on_round=on_round)


@pytest.mark.slow
def test_a_worker_killed_in_the_middle_of_a_shard_is_replaced_and_its_rounds_replayed(tmp_path, capsys):
    received = []
    dies_once = functools.partial(_signals_itself_once, signal.SIGKILL, tmp_path, 8)
    run_shards(SHARDS, workers=2, sink=received.append, player=dies_once)
    assert (tmp_path / "SIGKILL").exists()  # the mark of the worker that killed itself
    assert sorted(received, key=_key) == _played_here(SHARDS)  # every round once, the same records
    assert "unfinished round(s) are played again on a new worker" in capsys.readouterr().err


def test_a_stopped_worker_is_treated_as_dead_and_its_rounds_replayed(tmp_path, capsys):
    """Issue 31: a worker stopped with kill -STOP hung the league (still running at 100 s against 33 s)."""
    received = []
    started = time.monotonic()
    stops_once = functools.partial(_signals_itself_once, signal.SIGSTOP, tmp_path, 8)
    run_shards(SHARDS, workers=2, sink=received.append, player=stops_once, stall_seconds=3)
    assert (tmp_path / "SIGSTOP").exists()  # the mark of the worker that stopped itself
    assert sorted(received, key=_key) == _played_here(SHARDS)  # every round once, the same records
    assert (
        "a worker sent nothing for 3 s (stopped, or hung) and was killed; its 3 unfinished round(s) are played "
        "again on a new worker" in capsys.readouterr().err
    )
    assert time.monotonic() - started < 60


def test_a_shard_that_kills_every_worker_fails_in_one_line_and_the_other_rounds_arrive():
    received = []
    with pytest.raises(WorkerDied) as failure:
        run_shards(SHARDS, workers=2, sink=received.append, player=functools.partial(_always_dies, 13))
    message = str(failure.value)
    assert "\n" not in message
    assert f"died {MAX_ATTEMPTS} times playing random:p=0.2 vs human, rounds 12..17" in message
    assert "SIGKILL" in message
    assert {record.round for record in received} == set(range(12))


def test_an_error_in_a_worker_is_raised_as_it_is_not_retried():
    bad = Shard("prompt", "nobody", (), ((0, 1),))
    with pytest.raises(ValueError, match="unknown opponent 'nobody'"):
        run_shards([*SHARDS, bad], workers=2, sink=lambda record: None)


def _workers_of(pid: int) -> list[int]:
    found = subprocess.run(["pgrep", "-P", str(pid), "-f", "spawn_main"], capture_output=True, text=True).stdout
    return [int(child) for child in found.split()]


@pytest.mark.slow
def test_war_bench_survives_a_worker_killed_with_sigkill_and_reports_the_same_results(tmp_path):
    """What a user sees when the out-of-memory killer takes a worker: the run goes on and its report is
    byte for byte the one of a run nobody disturbed."""
    league = ["--agents", "random:p=0.2", "--opponents", "human", "--rounds", "400", "--seed", "5"]
    killed = tmp_path / "killed"
    command = [
        sys.executable,
        "-m",
        "war_env.scripts.benchmark",
        *league,
        "--out",
        str(killed),
        "--quiet",
        "--shard-rounds",
        "100",
        "--workers",
        "2",
    ]
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path, start_new_session=True
    )
    try:
        log, victim, deadline = killed / ROUNDS_FILE, None, time.monotonic() + 120
        while victim is None and process.poll() is None and time.monotonic() < deadline:
            workers = _workers_of(process.pid)
            if (
                len(workers) == 2 and log.exists() and sum(r.agent == "random:p=0.2" for r in read_rounds(log)) >= 20
            ):  # both workers mid-shard
                victim = workers[0]
                os.kill(victim, signal.SIGKILL)
            time.sleep(0.02)
        out, err = process.communicate(timeout=60)  # on main before the fix: waited forever
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
    assert victim is not None, "the run ended before a worker could be killed"
    assert process.returncode == 0, err[-2000:]
    assert "was killed by SIGKILL" in err and "played again on a new worker" in err
    whole = run_league(
        agents=["random:p=0.2"], opponents=["human"], rounds=400, seed=5, out=tmp_path / "whole", progress=False
    )
    assert (killed / "results.json").read_bytes() == (whole.run_dir / "results.json").read_bytes()
    assert len(read_rounds(log)) == 800  # the oracle plays too; no round twice


def test_the_workers_of_a_parent_killed_with_sigkill_end_quietly(tmp_path):
    """Issue 31: after kill -9 of war-bench its workers printed four BrokenPipe tracebacks."""
    league = ["--agents", "random:p=0.2", "--opponents", "human", "--rounds", "400", "--seed", "5"]
    out, err = tmp_path / "run", tmp_path / "stderr"
    command = [
        sys.executable,
        "-m",
        "war_env.scripts.benchmark",
        *league,
        "--out",
        str(out),
        "--quiet",
        "--shard-rounds",
        "2",
        "--workers",
        "2",
    ]
    with open(err, "w") as stderr:
        process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=stderr, cwd=tmp_path, start_new_session=True
        )
    try:
        log, workers, deadline = out / ROUNDS_FILE, [], time.monotonic() + 120
        while not workers and process.poll() is None and time.monotonic() < deadline:
            if log.exists() and sum(r.agent == "random:p=0.2" for r in read_rounds(log)) >= 10:  # sending rounds
                workers = _workers_of(process.pid)
            time.sleep(0.02)
        assert len(workers) == 2, "the run ended before its parent could be killed"
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        deadline = time.monotonic() + 30
        while any(_exists(worker) for worker in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
    assert not any(_exists(worker) for worker in workers)
    assert "Traceback" not in err.read_text() and "BrokenPipe" not in err.read_text(), err.read_text()[-2000:]


_PARENT = """
import os, sys, threading, time
from war_env.league import Shard
from war_env.league.workers import run_shards

def player(shard, on_round):
    parent = os.getppid()

    def write_to_the_parent():  # an agent's helper thread: its pipe breaks when the parent dies
        while os.getppid() == parent:
            time.sleep(0.01)
        raise BrokenPipeError(32, "Broken pipe")

    threading.Thread(target=write_to_the_parent).start()
    open(os.path.join(sys.argv[1], str(os.getpid())), "w").close()  # playing
    time.sleep(60)

if __name__ == "__main__":
    run_shards([Shard("prompt", "human", (), ((i, i),)) for i in range(2)], 2, print, player)
"""


def test_no_thread_of_a_worker_prints_a_traceback_after_its_parent_is_killed_with_sigkill(tmp_path):
    """A worker whose parent is gone ends quietly whichever of its threads the broken pipe reaches first:
    the group's stderr has no traceback, and no worker is left."""
    (tmp_path / "parent.py").write_text(_PARENT)
    marks, err = tmp_path / "playing", tmp_path / "stderr"
    marks.mkdir()
    with open(err, "w") as stderr:
        process = subprocess.Popen(
            [sys.executable, str(tmp_path / "parent.py"), str(marks)],
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            cwd=tmp_path,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 60
        while len(list(marks.iterdir())) < 2 and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        workers = [int(mark.name) for mark in marks.iterdir()]
        assert len(workers) == 2, "the workers did not start playing: " + err.read_text()[-2000:]
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        deadline = time.monotonic() + 10
        while any(_exists(worker) for worker in workers) and time.monotonic() < deadline:
            time.sleep(0.02)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
    assert not any(_exists(worker) for worker in workers)
    assert "Traceback" not in err.read_text(), err.read_text()[-2000:]


def _exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


# --- how many workers --------------------------------------------------------------------------------
def test_workers_are_capped_by_the_shards_and_the_cpus_and_the_cap_is_said():
    one_shard = SHARDS[:1]
    assert worker_cap(100_000, one_shard) == (
        1,
        f"--workers 100000 capped at 1: 1 shard(s) to play on {usable_cpus()} CPU(s)",
    )
    many = SHARDS * 100
    assert worker_cap(100_000, many)[0] == usable_cpus()
    assert worker_cap(1, many) == (1, None)


@pytest.mark.slow
def test_war_bench_with_a_hundred_thousand_workers_for_one_round_starts_one(tmp_path):
    command = [
        sys.executable,
        "-m",
        "war_env.scripts.benchmark",
        "--agents",
        "prompt",
        "--opponents",
        "human",
        "--rounds",
        "1",
        "--workers",
        "100000",
        "--quiet",
        "--out",
        str(tmp_path / "run"),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    workers = min(2, usable_cpus())  # the oracle plays too: two shards of one round
    assert (
        f"war-bench: --workers 100000 capped at {workers}: 2 shard(s) to play on {usable_cpus()} CPU(s)"
        in done.stderr.splitlines()
    )
    session = json.loads((tmp_path / "run" / "run.json").read_text())["sessions"][-1]
    assert session["workers"] == workers
