"""The layout the package promises: one top-level package whose modules import each other without
cycles, and whose library code never imports from the command-line layer."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = {"war_env": ROOT / "war_env", "war_env.agents": ROOT / "agents", "war_env.scripts": ROOT / "scripts"}
"""Installed package -> repository folder (pyproject.toml's package-dir)."""


def modules() -> dict[str, Path]:
    found = {}
    for package, folder in SOURCES.items():
        for path in folder.rglob("*.py"):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            name = ".".join([package, *parts])
            if (
                name.startswith("war_env.agents")
                and package == "war_env"
                or name.startswith("war_env.scripts")
                and package == "war_env"
            ):
                continue
            found[name] = path
    return found


def module_level_imports(path: Path, known: set[str]) -> set[str]:
    """The project modules a module imports when it is imported (not inside functions)."""
    imported = set()
    for node in ast.parse(path.read_text()).body:
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        imported |= {name for name in names if name in known}
    return imported


def test_the_modules_import_each_other_without_cycles():
    found = modules()
    graph = {name: module_level_imports(path, set(found)) - {name} for name, path in found.items()}
    cycles, state = [], {}

    def visit(name, stack):
        state[name] = "open"
        for target in sorted(graph[name]):
            if state.get(target) == "open":
                cycles.append(stack[stack.index(target) :] + [target])
            elif target not in state:
                visit(target, stack + [target])
        state[name] = "done"

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    assert not cycles, cycles


def test_library_code_never_imports_the_command_line_layer():
    for name, path in modules().items():
        if name.startswith("war_env.scripts"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                assert not node.module.startswith("war_env.scripts"), (name, node.module)
            elif isinstance(node, ast.Import):
                assert not any(alias.name.startswith("war_env.scripts") for alias in node.names), name


def test_no_module_imports_another_modules_private_names():
    """A leading underscore means "this module's own": the other modules of the package use public names."""
    private = []
    for name, path in modules().items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "war_env":
                private += [
                    (name, node.module, alias.name)
                    for alias in node.names
                    if alias.name.startswith("_") and node.module != name
                ]
    assert not private, private


LAYERS = (
    ("support", ("war_env.support", "war_env.data")),
    ("core", ("war_env.core",)),
    ("batched", ("war_env.batched",)),
    ("views", ("war_env.views",)),
    ("envs", ("war_env.envs",)),
    ("agents", ("war_env.agents",)),
    ("evaluation", ("war_env.evaluation",)),
    ("tools", ("war_env.league", "war_env.play", "war_env.web")),
    ("training", ("war_env.training",)),
    ("experiments", ("war_env.experiments", "war_env.perf")),
    ("commands", ("war_env.scripts",)),
)
"""The package's layers, bottom first (docs/architecture.md): a module imports from its own layer and the
ones below it only, so the game core never depends on an env, and nothing but the tools on a benchmark.
Training sits above the league (it reuses the league's statistics, charts and Ray connection, and the league
never trains); what trains and then benchmarks, or measures both, sits above the two (experiments, perf)."""


def layer_of(module: str) -> int | None:
    for number, (_, packages) in enumerate(LAYERS):
        if any(module == package or module.startswith(package + ".") for package in packages):
            return number
    return None


def test_every_module_lives_in_a_layer():
    unplaced = [name for name in modules() if name != "war_env" and layer_of(name) is None]
    assert not unplaced, f"modules outside the layers of docs/architecture.md: {unplaced}"


def test_no_module_imports_from_a_layer_above_its_own():
    """Every import counts, the ones inside functions too (a lazy import is still a dependency)."""
    upward = []
    for name, path in modules().items():
        own = layer_of(name)
        for node in ast.walk(ast.parse(path.read_text())):
            targets = (
                [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else [node.module]
                if isinstance(node, ast.ImportFrom) and node.module
                else []
            )
            for target in targets:
                theirs = layer_of(target)
                if own is not None and theirs is not None and theirs > own:
                    upward.append(f"{name} ({LAYERS[own][0]}) imports {target} ({LAYERS[theirs][0]})")
    assert not upward, upward


def imported_modules(path: Path) -> set[str]:
    """Every module a file imports, inside functions too (``from a import b`` counts ``a`` and ``a.b``)."""
    imported = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            imported |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported |= {node.module} | {f"{node.module}.{alias.name}" for alias in node.names}
    return imported


def test_the_game_core_imports_nothing_of_gymnasium_or_the_views():
    """The scalar reference, and every project module it imports at any depth, imports neither Gymnasium nor a
    view: checked on the source, so no import hook is needed. (Importing a ``war_env.core`` module runs
    ``war_env/__init__.py`` first, which registers the env ids with Gymnasium: a dependency of the package, not of
    the core's code.)"""
    found = modules()
    todo = [name for name in found if name == "war_env.core" or name.startswith("war_env.core.")]
    seen, forbidden = set(), []
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for target in imported_modules(found[name]):
            if target.split(".")[0] == "gymnasium" or target.startswith("war_env.views"):
                forbidden.append(f"{name} imports {target}")
            elif target in found:
                todo.append(target)
    assert not forbidden, forbidden
    assert "war_env.core.engine" in seen  # the walk reads the core


def test_war_env_registers_its_envs_whichever_of_it_and_gymnasium_is_imported_first():
    for first, second in (("war_env", "gymnasium"), ("gymnasium", "war_env")):
        code = (
            f"import {first}, {second}; print(gymnasium.spec('War-v0').entry_point, gymnasium.spec('WarMemory-v1').id)"
        )
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        assert done.stdout.split() == ["war_env.envs.war:WarEnv", "WarMemory-v1"], (first, done.stdout)


def test_a_probe_is_made_when_the_module_of_its_entry_point_is_imported_first():
    """``war_env.envs.games`` resolves the probes' entry points; imported first, it must not import the registration
    (which imports Gymnasium, which registers) while it is itself half imported."""
    code = "import war_env.envs.games, gymnasium; print(type(gymnasium.make('WarMemory-v1').unwrapped).__name__)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.split() == ["WarMemoryEnv"], done.stderr


def imports_argparse(path: Path) -> bool:
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import) and any(alias.name == "argparse" for alias in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and node.module == "argparse":
            return True
    return False


def test_command_lines_are_parsed_in_scripts_only():
    """Library modules expose functions; ``war_env.scripts`` parses the arguments and calls them."""
    parsing = [
        name for name, path in modules().items() if not name.startswith("war_env.scripts") and imports_argparse(path)
    ]
    assert not parsing, f"library modules that parse a command line: {sorted(parsing)}"


INIT_MAX_LINES = 60


def test_every_package_init_re_exports_and_holds_no_subsystem():
    """An ``__init__.py`` names its package's modules and re-exports their public names; the code lives in the
    modules, where a reader finds it by name."""
    long = {
        str(path.relative_to(ROOT)): lines
        for folder in SOURCES.values()
        for path in folder.rglob("__init__.py")
        if (lines := len(path.read_text().splitlines())) > INIT_MAX_LINES
    }
    assert not long, f"__init__.py files over {INIT_MAX_LINES} lines: {long}"


TESTS_OF_THE_WHOLE = {"docs", "docs_history", "fuzz", "install", "layout", "makefile", "readme", "version"}
"""Test modules named for what they check across the package: the docs, every entry point fuzzed, the installed
wheel, this layout, the Makefile's targets, the version against the changelog."""


def test_a_modules_tests_are_found_by_its_name():
    """``tests/test_<module>.py``, or ``tests/test_<module>_<aspect>.py`` when a module's tests are split by what
    they check (a package's name stands for its modules: ``test_web_guards.py``)."""
    names = {name.rsplit(".", 1)[-1] for name in modules()}
    unfound = [
        path.name
        for path in (ROOT / "tests").glob("test_*.py")
        if (stem := path.stem.removeprefix("test_")) not in TESTS_OF_THE_WHOLE
        and not any(stem == name or stem.startswith(name + "_") for name in names)
    ]
    assert not unfound, f"test modules named for no module: {unfound}"
