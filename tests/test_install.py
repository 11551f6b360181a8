"""The install a user gets, not the editable checkout: the wheel is built, installed into fresh virtual
environments outside the repository, and every console script does its main job on a tiny budget from
an unrelated folder, with no thread or display variables from the Makefile.

* the wheel holds one top-level import package, ``war_env``, with its data files;
* the core install (``pip install war-env``) makes War-v0, plays in the terminal, and every command
  that needs an extra says which one in one line, writing nothing;
* ``war-env[bench,train,web]`` runs a league with its report, trains a model that ``war-bench`` then loads,
  self-play, and ``war-perf``'s quick mode;
* the stated dependency floors (the oldest gymnasium, numpy, scipy, matplotlib, tqdm, jsonschema, filelock and numba
that
  pyproject.toml allows, on the oldest Python it allows when this machine has it) play the same league
  to the same numbers.

Slow (building and installing takes a few minutes); still part of ``make test``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.request
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
CONSTRAINTS = ROOT / "constraints.txt"
FLOORS = {
    "gymnasium": "1.1.0",
    "numpy": "1.26.0",
    "scipy": "1.15.0",
    "matplotlib": "3.8.0",
    "tqdm": "4.66.0",
    "jsonschema": "4.20.0",
    "filelock": "3.12.0",
    "numba": "0.68.0",
}
"""The lower bounds of pyproject.toml for the core and the bench extra, installed exactly."""
LEAGUE = [
    "--agents",
    "prompt",
    "random:p=0.2",
    "--opponents",
    "human",
    "--rounds",
    "30",
    "--seed",
    "5",
    "--quiet",
    "--workers",
    "2",
]


def plain_environment() -> dict:
    """A user's shell: none of the Makefile's or conftest's variables, no virtual environment active."""
    drop = {
        "OMP_NUM_THREADS",
        "MKL_NUM_THREADS",
        "OPENBLAS_NUM_THREADS",
        "NUMBA_NUM_THREADS",
        "SDL_VIDEODRIVER",
        "SDL_AUDIODRIVER",
        "VIRTUAL_ENV",
        "PYTHONPATH",
    }
    return {name: value for name, value in os.environ.items() if name not in drop}


def run(command: list, cwd: Path, timeout: float = 600, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(part) for part in command],
        cwd=cwd,
        env=plain_environment(),
        capture_output=True,
        text=True,
        timeout=timeout,
        **kwargs,
    )


def make_venv(folder: Path, python: str = sys.executable) -> Path:
    done = run([python, "-m", "venv", folder], cwd=folder.parent)
    assert done.returncode == 0, done.stderr
    return folder / "bin"


def pip_install(bin_dir: Path, *requirements, constraints: Path | None = None) -> None:
    command = [bin_dir / "python", "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    if constraints is not None:
        command += ["-c", constraints]
    done = run(command + list(requirements), cwd=bin_dir.parent, timeout=1200)
    assert done.returncode == 0, done.stderr[-3000:]


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, str]:
    """The wheel, built as a packager builds it (``python -m build``), and everything the build printed."""
    out = tmp_path_factory.mktemp("wheel")
    source = (
        out / "source"
    )  # a clean copy: setuptools' build/ folder in the checkout would skip steps and their warnings
    shutil.copytree(
        ROOT,
        source,
        ignore=shutil.ignore_patterns(
            ".git", ".venv", "build", "dist", "runs", "*.egg-info", "__pycache__", ".pytest_cache", ".hypothesis"
        ),
    )
    # This machine sets PYTHONDONTWRITEBYTECODE, which makes setuptools warn that it skips byte-compiling;
    # a user's shell has no such variable.
    environment = {name: value for name, value in plain_environment().items() if name != "PYTHONDONTWRITEBYTECODE"}
    done = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(out), str(source)],
        cwd=out,
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    (found,) = out.glob("war_env-*.whl")
    return found, done.stdout + done.stderr


@pytest.fixture(scope="module")
def wheel(built) -> Path:
    return built[0]


@pytest.fixture(scope="module")
def elsewhere(tmp_path_factory) -> Path:
    """An unrelated folder to run commands from: no checkout beside it."""
    return tmp_path_factory.mktemp("elsewhere")


# --- the wheel ------------------------------------------------------------------------------------------
def test_building_the_wheel_prints_no_warning(built):
    _, output = built
    warnings = [line for line in output.splitlines() if "warn" in line.lower()]
    assert "Successfully built war_env" in output and warnings == [], warnings


