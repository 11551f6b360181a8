"""The sweep's tables from its tables' folders (README.md here): per learner the four settings' final regrets and the
one chosen by the rule fixed before the sweep (the most seeds below the line, then the lowest mean final regret);
then per run the final model's regret to the oracle (200 paired suite rounds, 95% bootstrap interval), the level's
line, the score, the best greedy evaluation (best.zip) and the wall time.

    python experiments/sweep/summarise.py OUT
"""

import glob
import json
import re
import sys
from pathlib import Path

LEARNERS = (
    ("fast_mlp", "mlp"),
    ("fast_stack4", "stack4"),
    ("fast_stack24", "stack24"),
    ("fast_lstm", "lstm"),
    ("fast_lstm", "lstm_pa"),  # with its previous action
)
SETTINGS = (("0.0003", "0"), ("0.0003", "0.01"), ("0.001", "0"), ("0.001", "0.01"))


def cell_figures(out: Path, name: str) -> dict | None:
    """One table's runs (a cell: one learner, one probe, one setting), or None when the table has not finished."""
    path = out / name / "learners.json"
    if not path.is_file():
        return None
    report = json.loads(path.read_text())
    (learner,) = report["learners"]
    (probe,) = report["learners"][learner]["scores"]
    seeds = "-".join(str(seed) for seed in report["seeds"])
    (suite_file,) = glob.glob(str(out / name / "suites" / f"{probe}-seeds-{seeds}-*" / "suite.json"))
    agents = json.loads(Path(suite_file).read_text())["probes"][0]["agents"]
    log = (out / f"{name}.log").read_text() if (out / f"{name}.log").is_file() else ""
    table_wall = re.findall(rf"{re.escape(name)} wall ([0-9.]+) s", log)
    line = report["capability_lines"][probe]
    runs = []
    for seed in report["seeds"]:
        run = out / name / "runs" / probe / f"{learner}-s{seed}"
        entry = agents[f"fast_ppo:{run / 'final.zip'}"]
        card = json.loads((run / "model_card.json").read_text())
        runs.append(
            {
                "seed": seed,
                "regret": entry["regret"],
                "below": entry["regret"]["high"] < line["regret"],
                "score": entry["score"]["value"],
                "takeovers": entry.get("takeovers"),
                "best": card["model"].get("best_evaluation") or {},
                "train_wall": card["train_wall_seconds"],
                "steps_per_second": card["steps_per_second"],
            }
        )
    return {
        "learner": learner,
        "probe": probe,
        "steps": report["budgets"][learner],
        "settings": report["fast_settings"],
        "line": line,
        "runs": runs,
        "below": sum(run["below"] for run in runs),
        "mean_regret": sum(run["regret"]["value"] for run in runs) / len(runs),
        "table_wall": float(table_wall[-1]) if table_wall else None,
    }


def chosen(cells: dict) -> str | None:
    """The cell the rule picks among the finished ``cells`` (name -> figures): the most seeds below the line, then
    the lowest mean final regret."""
    done = [name for name, figures in cells.items() if figures]
    return min(done, key=lambda name: (-cells[name]["below"], cells[name]["mean_regret"]), default=None)


def cell_text(figures: dict | None) -> str:
    """A cell of the grid: the mean final regret, each seed's, and the seeds below the line."""
    if not figures:
        return "missing"
    each = ", ".join(f"{run['regret']['value']:.3f}" for run in figures["runs"])
    return f"{figures['mean_regret']:.3f} ({each}); {figures['below']} of {len(figures['runs'])}"


def main(out: Path) -> None:
    grid = [
        "| learner | probe@level | line | lr 3e-4, ent 0 | lr 3e-4, ent 0.01 | lr 1e-3, ent 0 | lr 1e-3, ent 0.01 "
        "| chosen |",
        "|---|---|---|---|---|---|---|---|",
    ]
    rows = [
        "| cell | seed | final regret [95%] | below the line | score | takeovers | best.zip: eval return at step | "
        "train s | steps/s |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for learner, short in LEARNERS:
        cells = {f"{short}_lr{lr}_ent{ent}": None for lr, ent in SETTINGS}
        for name in cells:
            cells[name] = figures = cell_figures(out, name)
            if not figures:
                rows.append(f"| {name} | | missing | | | | | | |")
                continue
            for run in figures["runs"]:
                regret, best = run["regret"], run["best"]
                best_text = f"{best['mean_return']:+.3f} at {best['steps']:,}" if best else "-"
                rows.append(
                    f"| {name} | {run['seed']} | {regret['value']:.3f} [{regret['low']:.3f}, {regret['high']:.3f}] | "
                    f"{'yes' if run['below'] else 'no'} | {run['score']:.2f} | {run['takeovers']} | {best_text} | "
                    f"{run['train_wall']:.0f} | {run['steps_per_second']:,} |"
                )
        finished = [figures for figures in cells.values() if figures]
        probe = finished[0]["probe"] if finished else ""
        line = f"{finished[0]['line']['yardstick']} {finished[0]['line']['regret']:.3f}" if finished else ""
        texts = [cell_text(figures) for figures in cells.values()]
        pick = chosen(cells)
        pick_text = "-" if pick is None else "lr {learning_rate}, ent {ent_coef}".format(**cells[pick]["settings"])
        if pick and len(finished) < len(cells):
            pick_text += f" (of {len(finished)} cells finished)"
        grid.append(f"| `{learner}` | {probe} | {line} | {' | '.join(texts)} | {pick_text} |")
    walls = [
        f"{name}: {figures['table_wall']:.0f} s"
        for learner, short in LEARNERS
        for lr, ent in SETTINGS
        if (figures := cell_figures(out, name := f"{short}_lr{lr}_ent{ent}")) and figures["table_wall"]
    ]
    print("\n".join(grid + ["", "Cells: mean final regret (seed 100, seed 101); seeds below the line.", ""] + rows))
    print("\nTable wall times (training both seeds and the suite): " + ", ".join(walls) + ".")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
