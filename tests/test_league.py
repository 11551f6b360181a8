"""The benchmark league end to end: files, schema, numbers that agree with the rounds, the baselines'
signature behaviour, worker-count independence, and a killed run resumed to the same results."""

import contextlib
import gzip
import json
import os
import pickle
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import jsonschema
import numpy as np
import pytest

from war_env.agents import BASELINES
from war_env.core.rules import WarConfig
from war_env.data import results_schema_file
from war_env.evaluation.records import RoundRecord
from war_env.league import DEFAULT_OPPONENTS, ROUNDS_FILE, League, Shard, load_rounds, play_shard, read_rounds
from war_env.league import run_league as main
from war_env.league.run import read_league
from war_env.scripts.benchmark import cli
from war_env.support.run_folder import RunFolderConflict

ROOT = Path(__file__).resolve().parent.parent
ROUNDS = 6


@pytest.fixture(scope="module")
def league_run(tmp_path_factory):
    """The default league (every baseline against every default opponent) on a few rounds."""
    run = main(rounds=ROUNDS, seed=100, out=tmp_path_factory.mktemp("league") / "run", progress=False)
    records = read_rounds(run.run_dir / ROUNDS_FILE)
    return run, records


def pairing(results, agent, opponent):
    (found,) = [p for p in results["pairings"] if p["agent"] == agent and p["opponent"] == opponent]
    return found


# --- the files ------------------------------------------------------------------------------------------
def test_a_run_leaves_every_file_of_the_report(league_run):
    run, _ = league_run
    for name in (
        "config.json",
        ROUNDS_FILE,
        "results.json",
        "run.json",
        "report.md",
        "regret.png",
        "reaction.png",
        "round_length.png",
    ):
        assert (run.run_dir / name).is_file(), name
    for name in ("regret.png", "reaction.png", "round_length.png"):
        assert (run.run_dir / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not list(run.run_dir.glob("*.tmp"))  # atomic writes leave no temporary files behind


def test_results_json_follows_its_schema_and_the_schema_bites(league_run):
    run, _ = league_run
    results = json.loads((run.run_dir / "results.json").read_text())
    schema = json.loads(results_schema_file().read_text())
    jsonschema.validate(results, schema)
    broken = json.loads(json.dumps(results))
    broken["pairings"][0]["win"]["method"] = "guess"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema)
    del broken["pairings"][0]["return"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema)


def test_the_report_states_configuration_provenance_speed_and_methods(league_run):
    run, _ = league_run
    report = (run.run_dir / "report.md").read_text()
    results = run.results
    assert results["config_hash"] in report
    provenance = json.loads((run.run_dir / "run.json").read_text())["provenance"]
    assert provenance["git_commit"] and provenance["git_commit"] in report
    assert "rounds/s" in report and "gymnasium" in report and "Wilson" in report and "bootstrap" in report
    for agent in BASELINES:
        assert f"`{agent}`" in report


# --- the numbers agree with the rounds -------------------------------------------------------------------
def test_every_pairing_has_its_rounds_once_with_the_paired_seeds(league_run):
    _, records = league_run
    keys = Counter((r.agent, r.opponent, r.round) for r in records)
    assert set(keys.values()) == {1}
    assert len(keys) == len(("oracle", *BASELINES)) * len(DEFAULT_OPPONENTS) * ROUNDS  # the oracle plays too
    assert all(r.seed == 100 + r.round for r in records)


def test_results_agree_with_rounds_jsonl(league_run):
    run, records = league_run
    for agent in BASELINES:
        for opponent in DEFAULT_OPPONENTS:
            mine = [r for r in records if r.agent == agent and r.opponent == opponent]
            stats = pairing(run.results, agent, opponent)
            assert stats["rounds"] == len(mine) == ROUNDS
            assert stats["return"]["value"] == pytest.approx(np.mean([r.episode_return for r in mine]))
            assert stats["win"]["count"] == sum(r.winner == 0 for r in mine)
            assert stats["loss"]["count"] == sum(r.winner == 1 for r in mine)
            assert stats["agent_takeover"]["count"] == sum(r.takeover[0] for r in mine)
            assert stats["opponent_takeover"]["count"] == sum(r.takeover[1] for r in mine)
            assert stats["false_starts_per_round"]["value"] == pytest.approx(np.mean([r.false_starts[0] for r in mine]))
            draws = [t for r in mine for t in r.reaction_ticks[0]]
            assert stats["reaction"]["draws"] == len(draws)
            if draws:
                assert stats["reaction"]["mean_ticks"]["value"] == pytest.approx(np.mean(draws))
            reasons = Counter(r.reason for r in mine)
            assert {k: v["count"] for k, v in stats["reasons"].items() if v["count"]} == dict(reasons)
            for key in ("return", "win", "false_starts_per_round"):
                entry = stats[key]
                assert entry["low"] <= entry["value"] <= entry["high"]


