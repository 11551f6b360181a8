"""``report.md``: a run's numbers for people, the answer first.

The first screen says who is best and why the others lose: a headline written from the numbers and a
table of agents ranked by paired regret to the reference agent, split by cause. The details follow,
each said once: a figure that is the same in every pairing (win rates, battles, how rounds ended: the
cards never depend on timing) gets one line, not a row per pairing.
"""

from __future__ import annotations

import math
import sys
import time

from war_env.core.rewards import CAUSES
from war_env.core.rules import WarConfig
from war_env.league.league import ORACLE
from war_env.league.results import CAUSE_NAMES, ranked
from war_env.league.stats import BOOTSTRAP_RESAMPLES, is_finite


class ReportProgress:
    """A line on stderr as each stage of writing a run's report starts (``war-bench: report 2/7: summarising
    ...``, with the seconds since the first), so the minute after the last round is not silent; nothing when
    ``enabled`` is false (``--quiet``)."""

    def __init__(self, stages: int, enabled: bool = True, stream=None):
        self.stages, self.enabled = stages, enabled
        self.stream = stream if stream is not None else sys.stderr
        self.done = 0
        self.started = time.perf_counter()

    def stage(self, what: str) -> None:
        self.done += 1
        if self.enabled:
            elapsed = time.perf_counter() - self.started
            print(
                f"war-bench: report {self.done}/{self.stages}: {what} ({elapsed:.0f} s)", file=self.stream, flush=True
            )


def number(value: float, digits: int = 3) -> str:
    """``value`` with ``digits`` decimals; in scientific notation when it is huge."""
    if value != 0 and abs(value) >= 1e6:
        return f"{value:.{digits}e}"
    return f"{value:.{digits}f}"


def visible(value: float, digits: int = 3) -> str:
    """``number(value, digits)``, with the decimals it takes to show two significant digits when ``digits``
    would print a nonzero value as zero (a headline that says an agent loses must not say 0.000)."""
    if value == 0 or not math.isfinite(value) or abs(value) >= 10**-digits:
        return number(value, digits)
    return number(value, 1 - math.floor(math.log10(abs(value))))


def fmt(entry: dict | None, digits: int = 3) -> str:
    """An estimate as text: ``value [low, high]``; ``value (exact)`` when every round gave that value;
    ``not finite`` for an overflow; ``–`` when there was nothing to estimate."""
    if entry is None:
        return "–"
    if entry.get("not_finite"):
        return "not finite"
    value = entry["value"]
    if value is None:
        return "–"
    if entry.get("exact"):
        return f"{int(value) if float(value).is_integer() else number(value, digits)} (exact)"
    if entry["low"] is None:
        return f"{number(value, digits)} (no interval)"
    return f"{number(value, digits)} [{number(entry['low'], digits)}, {number(entry['high'], digits)}]"


def _same(entries: list[dict | None]) -> bool:
    """All estimates equal (value and interval): a figure to say once."""
    keys = {None if e is None else (e["value"], e["low"], e["high"], e.get("not_finite")) for e in entries}
    return len(keys) == 1


def _rounds_for_width(width: float, rate: float = 0.5) -> int:
    """Rounds after which a 95% interval on a rate near ``rate`` is ``width`` wide (normal approximation)."""
    return math.ceil((2 * 1.96) ** 2 * rate * (1 - rate) / width**2)


def _agent_list(agents) -> str:
    return ", ".join(f"`{a}`" for a in agents)


# --- the first screen ------------------------------------------------------------------------------------------
COUNT_COLUMNS = (
    ("false starts / round", lambda e: f"{e['false_starts_per_round']:.1f}"),
    ("idle ticks / round", lambda e: f"{e['idle_ticks_per_round']:.1f}"),
    ("rounds taken over", lambda e: f"{e['takeover_share']:.0%}"),
)
"""What each agent did, in its own units, beside the regret columns (which are all return per round).
A takeover ends the seat's play for the round, so takeovers are counted per round everywhere."""


