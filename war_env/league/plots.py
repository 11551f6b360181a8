"""The PNG plots of a benchmark report (matplotlib, the bench extra), one question each:

* ``regret.png``: where does each agent lose return to the reference, and how much?
* ``reaction.png``: how fast does each agent draw once its turn is open, how often does its timer run
  out, and how many false starts does it make?
* ``round_length.png``: how long are rounds, per agent and opponent?

Agents are rows in the report's ranked order, so the three plots and the tables read the same way.
A statistic that is not finite is written on the plot as "not finite", never dropped.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np

from war_env.core.rewards import CAUSES
from war_env.evaluation.summary import RoundColumns
from war_env.league.league import League
from war_env.league.results import CAUSE_NAMES, ranked
from war_env.league.stats import CONFIDENCE
from war_env.support.atomic import write_atomic

CAUSE_COLOURS = {"outcome": "tab:grey", "false_starts": "tab:red", "idle_ticks": "tab:blue", "takeover": "tab:orange"}
NOT_FINITE = "not finite"
OPPONENT_MARKERS = "os^Dv<>px*"
PLOTS = ("regret.png", "reaction.png", "round_length.png")
"""The report's plots, in the order it shows them."""


def save_figure(figure, path: Path) -> None:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110)
    write_atomic(path, buffer.getvalue())


def make_plots(league: League, rounds: dict, results: dict, run_dir: Path, on_plot=None) -> dict[str, str]:
    """Write the PNGs of the report into ``run_dir`` from the results and the league's rounds (the columns
    of every pairing, ``rounds_file.LeagueRounds.pairings``), one at a time, calling ``on_plot(name)`` as each
    starts; returns {file name: caption}."""
    import matplotlib.pyplot as plt

    plots = {}
    for name in PLOTS:
        if on_plot is not None:
            on_plot(name)
        figure, caption = make_figures(league, rounds, results, only=name)[name]
        save_figure(figure, run_dir / name)
        plt.close(figure)
        plots[name] = caption
    return plots


def make_figures(league: League, rounds: dict, results: dict, only: str | None = None) -> dict:
    """{file name: (matplotlib figure, caption)} of every plot (``only``: of that one); the caller closes them."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    agents = [entry["agent"] for entry in ranked(results)]
    drawers = {"regret.png": _regret, "reaction.png": _reaction, "round_length.png": _round_length}
    return {name: drawers[name](plt, league, rounds, results, agents) for name in PLOTS if only in (None, name)}


LABEL_CHARACTERS = 32
"""Longest agent name on a plot: a model spec carries its file's path, which would squeeze the axes away."""


def plot_label(agent: str) -> str:
    """``agent`` as a plot shows it: whole when short, else its start and its end (the file's name) around
    an ellipsis; the report's tables keep the whole spec."""
    if len(agent) <= LABEL_CHARACTERS:
        return agent
    head = agent.split(":", 1)[0][:16] + ":"
    return f"{head}…{agent[-(LABEL_CHARACTERS - len(head) - 1) :]}"


def _labels(agents: list[str]) -> list[str]:
    return [plot_label(agent) for agent in agents]


def label_width(agents: list[str]) -> float:
    """Inches the longest of these agents' labels takes, with a margin."""
    return 0.3 + 0.075 * max(len(label) for label in _labels(agents))


