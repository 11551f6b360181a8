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

from war_env.league.league import League
from war_env.league.results import CAUSE_NAMES, CAUSES, ranked
from war_env.league.stats import CONFIDENCE
from war_env.support.atomic import write_atomic

CAUSE_COLOURS = {"outcome": "tab:grey", "false_starts": "tab:red", "idle_ticks": "tab:blue", "takeover": "tab:orange"}
NOT_FINITE = "not finite"
OPPONENT_MARKERS = "os^Dv<>px*"


def save_figure(figure, path: Path) -> None:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110)
    write_atomic(path, buffer.getvalue())


def make_plots(league: League, indexed: dict, results: dict, run_dir: Path) -> dict[str, str]:
    """Write the PNGs of the report into ``run_dir``; returns {file name: caption}."""
    import matplotlib.pyplot as plt

    plots = {}
    for name, (figure, caption) in make_figures(league, indexed, results).items():
        save_figure(figure, run_dir / name)
        plt.close(figure)
        plots[name] = caption
    return plots


def make_figures(league: League, indexed: dict, results: dict) -> dict:
    """{file name: (matplotlib figure, caption)}; the caller closes the figures."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    agents = [entry["agent"] for entry in ranked(results)]
    return {name: draw(plt, league, indexed, results, agents)
            for name, draw in (("regret.png", _regret), ("reaction.png", _reaction), ("round_length.png", _round_length))}


def _label_width(agents: list[str]) -> float:
    return 0.3 + 0.075 * max(len(agent) for agent in agents)


def _regret(plt, league, indexed, results, agents):
    """Left, how much: the regret over all opponents as bars split by cause, with the interval of the total,
    and each opponent's regret as a marker. Right, where: each cause's share of the agent's losses."""
    reference = results["reference_agent"]
    overall = {e["agent"]: e for e in results["agents"]}
    pairings = {(p["agent"], p["opponent"]): p for p in results["pairings"]}
    causes = [c for c in CAUSES if any(e["regret_by_cause"] and e["regret_by_cause"][c]
                                       for e in [*overall.values(), *pairings.values()])] or ["false_starts"]
    figure, (amount, share) = plt.subplots(1, 2, sharey=True, layout="constrained", gridspec_kw={"width_ratios": [3, 2]},
                                           figsize=(_label_width(agents) + 9, 1.6 + 0.5 * len(agents)))
    # a marker per opponent; with one opponent the bar is its regret
    markers = [OPPONENT_MARKERS[i % len(OPPONENT_MARKERS)] for i in range(len(league.opponents))] if len(league.opponents) > 1 else []
    offsets = np.linspace(-0.22, 0.22, len(league.opponents)) if len(league.opponents) > 1 else [0.0]
    largest = max([_highest(overall[a]) for a in agents] + [_highest(p) for p in pairings.values()] + [0.0]) or 1.0
    for row, agent in enumerate(agents):
        entry = overall[agent]
        if agent == reference:
            for axis in (amount, share):
                axis.text(0.01, row, "reference", transform=axis.get_yaxis_transform(), va="center",
                          fontsize="small", color="dimgrey")
            continue
        by_cause, total = entry["regret_by_cause"], entry["regret"]
        if total["value"] is None or any(by_cause[c] is None for c in causes):
            for axis in (amount, share):
                axis.text(0.01, row, NOT_FINITE, transform=axis.get_yaxis_transform(), va="center", color="darkred")
            continue
        _stacked_bar(amount, row, [by_cause[c] for c in causes], causes)
        if total["low"] is not None:
            amount.errorbar(total["value"], row, xerr=[[total["value"] - total["low"]], [total["high"] - total["value"]]],
                            fmt="none", ecolor="black", capsize=4, linewidth=1.2)
        for offset, marker, opponent in zip(offsets, markers, league.opponents):
            value = pairings[(agent, opponent)]["regret"]["value"]
            if value is not None:
                amount.plot([value], [row + offset], marker, color="black", markerfacecolor="white", markersize=4.5)
        losses = {c: max(by_cause[c], 0.0) for c in causes}
        lost = sum(losses.values())
        if lost > 0:
            _stacked_bar(share, row, [losses[c] / lost for c in causes], causes)
    amount.axvline(0, color="grey", linewidth=0.6)
    amount.set_xlim(min(0.0, amount.get_xlim()[0]), 1.05 * largest)
    label = f"return lost per round to {reference}"
    if markers:
        label += " (over all opponents: bars; per opponent: markers)"
    if amount.get_xlim()[0] < 0:
        label += "\nleft of 0: a cause where the agent does better than the reference"
    amount.set_xlabel(label)
    amount.set_title("How much each agent loses", fontsize="medium")
    share.set_xlim(0, 1)
    share.xaxis.set_major_formatter(plt.FuncFormatter(lambda value, _: f"{value:.0%}"))
    share.set_xlabel("share of the agent's losses")
    share.set_title("Where it loses it", fontsize="medium")
    for axis in (amount, share):
        axis.grid(axis="x", alpha=0.3)
    amount.set_yticks(range(len(agents)), [f"{agent}\n{_regret_label(overall[agent], reference)}" for agent in agents])
    amount.set_ylim(len(agents) - 0.5, -0.5)  # the best agent on top, as in the report's table
    handles = [plt.Rectangle((0, 0), 1, 1, color=CAUSE_COLOURS[c]) for c in causes]
    labels = [CAUSE_NAMES[c] for c in causes]
    handles.append(plt.Line2D([], [], color="black", marker="|", markersize=8, linewidth=1.2))
    labels.append(f"{CONFIDENCE:.0%} interval")
    for marker, opponent in zip(markers, league.opponents):
        handles.append(plt.Line2D([], [], color="black", marker=marker, markerfacecolor="white", linestyle="none"))
        labels.append(f"vs {opponent}")
    figure.legend(handles, labels, loc="outside lower center", ncols=min(len(handles), 8), fontsize="small", frameon=False)
    figure.suptitle(f"Regret to {reference} on the same deals, by cause", fontsize="medium")
    return figure, (f"regret to `{reference}` per round: how much (bars over all opponents, split by cause, with the "
                    f"{CONFIDENCE:.0%} interval; markers per opponent) and where (each cause's share of the losses)")