def _regret_value(entry: dict, reference: str) -> float:
    """The number agents are ranked by: 0 for the reference, infinity for a regret that is not finite."""
    if entry["agent"] == reference:
        return 0.0
    value = entry["regret"]["value"]
    return math.inf if value is None else value


def ranks(results: dict) -> list[tuple[int, dict]]:
    """(rank, entry) best first; agents with the same regret share a rank (1, 1, 3: competition ranking)."""
    reference = results["reference_agent"]
    order = ranked(results)
    values = [_regret_value(entry, reference) for entry in order]
    return [(values.index(value) + 1, entry) for value, entry in zip(values, order)]


def _main_causes(by_cause: dict) -> str:
    """The causes that make up most (90%) of a regret, largest first."""
    costs = sorted(
        ((value, cause) for cause, value in by_cause.items() if value is not None and value > 0), reverse=True
    )
    total = sum(value for value, _ in costs)
    if not costs or not math.isfinite(total):
        return ""
    named, covered = [], 0.0
    for value, cause in costs:
        named.append(CAUSE_NAMES[cause])
        covered += value
        if covered >= 0.9 * total:
            break
    return " and ".join(named)


def headline(results: dict) -> list[str]:
    reference = results["reference_agent"]
    order = ranked(results)
    best = order[0]
    finite = [entry for entry in order[1:] if is_finite(entry["regret"])]
    tied = [entry for entry in finite if entry["regret"]["value"] == 0]
    losing = [entry for entry in finite if entry["regret"]["value"] != 0]
    league = results["config"]
    opponents = len(league["opponents"])
    role = (
        "is the exact optimum"
        if reference == ORACLE
        else "is the best agent"
        if _reference_is_best(results)
        else "is the reference agent (named for this run)"
    )
    text = (
        f"**`{reference}` {role}** of this league: mean return {fmt(best['return'])} per round over "
        f"{league['rounds']} deals"
        + (f" x {opponents} opponents" if opponents > 1 else "")
        + ", the reference for every regret below."
    )
    if tied:
        text += f" On the same deals {_agent_list(e['agent'] for e in tied)} " + (
            "ties it, round for round." if len(tied) == 1 else "tie it, round for round."
        )
    if losing:
        low, high = losing[0], losing[-1]
        span = (
            f"{visible(low['regret']['value'])} per round"
            if len(losing) == 1
            else f"between {visible(low['regret']['value'])} (`{low['agent']}`) and "
            f"{visible(high['regret']['value'])} (`{high['agent']}`) per round"
        )
        who = (
            f"`{low['agent']}` loses"
            if len(losing) == 1
            else ("The others lose" if tied else "On the same deals the other agents lose")
        )
        causes = "; ".join(
            f"`{e['agent']}` by {_main_causes(e['regret_by_cause'])}"
            if e["regret"]["value"] > 0
            else f"`{e['agent']}` does better than it on these deals"
            for e in losing
        )
        through_timing = _reference_is_best(results) or reference == ORACLE
        text += f" {who} {span} to it" + (
            f", all of it through timing: {causes}." if through_timing else f": {causes}."
        )
    unfinished = [entry["agent"] for entry in order[1:] if not is_finite(entry["regret"])]
    if unfinished:
        text += f" The regret of {_agent_list(unfinished)} is not a finite number (it overflowed float64)."
    return [text]


