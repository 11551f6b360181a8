"""Every documented command marked runnable is run, so the docs cannot drift from the code.

The convention (for README.md and docs/*.md):

* An HTML comment on the line right before a fenced code block marks it runnable; readers of the
  rendered page do not see it::

      <!-- runnable -->
      ```bash
      war-bench --agents prompt human --rounds 1000 --out runs/bench/mine
      ```

* A block whose command would take long says how the test shrinks it, as literal replacements made
  before running (the test fails if a text to replace is missing, so they cannot go stale)::

      <!-- runnable: "--rounds 1000" -> "--rounds 10"; "--timesteps 100000" -> "--timesteps 256" -->

* ``bash`` blocks run with ``bash -e`` and ``python`` blocks with this Python; the installed console
  scripts (``war-bench``, ...) and ``python`` come first on ``PATH``. The runnable blocks of one page
  run in order in one fresh temporary folder, so a later block may read what an earlier one wrote
  (a run folder, a model file). A block passes when it exits with status 0 within its time limit.

Blocks without the marker (``make test``, a cluster's addresses, a window) are not run.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "docs" / "results").glob("*.md"))]
MARKER = re.compile(
    r"^<!-- runnable(?::(?P<replacements>[^\n]*))? -->\n```(?P<language>\w+)\n(?P<code>.*?)^```$",
    re.MULTILINE | re.DOTALL,
)
REPLACEMENT = re.compile(r'"((?:[^"\\]|\\.)*)"\s*->\s*"((?:[^"\\]|\\.)*)"')
TIMEOUT_SECONDS = 300


@dataclass(frozen=True)
class Block:
    page: Path
    line: int
    language: str
    code: str
    """As the test runs it: the replacements made."""

    def __str__(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def runnable_blocks(page: Path) -> list[Block]:
    text = page.read_text()
    blocks = []
    for match in MARKER.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        code = match["code"]
        for old, new in REPLACEMENT.findall(match["replacements"] or ""):
            old, new = old.replace('\\"', '"'), new.replace('\\"', '"')
            if old not in code:
                raise ValueError(f"{page.name}:{line}: the test replacement {old!r} is not in the block")
            code = code.replace(old, new)
        if match["language"] not in ("bash", "python"):
            raise ValueError(f"{page.name}:{line}: runnable blocks are bash or python, not {match['language']!r}")
        blocks.append(Block(page, line, match["language"], code))
    return blocks


def environment() -> dict:
    """This Python's scripts first on PATH; no display; the code limits its own threads."""
    bin_dir = str(Path(sys.executable).parent)
    return {
        **os.environ,
        "PATH": bin_dir + os.pathsep + os.environ.get("PATH", ""),
        "SDL_VIDEODRIVER": "dummy",
        "SDL_AUDIODRIVER": "dummy",
        "MPLBACKEND": "Agg",
    }


def run_block(block: Block, folder: Path) -> None:
    command = ["bash", "-e", "-c", block.code] if block.language == "bash" else [sys.executable, "-c", block.code]
    done = subprocess.run(
        command,
        cwd=folder,
        env=environment(),
        capture_output=True,
        text=True,
        timeout=TIMEOUT_SECONDS,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, f"{block} failed (status {done.returncode}):\n{block.code}\n{done.stderr[-3000:]}"


PAGES_WITH_BLOCKS = [page for page in PAGES if "<!-- runnable" in page.read_text()]


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES_WITH_BLOCKS, ids=lambda page: str(page.relative_to(ROOT)))
def test_the_runnable_blocks_of_a_page_run(page, tmp_path):
    blocks = runnable_blocks(page)
    assert blocks, f"{page.name} has a runnable marker that does not precede a fenced block"
    for block in blocks:
        run_block(block, tmp_path)


def test_the_readme_and_the_main_pages_have_runnable_examples():
    for name in ("README.md", "docs/rules.md", "docs/benchmark.md", "docs/training.md", "docs/multiagent.md"):
        assert runnable_blocks(ROOT / name), name


def test_docs_name_no_command_or_path_that_no_longer_exists():
    """The package moved: console scripts instead of ``python -m scripts.X``, ``war_env.agents`` instead
    of ``agents``, data files in ``war_env/data``; a page cut out of the README has no "see below"."""
    stale = [
        r"python -m scripts\.",
        r"(?<![\w/.])configs/",
        r"(?<![\w.])scripts/\w+\.py",
        r"\.venv/bin/war-",
        r"(?<![\w.`])agents\.(?:sb3_model|sb3_agent|model_files|scripted|base)",
        r"tests/test_train\.py",
    ]
    for page in PAGES:
        text = page.read_text()
        for pattern in stale:
            found = re.search(pattern, text)
            assert not found, (
                f"{page.relative_to(ROOT)}: {found.group(0)!r} (line {text.count(chr(10), 0, found.start()) + 1})"
            )


