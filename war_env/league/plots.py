"""The PNG plots of a benchmark report (matplotlib, the bench extra)."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np

from war_env.atomic import write_atomic
from war_env.league.league import League
from war_env.league.stats import CONFIDENCE


def save_figure(figure, path: Path) -> None:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    write_atomic(path, buffer.getvalue())


def make_plots(league: League, indexed: dict, results: dict, run_dir: Path) -> dict[str, str]:
    """The three PNGs of the report; returns {file name: caption}."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    config = league.config
    plots = {}
    stats = {(p["agent"], p["opponent"]): p for p in results["pairings"]}

    figure, axes = plt.subplots(figsize=(2.2 + 1.6 * len(league.opponents), 4.5))
    width = 0.8 / len(league.agents)
    for a, agent in enumerate(league.agents):
        xs = np.arange(len(league.opponents)) + (a - (len(league.agents) - 1) / 2) * width
        entries = [stats[(agent, o)]["return"] for o in league.opponents]
        values = np.array([e["value"] for e in entries])
        errors = np.array([[e["value"] - e["low"] for e in entries], [e["high"] - e["value"] for e in entries]])
        axes.errorbar(xs, values, yerr=errors, fmt="o", capsize=3, label=agent)
    axes.set_xticks(np.arange(len(league.opponents)), league.opponents)
    axes.set_yscale("symlog", linthresh=1.0)
    axes.axhline(0, color="grey", linewidth=0.5)
    axes.set_xlabel("opponent")
    axes.set_ylabel("mean return per round (symlog)")
    axes.set_title(f"Mean return with {CONFIDENCE:.0%} bootstrap intervals, {league.rounds} paired rounds each")
    axes.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    save_figure(figure, run_dir / "return.png")
    plt.close(figure)
    plots["return.png"] = "mean return per agent and opponent, with 95% intervals"

    with_draws = [a for a in league.agents if any(indexed[(a, o, i)].reaction_ticks
                                                   for o in league.opponents for i in range(league.rounds))]
    if with_draws:
        figure, axes = plt.subplots(1, len(with_draws), figsize=(3.2 * len(with_draws), 3.2), squeeze=False)
        edges = np.arange(config.turn_ticks + 1) - 0.5
        for axis, agent in zip(axes[0], with_draws):
            counts = np.zeros(config.turn_ticks)
            for o in league.opponents:
                for i in range(league.rounds):
                    counts += np.bincount(indexed[(agent, o, i)].reaction_ticks, minlength=config.turn_ticks)
            axis.stairs(counts / counts.sum(), edges, fill=True)
            axis.set_title(agent, fontsize="small")
            axis.set_xlabel(f"reaction (ticks of {config.tick_seconds} s)")
        axes[0][0].set_ylabel("share of the agent's own draws")
        figure.suptitle("Reaction times of the agents' own draws (all opponents)")
        save_figure(figure, run_dir / "reaction_ticks.png")
        plt.close(figure)
        plots["reaction_ticks.png"] = "histogram of each agent's reaction times, in ticks after its turn opened"

    figure, axes = plt.subplots(1, len(league.opponents), figsize=(3.6 * len(league.opponents), 3.4),
                                squeeze=False, sharey=True)
    all_ticks = [r.ticks for r in indexed.values()]
    bins = np.geomspace(max(1, min(all_ticks)), max(all_ticks) + 1, 40)
    for axis, opponent in zip(axes[0], league.opponents):
        for agent in league.agents:
            counts, _ = np.histogram([indexed[(agent, opponent, i)].ticks for i in range(league.rounds)], bins=bins)
            axis.stairs(counts, bins, label=agent)
        axis.set_xscale("log")
        axis.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        axis.set_title(f"vs {opponent}", fontsize="small")
        axis.set_xlabel("ticks per round")
    axes[0][0].set_ylabel("rounds")
    axes[0][-1].legend(fontsize="x-small")
    figure.suptitle("Round length")
    save_figure(figure, run_dir / "round_length.png")
    plt.close(figure)
    plots["round_length.png"] = "distribution of round length in ticks, per opponent and agent"
    return plots