def regret_table(results: dict, config: WarConfig) -> list[str]:
    reference = results["reference_agent"]
    causes = [
        cause
        for cause in CAUSES
        if cause != "outcome"
        or any(e["regret_by_cause"] and e["regret_by_cause"]["outcome"] for e in results["agents"])
    ]
    lines = [
        "| rank | agent | mean return | regret per round | "
        + " | ".join(f"lost to {CAUSE_NAMES[c]}" for c in causes)
        + " | mostly | "
        + " | ".join(name for name, _ in COUNT_COLUMNS)
        + " |",
        "|---|---|---|---|" + "---|" * (len(causes) + 1 + len(COUNT_COLUMNS)),
    ]
    for rank, entry in ranks(results):
        counts = [count(entry) for _, count in COUNT_COLUMNS]
        if entry["agent"] == reference:
            regret, parts, why = "reference", ["–"] * len(causes), ""
        else:
            by_cause = entry["regret_by_cause"]
            parts = ["not finite" if by_cause[c] is None else number(by_cause[c]) for c in causes]
            regret, why = fmt(entry["regret"]), _main_causes(by_cause)
        lines.append(
            f"| {rank} | `{entry['agent']}` | {fmt(entry['return'])} | {regret} | "
            + " | ".join(parts)
            + f" | {why} | "
            + " | ".join(counts)
            + " |"
        )
    rules = results["rules"]
    lines += [
        "",
        f"Regret: the mean over the same deals of (`{reference}`'s return - the agent's), with its "
        f"{results['confidence_level']:.0%} paired bootstrap interval; larger is worse, and agents with the same "
        f'regret share a rank. The "lost to" columns split it, in the same unit (return per round), with the '
        f"rules' reward weights (false start {rules['reward_false_start']:g}, idle tick "
        f"{rules['reward_idle_tick']:g} per tick of an open turn without a draw, takeover "
        f"{rules['reward_takeover']:g}, once, after {config.turn_ticks} idle ticks) and add up to it. The last "
        "columns count what the agent did: false starts and idle ticks per round, and the share of rounds in "
        "which its timer ran out and the bot took its seat over (at most once a round). " + _reference_note(results),
    ]
    return lines


def _reference_note(results: dict) -> str:
    if results["reference_agent"] == ORACLE:
        return (
            "The reference is `oracle`, the exact optimal timing against each opponent bot (war_env.core.optimum: it "
            "knows the bot's reaction distribution and the latency, never a deal); without latency it plays as "
            "`prompt`, so the regret is the gap to `prompt`. A negative regret is the luck of these deals."
        )
    if _reference_is_best(results):
        return "The reference is the agent with the highest mean return."
    return "The reference was named for this run (a negative regret: better than it)."


def _reference_is_best(results: dict) -> bool:
    returns = {e["agent"]: e["return"]["value"] for e in results["agents"] if e["return"]["value"] is not None}
    return results["reference_agent"] in returns and returns[results["reference_agent"]] == max(returns.values())


def outcome_line(results: dict) -> list[str]:
    pairings = results["pairings"]
    first = pairings[0]
    if results["paired_card_outcomes_identical"] and all(
        _same([p[key] for p in pairings]) for key in ("win", "draw", "loss")
    ):
        return [
            f"**Win rates are the same for every agent, by construction**: every one of the {len(pairings)} "
            f"pairings won {fmt(first['win'])}, drew {fmt(first['draw'])} and lost {fmt(first['loss'])} of its "
            f"{first['rounds']} rounds. Round i is the same deal in every pairing and the cards never depend on "
            "timing (checked on this run: every round had the same card outcome in all pairings), so win rates "
            "measure the deals; agents differ only in what their timing costs."
        ]
    lines = [
        "**The card outcomes differ between pairings: paired deals should make them identical, so something "
        "is wrong** (a rule that lets timing change the cards, or records from different leagues).",
        "",
        "| agent | opponent | win | draw | loss |",
        "|---|---|---|---|---|",
    ]
    lines += [
        f"| `{p['agent']}` | `{p['opponent']}` | {fmt(p['win'])} | {fmt(p['draw'])} | {fmt(p['loss'])} |"
        for p in pairings
    ]
    return lines


