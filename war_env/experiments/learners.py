"""The learners' table on the probe suite: ``python -m war_env.experiments.learners`` (docs/probes.md, "The learners").

Each learner (PPO, RecurrentPPO, PPO with 4 stacked frames, DQN, A2C) is trained by ``war-train``'s ``train`` on
every probe's env id, once per seed, at one stated budget; its **final** model is scored by the suite
(``war_env.league.suite``: the bounded score, 0 = the probe's best simple baseline or worse, 1 = the oracle, on the
same deals; its regret, the raw figure, is kept beside it). The training
config is the one shipped for the algorithm, with two changes: the training envs keep the probe's reward weights
(the shipped configs weigh an idle tick at -0.1 in training, which would change the optimum the probe measures;
only the card outcome's weight is zeroed, which cannot change it), and the policy sees the probe's whole
observation (``"all"``; DQN's and A2C's shipped configs see the timing fields only). No evaluation callback runs:
final models only.

The table gives per learner its mean score per probe over the seeds and, over all probes and seeds, the IQM with a
stratified bootstrap interval (``stats.iqm_interval``) and the probability of improvement over PPO
(``stats.probability_of_improvement``): rliable's definitions (Agarwal et al. 2021), computed with scipy.
A folder that holds some of the runs is continued by the same command (a finished run is not trained again).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from war_env.core.probes import PROBES
from war_env.data import training_config_file
from war_env.league.report import fmt
from war_env.league.stats import iqm_interval, probability_of_improvement
from war_env.league.suite import run_suite
from war_env.support.atomic import write_atomic

LEARNERS = {"ppo": ("ppo", 1), "recurrent_ppo": ("recurrent_ppo", 1), "ppo_stack4": ("ppo", 4),
            "dqn": ("dqn", 1), "a2c": ("a2c", 1)}
"""Learner name -> (algorithm, frames stacked)."""
REFERENCE = "ppo"
"""The learner the others' probability of improvement is measured against."""


def suite_config(algo: str, folder: Path) -> Path:
    """The shipped config of ``algo`` for the probes (see the module), written into ``folder``."""
    raw = json.loads(training_config_file(algo).read_text())
    raw["train_env"] = {"reward_win": 0.0, "reward_loss": 0.0}
    raw["observation"] = "all"
    raw["evaluation"] = {**raw.get("evaluation", {}), "every_timesteps": 0}
    raw["checkpoint_every_timesteps"] = 0
    path = folder / f"{algo}.json"
    write_atomic(path, json.dumps(raw, indent=2) + "\n")
    return path


def train_all(out: Path, learners, probes, seeds, timesteps: int, log=print) -> dict[tuple[str, str, int], Path]:
    """Every (learner, probe, seed)'s final model, trained unless its run folder already holds it."""
    from war_env.training.run import train

    configs = {algo: suite_config(algo, out / "configs") for algo in {LEARNERS[name][0] for name in learners}}
    models = {}
    for probe in probes:
        for name in learners:
            algo, frames = LEARNERS[name]
            for seed in seeds:
                run_dir = out / "runs" / probe / f"{name}-s{seed}"
                if not (run_dir / "model_card.json").is_file():
                    result = train(algo, config_path=configs[algo], timesteps=timesteps, seed=seed,
                                   env_id=PROBES[probe].env_id, frame_stack=frames, run_dir=run_dir, bench_rounds=0,
                                   vec_env="dummy")
                    log(f"{probe} {name} seed {seed}: {result.model_card['train_wall_seconds']} s")
                models[(name, probe, seed)] = run_dir / "final.zip"
    return models


def learners_table(suite: dict, models: dict[tuple[str, str, int], Path], learners, probes, seeds) -> dict:
    """Per learner: the bounded scores of its final models per probe and seed (and their regrets beside them), their
    mean per probe, the IQM over all of them (stratified bootstrap over each probe's seeds) and the probability of
    improvement over PPO, both of the bounded scores (no probe's unit of failure enters them)."""
    scores = {p["name"]: p["agents"] for p in suite["probes"]}

    def runs(name: str, key: str = "score") -> list[np.ndarray]:
        return [np.array([scores[probe][_spec(name, models[(name, probe, seed)])][key]["value"] for seed in seeds])
                for probe in probes]

    table = {}
    for name in learners:
        per_probe = runs(name)
        table[name] = {"scores": {probe: values.tolist() for probe, values in zip(probes, per_probe)},
                       "regrets": {probe: values.tolist() for probe, values in zip(probes, runs(name, "regret"))},
                       "mean": {probe: float(values.mean()) for probe, values in zip(probes, per_probe)},
                       "iqm": iqm_interval(*per_probe)}
        if name != REFERENCE and REFERENCE in learners:
            table[name]["improvement_over_ppo"] = probability_of_improvement(per_probe, runs(REFERENCE))
    return table


def _spec(name: str, path: Path) -> str:
    """The agent spec of learner ``name``'s model at ``path``: its algorithm is the learner's, never read from the
    run folder (a folder's file naming ``exec`` would otherwise make the spec a command)."""
    return f"{LEARNERS[name][0]}:{path}"


