"""The benchmark on Ray (a real local instance, 2 CPUs, no dashboard): the same results.json as the
local backend whatever the workers and finishing order, Ray's own retries, a shard that keeps
failing reported (not dropped), and a killed driver resumed to the results of an uninterrupted run."""

import gzip
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from war_env.league import ROUNDS_FILE, League, make_shards, play_shard, ray_backend, read_rounds
from war_env.league import run_league as main
from war_env.league.ray_backend import ShardsFailed, run_shards_on_ray

ray = pytest.importorskip("ray")

ROOT = Path(__file__).resolve().parent.parent
SMALL = dict(agents=["prompt", "human", "random:p=0.2"], opponents=["human", "prompt"], rounds=8, seed=3)


@pytest.fixture(scope="session")
def ray_instance():
    """One local Ray instance for the session (shared with tests/test_tune.py if it started first)."""
    started = not ray.is_initialized()
    if started:
        ray.init(address="local", num_cpus=2, include_dashboard=False, logging_level="WARNING")
    yield ray.get_runtime_context().gcs_address
    if started:
        ray.shutdown()


@pytest.fixture(scope="module")
def local_small(tmp_path_factory):
    return main(**SMALL, out=tmp_path_factory.mktemp("local") / "run", workers=1, shard_rounds=3, progress=False)


def attempts_counted_in(folder: Path, fail_first: dict[tuple[str, str, int], int]):
    """A shard player that fails the first ``fail_first[(agent, opponent, first round)]`` attempts of a
    shard, counting attempts in files (the attempts happen in Ray's worker processes)."""

    def player(shard):
        key = f"{shard.agent}|{shard.opponent}|{shard.rounds[0][0]}"
        counter = folder / key.replace(":", "_").replace("|", "__")
        with open(counter, "a") as file:
            file.write("x")
        attempts = len(counter.read_text())
        if attempts <= fail_first.get((shard.agent, shard.opponent, shard.rounds[0][0]), 0):
            raise RuntimeError(f"injected failure of {key}, attempt {attempts}")
        return play_shard(shard)

    return player


def attempts(folder: Path, agent: str, opponent: str, first_round: int) -> int:
    counter = folder / f"{agent}__{opponent}__{first_round}".replace(":", "_")
    return len(counter.read_text()) if counter.exists() else 0


# --- the same numbers ---------------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("workers", [1, 2])
def test_ray_gives_the_same_results_json_as_the_local_backend(ray_instance, local_small, tmp_path, workers):
    on_ray = main(**SMALL, out=tmp_path / "ray", workers=workers, shard_rounds=3, progress=False, backend="ray")
    assert (on_ray.run_dir / "results.json").read_bytes() == (local_small.run_dir / "results.json").read_bytes()
    assert sorted(read_rounds(on_ray.run_dir / ROUNDS_FILE), key=repr) == sorted(
        read_rounds(local_small.run_dir / ROUNDS_FILE), key=repr
    )
    session = json.loads((on_ray.run_dir / "run.json").read_text())["sessions"][-1]
    assert session["backend"] == "ray" and session["workers"] == workers


@pytest.mark.slow
def test_shards_finishing_in_reverse_order_give_the_same_records(ray_instance):
    shards = make_shards(League(("prompt", "human"), ("human",), 9, 5), set(), 3)

    def slow_first(shard):  # the first shards sleep longest, so they finish last
        time.sleep(0.15 * (9 - shard.rounds[0][0]) / 3)
        return play_shard(shard)

    arrived = []
    run_shards_on_ray(shards, 2 * len(shards), arrived.append, player=slow_first)
    in_shard_order = [record for shard in shards for record in play_shard(shard)]
    assert arrived != in_shard_order  # the finishing order really differs
    assert sorted(arrived, key=repr) == sorted(in_shard_order, key=repr)


# --- retries and failures -----------------------------------------------------------------------------
@pytest.mark.slow
def test_a_task_that_raises_is_retried_by_ray(ray_instance, tmp_path):
    shards = make_shards(League(("prompt",), ("human",), 6, 0), set(), 3)
    player = attempts_counted_in(tmp_path, {("prompt", "human", 3): 2})
    arrived = []
    assert run_shards_on_ray(shards, 2, arrived.append, tmp_path, max_retries=2, player=player) == 6
    assert attempts(tmp_path, "prompt", "human", 3) == 3 and attempts(tmp_path, "prompt", "human", 0) == 1
    assert sorted(r.round for r in arrived) == list(range(6))
    assert not (tmp_path / ray_backend.FAILED_SHARDS_FILE).exists()