def _regret(plt, league, rounds, results, agents):
    """Left, how much: each agent's regret over all opponents on a log axis (a 0.9 stays readable beside a
    35.7), with its interval and each opponent's regret as a marker. Right, where: each cause's share of the
    agent's losses, on a linear axis (shares stack; amounts on a log axis would not)."""
    import matplotlib.ticker

    reference = results["reference_agent"]
    overall = {e["agent"]: e for e in results["agents"]}
    pairings = {(p["agent"], p["opponent"]): p for p in results["pairings"]}
    causes = [
        c
        for c in CAUSES
        if any(e["regret_by_cause"] and e["regret_by_cause"][c] for e in [*overall.values(), *pairings.values()])
    ] or ["false_starts"]
    figure, (amount, share) = plt.subplots(
        1,
        2,
        sharey=True,
        layout="constrained",
        gridspec_kw={"width_ratios": [3, 2]},
        figsize=(label_width(agents) + 9, 1.6 + 0.5 * len(agents)),
    )
    # a marker per opponent; with one opponent the bar is its regret
    markers = (
        [OPPONENT_MARKERS[i % len(OPPONENT_MARKERS)] for i in range(len(league.opponents))]
        if len(league.opponents) > 1
        else []
    )
    offsets = np.linspace(-0.22, 0.22, len(league.opponents)) if len(league.opponents) > 1 else [0.0]
    floor, ceiling = _log_range(
        [_positive_values(overall[a], pairings, a, league.opponents) for a in agents if a != reference]
    )
    amount.set_xscale("log")
    amount.set_xlim(floor, ceiling)
    share_ends = [0.0, 1.0]
    for row, agent in enumerate(agents):
        entry = overall[agent]
        note = _regret_note(entry, reference)
        if note is not None:  # the reference, a tie, better than the reference, or not finite: said, not drawn
            for axis in (amount, share):
                axis.text(
                    0.01,
                    row,
                    note,
                    transform=axis.get_yaxis_transform(),
                    va="center",
                    fontsize="small",
                    color="darkred" if note == NOT_FINITE else "dimgrey",
                )
            continue
        by_cause, total = entry["regret_by_cause"], entry["regret"]
        amount.barh(row, total["value"] - floor, left=floor, height=0.6, color="dimgrey")
        if total["low"] is not None:
            low = max(total["low"], floor)
            amount.errorbar(
                total["value"],
                row,
                xerr=[[total["value"] - low], [total["high"] - total["value"]]],
                fmt="none",
                ecolor="black",
                capsize=4,
                linewidth=1.2,
            )
        amount.text(
            value_position(total, pairings, agent, league.opponents),
            row,
            f"  {total['value']:.3g}",
            va="center",
            fontsize="small",
        )
        for offset, marker, opponent in zip(offsets, markers, league.opponents):
            value = pairings[(agent, opponent)]["regret"]["value"]
            if value is not None:  # a regret at or below the axis' floor sits on its left edge
                amount.plot(
                    [max(value, floor)], [row + offset], marker, color="black", markerfacecolor="white", markersize=4.5
                )
        parts = cause_parts(by_cause, causes)
        for cause, left, width in parts:
            share.barh(row, width, left=left, height=0.6, color=CAUSE_COLOURS[cause])
        share_ends += [left + width for _, left, width in parts] + [left for _, left, _ in parts]
    amount.xaxis.set_major_locator(matplotlib.ticker.FixedLocator(_plain_log_ticks(floor, ceiling)))
    amount.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda value, _: f"{value:g}"))
    amount.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    label = f"return lost per round to {plot_label(reference)} (log scale)"
    if markers:
        label += "\nover all opponents: bars; per opponent: markers"
    amount.set_xlabel(label)
    amount.set_title("How much each agent loses", fontsize="medium")
    share.xaxis.set_major_formatter(plt.FuncFormatter(lambda value, _: f"{value:.0%}"))
    share.set_xlim(0, 1)  # losses alone fill 0 to 100%
    if min(share_ends) < 0:  # a gain: its part left of 0, the losses past 100%
        pad = 0.03 * (max(share_ends) - min(share_ends))
        share.set_xlim(min(share_ends) - pad, max(share_ends) + pad)
        share.axvline(0, color="black", linewidth=0.8)
        share.set_xlabel("share of the agent's regret\n(left of 0: causes where it gained on the reference)")
    else:
        share.set_xlabel("share of the agent's losses")
    share.set_title("Where it loses it", fontsize="medium")
    for axis in (amount, share):
        axis.grid(axis="x", alpha=0.3)
    amount.set_yticks(range(len(agents)), _labels(agents))
    amount.set_ylim(len(agents) - 0.5, -0.5)  # the best agent on top, as in the report's table
    handles = [plt.Rectangle((0, 0), 1, 1, color=CAUSE_COLOURS[c]) for c in causes]
    labels = [CAUSE_NAMES[c] for c in causes]
    handles.append(plt.Line2D([], [], color="black", marker="|", markersize=8, linewidth=1.2))
    labels.append(f"{CONFIDENCE:.0%} interval")
    for marker, opponent in zip(markers, league.opponents):
        handles.append(plt.Line2D([], [], color="black", marker=marker, markerfacecolor="white", linestyle="none"))
        labels.append(f"vs {opponent}")
    figure.legend(
        handles, labels, loc="outside lower center", ncols=min(len(handles), 8), fontsize="small", frameon=False
    )
    figure.suptitle(f"Regret to {plot_label(reference)} on the same deals, by cause", fontsize="medium")
    return figure, (
        f"regret to `{reference}` per round: how much (log scale; bars over all opponents with the "
        f"{CONFIDENCE:.0%} interval, markers per opponent) and where (each cause's share of the losses)"
    )


