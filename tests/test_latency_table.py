"""The latency table: benchmark runs side by side, per move, read from their folders."""

import pytest

from war_env.league.latency_table import latency_table
from war_env.league.run import run_league


@pytest.mark.slow
def test_the_table_has_a_row_per_pairing_with_per_move_numbers(tmp_path):
    runs = [run_league(agents=["prompt"], opponents=["fixed:ticks=5"], rounds=4, seed=1, out=tmp_path / name,
                       env_kwargs={"latency": latency}, progress=False, workers=1).run_dir
            for name, latency in (("zero", "fixed:ticks=0"), ("two", "fixed:ticks=2"))]
    rows = latency_table(runs).splitlines()[2:]
    cells = [[cell.strip() for cell in row.strip("|").split("|")] for row in rows]
    assert [row[:3] for row in cells] == [["`fixed:ticks=0`", "`fixed:ticks=5`", "`oracle`"],
                                          ["`fixed:ticks=0`", "`fixed:ticks=5`", "`prompt`"],
                                          ["`fixed:ticks=2`", "`fixed:ticks=5`", "`oracle`"],
                                          ["`fixed:ticks=2`", "`fixed:ticks=5`", "`prompt`"]]
    assert cells[0][3] == cells[2][3] == "reference"
    assert cells[1][3] == "0 (exact)" and cells[1][4] == cells[1][5] == "0 (exact)"  # prompt is the oracle at 0
    # with latency 2 prompt presses on the open ticks t, t+1, t+2: the first draws in t+2, the next two land
    # after it: two false starts per move (but after the round's last draw, where they do nothing)
    assert 1.9 < float(cells[3][4].split()[0]) < 2 and cells[2][4] == "0 (exact)"
