"""The latency table: benchmark runs side by side, per move, read from their folders."""

import gzip
import json
import shutil
from pathlib import Path

import pytest

from war_env.core.rules import WarConfig
from war_env.league.latency_table import latency_table, main
from war_env.league.rounds_file import ROUNDS_FILE
from war_env.league.run import run_league


@pytest.mark.slow
def test_the_table_has_a_row_per_pairing_with_per_move_numbers(tmp_path):
    runs = [
        run_league(
            agents=["prompt"],
            opponents=["fixed:ticks=5"],
            rounds=4,
            seed=1,
            out=tmp_path / name,
            env_kwargs={"latency": latency},
            progress=False,
            workers=1,
        ).run_dir
        for name, latency in (("zero", "fixed:ticks=0"), ("two", "fixed:ticks=2"))
    ]
    rows = latency_table(runs).splitlines()[2:]
    cells = [[cell.strip() for cell in row.strip("|").split("|")] for row in rows]
    assert [row[:3] for row in cells] == [
        ["`fixed:ticks=0`", "`fixed:ticks=5`", "`oracle`"],
        ["`fixed:ticks=0`", "`fixed:ticks=5`", "`prompt`"],
        ["`fixed:ticks=2`", "`fixed:ticks=5`", "`oracle`"],
        ["`fixed:ticks=2`", "`fixed:ticks=5`", "`prompt`"],
    ]
    assert cells[0][3] == cells[2][3] == "reference"
    assert cells[1][3] == "0 (exact)" and cells[1][4] == cells[1][5] == "0 (exact)"  # prompt is the oracle at 0
    # with latency 2 prompt presses on the open ticks t, t+1, t+2: the first draws in t+2, the next two land
    # after it: two false starts per move (but after the round's last draw, where they do nothing)
    assert 1.9 < float(cells[3][4].split()[0]) < 2 and cells[2][4] == "0 (exact)"


@pytest.fixture(scope="module")
def random_run(tmp_path_factory):
    return run_league(
        agents=["prompt", "random:p=0.2"],
        opponents=["human"],
        rounds=12,
        seed=5,
        out=tmp_path_factory.mktemp("table") / "run",
        progress=False,
        workers=1,
    ).run_dir


def _copy(run_dir: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "copy"
    shutil.copytree(run_dir, copy)
    return copy


def _rewrite_rounds(run_dir: Path, edit) -> None:
    """Every record of the rounds file passed through ``edit`` (a dict; it may return bytes for the line)."""
    path = run_dir / ROUNDS_FILE
    lines = []
    for line in gzip.decompress(path.read_bytes()).splitlines():
        record = json.loads(line)
        edited = edit(record)
        lines.append(edited if isinstance(edited, bytes) else json.dumps(record).encode())
    path.write_bytes(gzip.compress(b"\n".join(lines) + b"\n"))


def test_an_edited_results_json_changes_nothing_in_the_table(random_run, tmp_path):
    """Issue 31: a regret edited to -99 in results.json was printed as '-99 (exact)'."""
    copy = _copy(random_run, tmp_path)
    results = json.loads((copy / "results.json").read_text())
    for pairing in results["pairings"]:
        pairing["regret"] = {"value": -99.0, "low": -99.0, "high": -99.0}
    (copy / "results.json").write_text(json.dumps(results))
    assert latency_table([copy]) == latency_table([random_run])
    assert "-99" not in latency_table([copy])


def _fewer_false_starts(record: dict) -> None:
    if record["agent"] == "random:p=0.2" and record["round"] == 7 and record["false_starts"][0]:
        record["false_starts"][0] -= 1
        record["episode_return"] -= WarConfig().reward_false_start


def _not_json(record: dict):
    return b'{"round": 1 "seed": 21}' if record["round"] == 3 and record["agent"] == "prompt" else None


@pytest.mark.parametrize(
    "edit, complaint",
    [
        (_fewer_false_starts, "round 7 of random:p=0.2 vs human is not what the round plays: false_starts"),
        (_not_json, "is not a round record: Expecting ',' delimiter"),
    ],
    ids=["a forged record", "a line that is not JSON"],
)
def test_a_refused_record_is_one_line_naming_the_file_and_the_line(random_run, tmp_path, capsys, edit, complaint):
    """Issue 31: a forged record was accepted, and a bad one gave a 12-line traceback."""
    copy = _copy(random_run, tmp_path)
    _rewrite_rounds(copy, edit)
    assert main([str(copy)]) == 1
    captured = capsys.readouterr()
    [line] = captured.err.strip().splitlines()
    assert line.startswith(f"latency_table: error: {copy / ROUNDS_FILE}:") and complaint in line, line
    assert captured.out == ""