def test_round_i_has_the_same_card_outcome_in_every_pairing(league_run):
    run, records = league_run
    by_round = {}
    for record in records:
        by_round.setdefault(record.round, set()).add(record.card_outcome())
    assert all(len(outcomes) == 1 for outcomes in by_round.values())
    assert run.results["paired_card_outcomes_identical"] is True


# --- the baselines' signatures ------------------------------------------------------------------------------
def test_prompt_has_no_takeover_and_no_false_start_against_every_opponent(league_run):
    run, _ = league_run
    for opponent in DEFAULT_OPPONENTS:
        stats = pairing(run.results, "prompt", opponent)
        assert stats["agent_takeover"]["count"] == 0
        assert stats["false_starts_per_round"]["value"] == 0


def test_never_is_taken_over_in_every_round(league_run):
    run, _ = league_run
    for opponent in DEFAULT_OPPONENTS:
        assert pairing(run.results, "never", opponent)["agent_takeover"]["count"] == ROUNDS


def test_eager_false_starts(league_run):
    run, _ = league_run
    for opponent in DEFAULT_OPPONENTS:
        assert pairing(run.results, "eager", opponent)["false_starts_per_round"]["value"] > 1


def test_prompt_has_the_highest_mean_return_of_the_baselines(league_run):
    run, _ = league_run
    for opponent in DEFAULT_OPPONENTS:
        returns = {agent: pairing(run.results, agent, opponent)["return"]["value"] for agent in BASELINES}
        assert max(returns, key=returns.get) == "prompt", returns
        for agent in BASELINES[1:]:  # and on every single paired round, never better
            assert pairing(run.results, agent, opponent)["regret"]["low"] >= 0
    overall = {entry["agent"]: entry["return"]["value"] for entry in run.results["agents"]}
    assert overall["prompt"] == max(overall.values()) == overall["oracle"]  # without latency the oracle is prompt
    assert run.results["reference_agent"] == "oracle"


# --- determinism, workers, resume -----------------------------------------------------------------------------
SMALL = dict(agents=["prompt", "human", "random:p=0.2"], opponents=["human", "prompt"], rounds=8, seed=3)


@pytest.mark.slow
def test_one_and_two_workers_give_the_same_results(tmp_path):
    one = main(**SMALL, out=tmp_path / "one", workers=1, shard_rounds=3, progress=False)
    two = main(**SMALL, out=tmp_path / "two", workers=2, shard_rounds=3, progress=False)
    assert (one.run_dir / "results.json").read_bytes() == (two.run_dir / "results.json").read_bytes()
    assert sorted(read_rounds(one.run_dir / ROUNDS_FILE), key=repr) == sorted(
        read_rounds(two.run_dir / ROUNDS_FILE), key=repr
    )