# --- the details -------------------------------------------------------------------------------------------------
def _speed(sessions: list[dict]) -> str:
    if not sessions:
        return "no rounds were played by this folder's sessions"
    played = sum(s["rounds_played"] for s in sessions)
    seconds = sum(s["seconds"] for s in sessions)
    rate = f"**{played / seconds:.1f} rounds/s**" if seconds > 0 else "no measurable time"
    if len(sessions) == 1:
        s = sessions[0]
        backend = "" if s.get("backend", "local") == "local" else f" on {s['backend']}"
        return f"{played} rounds in {seconds:.1f} s with {s['workers']} worker(s){backend}: {rate}"
    each = "; ".join(
        f"session {n}: {s['rounds_played']} rounds, {s['workers']} worker(s), {s['seconds']:.1f} s"
        for n, s in enumerate(sessions, start=1)
    )
    return f"{played} rounds in {seconds:.1f} s over {len(sessions)} sessions ({each}): {rate}"


def run_facts(results: dict, run: dict) -> list[str]:
    league, rules = results["config"], results["rules"]
    prov = run["provenance"]
    non_default = {k: v for k, v in rules.items() if getattr(WarConfig(), k) != v}
    commit = (
        f"`{prov['git_commit']}`" + (" (working tree had uncommitted changes)" if prov["git_dirty"] else "")
        if prov["git_commit"]
        else "none (an installed package, not a git checkout)"
    )
    lines = [
        f"- agents: {_agent_list(league['agents'])}; opponents: {_agent_list(league['opponents'])}",
        f"- rounds per pairing: {league['rounds']}, paired ({results['seeds']['rule']}; seeds "
        f"{results['seeds']['first']}..{results['seeds']['last']})",
        f"- rules: {'defaults' if not non_default else ', '.join(f'{k}={v}' for k, v in non_default.items())} "
        f"(turn {rules['turn_seconds']} s = {round(rules['turn_seconds'] / rules['tick_seconds'])} ticks of "
        f"{rules['tick_seconds']} s)",
        f"- config hash: `{results['config_hash']}`; git commit: {commit}",
        "- versions: " + ", ".join(f"{k} {v}" for k, v in prov["versions"].items() if v is not None),
        f"- machine: {prov['platform']}, {prov['cpus']} CPUs",
        f"- speed: {_speed(run['sessions'])}",
    ]
    trusted = [str(n) for n, session in enumerate(run["sessions"], start=1) if session.get("trust_model_file")]
    if trusted:
        lines.append(
            f"- **model files trusted**: session(s) {', '.join(trusted)} ran with --trust-model-file "
            "(SB3 unpickled the model files in full; a file's code could run)"
        )
    return lines


def trained_elsewhere(agents, game: str) -> dict[str, str]:
    """The model agents whose file was trained on another game than ``game`` (they play it from the same
    observation fields), with that game; a file no longer readable is left out."""
    from war_env.agents import trained_on

    elsewhere = {}
    for spec in agents:
        try:
            env_id = trained_on(spec)
        except (OSError, ValueError):
            continue
        if env_id is not None and env_id != game:
            elsewhere[spec] = env_id
    return elsewhere


def trained_elsewhere_lines(results: dict, game: str) -> list[str]:
    """A line per model agent trained on another game than the league's."""
    return [
        f"- `{spec}` was trained on {env_id}; it plays {game} here, from the same observation fields"
        for spec, env_id in trained_elsewhere(results["config"]["agents"], game).items()
    ]


def how_to_read(results: dict) -> list[str]:
    width = results["widest_win_rate_interval"]
    target = results["win_rate_target_width"]
    return [
        f"Every estimate comes with a {results['confidence_level']:.0%} interval `value [low, high]`; `value (exact)` "
        "means every round gave that same value, so there is nothing to resample (an agent that never false-starts); "
        "`not finite` is a value that overflowed float64 (only records summarised by hand can). "
        "Rates (takeovers, win, end reasons) use the Wilson score interval; "
        "means per round (return, regret, false starts, idle ticks, battles, "
        f"ticks) a percentile bootstrap over rounds ({BOOTSTRAP_RESAMPLES} resamples, RNG fixed by the data), paired "
        "for regrets; the mean reaction time a bootstrap over rounds of (sum of reaction ticks / draws); its 95th "
        "percentile the order-statistic interval (draws taken as independent; with many whole-tick draws it can be "
        "a single value). Reaction times count the agent's own draws, in ticks after its turn opened.",
        "",
        f"Widest win-rate interval: {width:.3f} (target < {target}: {'met' if width < target else 'NOT met'}; a win "
        f"rate near 1/2 needs about {_rounds_for_width(target)} rounds per pairing for it).",
    ]


