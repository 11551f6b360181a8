"""The probes' suite: ``war-bench --suite``, one bounded score per capability (docs/probes.md).

Each probe of ``war_env.core.probes`` is a league on its own env id (``League.env_id``), played and reported by
``run.run_league`` in a folder of its own (``<suite>/<probe>/``: rounds, report, plots, resume and workers as
in any war-bench run), with the probe's opponent, the agents given and the probe's yardsticks
(``league.probe_figures.agents_of``: the ``oracle``, the agent lacking the capability, the simple baselines). A model
trained on another game (its ``war_env_model.json`` names another ``env_id``) is not played in that probe.

Per probe, an agent's **score** is ``(its return - the best simple baseline's) / (the oracle's - the best simple
baseline's)`` on the same deals, with a paired bootstrap interval (``stats.bootstrap_score``), clipped to [0, 1]
(``stats.bounded_score``): 0 is the best simple baseline (the one of least exact cost,
``evaluation.probe_gaps.exact_gaps``) and everything worse, 1 the oracle. Beside it, its **regret**: the oracle's
return minus its own, the raw figure with its interval. The headline ranks the agents given that are not yardsticks
(``league.probe_figures.yardsticks``) and says what separates the best of them from the next, per probe. The suite
folder receives ``suite.json`` (per probe and agent ``return``, ``regret`` and ``score``, and the probe's
``separation``), ``suite.md`` (the headline, the scores and the regrets, agents x probes), ``suite.png`` (the chart)
and ``run.json`` (each session that played rounds; each probe's folder has its own, with the machine's load).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from war_env.agents import check_commands_restated, is_exec_spec, make_agent, trained_on
from war_env.core.bots import make_bot
from war_env.core.probes import PROBES, Probe, probe_named
from war_env.evaluation import observation_game
from war_env.evaluation.probe_gaps import exact_gaps
from war_env.league.league import DEFAULT_SEED, DEFAULT_SHARD_ROUNDS, ORACLE, League
from war_env.league.probe_figures import agents_of, yardsticks
from war_env.league.report import fmt
from war_env.league.rounds_file import ROUNDS_FILE, load_rounds
from war_env.league.run import CONFIG_FILE, check_players, read_league, read_run_config, run_league
from war_env.league.stats import bootstrap_mean, bootstrap_score, bounded_score
from war_env.support.atomic import write_atomic
from war_env.support.provenance import provenance
from war_env.support.run_folder import locked_run_folder, record_session, refuse_started, write_settings

DEFAULT_SUITE_ROUNDS = 200
"""Rounds per agent and probe: the default suite (13 yardstick pairings) plays in a few minutes on 2 cores."""
SUITE_CONFIG = "suite_config.json"
RESULTS_FILE, REPORT_FILE, CHART_FILE = "suite.json", "suite.md", "suite.png"
LEGEND_ROWS = 30
"""Agents per column of the chart's legend."""


@dataclass(frozen=True)
class Suite:
    """What a suite run plays: the agents given, the probes, rounds per pairing and the first seed."""

    agents: tuple[str, ...]
    probes: tuple[str, ...]
    rounds: int
    seed: int

    def __post_init__(self):
        if not self.probes:
            raise ValueError("no probes")
        for name in self.probes:
            probe_named(name)  # a known probe, at one of its levels if it names one
        if isinstance(self.rounds, bool) or not isinstance(self.rounds, int) or self.rounds < 2:
            raise ValueError(f"rounds must be a whole number >= 2 (a paired interval needs two), got {self.rounds!r}")

    def to_dict(self) -> dict:
        return {"agents": list(self.agents), "probes": list(self.probes), "rounds": self.rounds, "seed": self.seed}

    @classmethod
    def from_dict(cls, data: dict) -> Suite:
        return cls(tuple(data["agents"]), tuple(data["probes"]), data["rounds"], data["seed"])


def probe_agents(suite: Suite, probe: Probe, trust_model_file: bool = False) -> tuple[str, ...]:
    """The agents of a probe's league: its yardsticks, then the agents given that play from the probe's own
    observation (not a model trained on another game, nor an agent that reads the opponent's clock where the probe
    hides it: the ``oracle`` alone does, as the reference)."""
    given = [spec for spec in suite.agents if spec not in agents_of(probe) and plays_in(spec, probe, trust_model_file)]
    return tuple(dict.fromkeys([*agents_of(probe), *given]))