@pytest.mark.slow
def test_a_killed_run_resumes_to_the_results_of_an_uninterrupted_one(tmp_path):
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
        "7",
    ]
    command += ["--workers", "2"]  # the parent is killed; its two workers must notice and stop by themselves
    process = subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    log = killed / ROUNDS_FILE
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        if log.exists() and len(read_rounds(log)) >= 30:  # read while written: the member has no end yet
            break
        time.sleep(0.01)
    process.send_signal(signal.SIGKILL)
    assert process.wait(timeout=10) == -signal.SIGKILL
    deadline = time.monotonic() + 20
    while _processes_in_group(process.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _processes_in_group(process.pid), "orphaned workers kept running"
    finished = len(read_rounds(log))
    assert 30 <= finished < 180 and not (killed / "results.json").exists()  # the oracle plays too: 3 x 60
    with pytest.raises(EOFError):  # the killed session's gzip member has no end
        gzip.decompress(log.read_bytes())

    resumed = main(resume=killed, progress=False)
    assert resumed.rounds_played == 180 - finished
    whole = main(
        agents=["prompt", "last_moment"], opponents=["human"], rounds=60, seed=9, out=tmp_path / "whole", progress=False
    )
    assert (killed / "results.json").read_bytes() == (whole.run_dir / "results.json").read_bytes()
    assert len(gzip.decompress(log.read_bytes()).splitlines()) == 180  # whole records in whole gzip members


def _processes_in_group(group: int) -> list[int]:
    found = subprocess.run(["pgrep", "-g", str(group)], capture_output=True, text=True).stdout.split()
    return [int(pid) for pid in found]


@pytest.mark.parametrize("cut", ["", "\n"])
def test_reading_rounds_tolerates_a_cut_off_last_line_but_not_a_corrupt_one(tmp_path, cut):
    record = play_shard(Shard("prompt", "instant", (), ((0, 1),)))[0]
    log = tmp_path / ROUNDS_FILE
    log.write_bytes(gzip.compress((record.to_json() + "\n" + record.to_json()[:20] + cut).encode()))
    assert read_rounds(log) == [record]
    read_rounds(log, repair=True)
    assert gzip.decompress(log.read_bytes()).decode() == record.to_json() + "\n"
    log.write_bytes(gzip.compress(("not json\n" + record.to_json() + "\n").encode()))
    with pytest.raises(ValueError, match=f"{ROUNDS_FILE}:1 is not a round record"):
        read_rounds(log)
    nested = '{"agent": ' + "[" * 100_000 + "]" * 100_000 + "}"
    log.write_bytes(gzip.compress((record.to_json() + "\n" + nested + "\n").encode()))
    with pytest.raises(ValueError, match=f"{ROUNDS_FILE}:2 is not a round record: JSON nested deeper than Python"):
        read_rounds(log)


def test_resume_refuses_new_league_options_and_a_finished_folder_is_not_overwritten(tmp_path):
    run = main(agents=["prompt"], opponents=["instant"], rounds=2, out=tmp_path / "run", progress=False)
    with pytest.raises(ValueError, match="takes its league from"):
        main(resume=run.run_dir, rounds=5)
    with pytest.raises(ValueError, match="already holds a run"):
        main(agents=["prompt"], opponents=["instant"], rounds=2, out=run.run_dir, progress=False)
    again = main(resume=run.run_dir, progress=False)  # nothing left to play: the same results
    assert again.rounds_played == 0 and again.results == run.results


# --- rounds.jsonl.gz is checked against the league ---------------------------------------------------------
@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    """A finished run whose records the tests below edit (in copies)."""
    return main(
        agents=["prompt", "random:p=0.2"],
        opponents=["human", "absent"],
        rounds=4,
        seed=20,
        out=tmp_path_factory.mktemp("small") / "run",
        progress=False,
    )


def _edited_copy(run, tmp_path, line: int, edit) -> Path:
    """A copy of ``run``'s folder without its report, where ``edit`` changed line ``line`` of the rounds."""
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(run.run_dir, copy)
    (copy / "results.json").unlink()
    lines = gzip.decompress((copy / ROUNDS_FILE).read_bytes()).split(b"\n")
    record = json.loads(lines[line - 1])
    edited = edit(record)
    lines[line - 1] = edited if isinstance(edited, bytes) else json.dumps(record).encode()
    (copy / ROUNDS_FILE).write_bytes(gzip.compress(b"\n".join(lines)))
    return copy


@pytest.mark.parametrize(
    "line, edit, complaint",
    [
        (
            3,
            lambda r: r.update(episode_return=r["episode_return"] + 0.5),
            "episode_return .*, but the record's own fields give",
        ),
        (5, lambda r: r.update(winner=7), "winner must be 0, 1 or null, got 7"),
        (2, lambda r: r.update(battles=r["battles"] + 1), "the cards of round .* give RoundResult\\(winner="),
        (2, lambda r: r.update(winner=None if r["winner"] is not None else 0), "the cards of round"),
        (4, lambda r: r.update(seed=r["seed"] + 1), "with seed .* is not in this league"),
        (6, lambda r: r.update(agent="eager"), "the pairing eager vs .* is not in this league"),
        (
            7,
            lambda r: r.update(reaction_ticks=[[99], r["reaction_ticks"][1]]),
            "a reaction of 99 ticks in a turn of 30",
        ),
        (8, lambda r: r.pop("opponent"), "a RoundRecord needs exactly the keys"),
        (
            2,
            lambda r: b'{"round": 1, "seed": 21, "agent": "\xff"}',
            "is not a round record: 'utf-8' codec can't decode",
        ),
        (3, lambda r: b'{"round": 1 "seed": 21}', "is not a round record: Expecting ',' delimiter"),
    ],
)
def test_an_edited_record_is_refused_naming_the_file_and_the_line(small_run, tmp_path, line, edit, complaint):
    copy = _edited_copy(small_run, tmp_path, line, edit)
    with pytest.raises(ValueError, match=f"{copy / ROUNDS_FILE}:{line}:? .*{complaint}"):
        main(resume=copy, progress=False)


def _forge(run, tmp_path, forge) -> Path:
    """A copy of ``run``'s folder without its report, where ``forge`` rewrote every record (a dict) it wants to."""
    import shutil

    copy = tmp_path / "forged"
    shutil.copytree(run.run_dir, copy)
    (copy / "results.json").unlink()
    records = [json.loads(line) for line in gzip.decompress((copy / ROUNDS_FILE).read_bytes()).splitlines()]
    for record in records:
        forge(record)
    (copy / ROUNDS_FILE).write_bytes(gzip.compress(b"".join(json.dumps(r).encode() + b"\n" for r in records)))
    return copy


def _one_more_false_start(record: dict) -> None:
    """Edited consistently: a false start more, and the return that its reward implies."""
    if record["agent"] == "prompt" and record["round"] == 2:
        record["false_starts"][0] += 1
        record["episode_return"] += WarConfig().reward_false_start


def _fewer_false_starts(record: dict) -> None:
    """Every round of the tick-by-tick agent made to look better, every field kept consistent."""
    if record["agent"].startswith("random") and record["false_starts"][0]:
        record["false_starts"][0] -= 1
        record["episode_return"] -= WarConfig().reward_false_start


def _relabelled(record: dict) -> None:
    """prompt's and random's records against human swapped."""
    if record["opponent"] == "human":
        record["agent"] = {"prompt": "random:p=0.2", "random:p=0.2": "prompt"}.get(record["agent"], record["agent"])


@pytest.mark.parametrize("forge", [_one_more_false_start, _fewer_false_starts, _relabelled])
def test_records_edited_consistently_are_refused_on_resume_by_replaying_them(small_run, tmp_path, forge):
    """Their fields agree with each other and with the cards; only playing the round again shows the edit."""
    copy = _forge(small_run, tmp_path, forge)
    with pytest.raises(
        ValueError, match=f"{copy / ROUNDS_FILE}:[0-9]+: round [0-9]+ of .* is not what the round plays"
    ):
        main(resume=copy, progress=False)


def _forged_agent_error(record: dict) -> None:
    if record["agent"] == "prompt" and record["round"] == 2:
        record["agent_error"] = "the client crashed"


def _forged_compute_ticks(record: dict) -> None:
    if record["agent"] == "prompt" and record["round"] == 2:
        record["compute_ticks"] = [3]


@pytest.mark.parametrize(
    "forge, field", [(_forged_agent_error, "agent_error"), (_forged_compute_ticks, "compute_ticks")]
)
def test_a_forged_optional_field_is_refused_naming_the_field_in_one_short_line(small_run, tmp_path, forge, field):
    """A field a lock-step round leaves at its default (no error, no compute time) set in the record: the
    replay has it at its default, and the refusal names it."""
    copy = _forge(small_run, tmp_path, forge)
    with pytest.raises(ValueError) as refused:
        main(resume=copy, progress=False)
    message = str(refused.value)
    assert f"is not what the round plays: {field} " in message and "(replayed: " in message
    assert "\n" not in message and len(message) < 300


@pytest.fixture(scope="module")
def random_run(tmp_path_factory):
    """More rounds of a tick-by-tick agent than a sample of 8 replays."""
    return main(
        agents=["eager", "random:p=0.2"],
        opponents=["human"],
        rounds=40,
        seed=3,
        out=tmp_path_factory.mktemp("random") / "run",
        progress=False,
    )


def _three_fewer_false_starts_once(record: dict) -> None:
    """Issue 31: one record of random:p=0.2, its false starts cut by 3 and its return raised to match."""
    if record["agent"] == "random:p=0.2" and record["round"] == 27:
        record["false_starts"][0] -= 3
        record["episode_return"] -= 3 * WarConfig().reward_false_start


def _eager_relabelled_as_random(record: dict) -> None:
    """Issue 31: eager's records passed off as random's (and random's as eager's, so every round is there)."""
    record["agent"] = {"eager": "random:p=0.2", "random:p=0.2": "eager"}.get(record["agent"], record["agent"])


@pytest.mark.parametrize("forge", [_three_fewer_false_starts_once, _eager_relabelled_as_random])
def test_every_round_of_a_shipped_agent_is_replayed_and_a_forgery_named_in_one_short_line(random_run, tmp_path, forge):
    records = [
        json.loads(line) for line in gzip.decompress((random_run.run_dir / ROUNDS_FILE).read_bytes()).splitlines()
    ]
    assert max(r["false_starts"][0] for r in records if r["agent"] == "random:p=0.2" and r["round"] == 27) >= 3
    copy = _forge(random_run, tmp_path, forge)
    with pytest.raises(ValueError) as refused:
        main(resume=copy, progress=False)
    message = str(refused.value)
    assert re.fullmatch(
        f"{re.escape(str(copy / ROUNDS_FILE))}:[0-9]+: round [0-9]+ of (eager|random:p=0.2) vs human "
        r"is not what the round plays: \w+ .*\(replayed: .*",
        message,
    ), message
    assert "\n" not in message and len(message) < 400


def test_resuming_replays_every_round_of_a_shipped_agent_and_says_so(random_run, tmp_path):
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(random_run.run_dir, copy)
    main(resume=copy, progress=False)
    replayed = json.loads((copy / "run.json").read_text())["replayed_on_resume"]
    assert replayed == [f"{agent} vs human: every round" for agent in ("oracle", "eager", "random:p=0.2")]


@pytest.mark.slow
def test_resuming_says_what_it_replayed_and_drops_repeated_lines(small_run, tmp_path):
    copy = _edited_copy(small_run, tmp_path, 3, lambda record: None)
    lines = gzip.decompress((copy / ROUNDS_FILE).read_bytes()).splitlines()
    (copy / ROUNDS_FILE).write_bytes(gzip.compress(b"\n".join([*lines, lines[2], lines[5]]) + b"\n"))
    with pytest.raises(ValueError, match=f"{copy / ROUNDS_FILE}:[0-9]+: a second copy of round"):
        load_rounds(copy / ROUNDS_FILE, read_league(copy))
    again = main(resume=copy, progress=False)
    assert again.rounds_played == 0 and again.results == small_run.results
    assert len(gzip.decompress((copy / ROUNDS_FILE).read_bytes()).splitlines()) == len(lines)
    replayed = json.loads((copy / "run.json").read_text())["replayed_on_resume"]
    assert "prompt vs human: every round" in replayed and "random:p=0.2 vs human: every round" in replayed


def test_a_foreign_or_broken_config_json_is_named(small_run, tmp_path):
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(small_run.run_dir, copy)
    config = json.loads((copy / "config.json").read_text())
    del config["league"]["opponents"]
    (copy / "config.json").write_text(json.dumps(config))
    with pytest.raises(ValueError, match=f"{copy / 'config.json'} is not a war-bench league: missing key 'opponents'"):
        main(resume=copy, progress=False)
    (copy / "config.json").write_text('{"league": {"agents": ["prompt"] "opponents": []}}')
    with pytest.raises(RunFolderConflict, match="config.json is not a benchmark run's settings: Expecting ','"):
        main(resume=copy, progress=False)


def test_the_rounds_file_is_compact_and_reads_as_plain_gzip_jsonl(small_run):
    raw = gzip.decompress((small_run.run_dir / ROUNDS_FILE).read_bytes())
    assert [RoundRecord.from_json(line) for line in raw.decode().splitlines()] == read_rounds(
        small_run.run_dir / ROUNDS_FILE
    )
    assert (small_run.run_dir / ROUNDS_FILE).stat().st_size < len(raw) / 3


# --- one run per folder, failed starts, a full disk, a read-only folder ---------------------------------------
@pytest.mark.slow
def test_a_second_run_on_the_same_folder_is_refused_while_the_first_runs(tmp_path):
    league = [
        "--agents",
        "prompt",
        "human",
        "--opponents",
        "human",
        "--rounds",
        "400",
        "--seed",
        "1",
        "--quiet",
        "--workers",
        "1",
        "--out",
        str(tmp_path / "run"),
    ]
    first = subprocess.Popen(
        [sys.executable, "-m", "war_env.scripts.benchmark", *league],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    log = tmp_path / "run" / ROUNDS_FILE
    deadline = time.monotonic() + 60
    while not (log.exists() and read_rounds(log)) and time.monotonic() < deadline and first.poll() is None:
        time.sleep(0.02)
    second = subprocess.run(
        [sys.executable, "-m", "war_env.scripts.benchmark", *league],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    resumed = subprocess.run(
        [sys.executable, "-m", "war_env.scripts.benchmark", "--resume", str(tmp_path / "run")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert first.wait(timeout=120) == 0, first.stderr.read()
    for refused in (second, resumed):
        assert refused.returncode == 1
        assert refused.stderr.strip().splitlines() == [
            f"war-bench: error: {tmp_path / 'run'} is in use by another war-bench "
            f"(it holds {tmp_path / 'run' / '.lock'}); "
            "wait for it to end, or choose another folder"
        ]
    assert len(read_rounds(log)) == 1200  # every round once (the oracle plays too)


def test_a_run_that_failed_before_its_first_round_is_started_again_by_the_same_command(tmp_path, monkeypatch):
    import war_env.league.run as league_run

    def unreachable(*args, **kwargs):
        raise ConnectionError("the cluster went away")

    arguments = dict(agents=["prompt"], opponents=["instant"], rounds=2, out=tmp_path / "run", progress=False)
    with monkeypatch.context() as patch:
        patch.setattr(league_run, "run_shards", unreachable)
        with pytest.raises(ConnectionError):
            main(**arguments)
    assert (tmp_path / "run" / "config.json").is_file() and not read_rounds(tmp_path / "run" / ROUNDS_FILE)
    assert main(**arguments).rounds_played == 4  # prompt's and the oracle's


@pytest.mark.slow
def test_an_address_where_no_ray_cluster_answers_fails_within_seconds_and_makes_no_folder(tmp_path, capsys):
    pytest.importorskip("ray")
    started = time.monotonic()
    status = cli(
        [
            "--agents",
            "prompt",
            "--opponents",
            "instant",
            "--rounds",
            "2",
            "--backend",
            "ray",
            "--address",
            "127.0.0.1:1",
            "--out",
            str(tmp_path / "run"),
            "--quiet",
        ]
    )
    assert time.monotonic() - started < 30
    assert status == 1 and not (tmp_path / "run").exists()
    assert capsys.readouterr().err.strip().splitlines() == [
        "war-bench: error: no Ray cluster answers at 127.0.0.1:1 (nothing there took a gRPC connection within 5 s)"
    ]


def _with_little_memory():
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (3_000_000_000, 3_000_000_000))  # a runaway fails here, not the machine


@pytest.mark.parametrize(
    "rounds, refusal",
    [
        ("10000000000000", "is 20,000,000,000,000 rounds, above the 100,000,000 a league may play"),
        ("40000000", "GB of memory for its report, and this machine has"),  # 80M rounds: within the cap, not the RAM
    ],
)
def test_a_league_too_big_to_play_is_refused_in_one_line_before_anything_is_written(tmp_path, rounds, refusal):
    """Issue 31: --rounds 10000000000000 was accepted, config.json written, and a list of every seed grew to
    9.7 GB before the first round. Here in a process whose memory is capped, and given a minute."""
    command = [
        sys.executable,
        "-m",
        "war_env.scripts.benchmark",
        "--agents",
        "prompt",
        "--opponents",
        "human",
        "--rounds",
        rounds,
        "--out",
        str(tmp_path / "run"),
        "--quiet",
    ]
    if refusal.startswith("GB") and (os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") > 80e9):
        pytest.skip("this machine has the memory for 80M rounds")
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=60, preexec_fn=_with_little_memory)
    except subprocess.TimeoutExpired:
        done = None
    assert not (tmp_path / "run").exists()
    assert done is not None and done.returncode != 0
    line = done.stderr.strip().splitlines()[-1]  # after argparse's usage
    assert line.startswith("war-bench: error: ") and refusal in line


def _without_file_size_limit():
    import resource

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG instead of killing
    resource.setrlimit(resource.RLIMIT_FSIZE, (12_000, 12_000))


@pytest.mark.slow
def test_a_full_disk_is_one_line_naming_the_file_and_the_rounds_written_are_kept(tmp_path):
    league = ["--agents", "prompt", "random:p=0.2", "--opponents", "human", "--rounds", "200", "--seed", "4"]
    command = [
        sys.executable,
        "-m",
        "war_env.scripts.benchmark",
        *league,
        "--quiet",
        "--workers",
        "1",
        "--out",
        str(tmp_path / "run"),
    ]
    full = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=120, preexec_fn=_without_file_size_limit
    )  # files end at 12 kB: a disk that fills up
    assert full.returncode == 1
    assert full.stderr.strip().splitlines() == [
        f"war-bench: error: [Errno 27] File too large: '{tmp_path / 'run' / ROUNDS_FILE}'"
    ]
    kept = len(read_rounds(tmp_path / "run" / ROUNDS_FILE))
    assert 0 < kept < 600  # the oracle plays too
    resumed = main(resume=tmp_path / "run", progress=False)  # with room again
    assert resumed.rounds_played == 600 - kept
    whole = main(
        agents=["prompt", "random:p=0.2"],
        opponents=["human"],
        rounds=200,
        seed=4,
        out=tmp_path / "whole",
        progress=False,
    )
    assert (tmp_path / "run" / "results.json").read_bytes() == (whole.run_dir / "results.json").read_bytes()


@contextlib.contextmanager
def _read_only(folder: Path):
    """``folder`` made read-only: by its mode, or for root (whom modes do not stop) immutable (chattr +i)."""

    def writable() -> bool:
        try:
            (folder / ".probe").touch()
        except OSError:
            return False
        (folder / ".probe").unlink()
        return True

    os.chmod(folder, 0o555)
    immutable = writable() and subprocess.run(["chattr", "+i", str(folder)], capture_output=True).returncode == 0
    try:
        if writable():
            pytest.skip("cannot make a folder read-only here")
        yield
    finally:
        if immutable:
            subprocess.run(["chattr", "-i", str(folder)], check=True)
        os.chmod(folder, 0o755)


@pytest.mark.slow
def test_a_read_only_folder_is_one_line_naming_the_file_and_nothing_is_lost(tmp_path, capsys):
    run = main(agents=["prompt"], opponents=["instant", "human"], rounds=3, out=tmp_path / "run", progress=False)
    (run.run_dir / "results.json").unlink()
    rounds = read_rounds(run.run_dir / ROUNDS_FILE)
    with _read_only(run.run_dir):
        assert cli(["--resume", str(run.run_dir), "--quiet"]) == 1
    (error,) = capsys.readouterr().err.strip().splitlines()
    # the first file a resume writes is run.json (its session), then results.json
    assert error.startswith("war-bench: error: [Errno ") and error.endswith(f": '{run.run_dir / 'run.json'}'")
    assert read_rounds(run.run_dir / ROUNDS_FILE) == rounds
    assert main(resume=run.run_dir, progress=False).results == run.results


def test_a_bad_spec_fails_before_anything_is_played(tmp_path):
    with pytest.raises(ValueError, match="unknown agent 'promt'"):
        main(agents=["promt"], rounds=2, out=tmp_path / "bad", progress=False)
    with pytest.raises(ValueError, match="unknown opponent 'humann'.*did you mean 'human'"):
        main(opponents=["humann"], rounds=2, out=tmp_path / "bad", progress=False)
    assert not (tmp_path / "bad").exists()
    with pytest.raises(ValueError, match="rounds must be"):
        League(("prompt",), ("human",), 0, 0)
    with pytest.raises(SystemExit):
        cli(["--agents", "prompt", "--rounds", "2", "--env", "turn_seconds=-1", "--out", str(tmp_path / "x")])


@pytest.mark.slow
def test_the_cli_passes_rules_to_the_env_and_to_the_agents(tmp_path):
    status = cli(
        [
            "--agents",
            "last_moment",
            "--opponents",
            "instant",
            "--rounds",
            "2",
            "--env",
            "turn_seconds=1.0",
            "--out",
            str(tmp_path / "cli"),
            "--quiet",
        ]
    )
    assert status == 0  # an exit status: the console script calls sys.exit(cli())
    results = json.loads((tmp_path / "cli" / "results.json").read_text())
    assert results["rules"]["turn_seconds"] == 1.0
    assert pairing(results, "last_moment", "instant")["reaction"]["p95_ticks"]["value"] == 9


def test_a_shard_is_a_picklable_pure_description_of_its_rounds():
    shard = Shard("random:p=0.2", "human", (("turn_seconds", 2.0),), ((0, 7), (1, 8)))
    assert pickle.loads(pickle.dumps(shard)) == shard
    first, again = play_shard(shard), play_shard(pickle.loads(pickle.dumps(shard)))
    assert first == again and [r.round for r in first] == [0, 1]
    assert all(isinstance(r, RoundRecord) and RoundRecord.from_json(r.to_json()) == r for r in first)


# --- model agents in worker processes, and trust ------------------------------------------------------------
def _tiny_ppo_file(path: Path) -> Path:
    import gymnasium as gym

    from war_env.agents.algorithms import build_model
    from war_env.agents.model_files import save_model

    model = build_model(
        "ppo", gym.make("War-v0"), {"net_arch": {"pi": [8], "vf": [8]}}, {"n_steps": 64, "batch_size": 64}, seed=0
    )
    return save_model(model, path, "ppo", {"net_arch": {"pi": [8], "vf": [8]}})


@pytest.mark.slow
def test_a_model_agent_with_two_workers_finishes_in_a_plain_shell(tmp_path):
    """The README's training command ends in war-bench with a model agent and the default 2 workers. In a
    shell without thread variables, workers forked from a parent that had started torch's OpenMP hung
    forever in its barrier; spawned workers with their threads limited finish."""
    pytest.importorskip("stable_baselines3")
    from war_env.support.threads import THREAD_VARIABLES

    model = _tiny_ppo_file(tmp_path / "model.zip")
    plain_shell = {name: value for name, value in os.environ.items() if name not in THREAD_VARIABLES}
    command = [
        sys.executable,
        "-m",
        "war_env.scripts.benchmark",
        "--agents",
        "prompt",
        f"ppo:{model}",
        "--opponents",
        "human",
        "--rounds",
        "12",
        "--shard-rounds",
        "3",
        "--workers",
        "2",
        "--quiet",
        "--out",
        str(tmp_path / "run"),
    ]
    done = subprocess.run(command, env=plain_shell, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert len(read_rounds(tmp_path / "run" / ROUNDS_FILE)) == 36  # the oracle plays too


@pytest.mark.slow
def test_resuming_a_run_folder_never_trusts_a_model_file_on_its_word(tmp_path):
    """Trust comes from the command line of the run in progress, never from a run folder someone sent:
    a model spec in config.json that asks for trust is refused, and a model file with a
    payload in its pickled data is resumed weights-only, without running the payload."""
    pytest.importorskip("stable_baselines3")
    import base64
    import pickle
    import zipfile

    model = _tiny_ppo_file(tmp_path / "model.zip")
    marker = tmp_path / "payload-ran"
    with zipfile.ZipFile(model) as archive:
        entries = {name: archive.read(name) for name in archive.namelist()}
    data = json.loads(entries["data"])
    data["planted"] = {
        ":type:": "<class 'object'>",
        ":serialized:": base64.b64encode(pickle.dumps(_TouchOnUnpickle(str(marker)))).decode(),
    }
    entries["data"] = json.dumps(data).encode()
    planted = tmp_path / "planted.zip"
    with zipfile.ZipFile(planted, "w") as archive:
        for name, content in entries.items():
            archive.writestr(name, content)

    run = main(agents=["prompt"], opponents=["instant"], rounds=2, out=tmp_path / "run", progress=False)
    config = json.loads((run.run_dir / "config.json").read_text())
    config["league"]["agents"] = ["oracle", "prompt", f"ppo:path={planted},trust_model_file=true"]
    (run.run_dir / "config.json").write_text(json.dumps(config))
    with pytest.raises(ValueError, match="has no option 'trust_model_file'"):  # refused, never trusted
        main(resume=run.run_dir, progress=False)
    config["league"]["agents"] = ["oracle", "prompt", f"ppo:{planted}"]
    (run.run_dir / "config.json").write_text(json.dumps(config))
    resumed = main(resume=run.run_dir, progress=False)
    assert resumed.rounds_played == 2 and not marker.exists()
    sessions = json.loads((run.run_dir / "run.json").read_text())["sessions"]
    assert [session["trust_model_file"] for session in sessions] == [False, False]
    assert "trusted" not in (run.run_dir / "report.md").read_text()


class _TouchOnUnpickle:
    def __init__(self, path: str):
        self.path = path

    def __reduce__(self):
        return (Path.touch, (Path(self.path),))


# --- a model trained on another game ---------------------------------------------------------------------
def _fast_model_of(path: Path, env_id: str) -> str:
    """A fast_ppo model file that sees ``env_id``'s whole observation, as training on it would save it."""
    import torch

    from war_env.agents.fast_model import FastNetwork, save_fast_model
    from war_env.envs.games import game_config, game_fields

    fields = game_fields(env_id, game_config(env_id, {}))
    network = FastNetwork(len(fields), (4,), "tanh", 0)
    state = {name: torch.full(shape, 0.1) for name, shape in network.shapes().items()}
    return f"fast_ppo:{save_fast_model(path, state, network, fields, 1, env_id)}"


def test_a_model_seeing_fields_the_league_does_not_show_is_refused_in_one_line_before_any_folder(tmp_path):
    """WarAnticipation-v1 shows six presses in flight; War-v0's rules have no latency, so none is in flight:
    cutting the model's columns from War-v0's observation would read past its end."""
    spec = _fast_model_of(tmp_path / "anticipation.zip", "WarAnticipation-v1")
    with pytest.raises(ValueError, match=r"in_flight_5.*does not show; it was trained on WarAnticipation-v1") as error:
        main(agents=[spec], opponents=["human"], rounds=2, out=tmp_path / "run", progress=False)
    assert "\n" not in str(error.value)
    assert not (tmp_path / "run").exists()


def test_a_model_that_fits_but_was_trained_on_a_probe_plays_and_the_report_says_where_it_was_trained(tmp_path):
    """WarMemory-v1 shows War-v0's fields: its model plays War-v0 column for column."""
    spec = _fast_model_of(tmp_path / "memory.zip", "WarMemory-v1")
    run = main(agents=[spec], opponents=["human"], rounds=2, out=tmp_path / "run", progress=False)
    assert {p["agent"] for p in run.results["pairings"]} == {spec, "oracle"}
    report = (run.run_dir / "report.md").read_text()
    assert f"`{spec}` was trained on WarMemory-v1; it plays War-v0 here" in report
    assert "oracle` was trained" not in report


def test_writing_the_report_says_each_stage_as_it_starts_and_quiet_says_nothing(tmp_path, capsys):
    main(agents=["prompt"], opponents=["human"], rounds=2, out=tmp_path / "run", progress=True)
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("war-bench: report ")]
    assert [line.split(":")[1] for line in lines] == [f" report {k}/7" for k in range(1, 8)]
    assert "reading and checking the 4 rounds" in lines[0]  # prompt and the oracle, against human
    assert [line.split(": ", 2)[2].split(" (")[0] for line in lines[3:6]] == [
        "plotting regret.png",
        "plotting reaction.png",
        "plotting round_length.png",
    ]
    main(agents=["prompt"], opponents=["human"], rounds=2, out=tmp_path / "quiet", progress=False)
    assert "war-bench: report" not in capsys.readouterr().err