def _regret_note(entry: dict, reference: str) -> str | None:
    """What stands in a row instead of a bar: the reference, a tie, a negative or a non-finite regret."""
    total = entry["regret"]
    if entry["agent"] == reference:
        return "reference"
    if total["value"] is None or any(value is None for value in entry["regret_by_cause"].values()):
        return NOT_FINITE
    if total["value"] == 0:
        return "0: ties the reference"
    if total["value"] < 0:
        return f"{-total['value']:.3g} better than the reference (the luck of these deals)"
    return None


def value_position(total: dict, pairings: dict, agent: str, opponents) -> float:
    """Where a row's printed regret starts: past its interval and its per-opponent markers, so it covers none."""
    drawn = [total["value"], total["high"]] + [pairings[(agent, o)]["regret"]["value"] for o in opponents]
    return max(value for value in drawn if value is not None)


def _positive_values(entry: dict, pairings: dict, agent: str, opponents) -> list[float]:
    """The positive numbers an agent's row draws: its regret, interval and per-opponent regrets."""
    total = entry["regret"]
    values = [total["value"], total["low"], total["high"]] + [
        pairings[(agent, o)]["regret"]["value"] for o in opponents
    ]
    return [value for value in values if value is not None and value > 0 and np.isfinite(value)]


def _log_range(rows: list[list[float]]) -> tuple[float, float]:
    """A log axis' limits that hold every row's regret and interval, with room for the printed value."""
    regrets = [min(row) for row in rows if row] or [0.1]
    highs = [max(row) for row in rows if row] or [1.0]
    return min(regrets) / 2, max(highs) * 3


def cause_parts(by_cause: dict, causes) -> list[tuple[str, float, float]]:
    """Each cause's part of an agent's regret as (cause, left, width) on the share axis: its regret over the
    agent's whole regret (the causes' sum, positive where a bar is drawn). Losses stack right from 0 in the order
    of the causes, gains (a cause where the agent did better than the reference) left from 0, so the parts sum
    to 100% and a gain is drawn, not dropped. A cause of no regret has no part."""
    total = sum(by_cause[c] for c in causes)
    parts, right, left = [], 0.0, 0.0
    for cause in causes:
        share = by_cause[cause] / total
        if share > 0:
            parts.append((cause, right, share))
            right += share
        elif share < 0:
            left += share
            parts.append((cause, left, -share))
    return parts