def test_the_marker_grammar(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        '<!-- runnable: "big" -> "small"; "say \\"a\\"" -> "say b" -->\n```bash\necho big; echo say "a"\n```\n'
        "<!-- not runnable -->\n```bash\nexit 1\n```\n"
    )
    (block,) = runnable_blocks(page)
    assert block.code == "echo small; echo say b\n" and block.language == "bash" and block.line == 1
    page.write_text('<!-- runnable: "gone" -> "x" -->\n```bash\necho here\n```\n')
    with pytest.raises(ValueError, match="'gone' is not in the block"):
        runnable_blocks(page)


DOTTED_NAME = re.compile(r"(?<![\w/.-])war_env(?:\.\w+)+")
SOURCE_PATH = re.compile(r"(?<![\w/.-])(?:war_env|agents|scripts|tests|docs)/[\w./-]*\w(?:\.py|\.md|\.json|\.yml|/)")


def resolves(dotted: str) -> bool:
    """``war_env.a.b.c`` names a module, or an attribute of the longest module prefix."""
    import importlib

    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            target = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attribute in parts[cut:]:
            if not hasattr(target, attribute):
                return False
            target = getattr(target, attribute)
        return True
    return False


def repository_path(path: str) -> Path:
    """A path as the docs write it: ``war_env/agents/x.py`` is installed from ``agents/x.py`` (pyproject)."""
    for package, folder in (("war_env/agents/", "agents/"), ("war_env/scripts/", "scripts/")):
        if path.startswith(package):
            return ROOT / folder / path[len(package) :]
    return ROOT / path


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_every_module_name_and_source_path_a_page_gives_exists(page):
    """A page that names ``war_env.league.results.summarise`` or ``war_env/core/clock.py`` names something
    that is there: modules and files move (the layers of docs/architecture.md), and a stale name sends a
    reader nowhere."""
    text = page.read_text()
    missing = [name for name in sorted(set(DOTTED_NAME.findall(text))) if not resolves(name)]
    missing += [path for path in sorted(set(SOURCE_PATH.findall(text))) if not repository_path(path).exists()]
    assert not missing, f"{page.relative_to(ROOT)} names what does not exist: {missing}"


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_every_python_m_command_a_page_gives_runs_as_a_command(page):
    """``python -m war_env.X`` runs only a module that has a ``__main__`` block: a library module without one
    would exit 0 and do nothing."""
    silent = []
    for module in sorted(set(re.findall(r"python -m (war_env(?:\.\w+)+)", page.read_text()))):
        found = importlib.util.find_spec(module)
        if found is None or not found.origin or 'if __name__ == "__main__":' not in Path(found.origin).read_text():
            silent.append(module)
    assert not silent, f"{page.relative_to(ROOT)} runs modules that are not commands: {silent}"


NAMED_PAGE = re.compile(r'(docs/[\w/.-]+\.md)(?:[,:]?\s*\(?\s*"([A-Z`][^"]*)")?')
"""``docs/probes.md`` in a docstring or comment, and the section after it: ``docs/probes.md, "The learners"``."""


def test_every_page_and_section_a_docstring_or_comment_names_exists():
    """Pages split and figures move (a guide's figures are on its results page): a pointer to a page or to a
    section that is not there sends the reader nowhere."""
    missing = []
    for source in sorted(path for folder in ("war_env", "agents", "scripts") for path in (ROOT / folder).rglob("*.py")):
        for page, section in NAMED_PAGE.findall(source.read_text()):
            where = f"{source.relative_to(ROOT)}: {page}"
            if not (ROOT / page).is_file():
                missing.append(where)
            elif section and not any(
                " ".join(heading.split()).startswith(" ".join(section.split()))
                for heading in re.findall(r"^#+ (.+)$", (ROOT / page).read_text(), flags=re.MULTILINE)
            ):
                missing.append(f'{where}, "{section}"')
    assert not missing, f"named but not there: {missing}"


# --- numbers the docs quote from a run ------------------------------------------------------------------
SHIPPED_RUN = ROOT / "docs" / "runs" / "bench-default"


