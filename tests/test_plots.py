"""The report's plots, checked on the drawn figures: every agent has its row (``never`` included),
axes read as plain numbers, legends sit outside the data, identical rows are said to be identical,
false starts are drawn, and a statistic that is not finite is written, not dropped."""

import dataclasses
import math

import pytest

from war_env.league import League, make_shards, play_shard
from war_env.league.plots import _plain_log_ticks, cause_parts, make_figures
from war_env.league.results import rounds_of, summarise

matplotlib = pytest.importorskip("matplotlib")


def figures_for(league: League, change=lambda record: record):
    records = [change(r) for shard in make_shards(league, set(), 50) for r in play_shard(shard)]
    rounds = rounds_of(league, records)
    drawn = make_figures(league, rounds, summarise(league, rounds))
    yield {name: figure for name, (figure, _) in drawn.items()}
    import matplotlib.pyplot as plt

    for figure, _ in drawn.values():
        plt.close(figure)


@pytest.fixture(scope="module")
def figures():
    yield from figures_for(League(("prompt", "eager", "never", "last_moment"), ("instant", "human"), 20, 2))


def texts(figure) -> list[str]:
    found = [t.get_text() for t in figure.findobj(matplotlib.text.Text)]
    return [t for t in found if t]


def test_every_agent_has_its_row_in_every_plot(figures):
    for name, figure in figures.items():
        shown = " ".join(texts(figure))
        for agent in ("prompt", "eager", "never", "last_moment"):
            assert agent in shown, (name, agent)


def test_no_axis_is_labelled_with_powers_of_ten(figures):
    for name, figure in figures.items():
        figure.canvas.draw()
        for axis in figure.axes:
            labels = [label.get_text() for label in axis.get_xticklabels() + axis.get_yticklabels()]
            assert not any("^" in label or "$" in label for label in labels), (name, labels)


def test_legends_sit_outside_the_data(figures):
    for name, figure in figures.items():
        figure.canvas.draw()
        renderer = figure.canvas.get_renderer()
        legends = figure.legends + [axis.get_legend() for axis in figure.axes if axis.get_legend()]
        for legend in legends:
            box = legend.get_window_extent(renderer)
            for axis in figure.axes:
                assert not box.overlaps(axis.get_window_extent(renderer)), name


def test_the_regret_plot_splits_losses_by_cause_and_names_the_reference(figures):
    shown = texts(figures["regret.png"])
    assert {"false starts", "idle ticks", "takeovers"} <= set(shown)
    assert shown.count("reference") == 2  # prompt's row, in both panels


def test_a_printed_regret_starts_past_its_interval_and_every_opponent_s_marker(figures):
    amount = figures["regret.png"].axes[0]
    markers = [x for line in amount.lines for x, y in zip(line.get_xdata(), line.get_ydata()) if round(y) == 3]
    (printed,) = [text for text in amount.texts if round(text.get_position()[1]) == 3]  # eager's row
    assert markers and printed.get_position()[0] >= max(markers)  # its worst opponent sits past its interval


def test_an_agent_that_ties_the_reference_is_said_to_tie_it():
    for drawn in figures_for(League(("oracle", "prompt", "never"), ("instant",), 4, 0)):
        assert texts(drawn["regret.png"]).count("0: ties the reference") == 2  # prompt plays as the oracle


def test_the_regret_plot_reads_small_regrets_beside_large_ones_on_a_log_axis(figures):
    # never (1.03) beside eager (tens): on a linear axis never's bar was a sliver
    amount = figures["regret.png"].axes[0]
    assert amount.get_xscale() == "log"
    low, high = amount.get_xlim()
    bars = {round(bar.get_y() + bar.get_height() / 2): bar for bar in amount.patches}
    never, eager = (bars[row] for row in (1, 3))  # rows: prompt (the reference), never, last_moment, eager
    assert low < never.get_x() + never.get_width() and eager.get_x() + eager.get_width() < high


def test_the_reaction_plot_states_takeovers_per_round_and_draws_one_false_start_panel(figures):
    figure = figures["reaction.png"]
    shown = texts(figure)
    assert "never\n0 draws per\nopponent\ntaken over in\n100% of rounds" in shown  # a takeover ends its round
    assert "never drew in its own turn" in shown
    assert not any("no false starts" in text for text in shown)  # no panel that only says so
    (panel,) = [axis for axis in figure.axes if axis.get_title().startswith("False starts")]
    assert [label.get_text() for label in panel.get_yticklabels()] == ["eager"]  # the only agent that made any
    assert {"vs instant", "vs human"} <= set(shown)  # one bar per opponent


def test_the_reaction_plot_counts_draws_per_opponent_as_the_timing_table_does():
    league = League(("prompt", "human"), ("instant", "uniform"), 6, 1)
    records = [r for shard in make_shards(league, set(), 50) for r in play_shard(shard)]
    rounds = rounds_of(league, records)
    results = summarise(league, rounds)
    table = {(p["agent"], p["opponent"]): p["reaction"]["draws"] for p in results["pairings"]}
    drawn = make_figures(league, rounds, results)
    shown = texts(drawn["reaction.png"][0])
    assert table[("prompt", "instant")] == table[("prompt", "uniform")]  # the cards fix the moves of a deal
    assert f"prompt\n{table[('prompt', 'instant')]} draws per\nopponent" in " ".join(shown)
    human = table[("human", "instant")] + table[("human", "uniform")]
    if table[("human", "instant")] != table[("human", "uniform")]:  # taken over in some rounds: fewer own draws
        assert f"human\n{human} draws over\n2 opponents" in " ".join(shown)
    import matplotlib.pyplot as plt

    for figure, _ in drawn.values():
        plt.close(figure)


