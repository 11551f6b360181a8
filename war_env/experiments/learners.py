"""The learners' table on the probe suite: ``python -m war_env.scripts.learners`` (docs/probes.md, "The learners").

Each learner is trained on every probe's env id, once per seed, at its budget (``--budget``: per learner, or per
learner and probe): the fast learners (``fast_mlp``, ``fast_stack4``, ``fast_stack24``, ``fast_lstm``:
``war-train --algo fast_ppo``
on the batched engine) by ``run_fast_ppo``, the SB3 learners (PPO, RecurrentPPO, PPO with 4 stacked frames, DQN,
A2C) by ``war-train``'s ``train``. The **final** model of each run is scored by the suite (``war_env.league.suite``,
one suite per probe with that probe's models: the bounded score, 0 = the probe's best simple baseline or worse, 1 =
the oracle, on the same deals; its regret, the raw figure, is kept beside it). The SB3 training config is the one
shipped for the algorithm, with three changes: the training envs keep the probe's reward weights (the shipped
configs weigh an idle tick at -0.1 in training, which would change the optimum the probe measures; only the card
outcome's weight is zeroed, which cannot change it), the policy sees the probe's whole observation (``"all"``; DQN's
and A2C's shipped configs see the timing fields only), and the discount is the fast learners' (gamma 0.99, and
gae_lambda 0.95 where the algorithm has one, for the shipped 0.9 and 0.9: a takeover 30 ticks ahead weighs 74% of
itself, not 4%). No evaluation callback runs: final models only. The fast learners train with ``FastPPOConfig``'s
defaults (the same reward weights: ``OUTCOME_FREE_REWARDS`` on a probe; gamma 0.99) and their own settings
(``LEARNERS``: learning rate, entropy bonus, normalisation, what they see); ``--fast-set KEY=VALUE`` changes any
other setting for all of them (``eval_every``, say); a folder keeps the settings it was started with
(``fast_settings.json``).

The table gives per learner its mean score per probe over the seeds and, over all probes and seeds, the IQM with a
stratified bootstrap interval (``stats.iqm_interval``) and the probability of improvement over every other learner
(``stats.probability_of_improvement``): rliable's definitions (Agarwal et al. 2021), computed with scipy; per probe
the probability of improvement on the regret too (the score ties everything at or below the best simple baseline);
and per probe how many runs show the capability, their regret below the best policy that lacks it
(``capability_lines``). The fast learners' runs log their training return after every update; ``curves.png`` draws
its IQM over seeds per probe, against env steps and wall seconds (SB3's runs log no such curve here), and
``last_stretch`` says whether a curve still rose over the last eighth of its budget (then the budget is too small to
say what the learner reaches).
A folder that holds some of the runs is continued by the same command (a finished run is not trained again);
``--continue-from FOLDER...`` starts a table from other tables' runs (a larger budget takes its fast runs on from
their last checkpoint, ``continue_runs``); ``--rerender`` draws the markdown and the charts again from
``learners.json`` alone, and ``--merge FOLDER...`` draws one table from several tables' ``learners.json``
(``merge_reports``: the runs of a longer budget in place of a shorter one's, when the shorter one's folders are gone).
"""

from __future__ import annotations

import json
import multiprocessing
import shutil
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from war_env.core.probes import LEVEL_MARK, MIN_GAP, PROBES, probe_named
from war_env.core.specs import parse_assignments
from war_env.data import training_config_file
from war_env.evaluation.probe_gaps import exact_gaps
from war_env.league.report import fmt
from war_env.league.stats import iqm_interval, probability_of_improvement
from war_env.league.suite import run_suite
from war_env.support.atomic import write_atomic
from war_env.support.run_folder import LOCK_NAME, RunFolderConflict, check_same_settings, read_settings, write_settings
from war_env.training.fast_ppo import FastPPOConfig, checkpoint_files
from war_env.training.probe_verdict import capability_line

CONTINUED_FILE = "continued_from.json"
"""A table folder's record of the runs ``--continue-from`` copied in."""


@dataclass(frozen=True)
class Learner:
    algo: str
    """``fast_ppo`` or a ``war-train`` SB3 algorithm."""
    frames: int = 1
    """Observations the policy sees at once."""
    lstm: int = 0
    """LSTM units of a fast learner (0: an MLP); the SB3 learners' networks are their shipped configs'."""
    settings: tuple[tuple[str, object], ...] = ()
    """Further ``FastPPOConfig`` settings that make a fast learner what it is (``--fast-set`` cannot change them)."""

    @property
    def fast(self) -> bool:
        return self.algo == "fast_ppo"


PRACTITIONERS = (("normalize_advantage", True),)
"""What every fast learner trains with, as CleanRL sets PPO up (docs/training.md, "fast_ppo": the practitioner's
settings)."""
FAST_BUT_STEADY = (("learning_rate", 1e-3), ("ent_coef", 0.01))
"""The learning rate and entropy bonus the sweep chose for the MLP, the 4-frame stack and the LSTM
(experiments/sweep: seeds 100-101 on a level the table does not use, chosen before the table ran)."""
LEARNERS = {
    "fast_mlp": Learner("fast_ppo", settings=PRACTITIONERS + FAST_BUT_STEADY),
    "fast_stack4": Learner(
        "fast_ppo",
        frames=4,
        settings=PRACTITIONERS + FAST_BUT_STEADY + (("normalize_observation", True), ("one_hot_cards", True)),
    ),
    "fast_stack24": Learner(
        "fast_ppo",
        frames=24,
        settings=PRACTITIONERS + (("learning_rate", 3e-4), ("ent_coef", 0.0), ("previous_action", True)),
    ),
    "fast_lstm": Learner(
        "fast_ppo",
        lstm=64,
        settings=PRACTITIONERS
        + FAST_BUT_STEADY
        + (("normalize_observation", True), ("lstm_forget_bias", 1.0), ("previous_action", True)),
    ),
    "ppo": Learner("ppo"),
    "recurrent_ppo": Learner("recurrent_ppo"),
    "ppo_stack4": Learner("ppo", frames=4),
    "dqn": Learner("dqn"),
    "a2c": Learner("a2c"),
}
"""Learner name -> how it is trained. A fast learner's ``settings`` are the ones the sweep chose for it
(experiments/sweep) and what it needs to see: the 4-frame stack reads a card one-hot and its fields standardised
(without them no stack read the table, experiments/controls); the 24-frame stack and the LSTM see their own previous
action, because the memory probe hides the agent's presses (without it neither passed memory,
experiments/learner_setup and experiments/sweep); at a learning rate of 1e-3 the 24-frame stack fell back late in
its runs, at 3e-4 it did not."""
CHECKPOINTS = 8
"""Checkpoints of a fast learner's run (its model every eighth of the budget, in ``RUN/checkpoints/``): a cut-off run
goes on from its latest, and they can be played as ``fast_ppo:PATH``."""