def shipped_quote():
    spec = importlib.util.spec_from_file_location("quote", SHIPPED_RUN.parent / "quote.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_readme_quotes_the_report_that_the_shipped_run_renders_to():
    quote = shipped_quote()
    readme = (ROOT / "README.md").read_text()
    quoted = readme.split(quote.BEGIN + "\n", 1)[1].split("\n" + quote.END, 1)[0]
    assert quoted == quote.quote(), "README.md is stale: run .venv/bin/python docs/runs/quote.py"


def test_the_shipped_run_is_the_default_league_and_the_results_page_quotes_its_figures():
    from war_env.agents import BASELINES
    from war_env.league.league import DEFAULT_OPPONENTS, DEFAULT_ROUNDS

    results = json.loads((SHIPPED_RUN / "results.json").read_text())
    run = json.loads((SHIPPED_RUN / "run.json").read_text())
    (session,) = run["sessions"]
    league = results["config"]
    assert (league["rounds"], tuple(league["opponents"])) == (DEFAULT_ROUNDS, tuple(DEFAULT_OPPONENTS))
    assert set(league["agents"]) == {"oracle", *BASELINES}  # what make run plays
    total = league["rounds"] * len(results["pairings"])
    assert session["rounds_played"] == total
    results_page = " ".join((ROOT / "docs" / "results" / "benchmark.md").read_text().split())
    for figure in (
        f"played its {total:,} rounds in {session['seconds']:.0f} s with {session['workers']} workers",
        f"({session['rounds_per_second']:.0f} rounds/s)",
        f"the widest win-rate interval was {results['widest_win_rate_interval']:.3f}",
        f"6 agents and the `oracle` x {len(league['opponents'])} opponents x {league['rounds']} rounds, "
        f"{total:,} rounds",
        f"{run['provenance']['cpus']} CPUs",
    ):
        assert figure in results_page, figure
    guide = " ".join((ROOT / "docs" / "benchmark.md").read_text().split())
    for figure in (f"{league['rounds']} rounds, {total:,} rounds", f"league's {total:,} records"):
        assert figure in guide, figure


@pytest.mark.slow
def test_the_latency_figures_in_the_readme_and_the_results_page_are_what_the_league_gives(tmp_path):
    """The 500 paired rounds at latency fixed:ticks=2 against human that docs/results/latency.md's tables report and
    the README rounds, played again (tick by tick: about half a minute)."""
    from war_env.league.report import fmt
    from war_env.league.run import run_league

    run = run_league(
        agents=["prompt", "anticipate"],
        opponents=["human"],
        rounds=500,
        seed=0,
        out=tmp_path / "run",
        env_kwargs={"latency": "fixed:ticks=2"},
        progress=False,
        workers=2,
    )
    regret = {entry["agent"]: entry["regret"] for entry in run.results["agents"] if entry["regret"]}
    latency_page = (ROOT / "docs" / "results" / "latency.md").read_text()
    for agent in ("prompt", "anticipate"):
        assert f"| `fixed:ticks=2` | `human` | `{agent}` | {fmt(regret[agent])} |" in latency_page, agent
        assert f"| `{agent}` | {fmt(regret[agent])} |" in latency_page, agent
    readme = " ".join((ROOT / "README.md").read_text().split())
    assert (
        f"`prompt` loses {regret['prompt']['value']:.1f} per round to the oracle (false starts), the "
        f"`anticipate` heuristic {regret['anticipate']['value']:.2f}"
    ) in readme


# --- the durations report (make test-durations) -----------------------------------------------------------------
def test_the_durations_report_ranks_pytests_junit_times_and_marks_the_slow_tests(tmp_path):
    spec = importlib.util.spec_from_file_location("durations", ROOT / "docs" / "durations.py")
    durations = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(durations)
    xml = tmp_path / "results.xml"
    xml.write_text(
        '<testsuites><testsuite name="pytest">'
        '<testcase classname="tests.test_a" name="test_quick" time="0.5"/>'
        '<testcase classname="tests.test_a" name="test_long[x-1]" time="12.0"/>'
        '<testcase classname="tests.test_b.TestGroup" name="test_one" time="2.0"/>'
        "</testsuite></testsuites>"
    )
    times = durations.durations(xml)
    assert times == {
        "tests/test_a.py::test_quick": 0.5,
        "tests/test_a.py::test_long[x-1]": 12.0,
        "tests/test_b.py::TestGroup::test_one": 2.0,
    }
    text = durations.report(times, {"tests/test_a.py::test_long[x-1]"}, 20.0, "A quiet machine.")
    assert "3 tests, 14 s of test time in all, 20 s of wall time. A quiet machine." in text
    assert "| 1 | 12.0 | yes | `tests/test_a.py::test_long[x-1]` |" in text
    assert "| 2 | 2.0 |  | `tests/test_b.py::TestGroup::test_one` |" in text
    assert "| `tests/test_a.py` | 2 | 12.5 | 1 | 0.5 |" in text


# --- the experiments' index ----------------------------------------------------------------------------------
EXPERIMENTS = ROOT / "experiments"
NAMED_FILE = re.compile(r"`([\w.-]+(?:\.(?:py|md|json|png|gz|txt|sh))|\w+/)`")


def test_the_experiments_index_names_only_files_that_exist():
    text = (EXPERIMENTS / "README.md").read_text()
    paths = list(EXPERIMENTS.rglob("*"))
    present = {path.name for path in paths} | {f"{path.name}/" for path in paths if path.is_dir()}
    named = set(NAMED_FILE.findall(text)) - {"runs/"}
    assert named, "experiments/README.md names no file"
    assert not named - present, f"experiments/README.md names what is not there: {sorted(named - present)}"


def test_no_tracked_file_carries_a_path_of_the_machine_it_was_made_on():
    """Run folders and commands are written relative to the repository (``runs/``, ``$RUNS``), so that a record
    does not name a folder of the machine a result was made on."""
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True)
    if tracked.returncode != 0:
        pytest.skip("not a git checkout")
    found = []
    for name in tracked.stdout.splitlines():
        path = ROOT / name
        if path.suffix in (".png", ".gz", ".zip", ".pt") or not path.is_file() or name == "tests/test_docs.py":
            continue
        if re.search(r"(?<![\w.])/work/", path.read_text(errors="replace")):
            found.append(name)
    assert not found, f"absolute paths of a build machine in: {found}"


