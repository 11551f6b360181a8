"""The report's plots, checked on the drawn figures: every agent has its row (``never`` included),
axes read as plain numbers, legends sit outside the data, identical rows are said to be identical,
false starts are drawn, and a statistic that is not finite is written, not dropped."""

import dataclasses
import math

import pytest

from war_env.league import League, make_shards, play_shard
from war_env.league.plots import _plain_log_ticks, make_figures
from war_env.league.results import summarise

matplotlib = pytest.importorskip("matplotlib")


def figures_for(league: League, change=lambda record: record):
    records = [change(r) for shard in make_shards(league, set(), 50) for r in play_shard(shard)]
    indexed = {(r.agent, r.opponent, r.round): r for r in records}
    drawn = make_figures(league, indexed, summarise(league, indexed))
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
    assert any(label.startswith("prompt\nreference") for label in shown)


def test_the_reaction_plot_shows_never_taken_over_and_eager_false_starts(figures):
    shown = texts(figures["reaction.png"])
    assert "never\n40 turns\ntimer ran out: 100.0%" in shown  # 20 rounds x 2 opponents, one turn each
    assert shown.count("no false starts against any opponent") == 3  # prompt, never, last_moment
    assert any(label.startswith("vs human") for label in shown)  # eager's bars, one per opponent


def test_identical_round_lengths_are_said_not_hidden(figures):
    assert "same rounds as prompt" in texts(figures["round_length.png"])  # eager: both draw on the opening tick


def test_a_statistic_that_is_not_finite_is_written_on_the_plots():
    # The rules bound every reward (|r| <= 1e6), so a league's sums stay finite; records summarised by
    # hand can still hold an overflow, and the plots must say so rather than drop the agent.
    def overflow(record):
        return dataclasses.replace(record, episode_return=-math.inf) if record.agent == "eager" else record

    for drawn in figures_for(League(("prompt", "eager"), ("human",), 4, 0), overflow):
        assert "not finite" in texts(drawn["regret.png"])


@pytest.mark.parametrize("low, high, ticks", [(16, 420, [20, 50, 100, 200]), (57, 180, [70, 100, 150])])
def test_log_axes_get_plain_ticks_at_1_2_5_or_finer_steps(low, high, ticks):
    assert _plain_log_ticks(low, high) == ticks