def plays_in(spec: str, probe: Probe, trust_model_file: bool = False) -> bool:
    """Whether the agent ``spec`` plays the probe from the probe's own observation."""
    if trained_on(spec) not in (None, probe.env_id):
        return False
    config, bot = probe.config(), make_bot(probe.opponent)
    agent = make_agent(spec, config=config, opponent=bot, trust_model_file=trust_model_file)
    try:
        return observation_game(probe.env_id, config, agent) == probe.env_id
    except ValueError:  # a model whose fields the probe does not show
        return False


@dataclass
class SuiteRun:
    run_dir: Path
    results: dict
    rounds_played: int


def run_suite(
    agents: Sequence[str] = (),
    probes: Sequence[str] | None = None,
    rounds: int | None = None,
    seed: int | None = None,
    out: str | Path | None = None,
    workers: int = 1,
    resume: str | Path | None = None,
    shard_rounds: int = DEFAULT_SHARD_ROUNDS,
    progress: bool = True,
    trust_model_file: bool = False,
) -> SuiteRun:
    """Play every probe's league (or what a resumed suite lacks), then write the suite's scores, report and chart.
    On ``resume``, ``agents`` may be given only to restate the suite's ``exec:`` agents: a suite folder never starts
    a program that the command line does not name (``check_commands_restated``), nor do its probes' folders."""
    if resume is not None:
        given = [
            name
            for name, value in (("probes", probes), ("rounds", rounds), ("seed", seed), ("out", out))
            if value is not None
        ]
        if given:
            raise ValueError(
                f"a resumed suite takes its agents and probes from {resume}/{SUITE_CONFIG}; do not also give {given}"
            )
        run_dir, suite = Path(resume), read_suite(Path(resume))
        check_commands_restated(
            suite.agents, agents, f"{run_dir}/{SUITE_CONFIG}", "--agents", f"war-bench --suite --resume {run_dir}"
        )
    else:
        suite = Suite(
            tuple(agents),
            tuple(probes or PROBES),
            DEFAULT_SUITE_ROUNDS if rounds is None else rounds,
            DEFAULT_SEED if seed is None else seed,
        )
        run_dir = Path(out) if out is not None else Path("runs") / "suite" / datetime.now().strftime("%Y%m%d-%H%M%S")
    with locked_run_folder(run_dir, "war-bench --suite"):
        if resume is None:
            _start_suite(run_dir, suite, trust_model_file)
        started_at, played = datetime.now(timezone.utc).isoformat(timespec="seconds"), 0
        for name in suite.probes:
            played += _play_probe(
                run_dir / name, suite, probe_named(name), workers, shard_rounds, progress, trust_model_file
            )
        session = {"started_at": started_at, "rounds_played": played} if played else None  # each probe's has more
        record_session(run_dir, session, provenance=provenance())
        results = suite_results(run_dir, suite)
        write_atomic(run_dir / RESULTS_FILE, json.dumps(results, indent=2) + "\n")
        chart = suite_chart(results, run_dir / CHART_FILE)
        write_atomic(run_dir / REPORT_FILE, render_suite(results, chart))
    return SuiteRun(run_dir, results, played)


def read_suite(run_dir: Path) -> Suite:
    return read_run_config(run_dir, SUITE_CONFIG, "suite", Suite.from_dict, "suite")


def _start_suite(run_dir: Path, suite: Suite, trust_model_file: bool) -> None:
    """Write the suite's config once every probe's league is checked (a bad spec fails before any file)."""
    if (run_dir / SUITE_CONFIG).exists():
        refuse_started(run_dir, "a suite", f"continue it with --suite --resume {run_dir}, or choose another --out")
    for name in suite.probes:
        probe = probe_named(name)
        league = League(
            probe_agents(suite, probe, trust_model_file),
            (probe.opponent,),
            suite.rounds,
            suite.seed,
            env_id=probe.env_id,
        )
        check_players(league, trust_model_file)
    write_settings(run_dir / SUITE_CONFIG, {"suite": suite.to_dict()})