# --- the site's pages written from the code (docs/_ext/war_pages.py) ---------------------------------------------
def war_pages():
    pytest.importorskip("sphinx", reason="the docs extra builds the site")
    spec = importlib.util.spec_from_file_location("war_pages", ROOT / "docs" / "_ext" / "war_pages.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_site_has_a_page_per_registered_env_id_with_its_spaces_and_a_card_per_probe():
    import gymnasium as gym

    from war_env.core.probes import PROBES

    pages = war_pages()
    env_pages, cards = pages.env_pages(), pages.probe_cards()
    registered = [env_id for env_id in gym.registry if env_id.startswith("War")]
    assert set(env_pages) == {f"envs/{env_id}.md" for env_id in registered} | {"envs/index.md"}
    for env_id in registered:
        env = gym.make(env_id)
        page = env_pages[f"envs/{env_id}.md"]
        assert f"`{env.observation_space}`" in page and "## Rewards" in page and "## Version History" in page, env_id
    assert set(cards) == {f"probes/{name}.md" for name in PROBES} | {"probes/index.md"}
    for name, probe in PROBES.items():
        assert (
            probe.capability in cards[f"probes/{name}.md"]
            and f"../envs/{probe.env_id}.md" in cards[f"probes/{name}.md"]
        )


def test_a_docstring_whose_spaces_disagree_with_the_env_is_a_build_warning(caplog):
    pages = war_pages()
    docstring = "| | |\n|---|---|\n| Observation Space | `Box(0.0, 1.0, (15,), float32)` |\n\n## Rewards\n"
    facts = {"Observation Space": "`Box(0.0, 1.0, (16,), float32)`"}
    with caplog.at_level("WARNING"):
        kept = pages._without_summary_table("War-v0", docstring, facts)
    assert "## Rewards" in kept and "| | |" not in kept
    assert "says Observation Space `Box(0.0, 1.0, (15,), float32)`, the env has" in caplog.text


def test_the_commands_reference_has_every_console_script_and_every_command_run_as_a_module():
    import tomllib

    page = war_pages().command_pages(ROOT)["reference/commands.md"]
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    shown = re.findall(r"^### (.+)$", page, flags=re.MULTILINE)
    with_parsers = [path.stem for path in (ROOT / "scripts").glob("*.py") if "def build_parser(" in path.read_text()]
    console_modules = {target.split(":")[0] for target in scripts.values()}
    run_as_modules = {f"python -m war_env.scripts.{name}" for name in with_parsers} - {
        f"python -m {module}" for module in console_modules
    }
    assert set(shown) == set(scripts) | run_as_modules
    assert "python -m war_env.scripts.learners" in shown  # the learners' table (war_env.experiments)