@pytest.mark.slow
def test_a_shard_that_keeps_failing_is_reported_and_the_run_resumes(
    ray_instance, local_small, tmp_path, monkeypatch, capsys
):
    counters = tmp_path / "attempts"
    counters.mkdir()
    failing = {("human", "prompt", 3): 100}
    monkeypatch.setattr(ray_backend, "SHARD_PLAYER", attempts_counted_in(counters, failing))
    run_dir = tmp_path / "run"
    with pytest.raises(ShardsFailed, match=r"1 shard\(s\) \(3 rounds\) failed after 4 attempt") as failed:
        main(**SMALL, out=run_dir, workers=2, shard_rounds=3, progress=False, backend="ray")
    assert attempts(counters, "human", "prompt", 3) == 4  # the first try and Ray's 3 retries (the default)
    report = json.loads((run_dir / "failed_shards.json").read_text())["failed_shards"]
    assert [(f["agent"], f["opponent"], f["rounds"], f["attempts"]) for f in report] == [
        ("human", "prompt", [3, 4, 5], 4)
    ]
    assert "injected failure of human|prompt|3" in report[0]["error"] and failed.value.failures[0].rounds == (3, 4, 5)
    played = {(r.agent, r.opponent, r.round) for r in read_rounds(run_dir / ROUNDS_FILE)}
    assert len(played) == 3 * 2 * 8 - 3 and not played & {("human", "prompt", i) for i in (3, 4, 5)}
    assert not (run_dir / "results.json").exists()  # no report from incomplete data

    from war_env.scripts.benchmark import cli

    capsys.readouterr()
    assert cli(["--resume", str(run_dir), "--backend", "ray", "--quiet"]) == 1  # the command line says so
    assert "failed after 4 attempt" in capsys.readouterr().err

    monkeypatch.setattr(ray_backend, "SHARD_PLAYER", play_shard)  # the cause is fixed
    resumed = main(resume=run_dir, progress=False, backend="ray")
    assert resumed.rounds_played == 3 and not (run_dir / "failed_shards.json").exists()
    assert (run_dir / "results.json").read_bytes() == (local_small.run_dir / "results.json").read_bytes()


def killed_once_at(marks: Path, shard_start: int):
    """A shard player whose worker process is killed (SIGKILL) on the first attempt of one shard."""

    def player(shard):
        if shard.rounds[0][0] == shard_start and not (marks / "killed").exists():
            (marks / "killed").touch()
            os.kill(os.getpid(), signal.SIGKILL)
        return play_shard(shard)

    return player


@pytest.mark.slow
def test_a_killed_ray_worker_process_is_replaced_and_its_shard_played_again(ray_instance, tmp_path):
    shards = make_shards(League(("random:p=0.2",), ("human",), 9, 4), set(), 3)
    arrived = []
    assert run_shards_on_ray(shards, 2, arrived.append, tmp_path, player=killed_once_at(tmp_path, 3)) == 9
    assert (tmp_path / "killed").exists()
    assert sorted(arrived, key=repr) == sorted((r for s in shards for r in play_shard(s)), key=repr)


# --- a killed driver ----------------------------------------------------------------------------------
@pytest.mark.slow
def test_a_killed_driver_resumes_to_the_results_of_an_uninterrupted_run(ray_instance, tmp_path):
    league = ["--agents", "prompt", "last_moment", "--opponents", "human", "--rounds", "60", "--seed", "9"]
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
        "5",
        "--workers",
        "1",
        "--backend",
        "ray",
        "--address",
        ray_instance,
    ]
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    log = killed / ROUNDS_FILE
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and process.poll() is None:
        if log.exists() and len(read_rounds(log)) >= 30:
            break
        time.sleep(0.01)
    process.send_signal(signal.SIGKILL)
    assert process.wait(timeout=10) == -signal.SIGKILL
    finished = len(read_rounds(log))
    assert 30 <= finished < 180 and finished % 5 == 0  # whole shards only (the oracle plays too: 3 x 60)
    assert not (killed / "results.json").exists()

    resumed = main(resume=killed, progress=False, backend="ray", workers=2)
    assert resumed.rounds_played == 180 - finished
    whole = main(
        agents=["prompt", "last_moment"], opponents=["human"], rounds=60, seed=9, out=tmp_path / "whole", progress=False
    )
    assert (killed / "results.json").read_bytes() == (whole.run_dir / "results.json").read_bytes()
    assert len(gzip.decompress(log.read_bytes()).splitlines()) == 180


# --- Ray stays out of the core and of the local benchmark ----------------------------------------------
@pytest.mark.slow
def test_the_benchmark_and_a_local_run_never_import_ray(tmp_path):
    code = (
        "import sys; from war_env.league import run_league; import war_env.league.ray_backend; "
        f"run_league(agents=['prompt'], opponents=['instant'], rounds=2, out={str(tmp_path / 'run')!r}, workers=2, "
        "shard_rounds=1, progress=False); "
        "assert 'ray' not in sys.modules, sorted(m for m in sys.modules if m.startswith('ray'))"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "run" / "results.json").is_file()


def test_bad_backend_options_are_refused_before_anything_is_played(tmp_path):
    with pytest.raises(ValueError, match="backend must be 'local' or 'ray'.*'spark'"):
        main(agents=["prompt"], rounds=2, out=tmp_path / "a", backend="spark", progress=False)
    with pytest.raises(ValueError, match="an address only with 'ray'"):
        main(agents=["prompt"], rounds=2, out=tmp_path / "b", address="auto", progress=False)
    with pytest.raises(ValueError, match="workers must be"):
        run_shards_on_ray([], 0, print)
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()