def _play_probe(
    folder: Path, suite: Suite, probe: Probe, workers: int, shard_rounds: int, progress: bool, trust_model_file: bool
) -> int:
    """The probe's league: continued when its folder holds one, else started. Returns the rounds played."""
    common = {
        "workers": workers,
        "shard_rounds": shard_rounds,
        "progress": progress,
        "trust_model_file": trust_model_file,
    }
    if (folder / CONFIG_FILE).is_file():  # its exec: agents restated: the suite's, which the command line restated
        league = read_league(folder)
        restated = [spec for spec in suite.agents if is_exec_spec(spec) and spec in league.agents]
        return run_league(restated, resume=folder, **common).rounds_played
    return run_league(
        list(probe_agents(suite, probe, trust_model_file)),
        [probe.opponent],
        suite.rounds,
        suite.seed,
        out=folder,
        env_id=probe.env_id,
        **common,
    ).rounds_played


# --- the scores --------------------------------------------------------------------------------------------------
def suite_results(run_dir: Path, suite: Suite) -> dict:
    """Every probe's scores from its league's rounds file."""
    contenders = contenders_of(suite.agents)
    return {
        "suite": suite.to_dict(),
        "probes": [probe_scores(run_dir / name, probe_named(name), contenders) for name in suite.probes],
    }


def probe_scores(folder: Path, probe: Probe, contenders: Sequence[str]) -> dict:
    """Each agent's mean return, regret, bounded score in one probe (0 = the best simple baseline or worse, 1 =
    the oracle) and share of rounds taken over, and what separates the best of the ``contenders`` that played it
    from the next."""
    league = read_league(folder)
    pairings = load_rounds(folder / ROUNDS_FILE, league).pairings
    returns = {agent: pairings[(agent, probe.opponent)].returns for agent in league.agents}
    baseline = exact_gaps(probe).best_simple
    scores = agent_scores(returns, baseline)
    for agent, entry in scores.items():  # what a score clipped to 0 hides, beside the regret
        entry["takeovers"] = pairings[(agent, probe.opponent)].takeover_rate()
    return {
        "name": probe.name,
        "env_id": probe.env_id,
        "capability": probe.capability,
        "opponent": probe.opponent,
        "folder": folder.name,
        "rounds": league.rounds,
        "baseline": baseline,
        "agents": scores,
        "separation": separation(returns, [agent for agent in contenders if agent in returns]),
    }


def agent_scores(returns: dict[str, np.ndarray], baseline: str) -> dict:
    """Per agent (paired rounds: round i is the same deal for each): its mean return; its regret, the oracle's return
    minus its own (the raw figure, in return per round); its score, ``stats.bounded_score`` of (its return - the
    baseline's) / (the oracle's - the baseline's)."""
    oracle, zero = returns[ORACLE], returns[baseline]
    return {
        agent: {
            "return": bootstrap_mean(values),
            "regret": bootstrap_mean(oracle - values),
            "score": bounded_score(bootstrap_score(values, zero, oracle)),
        }
        for agent, values in returns.items()
    }


def separation(returns: dict[str, np.ndarray], contenders: Sequence[str]) -> dict | None:
    """The contender of highest mean return, the next one, and the paired mean of their difference in return per
    round (``None``: no contender played; ``next`` ``None``: only one did)."""
    ranked = sorted(contenders, key=lambda agent: -float(np.mean(returns[agent])))
    if not ranked:
        return None
    best, rest = ranked[0], ranked[1:]
    difference = bootstrap_mean(returns[best] - returns[rest[0]]) if rest else None
    return {"best": best, "next": rest[0] if rest else None, "difference": difference}


def contenders_of(agents: Sequence[str]) -> list[str]:
    """The agents given that are not yardsticks (``league.probe_figures.yardsticks``): the ones a headline ranks."""
    return [agent for agent in agents if agent not in yardsticks()]


def agent_order(results: dict) -> list[str]:
    """The agents given first (in their order), then the yardsticks, the oracle last."""
    given = results["suite"]["agents"]
    seen = [agent for probe in results["probes"] for agent in probe["agents"]]
    rest = [agent for agent in dict.fromkeys(seen) if agent not in given and agent != ORACLE]
    return [*given, *rest, ORACLE]