def render_table(table: dict, probes, seeds, timesteps: int) -> str:
    lines = ["| learner | " + " | ".join(probes) + f" | IQM (all probes x {len(seeds)} seeds) | P(better than PPO) |",
             "|---|" + "---|" * (len(probes) + 2)]
    for name, row in table.items():
        cells = [f"{row['mean'][probe]:.2f}" for probe in probes]
        improvement = fmt(row["improvement_over_ppo"], 2) if "improvement_over_ppo" in row else "reference"
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {fmt(row['iqm'], 2)} | {improvement} |")
    lines += ["", f"Mean score of the final models per probe over seeds {', '.join(map(str, seeds))} ({timesteps:,} "
              "steps each); 0 = the probe's best simple baseline or worse, 1 = the oracle (bounded; the regrets are in "
              "learners.json)."]
    return "\n".join(lines) + "\n"


def learners_chart(table: dict, probes, path: Path) -> str:
    """Learners by probes: each learner's mean score per probe as a bar, every seed's final model as a dot; lines
    at 0 (the probe's best simple baseline or worse) and 1 (the oracle)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from war_env.league.plots import colours, save_figure

    names = list(table)
    width = 0.8 / len(names)
    figure, axis = plt.subplots(figsize=(max(7.0, 1.5 + 0.4 * len(names) * len(probes)), 5.0), layout="constrained")
    for k, (name, colour) in enumerate(zip(names, colours(len(names)))):
        xs = [i - 0.4 + (k + 0.5) * width for i in range(len(probes))]
        axis.bar(xs, [table[name]["mean"][probe] for probe in probes], width, color=colour, alpha=0.6, label=name)
        for x, probe in zip(xs, probes):
            seeds = table[name]["scores"][probe]
            axis.plot([x] * len(seeds), seeds, "o", color=colour, markeredgecolor="black", markersize=4)
    axis.axhline(0, color="black", linewidth=0.8)
    axis.axhline(1, color="black", linewidth=0.8, linestyle="--")
    axis.set_xticks(range(len(probes)), list(probes))
    axis.set_ylabel("score (0 = best simple baseline or worse, 1 = oracle)")
    axis.set_title("Final models' scores per probe: bars the mean over seeds, dots the seeds", fontsize="medium")
    figure.legend(loc="outside right upper", fontsize="small", title="learner", title_fontsize="small")
    save_figure(figure, path)
    plt.close(figure)
    return path.name


def suite_name(seeds, learners, probes) -> str:
    """The suite folder of these runs: more seeds, or other learners or probes, later make another suite of the same
    runs (a suite's agents are fixed when it starts)."""
    name = f"suite-seeds-{'-'.join(map(str, seeds))}"
    for chosen, every in ((learners, LEARNERS), (probes, PROBES)):
        if list(chosen) != list(every):
            name += "-" + "-".join(chosen)
    return name


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description="Train the learners on every probe and score their final models.")
    parser.add_argument("--out", required=True,
                        help="the folder (runs/, configs/, suite-seeds-*/, learners.json, learners.md)")
    parser.add_argument("--timesteps", type=int, default=20_000, help="training steps per run (20000)")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1], help="training seeds (0 1)")
    parser.add_argument("--learners", nargs="+", choices=list(LEARNERS), default=list(LEARNERS))
    parser.add_argument("--probes", nargs="+", choices=list(PROBES), default=list(PROBES))
    parser.add_argument("--rounds", type=int, default=100, help="suite rounds per model (100)")
    parser.add_argument("--workers", type=int, default=1, help="suite worker processes (1)")
    parser.add_argument("--train-only", action="store_true",
                        help="train the runs missing and stop (runs of other probes may train in another process)")
    args = parser.parse_args(argv)
    if args.timesteps < 1 or len(set(args.seeds)) < 2 or min(args.seeds) < 0:
        parser.error(f"--timesteps must be >= 1 and --seeds two or more distinct seeds >= 0, got {args.timesteps}, "
                     f"{args.seeds}")
    out = Path(args.out)
    models = train_all(out, args.learners, args.probes, args.seeds, args.timesteps)
    if args.train_only:
        return {}
    specs = [_spec(name, path) for (name, _, _), path in models.items()]
    suite_dir = out / suite_name(args.seeds, args.learners, args.probes)
    if (suite_dir / "suite_config.json").is_file():
        suite = run_suite(resume=suite_dir, workers=args.workers, progress=False)
    else:
        suite = run_suite(specs, args.probes, args.rounds, 0, suite_dir, args.workers, progress=False)
    table = learners_table(suite.results, models, args.learners, args.probes, args.seeds)
    write_atomic(out / "learners.json", json.dumps({"timesteps": args.timesteps, "seeds": args.seeds,
                                                     "rounds": args.rounds, "learners": table}, indent=2) + "\n")
    chart = learners_chart(table, args.probes, out / "learners.png")
    text = render_table(table, args.probes, args.seeds, args.timesteps) + f"\n![the learners' scores]({chart})\n"
    write_atomic(out / "learners.md", text)
    print(text)
    return table


if __name__ == "__main__":
    main()