def _regret_label(entry: dict, reference: str) -> str:
    """The total under the agent's name: the number the bar stands for."""
    total = entry["regret"]
    if entry["agent"] == reference:
        return "reference"
    if total["value"] is None:
        return NOT_FINITE
    return f"{total['value']:.3g}" + (" (exact)" if total.get("exact") else " per round")


def _stacked_bar(axis, row, values, causes) -> None:
    """Positive parts stack to the right of 0, negative ones (a cause where the agent does better) to the left."""
    right = left = 0.0
    for value, cause in zip(values, causes):
        start = right if value >= 0 else left
        axis.barh(row, value, left=start, height=0.6, color=CAUSE_COLOURS[cause])
        right, left = (right + value, left) if value >= 0 else (right, left + value)


def _highest(entry) -> float:
    """The right end of an entry's bar and interval."""
    total = entry.get("regret")
    if total is None or total["value"] is None:
        return 0.0
    parts = [v for v in (entry.get("regret_by_cause") or {}).values() if v is not None and v > 0]
    return max(total["high"] if total["high"] is not None else total["value"], sum(parts), 0.0)


def _reaction(plt, league, indexed, results, agents):
    """Per agent: when its turns ended (own draw at tick k, or the timer ran out), and its false starts."""
    turn_ticks = league.config.turn_ticks
    stats = {(p["agent"], p["opponent"]): p for p in results["pairings"]}
    figure, axes = plt.subplots(len(agents), 2, layout="constrained", squeeze=False, sharex="col",
                                figsize=(10.5, 0.9 + 0.95 * len(agents)), gridspec_kw={"width_ratios": [3, 2]})
    ran_out_at = turn_ticks + 1
    largest_false = max([p["false_starts_per_round"]["high"] or p["false_starts_per_round"]["value"] or 0.0
                         for p in results["pairings"] if p["false_starts_per_round"]["value"] is not None] + [1.0])
    for (turns, false_starts), agent in zip(axes, agents):
        reactions = np.zeros(turn_ticks)
        ran_out = 0
        for opponent in league.opponents:
            for i in range(league.rounds):
                record = indexed[(agent, opponent, i)]
                reactions += np.bincount(np.asarray(record.reaction_ticks[0], dtype=int), minlength=turn_ticks)[:turn_ticks]
                ran_out += bool(record.takeover[0])
        total = reactions.sum() + ran_out
        turns.bar(np.arange(turn_ticks), reactions / total, width=0.9, color="tab:blue")
        turns.bar([ran_out_at], [ran_out / total], width=1.6, color="tab:orange")
        turns.set_ylim(0, 1.05)
        turns.set_yticks([0, 0.5, 1], ["0", "50%", "100%"], fontsize="x-small")
        note = f"{int(total)} turns\ntimer ran out: {ran_out / total:.1%}" if total else "no turns"
        turns.set_ylabel(f"{agent}\n{note}", rotation=0, ha="right", va="center", fontsize="small")
        turns.grid(axis="y", alpha=0.3)

        rows = np.arange(len(league.opponents))
        false_starts.set_xlim(0, 1.2 * largest_false)
        false_starts.grid(axis="x", alpha=0.3)
        entries = [stats[(agent, o)]["false_starts_per_round"] for o in league.opponents]
        if all(e.get("exact") and e["value"] == 0 for e in entries):
            false_starts.text(0.5, 0.5, "no false starts against any opponent", transform=false_starts.transAxes,
                              ha="center", va="center", fontsize="small", color="dimgrey")
            false_starts.set_yticks([])
            continue
        for row, opponent in zip(rows, league.opponents):
            entry = stats[(agent, opponent)]["false_starts_per_round"]
            if entry["value"] is None:
                false_starts.text(0, row, f" {NOT_FINITE}", va="center", fontsize="x-small", color="darkred")
                continue
            false_starts.barh(row, entry["value"], height=0.7, color="tab:red")
            if entry["low"] is not None and not entry.get("exact"):
                false_starts.errorbar(entry["value"], row, xerr=[[entry["value"] - entry["low"]], [entry["high"] - entry["value"]]],
                                      fmt="none", ecolor="black", capsize=2, linewidth=0.8)
            false_starts.text(max(entry["high"] or 0, entry["value"]) + 0.01 * largest_false, row,
                              f" {entry['value']:.3g}", va="center", fontsize="x-small")
        false_starts.set_yticks(rows, [f"vs {o}" for o in league.opponents], fontsize="x-small")
        false_starts.set_ylim(len(rows) - 0.5, -0.5)
    axes[-1][0].set_xticks(list(range(0, turn_ticks, 5)) + [ran_out_at],
                           [str(t) for t in range(0, turn_ticks, 5)] + ["ran\nout"], fontsize="x-small")
    axes[-1][0].set_xlabel(f"tick of the turn on which the agent drew (ticks of {league.config.tick_seconds} s); "
                           f"share of its turns")
    axes[-1][1].set_xlabel(f"false starts per round, {CONFIDENCE:.0%} interval")
    axes[0][0].set_title("When each agent drew once its turn was open", fontsize="medium")
    axes[0][1].set_title("False starts (draws pressed out of turn)", fontsize="medium")
    return figure, ("when each agent drew in its open turns (share of its turns, the takeover's 'timer ran out' "
                    "in orange), and its false starts per round against each opponent")


