"""war-bench --suite: every probe a league on its env id, one normalised score per agent and capability
(0 = the probe's best simple baseline, 1 = the oracle), a table, a chart, resume; and the statistics it and the
learners' table use (``stats.bootstrap_score``, ``stats.probability_of_improvement``)."""

from __future__ import annotations

import json
import re
import shutil

import numpy as np
import pytest

from war_env.core.probes import PROBES
from war_env.evaluation.probes import exact_gaps
from war_env.league.rounds_file import ROUNDS_FILE, load_rounds
from war_env.league.run import read_league
from war_env.league.stats import bootstrap_score, iqm_interval, probability_of_improvement
from war_env.league.suite import CHART_FILE, REPORT_FILE, RESULTS_FILE, run_suite

ROUNDS = 4
PROBES_PLAYED = ["memory", "reading"]


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    out = tmp_path_factory.mktemp("suite") / "run"
    run = run_suite(["blind"], PROBES_PLAYED, ROUNDS, 7, out, progress=False)
    return run


@pytest.mark.slow
def test_each_probe_is_a_league_on_its_env_id_with_its_opponent_and_yardsticks(suite):
    for name in PROBES_PLAYED:
        probe = PROBES[name]
        league = read_league(suite.run_dir / name)
        assert league.env_id == probe.env_id and league.opponents == (probe.opponent,)
        assert league.rounds == ROUNDS and league.seed == 7
        assert {"oracle", probe.lacking, *probe.simple} <= set(league.agents)
        assert (suite.run_dir / name / "report.md").is_file()
    # blind reads the opponent's clock, which the memory probe hides: it plays the reading probe only
    assert "blind" not in read_league(suite.run_dir / "memory").agents
    assert "blind" in read_league(suite.run_dir / "reading").agents


def test_the_baseline_scores_0_and_the_oracle_1_by_construction(suite):
    for probe in suite.results["probes"]:
        assert probe["baseline"] == exact_gaps(PROBES[probe["name"]]).best_simple
        baseline, oracle = probe["agents"][probe["baseline"]]["score"], probe["agents"]["oracle"]["score"]
        assert (baseline["value"], baseline["low"], baseline["high"], baseline["exact"]) == (0, 0, 0, True)
        assert (oracle["value"], oracle["low"], oracle["high"], oracle["exact"]) == (1, 1, 1, True)


def test_a_score_is_the_paired_return_gap_over_the_oracles_gap(suite):
    probe = next(p for p in suite.results["probes"] if p["name"] == "reading")
    league = read_league(suite.run_dir / "reading")
    pairings = load_rounds(suite.run_dir / "reading" / ROUNDS_FILE, league).pairings
    returns = {agent: pairings[(agent, league.opponents[0])].returns for agent in league.agents}
    zero, one = returns[probe["baseline"]].mean(), returns["oracle"].mean()
    for agent in league.agents:
        score = probe["agents"][agent]["score"]
        assert score["value"] == pytest.approx((returns[agent].mean() - zero) / (one - zero))
        assert score["low"] <= score["value"] <= score["high"]


def test_the_report_has_the_headline_the_table_and_the_chart(suite):
    report = (suite.run_dir / REPORT_FILE).read_text()
    assert "**reading** (WarTableReading-v0): `blind`, score" in report
    assert "**memory**: no agent given played this probe" in report
    header = "| agent | memory (0 = `press_once`) | reading (0 = `lead`) |"
    assert header in report
    rows = {line.split("|")[1].strip(): line for line in report.splitlines() if line.startswith("| `")}
    assert set(rows) == {"`blind`", "`press_once`", "`counting`", "`lead`", "`oracle`"}
    assert "not played" in rows["`blind`"] and re.search(r"\| 1 \(exact\) \| 1 \(exact\) \|$", rows["`oracle`"])
    assert f"![scores by agent and probe]({CHART_FILE})" in report
    png = (suite.run_dir / CHART_FILE).read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 10_000
    saved = json.loads((suite.run_dir / RESULTS_FILE).read_text())
    assert saved == json.loads(json.dumps(suite.results))


@pytest.mark.slow
def test_resume_plays_only_what_is_missing_and_gives_the_same_scores(suite, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(suite.run_dir, copy, ignore=shutil.ignore_patterns(".lock"))
    shutil.rmtree(copy / "reading")  # as if the suite had stopped before its second probe
    (copy / RESULTS_FILE).unlink()
    resumed = run_suite(resume=copy, progress=False)
    agents = len(read_league(copy / "reading").agents)
    assert resumed.rounds_played == agents * ROUNDS
    assert resumed.results == suite.results


def test_a_suite_folder_is_not_started_twice_and_a_resume_takes_nothing_else(suite):
    with pytest.raises(ValueError, match="already holds a suite: continue it with --suite --resume"):
        run_suite(["blind"], PROBES_PLAYED, ROUNDS, 7, suite.run_dir, progress=False)
    with pytest.raises(ValueError, match=r"do not also give \['rounds'\]"):
        run_suite(resume=suite.run_dir, rounds=3, progress=False)


def test_the_command_line_refuses_what_the_suite_decides_itself(tmp_path, capsys):
    from war_env.scripts.benchmark import cli

    with pytest.raises(SystemExit):
        cli(["--suite", "--opponents", "human", "--out", str(tmp_path / "s")])
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        "war-bench: error: --suite plays each probe against its own opponent and rules, locally; do not give "
        "['--opponents']")
    with pytest.raises(SystemExit):
        cli(["--probes", "memory"])
    assert capsys.readouterr().err.strip().endswith("--probes goes with --suite")
    assert not (tmp_path / "s").exists()


# --- the statistics ------------------------------------------------------------------------------------------
def test_bootstrap_score_is_exact_at_its_ends_and_undefined_without_a_span():
    zero, one = np.array([1.0, 2.0, 3.0]), np.array([2.0, 4.0, 3.5])
    assert bootstrap_score(zero, zero, one)["value"] == 0 and bootstrap_score(one, zero, one)["exact"]
    half = (zero + one) / 2
    assert bootstrap_score(half, zero, one)["value"] == pytest.approx(0.5)
    assert bootstrap_score(half, one, zero)["value"] is None  # the "oracle" below the baseline: no scale


def test_probability_of_improvement_is_the_mann_whitney_probability_averaged_over_tasks():
    rng = np.random.default_rng(0)
    x = [rng.normal(size=3), rng.normal(size=4)]
    y = [rng.normal(size=5), np.append(x[1][:2], 9.0)]  # ties with x in the second task count one half
    expected = np.mean([np.mean([(a > b) + 0.5 * (a == b) for a in xs for b in ys]) for xs, ys in zip(x, y)])
    estimate = probability_of_improvement(x, y)
    assert estimate["value"] == pytest.approx(expected)
    assert 0 <= estimate["low"] <= estimate["value"] <= estimate["high"] <= 1
    assert probability_of_improvement([[2.0, 3.0]], [[0.0, 1.0]])["value"] == 1
    with pytest.raises(ValueError, match="same non-empty tasks"):
        probability_of_improvement([[1.0]], [[1.0], [2.0]])


def test_the_iqm_of_runs_is_the_mean_of_their_middle_half():
    assert iqm_interval([0.0, 1.0, 2.0, 100.0])["value"] == pytest.approx(1.5)