def _pairing_table(results: dict, cells, digits_note: str = "") -> list[str]:
    """Agents (ranked) x opponents; ``cells(pairing) -> str``."""
    opponents = results["config"]["opponents"]
    stats = {(p["agent"], p["opponent"]): p for p in results["pairings"]}
    lines = ["| agent | " + " | ".join(f"vs `{o}`" for o in opponents) + " |", "|---|" + "---|" * len(opponents)]
    for entry in ranked(results):
        lines.append(
            f"| `{entry['agent']}` | " + " | ".join(cells(stats[(entry["agent"], o)]) for o in opponents) + " |"
        )
    return lines + ([digits_note] if digits_note else [])


def timing_table(results: dict) -> list[str]:
    """One row per agent and opponent, or one row per agent when its figures are the same against all."""
    opponents = results["config"]["opponents"]
    stats = {(p["agent"], p["opponent"]): p for p in results["pairings"]}
    lines = [
        "| agent | opponent | false starts / round | idle ticks / round | rounds taken over (share) | draws | "
        "mean reaction, ticks | p95 reaction, ticks |",
        "|---|---|---|---|---|---|---|---|",
    ]

    def row(p, label):
        r = p["reaction"]
        return (
            f"| `{p['agent']}` | {label} | {fmt(p['false_starts_per_round'], 2)} | "
            f"{fmt(p['idle_ticks_per_round'], 1)} | "
            f"{fmt(p['agent_takeover'])} | {r['draws']} | {fmt(r['mean_ticks'], 2)} | {fmt(r['p95_ticks'], 1)} |"
        )

    keys = ("false_starts_per_round", "idle_ticks_per_round", "agent_takeover")
    for entry in ranked(results):
        own = [stats[(entry["agent"], o)] for o in opponents]
        same = (
            len(own) > 1
            and all(_same([p[k] for p in own]) for k in keys)
            and all(_same([p["reaction"][k] for p in own]) for k in ("mean_ticks", "p95_ticks"))
            and len({p["reaction"]["draws"] for p in own}) == 1
        )
        lines += [row(own[0], "every opponent (the same)")] if same else [row(p, f"`{p['opponent']}`") for p in own]
    return lines


def card_game_lines(results: dict) -> list[str]:
    """Battles, wars and end reasons: card outcomes, said once when every pairing has the same."""
    pairings = results["pairings"]
    reasons = sorted({reason for p in pairings for reason in p["reasons"]})
    keys = ("battles_per_round", "wars_per_round")
    if all(_same([p[k] for p in pairings]) for k in keys) and all(
        _same([p["reasons"][x] for p in pairings]) for x in reasons
    ):
        p = pairings[0]
        ended = ", ".join(f"{x} {fmt(p['reasons'][x])}" for x in reasons if p["reasons"][x]["count"])
        return [
            f"The card game is the same in every pairing: {fmt(p['battles_per_round'], 1)} battles and "
            f"{fmt(p['wars_per_round'], 2)} wars per round; rounds ended by {ended} (shares of rounds)."
        ]
    lines = [
        "| agent | opponent | battles / round | wars / round | " + " | ".join(reasons) + " |",
        "|---|---|---|---|" + "---|" * len(reasons),
    ]
    lines += [
        f"| `{p['agent']}` | `{p['opponent']}` | {fmt(p['battles_per_round'], 1)} | {fmt(p['wars_per_round'], 2)} | "
        + " | ".join(fmt(p["reasons"][x]) for x in reasons)
        + " |"
        for p in pairings
    ]
    return lines