def test_a_league_without_false_starts_has_no_false_start_panel():
    for drawn in figures_for(League(("prompt", "never"), ("instant",), 4, 0)):
        figure = drawn["reaction.png"]
        assert not any(axis.get_title().startswith("False starts") for axis in figure.axes)


def test_identical_round_lengths_are_said_beside_the_name_where_they_cover_no_marker(figures):
    (axis,) = figures["round_length.png"].axes
    labels = {label.get_text().split("\n")[0]: label.get_text() for label in axis.get_yticklabels()}
    assert labels["eager"] == "eager\n(same rounds as prompt)"  # both draw on the opening tick
    assert labels["prompt"] == "prompt"
    inside = [text.get_text() for text in axis.texts]  # text drawn among the markers
    assert not any("same rounds" in text for text in inside)


def test_a_cause_where_the_agent_gained_is_drawn_left_of_0_and_the_parts_sum_to_the_whole():
    # 65 false starts a round, but fewer than the reference's: a gain there, a loss of idle ticks
    by_cause = {"outcome": 0.0, "false_starts": -2.0, "idle_ticks": 6.0, "takeover": 0.0}
    parts = cause_parts(by_cause, ["outcome", "false_starts", "idle_ticks", "takeover"])
    assert parts == [("false_starts", -0.5, 0.5), ("idle_ticks", 0.0, 1.5)]  # of a regret of 4: -50% and 150%
    assert sum(width if left >= 0 else -width for _, left, width in parts) == 1.0


def test_the_regret_plot_draws_a_gain_as_a_negative_part_of_the_share_bar():
    league = League(("prompt", "eager"), ("human",), 4, 0)
    records = [r for shard in make_shards(league, set(), 50) for r in play_shard(shard)]
    rounds = rounds_of(league, records)
    results = summarise(league, rounds)
    (eager,) = [entry for entry in results["agents"] if entry["agent"] == "eager"]
    regret = eager["regret"]["value"]
    eager["regret_by_cause"] = {cause: 0.0 for cause in eager["regret_by_cause"]}
    eager["regret_by_cause"].update(false_starts=-regret, idle_ticks=2 * regret)  # the same whole, split
    drawn = make_figures(league, rounds, results)
    share = drawn["regret.png"][0].axes[1]
    bars = sorted((bar.get_x(), bar.get_width()) for bar in share.patches)
    assert bars == [(-1.0, 1.0), (0.0, 2.0)]
    assert share.get_xlim()[0] <= -1.0 and share.get_xlim()[1] >= 2.0
    assert "left of 0" in share.get_xlabel()
    import matplotlib.pyplot as plt

    for figure, _ in drawn.values():
        plt.close(figure)


def test_a_statistic_that_is_not_finite_is_written_on_the_plots():
    # The rules bound every reward (|r| <= 1e6), so a league's sums stay finite; records summarised by
    # hand can still hold an overflow, and the plots must say so rather than drop the agent.
    def overflow(record):
        return dataclasses.replace(record, episode_return=-math.inf) if record.agent == "eager" else record

    for drawn in figures_for(League(("prompt", "eager"), ("human",), 4, 0), overflow):
        assert "not finite" in texts(drawn["regret.png"])


@pytest.mark.parametrize(
    "low, high, ticks", [(16, 420, [20, 50, 100, 200]), (57, 180, [70, 100, 150]), (120.53, 221.7, [150, 200])]
)
def test_log_axes_get_plain_ticks_at_1_2_5_or_finer_steps(low, high, ticks):
    assert _plain_log_ticks(low, high) == ticks


@pytest.mark.slow
def test_a_model_agent_named_by_a_long_path_keeps_its_axes_and_shows_its_file(tmp_path):
    """A model spec carries its file's path; a plot shows its start and its file's name and keeps the
    axes the size of the others (the whole spec would squeeze them away: matplotlib warns then)."""
    import warnings

    long_spec = "ppo:path=" + "/home/someone/experiments/war/2026-12-04/run-17/checkpoints" * 2 + "/final.zip"
    played = League(("prompt", "eager"), ("instant",), 10, 2)
    renamed = dataclasses.replace(played, agents=(long_spec, "eager"))
    records = [
        dataclasses.replace(r, agent=long_spec) if r.agent == "prompt" else r
        for shard in make_shards(played, set(), 50)
        for r in play_shard(shard)
    ]
    rounds = rounds_of(renamed, records)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "constrained_layout not applied because axes sizes collapsed to zero"
        drawn = make_figures(renamed, rounds, summarise(renamed, rounds))
        for name, (figure, _) in drawn.items():
            figure.canvas.draw()
            shown = " ".join(texts(figure))
            assert long_spec not in shown and "final.zip" in shown and "ppo:…" in shown, name
            assert min(axis.get_window_extent().width for axis in figure.axes) > 100, name
    import matplotlib.pyplot as plt

    plt.close("all")
