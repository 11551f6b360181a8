"""The learners' table as capability x level, from the table folders in OUT (README.md here).

    python experiments/table/summarise.py OUT

Per learner and probe level: how many of the five runs show the capability (the final model's regret per round, its
95% paired interval on 200 suite rounds, wholly below the level's line), the mean regret, and whether the training
curve still rose over the last eighth of the budget (``last_stretch``, as the table's own markdown says it). For the
frame stacks on memory, what their window allows, exact: the least a policy seeing only that many frames loses
(``window_line``; where it is not below the line, the stack cannot pass), or, for a stack of at least the latency's
frames that sees its actions, the most the best policy it can play loses (``played_with_actions_line``). For the MLP
on inference, the most the best reader of the last reaction alone loses (``last_reaction_line``).
"""

import json
import sys
from pathlib import Path

from war_env.core.probes import probe_named
from war_env.evaluation.probe_levels import (
    last_reaction_line,
    played_with_actions_line,
    single_problem,
    window_line,
)
from war_env.experiments.learners import LEARNERS, below_the_oracle, curve_verdict, probe_order

WINDOWS = {"fast_stack4": (4, False), "fast_stack24": (24, True)}
"""A stack's frames and whether it sees its own previous actions (``LEARNERS``)."""


def cells(out: Path) -> tuple[dict, dict]:
    """(learner, probe) -> the cell's figures, and probe -> its line, from every table folder in ``out``."""
    found, lines = {}, {}
    for path in sorted(out.glob("*/learners.json")):
        report = json.loads(path.read_text())
        for probe, line in report["capability_lines"].items():
            lines[probe] = line
        for name, entry in report["learners"].items():
            for probe, regrets in entry["regrets"].items():
                stretch = report["last_stretch"].get(probe, {}).get(name)
                found[(name, probe)] = {
                    "table": path.parent.name,
                    "steps": report["budgets"].get(f"{name}@{probe}", report["budgets"][name]),
                    "showing": sum(entry["capability"][probe]),
                    "runs": len(regrets),
                    "regrets": regrets,
                    "mean": sum(regrets) / len(regrets),
                    "curve": curve_label(stretch, line["oracle_cost"]) if stretch else "no curve",
                }
    return found, lines


def curve_label(stretch: dict, oracle_cost: float) -> str:
    """The table's verdict on a training curve's last eighth (``curve_verdict``), with how far a rising one lies below
    the oracle."""
    verdict = curve_verdict(stretch, oracle_cost)
    if verdict == "still rising":
        return f"still rising, {below_the_oracle(stretch, oracle_cost):.2f} below the oracle"
    return verdict


def what_it_sees_allows(name: str, probe: str, oracle_cost: float) -> str:
    """What learner ``name``'s view allows on a probe level, per round: on memory, "at least" the least a policy
    seeing a stack's frames loses, or "at most" what the best policy a stack seeing its actions can play loses; on
    inference, "at most" what the best reader of the last reaction alone (the MLP's view) loses; "" elsewhere."""
    level = probe_named(probe)
    if name == "fast_mlp" and probe.startswith("inference"):
        return f"at most {last_reaction_line(level) - oracle_cost:.3f}"
    if name not in WINDOWS or not probe.startswith("memory"):
        return ""
    frames, sees_actions = WINDOWS[name]
    if sees_actions and frames >= single_problem(level).max_delay:  # it sees every press in flight: a policy it plays
        return f"at most {played_with_actions_line(level, frames) - oracle_cost:.3f}"
    return f"at least {window_line(level, frames, sees_actions=sees_actions) - oracle_cost:.3f}"


def main(out: Path) -> None:
    found, lines = cells(out)
    probes = sorted(lines, key=probe_order)
    names = [name for name in LEARNERS if any((name, probe) in found for probe in probes)]
    print("| learner | " + " | ".join(probes) + " |")
    print("|---|" + "---|" * len(probes))
    print("| line | " + " | ".join(f"{lines[p]['yardstick']} {lines[p]['regret']:.3f}" for p in probes) + " |")
    for name in names:
        row = []
        for probe in probes:
            cell = found.get((name, probe))
            row.append(f"**{cell['showing']}/{cell['runs']}**; {cell['mean']:.3f}; {cell['curve']}" if cell else "")
        print(f"| {name} | " + " | ".join(row) + " |")
    print()
    print(
        "Per cell: runs showing the capability of all; mean final regret per round; the training curve's last eighth."
    )
    print()
    print("| learner | probe | steps | regrets per seed | what it sees allows | table |")
    print("|---|---|---|---|---|---|")
    for name in names:
        for probe in probes:
            cell = found.get((name, probe))
            if cell is None:
                continue
            bound = what_it_sees_allows(name, probe, lines[probe]["oracle_cost"])
            each = ", ".join(f"{regret:.3f}" for regret in cell["regrets"])
            print(f"| {name} | {probe} | {cell['steps']:,} | {each} | {bound} | {cell['table']} |")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