def _reaction(plt, league, rounds, results, agents):
    """Left, per agent: on which tick of its open turn it drew (share of its draws), and how often its timer
    ran out (share of rounds: a takeover ends the seat's play for the round). Right, one panel: false starts
    per round against each opponent, for the agents that made any."""
    turn_ticks = league.config.turn_ticks
    stats = {(p["agent"], p["opponent"]): p for p in results["pairings"]}
    starters = [
        a for a in agents if any(stats[(a, o)]["false_starts_per_round"]["value"] != 0 for o in league.opponents)
    ]
    figure = plt.figure(
        layout="constrained", figsize=(label_width(agents) + (8.5 if starters else 5.5), 0.9 + 0.95 * len(agents))
    )
    grid = figure.add_gridspec(len(agents), 2 if starters else 1, width_ratios=[3, 2] if starters else [1])
    histograms = [figure.add_subplot(grid[row, 0]) for row in range(len(agents))]
    for axis in histograms[1:]:
        axis.sharex(histograms[0])
    for turns, agent in zip(histograms, agents):
        everything = RoundColumns.pooled([rounds[(agent, opponent)] for opponent in league.opponents])
        reactions = everything.reaction_histogram
        draws = reactions.sum()
        if draws:
            turns.bar(np.arange(turn_ticks), reactions / draws, width=0.9, color="tab:blue")
        else:
            turns.text(
                0.5,
                0.5,
                "never drew in its own turn",
                transform=turns.transAxes,
                ha="center",
                va="center",
                fontsize="small",
                color="dimgrey",
            )
        turns.set_ylim(0, 1.05)
        turns.set_yticks([0, 0.5, 1], ["0", "50%", "100%"], fontsize="x-small")
        note = (
            f"{_draws_note(rounds, agent, league.opponents)}\ntaken over in\n{everything.takeover_rate():.0%} of rounds"
        )
        turns.set_ylabel(f"{plot_label(agent)}\n{note}", rotation=0, ha="right", va="center", fontsize="small")
        turns.grid(axis="y", alpha=0.3)
        if turns is not histograms[-1]:
            turns.tick_params(labelbottom=False)
    histograms[-1].set_xticks(range(0, turn_ticks, 5), [str(t) for t in range(0, turn_ticks, 5)], fontsize="x-small")
    histograms[-1].set_xlim(-1, turn_ticks)
    histograms[-1].set_xlabel(
        f"tick of the turn on which the agent drew\n(ticks of {league.config.tick_seconds} s; share of its draws)"
    )  # two lines: one overran a narrow figure's right edge
    histograms[0].set_title("When each agent drew once its turn was open", fontsize="medium")
    caption = (
        "when each agent drew in its open turns (share of its draws; beside it, the share of rounds in which "
        "its timer ran out and the bot took over)"
    )
    if starters:
        _false_starts(plt, figure.add_subplot(grid[:, 1]), league, stats, starters)
        caption += ", and the false starts per round of the agents that made any, against each opponent"
    else:
        caption += "; no agent made a false start"
    return figure, caption


def _draws_note(rounds: dict, agent: str, opponents) -> str:
    """The agent's draws as the timing table counts them: per pairing (said once when equal against all)."""
    per_opponent = [int(rounds[(agent, opponent)].reaction_histogram.sum()) for opponent in opponents]
    if len(set(per_opponent)) == 1:
        return f"{per_opponent[0]} draws" + (" per\nopponent" if len(opponents) > 1 else "")
    return f"{sum(per_opponent)} draws over\n{len(opponents)} opponents"


def _false_starts(plt, axis, league, stats, agents) -> None:
    """False starts per round, one group of bars per agent, one bar per opponent, with intervals."""
    opponents = league.opponents
    height = 0.8 / len(opponents)
    for (index, opponent), colour in zip(enumerate(opponents), colours(len(opponents))):
        for row, agent in enumerate(agents):
            entry = stats[(agent, opponent)]["false_starts_per_round"]
            y = row - 0.4 + height * (index + 0.5)
            if entry["value"] is None:
                axis.text(0, y, f" {NOT_FINITE}", va="center", fontsize="x-small", color="darkred")
                continue
            axis.barh(
                y, entry["value"], height=height * 0.9, color=colour, label=f"vs {opponent}" if row == 0 else None
            )
            if entry["low"] is not None and not entry.get("exact"):
                axis.errorbar(
                    entry["value"],
                    y,
                    xerr=[[entry["value"] - entry["low"]], [entry["high"] - entry["value"]]],
                    fmt="none",
                    ecolor="black",
                    capsize=2,
                    linewidth=0.8,
                )
    axis.set_yticks(range(len(agents)), _labels(agents), fontsize="small")
    axis.set_ylim(len(agents) - 0.5, -0.5)
    axis.margins(x=0.1)
    axis.grid(axis="x", alpha=0.3)
    axis.set_xlabel(f"false starts per round, {CONFIDENCE:.0%} interval")
    axis.set_title("False starts (draws pressed out of turn)", fontsize="medium")
    if len(opponents) > 1:
        handles, labels = axis.get_legend_handles_labels()
        axis.figure.legend(
            handles, labels, loc="outside lower right", ncols=min(len(labels), 4), fontsize="x-small", frameon=False
        )


