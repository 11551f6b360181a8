"""report.md: its first screen says who is best and why the others lose; what is the same in every
pairing is said once; exact and non-finite values are said as such; the largest allowed rewards still give a finite
report."""

import copy
import json
import re

import pytest

from war_env.league import run_league
from war_env.league.report import fmt, headline, render_report
from war_env.league.results import ranked

AGENTS = ["eager", "human", "prompt", "never"]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return run_league(
        agents=AGENTS,
        opponents=["instant", "uniform"],
        rounds=30,
        seed=4,
        out=tmp_path_factory.mktemp("report") / "run",
        progress=False,
    )


def first_screen(report: str) -> str:
    return report.split("## The run")[0]


def test_the_first_screen_names_the_best_agent_and_ranks_the_others_by_regret(run):
    report = (run.run_dir / "report.md").read_text()
    top = first_screen(report)
    assert top.startswith("# War-v0 benchmark report\n\n**`oracle` is the exact optimum**")  # the reference
    rows = [line for line in top.splitlines() if re.match(r"\| \d \| `", line)]
    order = [re.search(r"`([^`]+)`", row).group(1) for row in rows]
    regrets = {e["agent"]: e["regret"]["value"] for e in run.results["agents"] if e["regret"]}
    assert order == ["oracle", *sorted(regrets, key=regrets.get)]
    assert regrets["prompt"] == 0  # without latency the oracle plays as prompt
    assert "| reference |" in rows[0]
    for agent, cause in (("eager", "false starts"), ("never", "takeovers")):
        row = rows[order.index(agent)]
        assert cells(row)[MOSTLY] == cause, row  # the "mostly" column names why it loses
        assert f"`{agent}` by {cause}" in top  # and so does the headline


def cells(row: str) -> list[str]:
    return [cell.strip() for cell in row.strip("|").split("|")]


HEADER = [
    "rank",
    "agent",
    "mean return",
    "regret per round",
    "lost to false starts",
    "lost to idle ticks",
    "lost to takeovers",
    "mostly",
    "false starts / round",
    "idle ticks / round",
    "rounds taken over",
]
MOSTLY = HEADER.index("mostly")


def test_agents_with_the_same_regret_share_a_rank(run):
    top = first_screen((run.run_dir / "report.md").read_text())
    ranks = {cells(line)[1].strip("`"): cells(line)[0] for line in top.splitlines() if re.match(r"\| \d \| `", line)}
    assert ranks["oracle"] == ranks["prompt"] == "1"  # prompt plays as the oracle: the same regret, 0
    assert sorted(ranks.values()) == ["1", "1", "3", "4", "5"]  # competition ranking: the next agent is third


def test_the_headline_says_a_tie_instead_of_losing_nothing(run):
    top = first_screen((run.run_dir / "report.md").read_text())
    assert "`prompt` ties it, round for round" in top
    assert "lose 0.000" not in top and "between 0.000" not in top


def test_the_headline_shows_a_small_loss_with_the_digits_that_make_it_a_loss(run):
    """A loss below 0.0005 per round (a real-time exec: client one tick late once in a while) ranks below the
    reference: the headline must not call it 0.000 beside its rank."""
    results = copy.deepcopy(run.results)
    for entry in results["agents"]:
        if entry["agent"] != "oracle":
            entry["regret"] = {**entry["regret"], "value": 0.00023 if entry["agent"] == "prompt" else 0.5}
    top = headline(results)[0]
    assert "between 0.00023 (`prompt`) and 0.500" in top and "0.000 " not in top
    results["agents"] = [e for e in results["agents"] if e["agent"] in ("oracle", "prompt")]
    assert "`prompt` loses 0.00023 per round to it" in headline(results)[0]


def test_the_lost_return_columns_share_one_unit_and_the_counts_stand_apart(run):
    top = first_screen((run.run_dir / "report.md").read_text())
    (header,) = [line for line in top.splitlines() if line.startswith("| rank |")]
    assert cells(header) == HEADER
    (never,) = [line for line in top.splitlines() if re.match(r"\| \d \| `never`", line)]
    row = dict(zip(HEADER, cells(never)))
    # -1 for the takeover, 30 idle ticks of -0.001 before it: each cause in return, each count in its own unit
    assert (row["lost to takeovers"], row["lost to idle ticks"], row["lost to false starts"]) == (
        "1.000",
        "0.030",
        "0.000",
    )
    assert (row["rounds taken over"], row["idle ticks / round"], row["false starts / round"]) == ("100%", "30.0", "0.0")


def test_win_rates_are_said_once_for_every_pairing(run):
    report = (run.run_dir / "report.md").read_text()
    win = fmt(run.results["pairings"][0]["win"])
    assert report.count(win) == 1
    assert "Win rates are the same for every agent, by construction" in first_screen(report)
    assert "every one of the 10 pairings" in report  # the oracle plays too