def test_the_wheel_holds_one_top_level_package_with_its_data(wheel):
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        (top_level,) = [name for name in names if name.endswith(".dist-info/top_level.txt")]
        assert archive.read(top_level).decode().split() == ["war_env"]
    assert {name.split("/")[0] for name in names if ".dist-info/" not in name} == {"war_env"}
    for shipped in (
        "war_env/data/results.schema.json",
        "war_env/data/configs/ppo.json",
        "war_env/data/configs/maskable_ppo.json",
        "war_env/data/rl_zoo/ppo.yml",
        "war_env/agents/__init__.py",
        "war_env/agents/sb3_agent.py",
        "war_env/scripts/benchmark.py",
        "war_env/league/run.py",
        "war_env/training/run.py",
        "war_env/play/session.py",
        "war_env/web/app.py",
        "war_env/web/static/index.html",
        "war_env/web/static/style.css",
        "war_env/web/static/table.js",
        "war_env/web/static/favicon.svg",
    ):
        assert shipped in names, shipped


def test_the_wheel_carries_the_mit_license_text(wheel):
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        (license_file,) = [name for name in names if name.endswith(".dist-info/licenses/LICENSE")]
        assert archive.read(license_file) == (ROOT / "LICENSE").read_bytes()
        (metadata,) = [name for name in names if name.endswith(".dist-info/METADATA")]
        assert "License-Expression: MIT" in archive.read(metadata).decode()
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")


# --- the core install -----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def core(wheel, tmp_path_factory) -> Path:
    bin_dir = make_venv(tmp_path_factory.mktemp("core") / "venv")
    pip_install(bin_dir, wheel)
    return bin_dir


def test_the_core_install_makes_war_v0_from_anywhere(core, elsewhere):
    code = (
        "import gymnasium as gym, war_env, sys; env = gym.make('War-v0'); env.reset(seed=0); "
        "done = False\nwhile not done:\n    *_, done, _, info = env.step(1)\n"
        "print(info['round']['reason']); "
        "assert not {'torch', 'pygame', 'ray', 'scipy'} & set(sys.modules)"
    )
    done = run([core / "python", "-c", code], cwd=elsewhere)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() in ("all_cards", "points", "battle_limit", "war_shortage")


@pytest.mark.parametrize(
    "command, extras",
    [
        (["war-bench", "--rounds", "2", "--out", "bench-run"], ["bench"]),
        (["war-train", "--run-dir", "train-run"], ["train"]),
        (["war-selfplay", "--run-dir", "selfplay-run"], ["train"]),
        (["war-tune", "--out", "tune-run"], ["train", "distributed"]),
        (["war-curves", "--run-dir", "curves-run"], ["train", "bench"]),
        (["war-play", "--window"], ["render"]),
        (["war-play", "--web"], ["web"]),
        (["war-perf"], ["bench"]),
    ],
)
def test_a_command_without_its_extras_names_all_of_them_in_one_line_and_writes_nothing(core, tmp_path, command, extras):
    done = run([core / command[0], *command[1:]], cwd=tmp_path)
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    names = " and ".join(f'"{extra}"' for extra in extras)
    assert f"needs the {names} extra" in lines[0] and f'pip install "war-env[{",".join(extras)}]"' in lines[0]
    assert list(tmp_path.iterdir()) == []


def test_importing_an_optional_module_without_its_extra_names_the_extra(core, elsewhere):
    for module, extra in (("war_env.envs.sb3_vec", "train"), ("war_env.envs.multiagent", "multiagent")):
        done = run([core / "python", "-c", f"import {module}"], cwd=elsewhere)
        assert done.returncode == 1 and f'pip install "war-env[{extra}]"' in done.stderr, done.stderr