def _round_length(plt, league, rounds, results, agents):
    """Median and 5-95% range of round length in game seconds, per agent (rows) and opponent (colours)."""
    import matplotlib.ticker

    tick = league.config.tick_seconds
    figure, axis = plt.subplots(layout="constrained", figsize=(label_width(agents) + 7.5, 1.2 + 0.55 * len(agents)))
    offsets = np.linspace(-0.25, 0.25, len(league.opponents)) if len(league.opponents) > 1 else [0.0]
    lengths = {(a, o): rounds[(a, o)].ticks * tick for a in agents for o in league.opponents}
    for (opponent, offset), colour in zip(zip(league.opponents, offsets), colours(len(league.opponents))):
        for row, agent in enumerate(agents):
            low, median, high = np.percentile(lengths[(agent, opponent)], [5, 50, 95])
            axis.plot([low, high], [row + offset] * 2, color=colour, linewidth=2, solid_capstyle="butt")
            axis.plot(
                [median], [row + offset], "o", color=colour, markersize=5, label=f"vs {opponent}" if row == 0 else None
            )
    axis.set_xscale("log")
    axis.margins(x=0.08)
    axis.autoscale_view()
    axis.xaxis.set_major_locator(matplotlib.ticker.FixedLocator(_plain_log_ticks(*axis.get_xlim())))
    axis.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda value, _: f"{value:g}"))
    axis.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    twins = same_rounds(lengths, agents, league.opponents)
    axis.set_yticks(
        range(len(agents)),
        [
            label + (f"\n(same rounds as {plot_label(twins[a])})" if a in twins else "")
            for a, label in zip(agents, _labels(agents))
        ],
    )  # beside the row's name, where it covers no marker
    axis.set_ylim(len(agents) - 0.5, -0.5)
    axis.grid(axis="x", which="both", alpha=0.3)
    axis.set_xlabel(f"round length, seconds of game time (ticks x {tick} s; log scale)")
    figure.legend(loc="outside right upper", fontsize="small", title="median, 5-95%", title_fontsize="small")
    axis.set_title("How long rounds last", fontsize="medium")
    return figure, "round length per agent and opponent: median (dot) and the middle 90% of rounds (line)"


def same_rounds(lengths: dict, agents: list[str], opponents) -> dict[str, str]:
    """Agent -> the first agent above it whose rounds last exactly as long against every opponent (identical rows
    are said, not hidden)."""
    twins = {}
    for row, agent in enumerate(agents):
        for earlier in agents[:row]:
            if all(np.array_equal(lengths[(earlier, o)], lengths[(agent, o)]) for o in opponents):
                twins[agent] = earlier
                break
    return twins


def _plain_log_ticks(low: float, high: float) -> list[float]:
    """Ticks for a log axis labelled with plain numbers (20, 50, 100), never 10^x: 1-2-5 steps, finer
    steps when the range is too narrow for three of those; two plain ticks before the axis' own ends."""
    decades = range(int(np.floor(np.log10(low))), int(np.ceil(np.log10(high))) + 1)
    for steps in ((1, 2, 5), (1, 1.5, 2, 3, 5, 7), (1, 1.5, 2, 2.5, 3, 4, 5, 6, 7, 8, 9)):
        ticks = [step * 10.0**decade for decade in decades for step in steps if low <= step * 10.0**decade <= high]
        if len(ticks) >= 3:
            return ticks
    return ticks if len(ticks) == 2 else [low, high]


def colours(n: int) -> list:
    import matplotlib

    return [matplotlib.colormaps["tab10"](i % 10) for i in range(n)]