def opponent_takeover_lines(results: dict) -> list[str]:
    opponents = results["config"]["opponents"]
    by_opponent = {o: [p["opponent_takeover"] for p in results["pairings"] if p["opponent"] == o] for o in opponents}
    if all(_same(entries) for entries in by_opponent.values()):
        return [
            "Opponents taken over, as a share of rounds (the same against every agent: an opponent's timing "
            "is hashed from the round key): "
            + "; ".join(f"`{o}` {fmt(entries[0])}" for o, entries in by_opponent.items())
            + "."
        ]
    return ["Opponents taken over, as a share of rounds:", ""] + _pairing_table(
        results, lambda p: fmt(p["opponent_takeover"])
    )


def first_screen(results: dict) -> list[str]:
    """The answer without headings: the headline, the ranked table with its note, the win rates (what the
    README quotes from a shipped run, rendered by this function, never copied by hand)."""
    config = WarConfig(**results["rules"])
    return headline(results) + [""] + regret_table(results, config) + [""] + outcome_line(results)


def realtime_lines(results: dict) -> list[str]:
    """A real-time run's section: each agent's compute time per decision and, against bots, its regret split
    into compute, stall and policy regret (``war_env.league.compute``); how quiet the machine was; nothing for
    a lock-step run."""
    realtime = results.get("realtime")
    if realtime is None:
        return []
    lines = (
        [
            "## Thinking time (real time)",
            "",
            f"Played in real time, {realtime['tick_seconds']} s of wall time per tick: ticks passed while an agent "
            "computed were waits for its seat. Compute regret is what the oracle loses when its presses are late by "
            f"the agent's measured delays, on top of the rules' latency ({realtime['rule_latency']}), priced on each "
            f"round's deal with the opponent's takeover; a decision more than {realtime['delay_cap_ticks']} ticks "
            "late is a stall, priced by what its rounds lost beyond that; policy regret is the rest "
            "(docs/realtime.md says what the split assumes).",
            "",
        ]
        + machine_lines(realtime.get("machine"))
        + [
            "| agent | decisions | compute ticks: median | 95th pct | max | seconds: median | 95th pct "
            "| compute regret | stalls (rounds) | stall regret | policy regret |",
            "|---|---|---|---|---|---|---|---|---|---|---|",
        ]
    )
    for entry in realtime["agents"]:
        ticks, seconds = entry["ticks"], entry["seconds"]
        priced = "compute_regret" in entry
        compute = fmt(entry["compute_regret"]) if priced else "-"
        policy = fmt(entry.get("policy_regret")) if priced else "-"
        stalls = entry.get("stalls")
        stalled = f"{stalls['decisions']} ({stalls['rounds']})" if stalls else "-"
        stall_regret = (
            "-" if not stalls or stalls["regret"] is None or not stalls["rounds"] else visible(stalls["regret"])
        )
        cells = [
            _maybe(ticks["median"], 1),
            _maybe(ticks["p95"], 1),
            _maybe(ticks["max"], 0),
            _maybe(seconds["median"], 4),
            _maybe(seconds["p95"], 4),
        ]
        lines.append(
            f"| {entry['agent']} | {entry['decisions']} | {' | '.join(cells)} | {compute} | {stalled} | "
            f"{stall_regret} | {policy} |"
        )
    return lines + [""] + model_lines(realtime["agents"])


def machine_lines(machine: dict | None) -> list[str]:
    """How quiet the machine was, and a warning when it was not."""
    if machine is None:
        return ["No session that played these rounds measured the machine (run.json records none).", ""]
    several = machine.get("sessions", 1) > 1
    load = (
        f"{machine['load_average_before'][0]:.1f} as the rounds started, "
        f"{machine['load_average_after'][0]:.1f} as they ended"
        + (f", the highest of the {machine['sessions']} sessions that played them" if several else "")
    )
    facts = (
        f"load average {load} ({machine['cores']} cores, {machine['workers']} worker"
        f"{'s' if machine['workers'] > 1 else ''}); {machine['cpu_seconds']:.1f} s of CPU in "
        f"{machine['wall_seconds']:.1f} s of wall time, {machine['involuntary_switches']} involuntary context "
        f"switches; {machine['machine_stalls']} decisions missed more than a tick beyond their own compute time"
    )
    if machine["contended"]:
        return [
            f"**The machine was contended while these rounds were played** ({facts}): other work took CPU time "
            "the agents' measured delays include, so the compute regrets overstate what the agents cost on a "
            "quiet machine. Measure again with nothing else running.",
            "",
        ]
    return [f"The machine was quiet ({facts}).", ""]


