"""A probe model's verdict, as the learners' table counts it: the model shows the probe's capability when its regret
to the probe's oracle (per round, on paired held-out rounds, with its 95% bootstrap interval) lies wholly below the
probe's **line**, the exact regret of the best policy that lacks the capability (``capability_line``:
``press_once`` in memory, ``blind`` in inference, the reading probe's bound of lacking it, in anticipation the best
rule of fewer press times than its opponent has modes, or ``press_once`` against one mode; the learners' table counts
with the same lines).

``war-train`` and ``war-curves`` judge a probe model by it; War-v0 and WarLatency-v0 keep their bar against
``prompt`` (``war_env.training.comparison.BAR``), which a probe's own oracle fails: the probes' opponents are built
so that drawing as the turn opens is not the optimum.
"""

from __future__ import annotations

from war_env.core.probes import PROBES, probe_named


def probe_name(env_id: str | None) -> str | None:
    """The probe whose env id ``env_id`` is (``memory`` for ``WarMemory-v1``), or ``None`` for any other game."""
    from war_env.envs.games import probe_of

    probe = probe_of(env_id)
    return None if probe is None else probe.name


def capability_line(probe: str) -> dict:
    """The probe's line: ``yardstick``, the best policy that lacks the capability, and its exact ``regret`` per
    round. That is the probe's yardstick of lacking it (``press_once``, ``blind``, or the reading probe's
    bound) or, where the observation shows the opponent's clock (``lead`` is one of the probe's
    simple baselines), the best rule of fewer fixed press times than the opponent has modes if it does better (the
    ladder's rungs, ``press_times_lacking``: timing each of ``k`` modes takes ``k``, so against one mode the line is
    ``press_once``'s)."""
    from war_env.evaluation.probe_gaps import exact_gaps, ladder

    row = probe_named(probe)
    gaps = exact_gaps(row)
    candidates = {gaps.lacking: gaps.gap(gaps.lacking)}
    if "lead" in row.simple:
        fewer = press_times_lacking(row)
        candidates |= {rung.family: rung.margin for rung in ladder(row, gaps)[:fewer]}
    best = min(candidates, key=candidates.get)
    return {"yardstick": best, "regret": candidates[best]}


def press_times_lacking(row) -> int:
    """The most press times of a ladder rule that lacks the capability: one fewer than the opponent's modes (a
    ``modes`` bot's ``count``: pressing once ahead of each mode is the anticipation the probe asks), else two (the
    ladder's rules of one and two press times)."""
    from war_env.core.bots import make_bot
    from war_env.evaluation.ladder import MAX_PRESSES

    modes = make_bot(row.opponent).mode_count()
    return MAX_PRESSES - 1 if modes is None else modes - 1


def verdict(probe: str, regret: dict, line: dict | None = None) -> dict:
    """``regret`` (``value``, ``low``, ``high`` per round to the oracle) against the probe's line: ``passed`` when
    the whole interval lies below it. An interval that is undefined (too few rounds) passes nothing."""
    probe_named(probe)  # a known probe, or one at a level (NAME@N); else a one-line error naming the probes
    line = capability_line(probe) if line is None else line
    high = regret.get("high")
    return {
        "probe": probe,
        "line": line,
        "regret": regret,
        "passed": bool(high is not None and high < line["regret"]),
    }


def describe(judged: dict) -> str:
    """One line: the regret, the line it is judged against (named) and the verdict."""
    regret, line = judged["regret"], judged["line"]
    interval = "" if regret.get("high") is None else f" [{regret['low']:.3f}, {regret['high']:.3f}]"
    value = "not finite" if regret.get("value") is None else f"{regret['value']:.3f}{interval}"
    outcome = "below it: shows the capability" if judged["passed"] else "NOT below it: does not show the capability"
    return (
        f"regret to the {judged['probe']} probe's oracle {value} per round; the line of lacking the capability is "
        f"{line['yardstick']}'s {line['regret']:.3f}: {outcome}"
    )


def held_out_verdict(agent, env_id: str, rounds: int, seed: int, line: dict | None = None) -> dict:
    """``agent`` (an ``Agent`` or spec) and the probe's ``oracle`` on the same held-out rounds ``seed .. seed +
    rounds - 1`` of the probe ``env_id`` against its own opponent; their paired regret judged by ``verdict``."""
    from war_env.envs.games import default_opponent
    from war_env.evaluation.summary import paired_difference
    from war_env.league.stats import bootstrap_mean
    from war_env.training.comparison import held_out_stats

    probe = probe_name(env_id)
    if probe is None:
        raise ValueError(f"{env_id!r} is not a probe's env id; the probes are {[p.env_id for p in PROBES.values()]}")
    opponent = default_opponent(env_id)
    oracle = held_out_stats("oracle", opponent, {}, rounds, seed, env_id=env_id)
    mine = held_out_stats(agent, opponent, {}, rounds, seed, env_id=env_id)
    regret = bootstrap_mean(paired_difference(oracle.played, mine.played))
    return {**verdict(probe, regret, line), "rounds": rounds, "seed": seed, "model": mine.summary()}