def mean_scores(results: dict, agents: Sequence[str]) -> dict[str, tuple[float, int]]:
    """Each agent's mean bounded score over the probes it played, and how many those were."""
    means = {}
    for agent in agents:
        values = [p["agents"][agent]["score"]["value"] for p in results["probes"] if agent in p["agents"]]
        values = [value for value in values if value is not None]
        if values:
            means[agent] = (float(np.mean(values)), len(values))
    return means


def headline(results: dict) -> list[str]:
    """The best agent given that is not a yardstick (by its mean bounded score over the probes it played), then per
    probe the best of those agents, its score and regret, where it lies between the best simple baseline and the
    oracle, and what separates it from the next (their paired difference in return per round)."""
    means = mean_scores(results, contenders_of(results["suite"]["agents"]))
    marks = ", ".join(f"`{agent}`" for agent in sorted(yardsticks() & set(agent_order(results))))
    if not means:
        return [
            f"No agent but the yardsticks ({marks}) played: nothing to rank. The yardsticks are built from the "
            "probes' own solution (`counting` and the `oracle` tie by construction), so their scores say how the "
            "probes are built, not what an agent can do; how they lie is the table below."
        ]
    scale = (
        f"score 0 = a probe's best simple baseline or worse, 1 = the oracle, on the same deals; the yardsticks "
        f"{marks} are played for reference and not ranked"
    )
    top = max(mean for mean, _ in means.values())
    best = [agent for agent in means if means[agent][0] == top]
    if top == 0:
        first = (
            f"**No agent given beats a probe's best simple baseline**: each of the {len(means)} agent(s) given "
            f"that are not yardsticks scores 0 wherever it played ({scale}); per probe, the least regret:"
        )
    else:
        names = ", ".join(f"`{agent}`" for agent in best)
        first = (
            f"**Best agent{'s (tied)' if len(best) > 1 else ''}: {names}**, mean score {top:.2f} over the "
            f"{means[best[0]][1]} probe(s) it played, of {len(means)} agent(s) given that are not yardsticks "
            f"({scale})."
        )
    lines = [first, ""]
    for probe in results["probes"]:
        lines.append(f"- **{probe['name']}** ({probe['env_id']}): " + _probe_line(probe))
    return lines + hidden_by_zero(results, list(means))


def at_zero(entry: dict) -> bool:
    """Whether an agent's score is 0: the best simple baseline's return or worse, however much worse."""
    return entry["score"]["value"] == 0


def zero_note(entry: dict) -> str:
    """What a score of 0 hides: the regret, and the share of rounds taken over when there is one."""
    taken = entry.get("takeovers")  # a suite.json written before takeovers were recorded has none
    regret = entry["regret"]["value"]
    return f"regret {'not finite' if regret is None else f'{regret:.3g}'}" + (
        f", taken over in {taken:.0%} of rounds" if taken else ""
    )


def hidden_by_zero(results: dict, agents: Sequence[str]) -> list[str]:
    """A line naming, for every agent given that scores 0 somewhere, how far below the baseline it is there."""
    parts = []
    for agent in agents:
        zeros = [p for p in results["probes"] if agent in p["agents"] and at_zero(p["agents"][agent])]
        if zeros:
            where = "; ".join(f"{p['name']} {zero_note(p['agents'][agent])}" for p in zeros)
            parts.append(f"`{agent}` ({where})")
    if not parts:
        return []
    return [
        "",
        "A score of 0 hides how far below the baseline an agent is (its regret, in return per round, and how often "
        "its timer ran out): " + ", ".join(parts) + ".",
    ]