def model_lines(entries: list[dict]) -> list[str]:
    """What each model agent computed with: its parameters, its file's size, its CPU threads."""
    models = [(entry["agent"], entry["model"]) for entry in entries if "model" in entry]
    if not models:
        return []
    lines = ["Model agents (parameters in the file's policy.pth; torch and BLAS threads of the agent's inference):", ""]
    for agent, model in models:
        size = (
            "unreadable now"
            if model["parameters"] is None
            else f"{model['parameters']:,} parameters, file {model['file_bytes'] / 1024:,.1f} KiB"
        )
        lines.append(f"- `{agent}`: {size}, {model['threads']} thread{'s' if model['threads'] > 1 else ''}")
    return lines + [""]


def _maybe(value: float | None, digits: int) -> str:
    return "–" if value is None else number(value, digits)


def render_report(results: dict, run: dict, plots: dict[str, str]) -> str:
    config = WarConfig(**results["rules"])
    reference = results["reference_agent"]
    game = f"WarLatency-v0 (latency {config.latency})" if config.has_latency else "War-v0"
    if results["config"].get("env_id"):  # a probe's game (docs/probes.md)
        game = f"{results['config']['env_id']} (latency {config.latency})"
    played = results["config"].get("env_id") or ("WarLatency-v0" if config.has_latency else "War-v0")
    lines = [f"# {game} benchmark report", ""]
    lines += headline(results) + [""]
    lines += [f"## Agents ranked by regret to `{reference}`", ""] + regret_table(results, config) + [""]
    lines += outcome_line(results) + [""]
    lines += ["## The run", ""] + run_facts(results, run) + trained_elsewhere_lines(results, played) + [""]
    lines += ["## How to read the numbers", ""] + how_to_read(results) + [""]
    lines += [
        f"## Regret to `{reference}` per opponent",
        "",
        "Mean return lost per round on the same deals (larger is worse):",
        "",
    ]
    lines += _pairing_table(results, lambda p: "reference" if p["agent"] == reference else fmt(p["regret"])) + [""]
    lines += ["## Mean return per round", ""] + _pairing_table(results, lambda p: fmt(p["return"])) + [""]
    lines += realtime_lines(results)
    lines += [
        "## Timing",
        "",
        f"Seconds are ticks x {results['rules']['tick_seconds']} s. An idle tick is a tick of the agent's open "
        "turn without a draw; a takeover counts the whole turn that ran out.",
        "",
    ]
    lines += timing_table(results) + [""] + opponent_takeover_lines(results) + [""]
    lines += [
        "## Round length and the card game",
        "",
        f"Ticks per round (game time = ticks x {results['rules']['tick_seconds']} s):",
        "",
    ]
    lines += _pairing_table(results, lambda p: fmt(p["ticks_per_round"], 0)) + [""] + card_game_lines(results) + [""]
    lines += ["## Plots", ""]
    for name, caption in plots.items():
        lines += [f"![{caption}]({name})", "", f"*{caption}*", ""]
    lines += [
        "## Files",
        "",
        "- `results.json`: these numbers for programs (schema: `war_env/data/results.schema.json` in the package)",
        "- `rounds.jsonl.gz`: one line per round (`war_env.evaluation.records.RoundRecord`), gzip-compressed",
        "- `config.json`: the league; `run.json`: provenance and timing",
        "",
    ]
    return "\n".join(lines)