def learner_settings(learner: Learner, timesteps: int) -> dict:
    """The ``FastPPOConfig`` settings that make a fast learner what it is: ``--fast-set`` cannot change them."""
    return {
        "frame_stack": learner.frames,
        "lstm_hidden_size": learner.lstm,
        "checkpoint_every": max(1, timesteps // CHECKPOINTS),
        **dict(learner.settings),
    }


def setting_keys_of(names) -> frozenset:
    """The keys of the ``learner_settings`` of the learners ``names``: ``--fast-set`` refuses them in a table of those
    learners (another table may set them: ``fast_stack24``'s previous action for ``fast_mlp``), and a run's other
    settings are its table's."""
    return frozenset(key for name in names for key in learner_settings(LEARNERS[name], 1))


LEARNER_SETTING_KEYS = setting_keys_of(LEARNERS)
"""The keys of every learner's ``learner_settings``."""


def suite_config(algo: str, folder: Path) -> Path:
    """The shipped config of ``algo`` for the probes (see the module), written into ``folder``."""
    raw = json.loads(training_config_file(algo).read_text())
    raw["train_env"] = {"reward_win": 0.0, "reward_loss": 0.0}
    hyperparameters = raw["hyperparameters"]
    hyperparameters["gamma"] = FastPPOConfig.gamma  # the shipped 0.9 gives a takeover 30 ticks ahead 4% of its weight
    if "gae_lambda" in hyperparameters:
        hyperparameters["gae_lambda"] = FastPPOConfig.gae_lambda
    raw["observation"] = "all"
    raw["evaluation"] = {**raw.get("evaluation", {}), "every_timesteps": 0}
    raw["checkpoint_every_timesteps"] = 0
    path = folder / f"{algo}.json"
    write_atomic(path, json.dumps(raw, indent=2) + "\n")
    return path


def train_all(
    out: Path,
    learners,
    probes,
    seeds,
    budgets: dict[str, int],
    jobs: int = 1,
    log=print,
    fast_settings: dict | None = None,
) -> dict[tuple[str, str, int], Path]:
    """Every (learner, probe, seed)'s final model, trained unless its run folder already holds it; ``jobs`` runs at
    once, each in its own process. The runs are ordered seed by seed, so a cut-off table has every learner's first
    seeds. ``fast_settings``: ``FastPPOConfig`` overrides for every fast learner (see ``check_fast_settings``)."""
    configs = {
        learner.algo: suite_config(learner.algo, out / "configs")
        for learner in {LEARNERS[name] for name in learners}
        if not learner.fast
    }
    models, todo = {}, []
    for seed in seeds:
        for probe in probes:
            for name in learners:
                run_dir = out / "runs" / probe / f"{name}-s{seed}"
                models[(name, probe, seed)] = run_dir / "final.zip"
                if not (run_dir / "model_card.json").is_file():
                    todo.append(
                        (
                            name,
                            probe,
                            seed,
                            budget_of(budgets, name, probe),
                            run_dir,
                            configs.get(LEARNERS[name].algo),
                            fast_settings or {},
                        )
                    )
    if jobs == 1:
        for task in todo:
            log(_train_one(*task))
    else:  # spawned, not forked: a fork of a parent whose torch started its thread pool can deadlock
        with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
            for line in pool.map(_train_one, *zip(*todo)) if todo else ():
                log(line)
    return models


def _train_one(
    name: str, probe: str, seed: int, timesteps: int, run_dir: Path, config_path: Path | None, fast_settings: dict
) -> str:
    learner, row = LEARNERS[name], probe_named(probe)
    env_id = row.env_id
    opponent = row.opponent if LEVEL_MARK in probe else None  # a level (NAME@N): its opponent; else the env's own
    if learner.fast:
        from war_env.training.fast_ppo import run_fast_ppo

        if (run_dir / "config.json").is_file():  # cut off: on from its latest checkpoint
            card = run_fast_ppo(run_dir, timesteps, bench_rounds=0, resume=True).model_card
        else:
            overrides = {**fast_settings, **learner_settings(learner, timesteps)}
            card = run_fast_ppo(
                run_dir, timesteps, overrides=overrides, env_id=env_id, opponent=opponent, seed=seed, bench_rounds=0
            ).model_card
    else:
        from war_env.training.run import train

        card = train(
            learner.algo,
            config_path=config_path,
            timesteps=timesteps,
            seed=seed,
            env_id=env_id,
            opponent=opponent,
            frame_stack=learner.frames,
            run_dir=run_dir,
            bench_rounds=0,
            vec_env="dummy",
        ).model_card
    return f"{probe} {name} seed {seed}: {card['timesteps']:,} steps in {card['train_wall_seconds']} s"


def capability_lines(probes) -> dict[str, dict]:
    """Per probe, the best policy that lacks its capability and its exact regret per round (and the oracle's exact
    timing cost per round, ``oracle_cost``, which the curves are drawn against): the probe's yardstick of
    lacking it (``press_once``, ``blind``, or in the reading probe the ``card_blind`` bound) or, where the observation
    shows the opponent's clock (``lead`` is one of the probe's simple baselines), the best rule of fewer fixed press
    times than the opponent has modes if it does better (``probe_verdict.capability_line``). The bounded score's 0
    is the best simple baseline only, so a learner that plays ``blind`` exactly scores 0.4 in inference and 0.3 in
    reading without reading anything: this line, not the score, says whether a run shows the capability."""
    return {
        probe: {**capability_line(probe), "oracle_cost": exact_gaps(probe_named(probe)).per_round("oracle")}
        for probe in probes
    }


def timing_references(capability: dict[str, dict]) -> dict[str, dict[str, float]]:
    """Per probe, the returns a training curve is measured against: minus the exact timing cost per round of the
    oracle and of the best policy lacking the capability (the curves log the timing rewards alone)."""
    return {
        probe: {
            "the oracle": -line["oracle_cost"],
            "the best policy lacking the capability": -(line["oracle_cost"] + line["regret"]),
        }
        for probe, line in capability.items()
    }


def learners_table(
    scores: dict[str, dict],
    models: dict[tuple[str, str, int], Path],
    learners,
    probes,
    seeds,
    sampled: bool = False,
    capability: dict[str, dict] | None = None,
) -> dict:
    """Per learner: the bounded scores of its final models per probe and seed (and their regrets beside them), their
    mean per probe, the IQM over all of them (stratified bootstrap over each probe's seeds) and the probability of
    improvement over each other learner, both of the bounded scores (no probe's unit of failure enters them); and
    per probe which runs show the capability: their regret's 95% interval lies below ``capability``'s line
    (``capability_lines``).
    ``scores`` is each probe's suite entry of agents (``suite.json``'s ``probes[k]["agents"]``)."""
    capability = capability_lines(probes) if capability is None else capability

    def runs(name: str, key: str = "score", part: str = "value") -> list[np.ndarray]:
        return [np.array([figure(probe, name, seed, key, part) for seed in seeds]) for probe in probes]

    def figure(probe: str, name: str, seed: int, key: str, part: str) -> float:
        value = (scores[probe][_spec(name, models[(name, probe, seed)], sampled)].get(key) or {}).get(part)
        if value is None:  # a score is undefined where the best simple baseline tied the oracle on every round
            raise ValueError(
                f"the suite gives no {key} for {name} seed {seed} on the {probe} probe (on so few rounds "
                f"its best simple baseline can tie the oracle): play more --rounds in another --out; "
                f"the trained runs can be copied there"
            )
        return value

    table = {
        name: {
            "scores": {probe: values.tolist() for probe, values in zip(probes, runs(name))},
            "regrets": {probe: values.tolist() for probe, values in zip(probes, runs(name, "regret"))},
            "capability": {
                probe: (highs < capability[probe]["regret"]).tolist()
                for probe, highs in zip(probes, runs(name, "regret", "high"))
            },
        }
        for name in learners
    }
    return with_aggregates(table, probes)


def with_aggregates(table: dict, probes) -> dict:
    """``table`` (per learner its scores, regrets and capability per probe) with what is computed from the scores: the
    mean per probe, the IQM over all probes and seeds, the probability of improvement over each other learner."""
    scores = {name: [np.array(entry["scores"][probe]) for probe in probes] for name, entry in table.items()}
    return {
        name: {
            **entry,
            "mean": {probe: float(values.mean()) for probe, values in zip(probes, scores[name])},
            "iqm": iqm_interval(*scores[name]),
            "improvement": {
                other: probability_of_improvement(scores[name], scores[other]) for other in table if other != name
            },
        }
        for name, entry in table.items()
    }


def _spec(name: str, path: Path, sampled: bool = False) -> str:
    """The agent spec of learner ``name``'s model at ``path``: its algorithm is the learner's, never read from the
    run folder (a folder's file naming ``exec`` would otherwise make the spec a command). ``sampled``: a fast
    learner's model plays actions drawn from its policy (``actions=sampled``); the SB3 models play greedily."""
    if sampled and LEARNERS[name].fast:
        return f"{LEARNERS[name].algo}:path={path},actions=sampled"
    return f"{LEARNERS[name].algo}:{path}"


def render_table(table: dict, probes, seeds, budgets: dict[str, int], capability: dict[str, dict]) -> str:
    names = list(table)
    lines = [
        "| learner | budget (steps) | " + " | ".join(probes) + f" | IQM (all probes x {len(seeds)} seeds) |",
        "|---|---|" + "---|" * (len(probes) + 1),
    ]
    for name, row in table.items():
        cells = [f"{row['mean'][probe]:.2f}" for probe in probes]
        lines.append(
            f"| {name} | {_budget_cell(budgets, name, probes)} | " + " | ".join(cells) + f" | {fmt(row['iqm'], 2)} |"
        )
    lines += [
        "",
        f"Mean score of the final models per probe over seeds {', '.join(map(str, seeds))}; 0 = the probe's "
        "best simple baseline or worse, 1 = the oracle (bounded; the regrets are in learners.json).",
        "",
        "| runs showing the capability | " + " | ".join(probes) + " |",
        "|---|" + "---|" * len(probes),
        "| the best policy lacking it (exact regret per round) | "
        + " | ".join(f"{capability[probe]['yardstick']}: {capability[probe]['regret']:.3f}" for probe in probes)
        + " |",
    ]
    for name, row in table.items():
        shown = [f"{sum(row['capability'][probe])} of {len(seeds)}" for probe in probes]
        lines.append(f"| {name} | " + " | ".join(shown) + " |")
    lines += [
        "",
        "A run shows a probe's capability when its regret's 95% paired interval lies below the exact regret "
        "of the best policy that lacks it (the score's 0 is only the best simple baseline).",
        "",
    ]
    if len(names) > 1:
        lines += _pairwise_table("P(row > column)", names, lambda name, other: table[name]["improvement"][other])
        lines += [
            "",
            "Probability of improvement over all probes (per probe, the chance that a run of the row's "
            "learner scores above a run of the column's, ties one half; averaged over the probes), stratified "
            "bootstrap.",
        ]
    return "\n".join(lines) + "\n"


def _budget_cell(budgets: dict[str, int], name: str, probes) -> str:
    """A learner's budget, and where a probe has its own (``--budget LEARNER@PROBE=STEPS``), that probe's."""
    own = [f"{probe} {budgets[f'{name}@{probe}']:,}" for probe in probes if f"{name}@{probe}" in budgets]
    return f"{budgets[name]:,}" + (f" ({', '.join(own)})" if own else "")


MERGE_SHARED_KEYS = ("seeds", "rounds", "actions", "fast_settings")
"""What tables must share for their scores to stand in one table (every suite deals its rounds from seed 0)."""


def probe_order(probe: str) -> tuple[int, int]:
    """Probes in ``PROBES``' order, a family's levels after its default, easiest first."""
    base, _, level = probe.partition(LEVEL_MARK)
    return list(PROBES).index(base), int(level or 0)


def merge_reports(sources: list[tuple[str, dict]]) -> dict:
    """One table from other tables' reports (``(folder, learners.json's content)``, ``--merge``): each learner's
    figures on each probe, its training curve and its last stretch come from the first report that has that learner
    on that probe; the mean, the IQM and the probability of improvement are computed again over the merged scores.
    The suites deal every table the same rounds (seed 0), so the scores of different tables are paired; tables with
    other seeds, rounds, actions, fast settings or capability lines are refused, as is a learner no table has on a
    probe another table has."""
    first_folder, first = sources[0]
    for folder, report in sources[1:]:
        for key in MERGE_SHARED_KEYS:
            if report.get(key) != first.get(key):
                raise ValueError(
                    f"--merge: {folder} has {key} {report.get(key)!r}, {first_folder} "
                    f"{first.get(key)!r}: their scores cannot share a table"
                )
        for probe in set(report["capability_lines"]) & set(first["capability_lines"]):
            if report["capability_lines"][probe] != first["capability_lines"][probe]:
                raise ValueError(f"--merge: {folder} and {first_folder} draw other capability lines on {probe}")
    learners = [name for name in LEARNERS if any(name in report["learners"] for _, report in sources)]
    probes = sorted({probe for _, report in sources for probe in report["capability_lines"]}, key=probe_order)
    merged = {
        **{key: first.get(key) for key in MERGE_SHARED_KEYS},
        "budgets": {},
        "learner_settings": {},
        "merged_from": {},
        "continued_from": {},
        "capability_lines": {},
        "learners": {},
        "curves": {probe: {} for probe in probes},
        "last_stretch": {probe: {} for probe in probes},
    }
    for name in learners:
        entry, steps = {"scores": {}, "regrets": {}, "capability": {}}, {}
        for probe in probes:
            folder, report = next(
                (
                    (folder, report)
                    for folder, report in sources
                    if probe in report["learners"].get(name, {}).get("scores", {})
                ),
                (None, None),
            )
            if report is None:
                raise ValueError(f"--merge: none of the folders has {name} on the {probe} probe")
            for key in entry:
                entry[key][probe] = report["learners"][name][key][probe]
            steps[probe] = budget_of(report["budgets"], name, probe)
            merged["merged_from"][f"{name}@{probe}"] = folder
            merged["capability_lines"].setdefault(probe, report["capability_lines"][probe])
            for key in ("curves", "last_stretch"):
                if name in report[key].get(probe, {}):
                    merged[key][probe][name] = report[key][probe][name]
            merged["continued_from"].update(
                {
                    run: origin
                    for run, origin in report.get("continued_from", {}).items()
                    if run.startswith(f"{probe}/{name}-s")
                }
            )
        merged["learners"][name] = entry
        owner = next((report for _, report in sources if name in report.get("learner_settings", {})), None)
        if owner is not None:
            merged["learner_settings"][name] = owner["learner_settings"][name]
        usual = max(steps.values(), key=list(steps.values()).count)
        merged["budgets"][name] = usual
        merged["budgets"].update({f"{name}@{probe}": budget for probe, budget in steps.items() if budget != usual})
    folders = [folder for folder, _ in sources]
    merged["merged_from"] = dict(sorted(merged["merged_from"].items(), key=lambda item: folders.index(item[1])))
    merged["learners"] = with_aggregates(merged["learners"], probes)
    for key in ("curves", "last_stretch"):  # the SB3 learners log no curve
        merged[key] = {probe: per_learner for probe, per_learner in merged[key].items() if per_learner}
    return merged


def render_merged(merged_from: dict[str, str]) -> str:
    """Where a merged table's figures come from (``--merge``): per folder, each learner with its probes."""
    groups: dict[str, dict[str, list[str]]] = {}
    for learner_at_probe, folder in merged_from.items():
        name, _, probe = learner_at_probe.partition("@")
        groups.setdefault(folder, {}).setdefault(name, []).append(probe)
    return "".join(
        f"From `{folder}`: " + "; ".join(f"{name} ({', '.join(probes)})" for name, probes in names.items()) + ".\n\n"
        for folder, names in groups.items()
    )


def render_continued(continued: dict[str, dict]) -> str:
    """What the table's runs took from other tables (``--continue-from``): per folder and steps trained there, each
    learner on each probe with its seeds."""
    groups: dict[tuple[str, int], dict[str, list[str]]] = {}
    for run, origin in continued.items():
        learner_on_probe, seed = run.rsplit("-s", 1)
        groups.setdefault((origin["folder"], origin["steps"]), {}).setdefault(learner_on_probe, []).append(seed)
    return "".join(
        f"Continued from `{folder}` at {steps:,} steps: "
        + "; ".join(f"{runs} (seeds {', '.join(seeds)})" for runs, seeds in learners.items())
        + ".\n\n"
        for (folder, steps), learners in sorted(groups.items())
    )


def _pairwise_table(corner: str, names, improvement) -> list[str]:
    """The markdown lines of a table of every learner against every other: ``improvement(row, column)``'s interval in
    each cell, the diagonal blank."""
    lines = [f"| {corner} | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    for name in names:
        cells = ["" if other == name else fmt(improvement(name, other), 2) for other in names]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines


def render_regret_improvement(table: dict, probes) -> str:
    """Per probe, the probability of improvement on the regret (a run of the row's learner loses less than a run of
    the column's): the bounded score clips everything at or below the best simple baseline to 0, where learners can
    still differ by a hundred per round (a policy that never presses and one that plays ``press_once``)."""
    lines = []
    for probe in probes:

        def improvement(name: str, other: str) -> dict:
            return probability_of_improvement(
                [-np.array(table[name]["regrets"][probe])], [-np.array(table[other]["regrets"][probe])]
            )

        lines += _pairwise_table(f"{probe}: P(row's regret < column's)", list(table), improvement) + [""]
    lines.append(
        "Per probe, on the regret (the raw figure, unclipped): the chance that a run of the row's learner "
        "loses less per round than a run of the column's, ties one half, stratified bootstrap."
    )
    return "\n".join(lines) + "\n"


def _progress_logs(out: Path, name: str, probe: str, seeds) -> list[list[dict]] | None:
    """Each seed's ``progress.jsonl`` entries of a fast learner's runs on a probe (``None`` unless all are there)."""
    paths = [out / "runs" / probe / f"{name}-s{seed}" / "progress.jsonl" for seed in seeds]
    if not LEARNERS[name].fast or not all(path.is_file() for path in paths):
        return None
    return [[json.loads(line) for line in path.read_text().splitlines() if line] for path in paths]


def _binned_returns(log: list[dict], edges: np.ndarray) -> np.ndarray:
    """A run's training return per round in each bin of env steps (the rounds that ended in the bin, weighted by
    their number); NaN where no round ended."""
    bins = len(edges) - 1
    steps = np.array([entry["steps"] for entry in log])
    ended = np.array([entry["rounds"] for entry in log], dtype=float)
    total = np.array([entry["rounds"] * (entry["mean_return"] or 0.0) for entry in log])
    where = np.clip(np.searchsorted(edges, steps, side="left") - 1, 0, bins - 1)
    rounds = np.bincount(where, ended, bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(rounds > 0, np.bincount(where, total, bins) / rounds, np.nan)


def _binned_runs(out: Path, learners, probes, seeds, bins: int):
    """For each probe and fast learner whose runs all logged their progress: ``(probe, name, logs, edges,
    per_seed)``, ``per_seed`` each seed's ``_binned_returns`` in ``bins`` equal bins of the longest run's steps."""
    for probe in probes:
        for name in learners:
            logs = _progress_logs(out, name, probe, seeds)
            if logs is not None:
                edges = np.linspace(0, max(log[-1]["steps"] for log in logs), bins + 1)
                yield probe, name, logs, edges, np.array([_binned_returns(log, edges) for log in logs])


def training_curves(out: Path, learners, probes, seeds, bins: int = 25) -> dict:
    """Per probe and fast learner: the training return per round (the sampled policy, the probe's timing rewards
    without the card outcome) of each seed's run, binned by env steps (the rounds that ended in a bin, weighted by
    their number), and its IQM over the seeds with a stratified bootstrap interval, with the wall seconds at the
    bin's end (their median over the seeds). Bins where a seed saw no round end are left out."""
    curves = {}
    for probe, name, logs, edges, per_seed in _binned_runs(out, learners, probes, seeds, bins):
        seconds = [
            np.interp(edges[1:], [entry["steps"] for entry in log], [entry["seconds"] for entry in log]) for log in logs
        ]
        points = []
        for k in range(bins):
            if not np.isnan(per_seed[:, k]).any():
                points.append(
                    {
                        "steps": int(edges[k + 1]),
                        "seconds": float(np.median([s[k] for s in seconds])),
                        "return": iqm_interval(per_seed[:, k]),
                    }
                )
        curves.setdefault(probe, {})[name] = points
    return curves


LAST_STRETCH = 8
"""The curves' last stretch is the last eighth of the budget, compared with the eighth before it."""


def last_stretch(out: Path, learners, probes, seeds) -> dict:
    """Per probe and fast learner: how much the training return per round rose over the last eighth of the budget
    (``rise``: each seed's return over the last eighth minus over the eighth before) and that return (``last``),
    each an IQM over the seeds with a stratified bootstrap interval. A curve that still rises, its interval above 0,
    has not flattened: its budget is too small to say what the learner reaches. A seed that saw no round end in
    either eighth is left out. ``resumed_late``: the seeds whose run was resumed in the last three eighths, where the
    rise says little: a resume starts every env's round at once, so the first rounds to end after it are the short
    ones, for about a round's length in ticks times the envs' number of steps (a probe's round of thousands of ticks
    makes that millions), and the curve jumps there."""
    stretches = {}
    for probe, name, _, edges, per_seed in _binned_runs(out, learners, probes, seeds, LAST_STRETCH):
        last_two = per_seed[:, -2:][~np.isnan(per_seed[:, -2:]).any(axis=1)]
        resumed = [seed for seed in seeds if (_resumed_from(out / "runs" / probe / f"{name}-s{seed}") or 0) > edges[-4]]
        stretches.setdefault(probe, {})[name] = {
            "rise": iqm_interval(last_two[:, 1] - last_two[:, 0]),
            "last": iqm_interval(last_two[:, 1]),
            "resumed_late": resumed,
        }
    return stretches


def _resumed_from(run_dir: Path) -> int | None:
    """The steps a finished fast run was last resumed from (its model card's ``resumed_from_timesteps``)."""
    card = run_dir / "model_card.json"
    return json.loads(card.read_text()).get("resumed_from_timesteps") if card.is_file() else None


def below_the_oracle(stretch: dict, oracle_cost: float) -> float:
    """How far a ``last_stretch`` entry's last eighth of training return lies below the oracle's, per round."""
    return -oracle_cost - stretch["last"]["value"]


def curve_verdict(stretch: dict, oracle_cost: float) -> str:
    """``flat``, ``still rising`` or ``at the oracle``: a ``last_stretch`` entry whose rise's interval lies above 0
    still rises unless its last eighth is within the probes' least gap of the oracle."""
    rise = stretch["rise"]
    if rise["low"] is None or rise["low"] <= 0:
        return "flat"
    return "still rising" if below_the_oracle(stretch, oracle_cost) > MIN_GAP else "at the oracle"


def render_last_stretch(stretches: dict, probes, capability: dict[str, dict]) -> str:
    names = sorted({name for per_probe in stretches.values() for name in per_probe}, key=list(LEARNERS).index)
    lines = [
        "| rise over the last eighth; below the oracle | " + " | ".join(probes) + " |",
        "|---|" + "---|" * len(probes),
    ]
    for name in names:
        cells = []
        for probe in probes:
            stretch = stretches.get(probe, {}).get(name)
            if stretch is None or stretch["last"]["value"] is None:
                cells.append("")
                continue
            rise, below = stretch["rise"], below_the_oracle(stretch, capability[probe]["oracle_cost"])
            verdict = curve_verdict(stretch, capability[probe]["oracle_cost"])
            label = f" ({verdict})" if verdict != "flat" else ""
            if stretch.get("resumed_late"):
                label = f" (resumed late: seeds {', '.join(map(str, stretch['resumed_late']))})"
            cells.append(f"{fmt(rise, 3)}{label}; {below:.2f}")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "Per fast learner and probe: its training return per round (the sampled policy, timing rewards "
        "alone) over the last eighth of the budget minus over the eighth before, IQM over seeds with a "
        "stratified bootstrap interval, and how far that last eighth's return lies below the oracle's exact one. "
        "A curve whose interval lies above 0 still rises (its budget is too small to say what the learner "
        f"reaches) unless its last eighth is within {MIN_GAP} of the oracle, the probes' least gap (at the "
        "oracle). A run resumed in the last three eighths (resumed late) is not compared: after a resume every env "
        "starts a round at once and the short rounds end first, which moves the curve for about a round's length.",
    ]
    return "\n".join(lines) + "\n"


COST_TICKS = [base * 10.0**power for power in range(-1, 3) for base in (1, 2, 5)]
"""The timing costs per round labelled on the curves' log axis."""


def curves_chart(curves: dict, path: Path, references: dict[str, dict[str, float]] | None = None) -> str:
    """One row per probe: the fast learners' timing cost per round in training (minus the training return, which
    holds the timing rewards alone; IQM over seeds, its interval shaded) against env steps (left) and wall seconds
    (right), on a log axis so that the first updates' 100 and the last ones' differences of 0.1 both show;
    ``references`` (per probe, label: return per round) drawn as black lines."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from war_env.league.plots import colours, save_figure

    names = sorted({name for per_probe in curves.values() for name in per_probe}, key=list(LEARNERS).index)
    figure, axes = plt.subplots(
        len(curves), 2, figsize=(10.0, 2.8 * len(curves) + 1.0), layout="constrained", squeeze=False
    )
    for row, (probe, per_probe) in zip(axes, curves.items()):
        for name, colour in zip(names, colours(len(names))):
            points = per_probe.get(name, [])
            values = [point["return"] for point in points]
            for axis, x in zip(row, ("steps", "seconds")):
                xs = [point[x] for point in points]
                axis.plot(xs, [-v["value"] for v in values], color=colour, label=name if axis is axes[0][0] else None)
                axis.fill_between(
                    xs, [-v["high"] for v in values], [-v["low"] for v in values], color=colour, alpha=0.2
                )
        for (label, value), style in zip((references or {}).get(probe, {}).items(), ("--", ":")):
            for axis in row:
                axis.axhline(
                    -value, color="black", linestyle=style, linewidth=0.9, label=label if axis is axes[0][0] else None
                )
        for axis in row:
            axis.set_yscale("log")
            low, high = axis.get_ylim()
            ticks = [tick for tick in COST_TICKS if low <= tick <= high]
            axis.set_yticks(ticks, [f"{tick:g}" for tick in ticks])
            axis.minorticks_off()
        row[0].set_ylabel(f"{probe}\ntiming cost per round")
        row[0].set_xlabel("env steps")
        row[1].set_xlabel("wall seconds")
    figure.suptitle(
        "The fast learners' timing cost per round in training (sampled policy; lower is better), IQM over seeds",
        fontsize="medium",
    )
    figure.legend(loc="outside lower center", ncols=5, fontsize="small")
    save_figure(figure, path)
    plt.close(figure)
    return path.name


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


def suite_folder(out: Path, probe: str, seeds, learners, sampled: bool = False) -> Path:
    """The suite folder of one probe's runs: more seeds, other learners or sampled play later make another suite of
    the same runs (a suite's agents are fixed when it starts)."""
    name = f"{probe}-seeds-{'-'.join(map(str, seeds))}"
    if list(learners) != list(LEARNERS):
        name += "-" + "-".join(learners)
    return out / "suites" / (name + ("-sampled" if sampled else ""))


def check_fast_settings(
    out: Path, items: list[str], inherited: dict | None = None, learners: Sequence[str] = tuple(LEARNERS)
) -> dict:
    """``--fast-set KEY=VALUE`` items as ``FastPPOConfig`` overrides, checked before anything trains. The folder
    keeps the settings it was started with in ``fast_settings.json``: continuing it with others would mix two
    trainers in one table, so that is refused (an empty list continues it with its own). A folder older than that
    file is held to the settings its fast runs were trained with (their ``config.json``). ``inherited``: the
    settings of the table ``--continue-from`` goes on from, taken when no item is given. ``learners``: the table's
    (their own settings cannot be changed)."""
    given = parse_assignments(items, "--fast-set") if items or inherited is None else dict(inherited)
    fixed = sorted(set(given) & setting_keys_of(learners))
    if fixed:
        raise ValueError(f"--fast-set cannot change {fixed}: they make the learners what they are")
    config = FastPPOConfig.with_overrides(given)  # unknown keys and bad values are refused here, before any run starts
    path = out / "fast_settings.json"
    if path.is_file():
        kept = read_settings(out, path.name, what="learners' table")
        if items or inherited is not None:
            check_same_settings(path, kept, given, "give the --fast-set it was started with, or use another --out")
        return kept
    _check_runs_trained_with(out, given, config)  # a folder older than fast_settings.json: its runs say how
    out.mkdir(parents=True, exist_ok=True)
    write_settings(path, given)
    return given


def _check_runs_trained_with(
    out: Path, settings: dict, config: FastPPOConfig, advice: str = "use another --out"
) -> None:
    """Refuse ``settings`` (made into ``config``) when a fast run already in ``out`` was trained with others (its
    ``config.json``), the settings that make the learners aside."""
    settings_of_the_table = sorted(config.as_json().items())
    for config_path in sorted(out.glob("runs/*/fast_*/config.json")):
        own = _own_setting_keys(config_path.parent.name)
        wanted = {key: value for key, value in settings_of_the_table if key not in own}
        trained = json.loads(config_path.read_text())["config"]
        differing = {key: trained.get(key) for key, value in wanted.items() if trained.get(key) != value}
        if differing:
            raise RunFolderConflict(
                f"{config_path.parent} was trained with {differing}, not with --fast-set {settings}: {advice}"
            )


def _own_setting_keys(run_name: str) -> frozenset:
    """The learner settings of the run folder ``run_name`` (``LEARNER-sSEED``): what its table did not set."""
    name = run_name.rsplit("-s", 1)[0]
    return setting_keys_of([name]) if name in LEARNERS else LEARNER_SETTING_KEYS


def source_settings(sources: list[Path], out: Path) -> dict | None:
    """The ``--fast-set`` settings of the table folders ``--continue-from`` goes on from (``None`` when all are older
    than ``fast_settings.json``; their runs are checked by ``continue_runs``), once they are checked to be other
    tables' folders started with the same ones."""
    kept = []
    for source in sources:
        if not (source / "runs").is_dir():
            raise ValueError(f"--continue-from {source} holds no table's runs (no {source / 'runs'})")
        if source.resolve() == out.resolve():
            raise ValueError(f"--continue-from {source} is the table's own --out")
        path = source / "fast_settings.json"
        if path.is_file():
            kept.append(json.loads(path.read_text()))
    if any(settings != kept[0] for settings in kept):
        raise ValueError(f"--continue-from folders started with other --fast-set settings, {kept}: a table holds one")
    return kept[0] if kept else None


def continue_runs(
    sources: list[Path], out: Path, learners, probes, seeds, budgets: dict[str, int], fast_settings: dict, log=print
) -> None:
    """``--continue-from SOURCE...``: every run the table folders ``sources`` hold that ``out``'s table lacks is copied
    into ``out`` (from the first folder, in the order given, that holds it), so the table goes on from it instead of
    training it again. A run at its budget is copied whole (its final model is scored again by ``out``'s suites); a
    fast run short of its budget is copied without its final model and model card, and the table trains it on from
    its latest checkpoint (its new card says from where, ``resumed_from_timesteps``, and ``last_stretch`` leaves it
    out when that lies in the last three eighths). Refused before anything is copied: a run that did not finish, one
    trained past its budget, an SB3 run at another budget (SB3's runs cannot go on), and fast runs trained with other
    settings than ``fast_settings``. The copies are kept in ``out/continued_from.json`` (``continued_runs``)."""
    for source in sources:
        _check_runs_trained_with(
            source,
            fast_settings,
            FastPPOConfig.with_overrides(fast_settings),
            "continue only from a table trained with the same --fast-set",
        )
    copies = []
    for seed in seeds:
        for probe in probes:
            for name in learners:
                run, target = f"{probe}/{name}-s{seed}", out / "runs" / probe / f"{name}-s{seed}"
                source = next((source for source in sources if (source / "runs" / run).is_dir()), None)
                if source is not None and not target.exists():
                    budget = budget_of(budgets, name, probe)
                    steps = _steps_to_copy(source / "runs" / run, name, budget)
                    copies.append((source, run, target, steps, steps < budget))
    record = continued_runs(out)
    for source, run, target, steps, going_on in copies:
        partial = target.with_name(target.name + ".partial")  # a cut-off copy is never mistaken for a run
        shutil.rmtree(partial, ignore_errors=True)
        left_out = ("final.zip", "model_card.json", LOCK_NAME) if going_on else (LOCK_NAME,)
        shutil.copytree(source / "runs" / run, partial, ignore=shutil.ignore_patterns(*left_out))
        partial.rename(target)
        # the steps after the last checkpoint are trained again: the final model carries no optimizer state
        goes_on_from = max(checkpoint_files(target), default=(0, None))[0] if going_on else None
        record[run] = {"folder": str(source.resolve()), "steps": steps, "goes_on_from": goes_on_from}
        write_atomic(out / CONTINUED_FILE, json.dumps(record, indent=2) + "\n")
        log(
            f"{run}: {steps:,} steps copied from {source}"
            + (f", to be trained on from its checkpoint at {goes_on_from:,} steps" if going_on else "")
        )


def continued_runs(out: Path) -> dict[str, dict]:
    """The runs a table folder took from other tables: ``{"PROBE/LEARNER-sSEED": {"folder", "steps"}}``."""
    path = out / CONTINUED_FILE
    return json.loads(path.read_text()) if path.is_file() else {}


def _steps_to_copy(run_dir: Path, name: str, budget: int) -> int:
    """The steps a run of another table trained, checked against the budget it is to have here."""
    card_path = run_dir / "model_card.json"
    if not card_path.is_file():
        raise ValueError(f"--continue-from: {run_dir} did not finish; finish it with its own table's command first")
    card = json.loads(card_path.read_text())
    steps = card["timesteps"]
    if not LEARNERS[name].fast:
        if card.get("timesteps_requested") != budget:
            raise ValueError(
                f"--continue-from: {run_dir} trained {card.get('timesteps_requested')} steps, not the "
                f"budget {budget}, and an SB3 run cannot go on: give {name} its budget, {steps}"
            )
        return steps
    per_update = card["config"]["num_envs"] * card["config"]["rollout_steps"]
    if steps - per_update >= budget:  # a run of this budget would have stopped an update or more earlier
        raise ValueError(f"--continue-from: {run_dir} trained {steps:,} steps, past the budget {budget:,} of {name}")
    return steps


def parse_budgets(given: list[str], default: int, learners) -> dict[str, int]:
    """``--budget LEARNER=STEPS`` for some learners and ``--budget LEARNER@PROBE=STEPS`` for a learner on one probe (a
    curve that still rises where the learner's others have flattened); the others train ``default`` steps."""
    budgets = dict.fromkeys(learners, default)
    for item in given:
        key, _, steps = item.partition("=")
        name, at, probe = key.partition("@")
        if name not in LEARNERS or (at and not is_probe_name(probe)) or not steps.isdigit() or int(steps) < 1:
            raise ValueError(
                f"--budget takes LEARNER=STEPS or LEARNER@PROBE=STEPS (a learner of {list(LEARNERS)}, a "
                f"probe of {list(PROBES)}, at a level as NAME@N, STEPS >= 1), got {item!r}"
            )
        budgets[key] = int(steps)
    return budgets


def is_probe_name(name: str) -> bool:
    """Whether ``name`` names a probe, or a probe at one of its levels (``memory@1``: ``probe_named``)."""
    try:
        probe_named(name)
    except ValueError:
        return False
    return True


def budget_of(budgets: dict[str, int], name: str, probe: str) -> int:
    """The steps ``name``'s runs on ``probe`` train (``parse_budgets``)."""
    return budgets.get(f"{name}@{probe}", budgets[name])


class TableRefused(ValueError):
    """The table's arguments or inputs are refused (before any training, or when its figures cannot be drawn): one
    line naming the problem, which the command prints as its usage error."""


def run_table(
    out: Path,
    *,
    timesteps: int = 20_000,
    budget: Sequence[str] = (),
    seeds: Sequence[int] = (0, 1),
    learners: Sequence[str] = tuple(LEARNERS),
    probes: Sequence[str] = tuple(PROBES),
    rounds: int = 100,
    workers: int = 1,
    jobs: int = 1,
    fast_set: Sequence[str] = (),
    actions: str = "greedy",
    continue_from: Sequence[Path] = (),
    train_only: bool = False,
) -> dict:
    """Train each learner on each probe (``seeds``; ``budget``: ``LEARNER[@PROBE]=STEPS`` over ``timesteps``) into
    ``out``, score the final models with each probe's suite, and write the table (``learners.json``, ``.md``,
    ``.png``, ``curves.png``; ``learners-sampled.*`` with ``actions="sampled"``). Returns the table (nothing with
    ``train_only``). ``continue_from``: other tables' folders whose runs this one goes on from."""
    seeds, learners, probes = list(seeds), list(learners), list(probes)
    sampled, stem = actions == "sampled", table_stem(actions)
    if timesteps < 1 or len(set(seeds)) < 2 or min(seeds) < 0 or jobs < 1:
        raise TableRefused(
            f"--timesteps and --jobs must be >= 1 and --seeds two or more distinct seeds >= 0, got "
            f"{timesteps}, {jobs}, {seeds}"
        )
    try:
        budgets = parse_budgets(list(budget), timesteps, learners)
        sources = list(continue_from)
        inherited = source_settings(sources, out) if sources else None
        fast_settings = check_fast_settings(out, list(fast_set), inherited, learners)
        if sources:
            continue_runs(sources, out, learners, probes, seeds, budgets, fast_settings)
    except ValueError as error:
        raise TableRefused(str(error)) from error
    models = train_all(out, learners, probes, seeds, budgets, jobs, fast_settings=fast_settings)
    if train_only:
        return {}
    scores = {}
    for probe in probes:
        specs = [_spec(name, path, sampled) for (name, of, _), path in models.items() if of == probe]
        suite_dir = suite_folder(out, probe, seeds, learners, sampled)
        if (suite_dir / "suite_config.json").is_file():
            suite = run_suite(resume=suite_dir, workers=workers, progress=False)
        else:
            suite = run_suite(specs, [probe], rounds, 0, suite_dir, workers, progress=False)
        scores[probe] = suite.results["probes"][0]["agents"]
    capability = capability_lines(probes)
    try:
        table = learners_table(scores, models, learners, probes, seeds, sampled, capability)
    except ValueError as error:  # the runs and the suites stay on disk
        raise TableRefused(str(error)) from error
    report = {
        "budgets": budgets,
        "seeds": seeds,
        "rounds": rounds,
        "actions": actions,
        "fast_settings": fast_settings,
        "learner_settings": {name: dict(LEARNERS[name].settings) for name in learners if LEARNERS[name].fast},
        "continued_from": continued_runs(out),
        "capability_lines": capability,
        "learners": table,
        "curves": training_curves(out, learners, probes, seeds),
        "last_stretch": last_stretch(out, learners, probes, seeds),
    }
    write_atomic(out / f"{stem}.json", json.dumps(report, indent=2) + "\n")
    print(write_report(report, out, stem))
    return table


def table_stem(actions: str = "greedy") -> str:
    """The files' name of a table whose fast learners play ``actions`` (``learners`` or ``learners-sampled``)."""
    return "learners-sampled" if actions == "sampled" else "learners"


def rerender(out: Path, actions: str = "greedy") -> dict:
    """Draw the markdown and charts of ``out`` again from its ``learners.json`` alone; returns its table."""
    stem = table_stem(actions)
    report = read_report(out / f"{stem}.json", "--rerender")
    print(write_report(report, out, stem))
    return report["learners"]


def merge(folders: list[Path], out: Path, actions: str = "greedy") -> dict:
    """One table in ``out`` from other tables' ``learners.json``: each learner's figures on each probe from the
    first folder that has them. Returns the table."""
    stem = table_stem(actions)
    if out.resolve() in {folder.resolve() for folder in folders}:
        raise TableRefused(f"--merge writes {out / f'{stem}.json'}: --out must not be one of the folders merged")
    sources = [(str(folder), read_report(folder / f"{stem}.json", "--merge")) for folder in folders]
    try:
        report = merge_reports(sources)
    except ValueError as error:
        raise TableRefused(str(error)) from error
    out.mkdir(parents=True, exist_ok=True)
    write_atomic(out / f"{stem}.json", json.dumps(report, indent=2) + "\n")
    print(write_report(report, out, stem))
    return report["learners"]


def read_report(path: Path, option: str) -> dict:
    """A table's ``learners.json``, or a one-line refusal naming the file and what it lacks."""
    try:
        report = json.loads(path.read_text())
    except (OSError, ValueError) as error:
        raise TableRefused(f"{option} draws from {path}, which cannot be read as JSON: {error}") from error
    missing = {"learners", "capability_lines", "seeds", "budgets", "curves", "last_stretch"} - set(report)
    if missing:
        raise TableRefused(
            f"{option}: {path} lacks {sorted(missing)} (written by an older version: run the table again)"
        )
    return report


def render_learner_settings(settings: dict[str, dict]) -> str:
    """A line per fast learner with settings of its own (``Learner.settings``), as its runs trained."""
    lines = [
        f"- {name}: " + ", ".join(f"{key} {value}" for key, value in own.items())
        for name, own in settings.items()
        if own
    ]
    return "Each fast learner's own settings:\n\n" + "\n".join(lines) + "\n\n" if lines else ""


def write_report(report: dict, out: Path, stem: str = "learners") -> str:
    """``{stem}.md`` with ``{stem}.png`` and ``curves.png`` in ``out``, drawn from ``report`` (``{stem}.json``'s
    content) alone: ``--rerender`` draws them again after the runs are gone. Returns the markdown."""
    table, capability, stretches, curves = (
        report["learners"],
        report["capability_lines"],
        report["last_stretch"],
        report["curves"],
    )
    probes = list(capability)
    chart = learners_chart(table, probes, out / f"{stem}.png")
    settings = report.get("fast_settings")  # absent from the tables drawn before --fast-set
    text = f"The fast learners train with FastPPOConfig's defaults changed by {settings}.\n\n" if settings else ""
    text += render_learner_settings(report.get("learner_settings", {}))  # absent from tables drawn before
    text += render_merged(report.get("merged_from", {}))
    text += render_continued(report.get("continued_from", {}))  # absent from the tables drawn before --continue-from
    text += (
        render_table(table, probes, report["seeds"], report["budgets"], capability)
        + f"\n![the learners' scores]({chart})\n"
    )
    if len(table) > 1:
        text += "\n" + render_regret_improvement(table, probes)
    if stretches:
        text += "\n" + render_last_stretch(stretches, probes, capability)
    if curves:
        chart = curves_chart(curves, out / "curves.png", timing_references(capability))
        text += f"\n![the fast learners' training curves]({chart})\n"
    write_atomic(out / f"{stem}.md", text)
    return text


if __name__ == "__main__":  # the experiments' records name this module: say where the command is
    raise SystemExit("the learners' table runs as python -m war_env.scripts.learners, with the same options")