def _probe_line(probe: dict) -> str:
    separated = probe["separation"]
    if separated is None:
        return (
            "no agent given played this probe (each reads what its observation hides, or was trained on another game)."
        )
    agent, entry = separated["best"], probe["agents"][separated["best"]]
    baseline_regret = probe["agents"][probe["baseline"]]["regret"]
    text = (
        f"`{agent}`, score {_cell(entry['score'], 2)}, regret {fmt(entry['regret'], 3)} per round (the best simple "
        f"baseline `{probe['baseline']}`'s {fmt(baseline_regret, 3)}){_taken_over(entry)}; {_verdict(entry['score'])}"
    )
    if separated["next"] is None:
        return text + " The only agent given here."
    difference = separated["difference"]
    bound_of_gap = difference["value"] if difference.get("exact") else difference["low"]  # an exact gap is its own
    told = "Ahead of" if bound_of_gap is not None and bound_of_gap > 0 else "Not told apart from"
    return text + f" {told} `{separated['next']}` by {fmt(difference, 3)} per round."


def _taken_over(entry: dict) -> str:
    taken = entry.get("takeovers")
    return f", taken over in {taken:.0%} of rounds" if taken else ""


def _verdict(score: dict) -> str:
    low, high, side = score["low"], score["high"], score.get("clipped")
    if score.get("exact"):
        return "exactly the oracle." if score["value"] == 1 else "exactly the best simple baseline."
    if side == "below" and (high is None or high == 0):
        return "no better than the best simple baseline."
    if low is None:
        return "no interval."
    if high >= 1:
        return "as good as the oracle within its interval." if low > 0 else "not told apart from either end."
    return (
        "better than the best simple baseline, short of the oracle."
        if low > 0
        else "short of the oracle, not told apart from the best simple baseline."
    )


def score_table(results: dict, key: str = "score") -> list[str]:
    """Agents x probes: each cell the agent's ``score`` (or ``regret``) with its interval; ``not played`` where the
    agent did not play."""
    probes = results["probes"]
    digits = 2 if key == "score" else 3
    header = [f"{p['name']} (0 = `{p['baseline']}`)" if key == "score" else p["name"] for p in probes]
    lines = ["| agent | " + " | ".join(header) + " |", "|---|" + "---|" * len(probes)]
    for agent in agent_order(results):
        cells = [_cell(p["agents"][agent][key], digits) if agent in p["agents"] else "not played" for p in probes]
        if key == "regret":
            cells = ["reference" if agent == ORACLE else cell for cell in cells]
        lines.append(f"| `{agent}` | " + " | ".join(cells) + " |")
    return lines


def _cell(entry: dict, digits: int) -> str:
    return fmt(entry, digits) + (" (clipped)" if entry.get("clipped") else "")


def render_suite(results: dict, chart: str) -> str:
    suite = results["suite"]
    last_seed = suite["seed"] + suite["rounds"] - 1
    rounds = f"{suite['rounds']} paired rounds per agent and probe (seeds {suite['seed']}..{last_seed})"
    lines = [
        "# Probe suite: one score per capability",
        "",
        *headline(results),
        "",
        "## Scores",
        "",
        *score_table(results),
        "",
        f"Score = (the agent's mean return - the best simple baseline's) / (the oracle's - the baseline's) over "
        f"{rounds}, with a 95% paired bootstrap interval, clipped to [0, 1] (`(clipped)`: the unclipped value "
        "lay outside; below 0 an agent shows none of the capability, and how much worse it is, in the regret "
        "below, is in a unit that differs by probe); `(exact)`: the agent's returns are the baseline's or the "
        "oracle's round for round.",
        "",
        "## Regret per round",
        "",
        *score_table(results, "regret"),
        "",
        "Regret = the mean over the same deals of (the oracle's return - the agent's), with its 95% paired "
        "bootstrap interval: the raw figure, unbounded, in return per round. Each probe's folder holds its "
        "league's report (regret by cause, timing).",
        "",
        f"![scores by agent and probe]({chart})",
        "",
        "## The probes",
        "",
    ]
    lines += [
        f"- **{p['name']}** (`{p['env_id']}`, opponent `{p['opponent']}`, folder `{p['folder']}/`): {p['capability']}"
        for p in results["probes"]
    ]
    return "\n".join(lines) + "\n"


def suite_chart(results: dict, path: Path) -> str:
    """Write ``suite_figure`` to ``path``; returns the file's name."""
    import matplotlib.pyplot as plt

    from war_env.league.plots import save_figure

    figure = suite_figure(results)
    save_figure(figure, path)
    plt.close(figure)
    return path.name