def _round_length(plt, league, indexed, results, agents):
    """Median and 5-95% range of round length in game seconds, per agent (rows) and opponent (colours)."""
    import matplotlib.ticker

    tick = league.config.tick_seconds
    figure, axis = plt.subplots(layout="constrained", figsize=(_label_width(agents) + 7.5, 1.2 + 0.55 * len(agents)))
    offsets = np.linspace(-0.25, 0.25, len(league.opponents)) if len(league.opponents) > 1 else [0.0]
    lengths = {(a, o): np.array([indexed[(a, o, i)].ticks for i in range(league.rounds)]) * tick
               for a in agents for o in league.opponents}
    for (opponent, offset), colour in zip(zip(league.opponents, offsets), _colours(len(league.opponents))):
        for row, agent in enumerate(agents):
            low, median, high = np.percentile(lengths[(agent, opponent)], [5, 50, 95])
            axis.plot([low, high], [row + offset] * 2, color=colour, linewidth=2, solid_capstyle="butt")
            axis.plot([median], [row + offset], "o", color=colour, markersize=5,
                      label=f"vs {opponent}" if row == 0 else None)
    for row, agent in enumerate(agents):  # identical rounds are said, not hidden
        twin = next((a for a in agents[:row] if all(np.array_equal(lengths[(a, o)], lengths[(agent, o)])
                                                     for o in league.opponents)), None)
        if twin is not None:
            axis.annotate(f"same rounds as {twin}", (1.0, row), xycoords=("axes fraction", "data"), ha="right",
                          va="center", fontsize="x-small", color="dimgrey", xytext=(-4, 0), textcoords="offset points")
    axis.set_xscale("log")
    axis.margins(x=0.08)
    axis.autoscale_view()
    axis.xaxis.set_major_locator(matplotlib.ticker.FixedLocator(_plain_log_ticks(*axis.get_xlim())))
    axis.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda value, _: f"{value:g}"))
    axis.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    axis.set_yticks(range(len(agents)), agents)
    axis.set_ylim(len(agents) - 0.5, -0.5)
    axis.grid(axis="x", which="both", alpha=0.3)
    axis.set_xlabel(f"round length, seconds of game time (ticks x {tick} s; log scale)")
    figure.legend(loc="outside right upper", fontsize="small", title="median, 5-95%", title_fontsize="small")
    axis.set_title("How long rounds last", fontsize="medium")
    return figure, "round length per agent and opponent: median (dot) and the middle 90% of rounds (line)"


def _plain_log_ticks(low: float, high: float) -> list[float]:
    """Ticks for a log axis labelled with plain numbers (20, 50, 100), never 10^x: 1-2-5 steps, finer
    steps when the range is too narrow for three of those."""
    decades = range(int(np.floor(np.log10(low))), int(np.ceil(np.log10(high))) + 1)
    for steps in ((1, 2, 5), (1, 1.5, 2, 3, 5, 7), (1, 1.5, 2, 2.5, 3, 4, 5, 6, 7, 8, 9)):
        ticks = [step * 10.0**decade for decade in decades for step in steps if low <= step * 10.0**decade <= high]
        if len(ticks) >= 3:
            return ticks
    return [low, high]


def _colours(n: int) -> list:
    import matplotlib

    return [matplotlib.colormaps["tab10"](i % 10) for i in range(n)]