def test_exact_values_are_said_exact_instead_of_a_zero_width_interval(run):
    report = (run.run_dir / "report.md").read_text()
    (never,) = [line for line in report.splitlines() if re.match(r"\| \d \| `never`", line)]
    assert "| 1.030 (exact) |" in never  # -1 for the takeover and 30 idle ticks, in every round
    assert "| `prompt` | every opponent (the same) | 0 (exact) | 0 (exact) |" in report
    assert not re.search(r"\b(-?\d+(?:\.\d+)?) \[\1, \1\]", report.replace("p95", ""))


def test_the_speed_line_gives_its_figure_once(run):
    report = (run.run_dir / "report.md").read_text()
    (speed,) = [line for line in report.splitlines() if line.startswith("- speed:")]
    figure = re.search(r"\*\*([\d.]+) rounds/s\*\*", speed).group(1)
    assert report.count(figure) == 1 and speed.count("rounds/s") == 1


def test_a_resumed_run_lists_its_sessions_in_the_speed_line(run):
    results = run.results
    sessions = [
        {"rounds_played": 100, "seconds": 2.0, "workers": 1, "backend": "local"},
        {"rounds_played": 140, "seconds": 1.0, "workers": 2, "backend": "local"},
    ]
    run_json = {"sessions": sessions, "provenance": json.loads((run.run_dir / "run.json").read_text())["provenance"]}
    (speed,) = [line for line in render_report(results, run_json, {}).splitlines() if line.startswith("- speed:")]
    assert "240 rounds in 3.0 s over 2 sessions" in speed and "**80.0 rounds/s**" in speed


def test_card_outcomes_that_differ_between_pairings_are_flagged_and_shown_per_pairing(run):
    broken = copy.deepcopy(run.results)
    broken["paired_card_outcomes_identical"] = False
    report = render_report(broken, json.loads((run.run_dir / "run.json").read_text()), {})
    assert "something is wrong" in first_screen(report)
    assert "| agent | opponent | win | draw | loss |" in report
    assert report.count(fmt(broken["pairings"][0]["win"])) == len(broken["pairings"])  # a row per pairing


def test_a_named_reference_that_is_not_the_best_is_not_called_the_best(run):
    from war_env.league import ROUNDS_FILE, League, load_rounds
    from war_env.league.results import summarise

    league = League.from_dict(run.results["config"])
    results = summarise(league, load_rounds(run.run_dir / ROUNDS_FILE, league).pairings, reference="human")
    report = render_report(results, json.loads((run.run_dir / "run.json").read_text()), {})
    assert first_screen(report).startswith("# War-v0 benchmark report\n\n**`human` is the reference agent (named")
    assert "The reference was named for this run" in report and "is the best agent" not in report


def test_the_ranked_order_puts_a_regret_that_is_not_finite_last(run):
    results = copy.deepcopy(run.results)
    eager = next(e for e in results["agents"] if e["agent"] == "eager")
    eager["regret"] = {"value": None, "low": None, "high": None, "method": "m", "not_finite": True}
    assert [e["agent"] for e in ranked(results)][-1] == "eager"


@pytest.mark.slow
def test_the_largest_rewards_the_rules_allow_give_a_finite_report_and_resume_works(tmp_path):
    """Reward weights are bounded at 1e6, so every sum over a round and over rounds stays a finite
    float64: results.json stays strict JSON, the plots are drawn, a resume changes nothing."""
    out = tmp_path / "huge"
    first = run_league(
        agents=["prompt", "eager"],
        opponents=["human"],
        rounds=6,
        seed=1,
        env_kwargs={"reward_false_start": -1e6, "reward_idle_tick": -1e6},
        out=out,
        progress=False,
    )
    report = (out / "report.md").read_text()
    assert "not finite" not in first_screen(report)
    assert "**`oracle` is the exact optimum**" in report  # the reference (it plays as prompt)
    json.loads((out / "results.json").read_text(), parse_constant=pytest.fail)  # no NaN or Infinity
    eager = next(e for e in first.results["agents"] if e["agent"] == "eager")
    assert eager["return"]["value"] < -1e6 and not eager["regret"].get("not_finite")
    for name in ("regret.png", "reaction.png", "round_length.png"):
        assert (out / name).stat().st_size > 0
    again = run_league(resume=out, progress=False)
    assert again.rounds_played == 0 and again.results == first.results


@pytest.mark.parametrize(
    "entry, text",
    [
        ({"value": 0.0, "low": 0.0, "high": 0.0, "method": "m", "exact": True}, "0 (exact)"),
        ({"value": 1.03, "low": 1.03, "high": 1.03, "method": "m", "exact": True}, "1.030 (exact)"),
        ({"value": None, "low": None, "high": None, "method": "m", "not_finite": True}, "not finite"),
        ({"value": None, "low": None, "high": None, "method": "m"}, "–"),
        ({"value": 0.5, "low": None, "high": None, "method": "m"}, "0.500 (no interval)"),
        (
            {"value": -5.4e302, "low": -6.4e302, "high": -4.1e302, "method": "m"},
            "-5.400e+302 [-6.400e+302, -4.100e+302]",
        ),
    ],
)
def test_estimates_read_as_text(entry, text):
    assert fmt(entry) == text