def suite_figure(results: dict):
    """Agents by probes: in each probe's group a bar per agent that played it, with its 95% interval and its value
    written past the interval's end (at 0, its regret and share of rounds taken over: what the 0 hides); lines at 0
    (the best simple baseline or worse) and 1 (the oracle). The caller closes the figure."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from war_env.league.plots import colours as palette
    from war_env.league.plots import label_width, plot_label

    probes, agents = results["probes"], agent_order(results)
    colours = dict(zip(agents, palette(len(agents))))
    slots = max(len(probe["agents"]) for probe in probes)
    width = 0.8 / slots
    rows = min(len(agents), LEGEND_ROWS)  # a long legend gets columns and a taller figure, never cut
    height = max(5.0, 1.2 + 0.2 * rows)
    legend_width = 0.3 + label_width(agents) * -(-len(agents) // LEGEND_ROWS)  # a label's width per column
    figure, axis = plt.subplots(
        figsize=(max(7.0, 1.5 + 0.32 * slots * len(probes)) + legend_width, height), layout="constrained"
    )
    ends = [0.0, 1.0]
    for i, probe in enumerate(probes):
        played = [(agent, probe["agents"][agent]["score"]) for agent in agents if agent in probe["agents"]]
        played = [(agent, score) for agent, score in played if score["value"] is not None]
        for k, (agent, score) in enumerate(played):
            x = i - width * (len(played) - 1) / 2 + k * width
            ends.append(_bar(axis, x, width, probe["agents"][agent], colours[agent]))
    low, high = min(ends), max(ends)
    margin = 0.12 * (high - low)
    axis.set_ylim(low - margin, high + margin)
    axis.axhline(0, color="black", linewidth=0.8)
    axis.axhline(1, color="black", linewidth=0.8, linestyle="--")
    axis.set_xticks(range(len(probes)), [f"{p['name']}\n(0 = {p['baseline']})" for p in probes])
    axis.set_ylabel("score (0 = best simple baseline or worse, 1 = oracle)")
    axis.set_xlabel(
        "a bar at 0 is labelled with what the 0 hides: the agent's regret (return lost per round to the oracle) "
        "and how often its timer ran out",
        fontsize="small",
    )
    axis.set_title(
        f"Score per capability, {results['suite']['rounds']} paired rounds per agent and probe, 95% intervals",
        fontsize="medium",
    )
    handles = [matplotlib.patches.Patch(color=colours[agent], label=plot_label(agent)) for agent in agents]
    figure.legend(
        handles=handles,
        loc="outside right upper",
        fontsize="small",
        title="agent",
        title_fontsize="small",
        ncols=-(-len(agents) // LEGEND_ROWS),
    )
    return figure


def bar_label(entry: dict) -> str:
    """The text beside an agent's bar: its score, and at 0 what the 0 hides (``zero_note``)."""
    value = entry["score"]["value"]
    return f"0: {zero_note(entry)}" if at_zero(entry) else f"{value:.2f}"


def _bar(axis, x: float, width: float, entry: dict, colour) -> float:
    """One agent's bar, interval and label; returns where its text ends (for the axis' range)."""
    score = entry["score"]
    value, low, high = score["value"], score["low"], score["high"]
    error = None if low is None else [[value - low], [high - value]]
    axis.bar([x], [value], width, color=colour, yerr=error, capsize=2, ecolor="black")
    if at_zero(entry):  # a bar of no height: its colour on the line, so the label names whose it is
        axis.plot([x], [0], "s", color=colour, markersize=6, zorder=3)
    up = value >= 0
    end = (max(value, high) if up else min(value, low)) if low is not None else value
    label = bar_label(entry)
    axis.annotate(
        label,
        (x, end),
        xytext=(0, (5 if at_zero(entry) else 2) * (1 if up else -1)),  # past the marker at 0
        textcoords="offset points",
        ha="center",
        va="bottom" if up else "top",
        fontsize="x-small",
        rotation=90,
    )
    span = 0.018 * len(label) * max(1.0, abs(end))  # room for the text, about 4 points a character
    return end + span if up else end - span
