"""The figures of README.md from the tables' folders: per table and seed, the final model's regret to the oracle
(200 paired suite rounds, 95% bootstrap interval), its score, whether it shows the capability (the interval below
the probe's line), the best evaluation (best.zip) and the training's wall seconds and steps/s.

    python experiments/learner_setup/summarise.py runs/setup/out a_table a_advent ...
"""

import glob
import json
import sys
from pathlib import Path


def table(out: Path, name: str) -> list[str]:
    report = json.loads((out / name / "learners.json").read_text())
    (learner,) = report["learners"]
    (probe,) = report["learners"][learner]["scores"]
    line = report["capability_lines"][probe]
    seeds = "-".join(str(seed) for seed in report["seeds"])
    (suite_file,) = glob.glob(str(out / name / "suites" / f"{probe}-seeds-{seeds}-*" / "suite.json"))
    suite = json.loads(Path(suite_file).read_text())
    agents = suite["probes"][0]["agents"]
    rows = [
        f"**{name}**: `{learner}` on {probe}, {report['budgets'][learner]:,} steps, "
        f"settings {report['fast_settings']}; line {line['yardstick']} {line['regret']:.3f}",
        "",
        "| seed | final regret [95%] | score | below the line | best.zip: eval return at step | wall s | steps/s |",
        "|---|---|---|---|---|---|---|",
    ]
    for seed in report["seeds"]:
        run = out / name / "runs" / probe / f"{learner}-s{seed}"
        entry = agents[f"fast_ppo:{run / 'final.zip'}"]
        regret, score = entry["regret"], entry["score"]["value"]
        card = json.loads((run / "model_card.json").read_text())
        best = card["model"].get("best_evaluation") or {}
        best_text = f"{best['mean_return']:+.3f} at {best['steps']:,}" if best else "-"
        below = regret["high"] < line["regret"]
        rows.append(
            f"| {seed} | {regret['value']:.3f} [{regret['low']:.3f}, {regret['high']:.3f}] | {score:.2f} | "
            f"{'yes' if below else 'no'} | {best_text} | {card['train_wall_seconds']:.0f} | "
            f"{card['steps_per_second']:,} |"
        )
    return rows + [""]


if __name__ == "__main__":
    out = Path(sys.argv[1])
    for name in sys.argv[2:]:
        print("\n".join(table(out, name)))
