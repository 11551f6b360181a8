"""``report.md``: a run's numbers for people."""

from __future__ import annotations

import math

from war_env.league.stats import BOOTSTRAP_RESAMPLES
from war_env.rules import WarConfig


def fmt(entry: dict | None, digits: int = 3) -> str:
    if entry is None or entry["value"] is None:
        return "–"
    if entry["low"] is None:
        return f"{entry['value']:.{digits}f}"
    return f"{entry['value']:.{digits}f} [{entry['low']:.{digits}f}, {entry['high']:.{digits}f}]"


def _rounds_for_width(width: float, rate: float = 0.5) -> int:
    """Rounds after which a 95% interval on a rate near ``rate`` is ``width`` wide (normal approximation)."""
    return math.ceil((2 * 1.96) ** 2 * rate * (1 - rate) / width**2)


def _session_text(session: dict) -> str:
    return (f"{session['rounds_played']} rounds with {session['workers']} worker(s) in {session['seconds']:.1f} s, "
            f"{session['rounds_per_second']:.1f} rounds/s")


def render_report(results: dict, run: dict, plots: dict[str, str]) -> str:
    league = results["config"]
    prov = run["provenance"]
    stats = {(p["agent"], p["opponent"]): p for p in results["pairings"]}
    agents, opponents = league["agents"], league["opponents"]
    played = sum(s["rounds_played"] for s in run["sessions"])
    seconds = sum(s["seconds"] for s in run["sessions"])
    non_default = {k: v for k, v in results["rules"].items() if getattr(WarConfig(), k) != v}
    lines = [
        "# War-v0 benchmark report",
        "",
        f"- agents: {', '.join(f'`{a}`' for a in agents)}",
        f"- opponents: {', '.join(f'`{o}`' for o in opponents)}",
        f"- rounds per pairing: {league['rounds']} (paired: {results['seeds']['rule']}, "
        f"seeds {results['seeds']['first']}..{results['seeds']['last']})",
        f"- rules: {'defaults' if not non_default else ', '.join(f'{k}={v}' for k, v in non_default.items())} "
        f"(turn {results['rules']['turn_seconds']} s = {round(results['rules']['turn_seconds'] / results['rules']['tick_seconds'])} "
        f"ticks of {results['rules']['tick_seconds']} s)",
        f"- config hash: `{results['config_hash']}`",
        f"- git commit: `{prov['git_commit']}`{' (working tree had uncommitted changes)' if prov['git_dirty'] else ''}",
        "- versions: " + ", ".join(f"{k} {v}" for k, v in prov["versions"].items() if v is not None),
        f"- machine: {prov['platform']}, {prov['cpus']} CPUs",
        f"- speed: {played} rounds played in {seconds:.1f} s = **{played / seconds if seconds else float('nan'):.1f} rounds/s** "
        f"({'; '.join(_session_text(session) for session in run['sessions'])})",
    ]
    trusted = [str(number) for number, session in enumerate(run["sessions"], start=1) if session.get("trust_model_file")]
    if trusted:
        lines.append(f"- **model files trusted**: session(s) {', '.join(trusted)} ran with --trust-model-file "
                     "(SB3 unpickled the model files in full; a file's code could run)")
    lines += [
        "",
        "## How to read this",
        "",
        f"Every number comes with a {results['confidence_level']:.0%} interval `value [low, high]`. Rates (win, draw, "
        "loss, takeovers, end reasons) use the Wilson score interval; means per round (return, false starts, "
        f"battles, wars, ticks) a percentile bootstrap over rounds ({BOOTSTRAP_RESAMPLES} resamples, fixed RNG); the "
        "mean reaction time a bootstrap over rounds of the ratio (sum of reaction ticks / number of draws); the "
        "95th percentile of reaction time the order-statistic interval (draws treated as independent). "
        "Return is the agent's summed reward over a round (win +1, loss -1, takeover -1, false start -0.1, "
        "idle tick -0.001 with the default rules). Reaction times count the agent's own draws only, in ticks "
        "after its turn opened (seconds = ticks x tick length).",
        "",
        "Deals are paired: round i of every pairing has the same deal, starter and round key, and the cards "
        "of a round never depend on timing. So the card outcome (winner, battles, wars, points) of round i is "
        "the same in every pairing"
        + (" (checked on this run: identical in all pairings)." if results["paired_card_outcomes_identical"]
           else " - **but this run found pairings that differ; something is wrong**.")
        + " Win rates therefore measure the deals, not the agents; agents differ by what timing costs them "
        "(false starts, idle ticks, takeovers). The differences to the reference agent below are paired.",
        "",
        f"Widest win-rate interval: {results['widest_win_rate_interval']:.3f} "
        f"(target < {results['win_rate_target_width']}: "
        f"{'met' if results['widest_win_rate_interval'] < results['win_rate_target_width'] else 'NOT met'}; "
        f"a win rate near 1/2 needs about {_rounds_for_width(results['win_rate_target_width'])} rounds per pairing for it).",
        "",
        "## Mean return per round",
        "",
        "| agent | " + " | ".join(f"vs {o}" for o in opponents) + " | all opponents |",
        "|---|" + "---|" * (len(opponents) + 1),
    ]
    overall = {entry["agent"]: entry["return"] for entry in results["agents"]}
    for agent in agents:
        lines.append(f"| `{agent}` | " + " | ".join(fmt(stats[(agent, o)]["return"]) for o in opponents)
                     + f" | {fmt(overall[agent])} |")
    reference = results["reference_agent"]
    lines += ["", f"## Return minus `{reference}`'s on the same rounds (paired bootstrap)", "",
              "| agent | " + " | ".join(f"vs {o}" for o in opponents) + " |", "|---|" + "---|" * len(opponents)]
    for agent in agents:
        if agent != reference:
            lines.append(f"| `{agent}` | " + " | ".join(fmt(stats[(agent, o)]["return_minus_reference"]) for o in opponents) + " |")
    lines += ["", "## Outcomes and takeovers", "",
              "| agent | opponent | win | draw | loss | agent taken over | opponent taken over |", "|---|---|---|---|---|---|---|"]
    for agent in agents:
        for o in opponents:
            p = stats[(agent, o)]
            lines.append(f"| `{agent}` | `{o}` | {fmt(p['win'])} | {fmt(p['draw'])} | {fmt(p['loss'])} | "
                         f"{fmt(p['agent_takeover'])} | {fmt(p['opponent_takeover'])} |")
    lines += ["", "## Timing", "",
              "| agent | opponent | false starts / round | draws | mean reaction, ticks | p95 reaction, ticks | "
              "mean reaction, s | p95 reaction, s |", "|---|---|---|---|---|---|---|---|"]
    for agent in agents:
        for o in opponents:
            p = stats[(agent, o)]
            r = p["reaction"]
            lines.append(f"| `{agent}` | `{o}` | {fmt(p['false_starts_per_round'], 2)} | {r['draws']} | "
                         f"{fmt(r['mean_ticks'], 2)} | {fmt(r['p95_ticks'], 1)} | {fmt(r['mean_seconds'], 3)} | "
                         f"{fmt(r['p95_seconds'], 2)} |")
    reasons = sorted({reason for p in results["pairings"] for reason in p["reasons"]})
    lines += ["", "## Round length and how rounds ended", "",
              "| agent | opponent | battles / round | wars / round | ticks / round | "
              + " | ".join(reasons) + " |", "|---|---|---|---|---|" + "---|" * len(reasons)]
    for agent in agents:
        for o in opponents:
            p = stats[(agent, o)]
            lines.append(f"| `{agent}` | `{o}` | {fmt(p['battles_per_round'], 1)} | {fmt(p['wars_per_round'], 2)} | "
                         f"{fmt(p['ticks_per_round'], 0)} | " + " | ".join(fmt(p["reasons"][x]) for x in reasons) + " |")
    lines += ["", "## Plots", ""]
    for name, caption in plots.items():
        lines += [f"![{caption}]({name})", "", f"*{caption}*", ""]
    lines += ["## Files", "",
              "- `results.json`: these numbers for programs (schema: `war_env/data/results.schema.json` in the package)",
              "- `rounds.jsonl.gz`: one line per round (`war_env.records.RoundRecord`), gzip-compressed",
              "- `config.json`: the league; `run.json`: provenance and timing", ""]
    return "\n".join(lines)
