"""The probes' figures (``league.probe_figures``) and their command (``python -m war_env.scripts.probe_figures``):
main(args) prints the table it returns, or the ladders; a bad round count is one line of usage error."""

import pytest

from war_env.core.probes import PROBES
from war_env.scripts.probe_figures import cli, main


def test_the_ladder_is_printed_for_the_probes_named_and_nothing_is_played(capsys):
    assert main(["--ladder", "--probes", "memory"]) == []
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("| probe | rung |") and {line.split(" | ")[0] for line in lines[2:]} == {"| memory"}
    assert any("the observation's other fields" in line for line in lines)  # the row's other_fields rung


def test_the_table_has_a_row_per_agent_of_the_probe_with_its_exact_and_measured_regret(capsys):
    rows = main(["--rounds", "2", "--probes", "anticipation"])
    probe = PROBES["anticipation"]
    assert [row.agent for row in rows] == ["oracle", probe.lacking, "lead"]  # press_once is both lacking and simple
    assert all(row.exact is not None and row.exact >= 0 for row in rows if row.agent != "oracle")
    assert capsys.readouterr().out.count("| anticipation |") == len(rows)


def test_fewer_than_two_rounds_is_a_usage_error_in_one_line(capsys):
    with pytest.raises(SystemExit) as exit_:
        cli(["--rounds", "1", "--probes", "memory"])
    assert exit_.value.code == 2
    assert (
        capsys.readouterr()
        .err.strip()
        .endswith("rounds must be at least 2 (a paired interval needs two rounds), got 1")
    )


def test_with_levels_the_ladder_is_printed_for_each_level_and_no_rule_is_below_the_oracle(capsys):
    assert main(["--levels", "--ladder", "--probes", "anticipation"]) == []
    lines = capsys.readouterr().out.splitlines()
    names = [line.split(" | ")[0].removeprefix("| ") for line in lines[2:]]
    assert sorted(set(names)) == ["anticipation@1", "anticipation@2", "anticipation@3"]
    margins = [line.split(" | ")[-1].strip(" |") for line in lines[2:] if "the oracle |" not in line]
    assert len(margins) == 9 and not any(margin.startswith("-") for margin in margins)  # -0.000 included