def test_war_play_in_the_terminal_takes_keys_from_a_script(core, elsewhere):
    """The core install plays in a terminal: a script presses 'Play 10 battles', waits, and quits."""
    process = subprocess.Popen(
        [core / "war-play", "--terminal", "--opponent", "instant", "--seed", "1"],
        cwd=elsewhere,
        env=plain_environment(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    process.stdin.write("p")
    process.stdin.flush()
    time.sleep(2.0)
    out, err = process.communicate("q", timeout=30)
    assert process.returncode == 0, err
    assert "Rounds won: You" in out and "Turn cards" in out


# --- the bench, train and web extras --------------------------------------------------------------------------
@pytest.fixture(scope="module")
def full(wheel, tmp_path_factory) -> Path:
    bin_dir = make_venv(tmp_path_factory.mktemp("full") / "venv")
    pip_install(bin_dir, f"{wheel}[bench,train,web]", constraints=CONSTRAINTS)
    return bin_dir


@pytest.fixture(scope="module")
def full_league(full, elsewhere) -> dict:
    done = run([full / "war-bench", *LEAGUE, "--out", "league"], cwd=elsewhere)
    assert done.returncode == 0, done.stderr[-3000:]
    assert (elsewhere / "league" / "report.md").is_file()
    return json.loads((elsewhere / "league" / "results.json").read_text())


def test_the_bench_and_train_extras_bring_the_compiled_engine(full, elsewhere):
    done = run([full / "python", "-c", "import war_env.batched as b; print(b.available())"], cwd=elsewhere)
    assert done.stdout.strip() == "True", done.stderr


def test_war_bench_writes_its_report_from_an_installed_package(full_league):
    assert full_league["config"]["rounds"] == 30 and full_league["paired_card_outcomes_identical"]


def test_war_train_saves_a_model_that_war_bench_loads(full, elsewhere):
    done = run(
        [
            full / "war-train",
            "--algo",
            "ppo",
            "--timesteps",
            "256",
            "--n-envs",
            "1",
            "--set",
            "n_steps=64",
            "--set",
            "batch_size=64",
            "--bench-rounds",
            "5",
            "--run-dir",
            "model-run",
            "--no-progress-bar",
        ],
        cwd=elsewhere,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "held-out comparison" in done.stdout
    model = elsewhere / "model-run" / "final.zip"
    done = run(
        [
            full / "war-bench",
            "--agents",
            "prompt",
            f"ppo:{model}",
            "--opponents",
            "human",
            "--rounds",
            "6",
            "--quiet",
            "--out",
            "model-league",
        ],
        cwd=elsewhere,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads((elsewhere / "model-league" / "results.json").read_text())
    assert [entry["agent"] for entry in results["agents"]] == ["oracle", "prompt", f"ppo:{model}"]  # the reference


def test_war_selfplay_runs_from_an_installed_package(full, elsewhere):
    done = run(
        [
            full / "war-selfplay",
            "--timesteps",
            "64",
            "--refresh-every",
            "64",
            "--n-envs",
            "1",
            "--eval-deals",
            "1",
            "--run-dir",
            "selfplay-run",
        ],
        cwd=elsewhere,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert (elsewhere / "selfplay-run" / "selfplay.json").is_file()


def test_war_perf_quick_mode_prints_its_table(full, elsewhere):
    done = run(
        [full / "war-perf", "--repeats", "1", "--budget", "0.01", "--fast-rounds", "64", "--no-league", "--no-memory"],
        cwd=elsewhere,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "CartPole" in done.stdout


def test_war_play_web_serves_the_page_from_the_installed_package(full, elsewhere):
    """The page and its files are package data: the installed server serves them at the URL it prints."""
    process = subprocess.Popen(
        [full / "war-play", "--web", "--port", "0", "--opponent", "instant"],
        cwd=elsewhere,
        env=plain_environment(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = process.stdout.readline()
        url = re.search(r"http://127\.0\.0\.1:\d+/", line)
        assert url, (line, process.stderr.read() if process.poll() is not None else "")
        for path, expected in (("", "How to play War here"), ("table.js", "new WebSocket"), ("style.css", ".card")):
            with urllib.request.urlopen(url.group(0) + path, timeout=30) as response:
                assert expected in response.read().decode(), path
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_every_command_has_help_for_users(full, elsewhere):
    for command in ("war-bench", "war-train", "war-curves", "war-play", "war-perf", "war-selfplay", "war-tune"):
        done = run([full / command, "--help"], cwd=elsewhere)
        assert done.returncode == 0 and done.stdout.startswith("usage: " + command), (command, done.stderr)


# --- the dependency floors ---------------------------------------------------------------------------------
def oldest_python() -> str | None:
    """The oldest Python that pyproject.toml allows (3.10), when this machine has one that runs."""
    candidates = [
        shutil.which("python3.10"),
        *sorted(str(p) for p in Path("/root/.pyenv/versions").glob("3.10*/bin/python3.10")),
    ]
    for candidate in filter(None, candidates):
        if subprocess.run([candidate, "--version"], capture_output=True).returncode == 0:
            return candidate
    return None


def test_the_stated_floors_play_the_same_league_to_the_same_numbers(wheel, full_league, tmp_path):
    python = oldest_python() or sys.executable
    floors = tmp_path / "floors.txt"
    floors.write_text("".join(f"{name}=={version}\n" for name, version in FLOORS.items()))
    bin_dir = make_venv(tmp_path / "venv", python)
    pip_install(bin_dir, f"{wheel}[bench]", constraints=floors)
    versions = run(
        [
            bin_dir / "python",
            "-c",
            "import importlib.metadata as m, json, sys; print(json.dumps("
            "{n: m.version(n) for n in %r} | {'python': sys.version.split()[0]}))" % list(FLOORS),
        ],
        cwd=tmp_path,
    )
    installed = json.loads(versions.stdout)
    assert {name: installed[name] for name in FLOORS} == FLOORS
    done = run([bin_dir / "war-bench", *LEAGUE, "--out", "league"], cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads((tmp_path / "league" / "results.json").read_text())
    for ours, theirs in zip(results["pairings"], full_league["pairings"]):
        for key in ("return", "win", "false_starts_per_round", "battles_per_round"):
            assert ours[key]["value"] == theirs[key]["value"], (key, installed)
