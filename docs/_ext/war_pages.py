"""Pages the site writes from the code at build time, so they cannot drift from it.

* ``envs/<id>.md``: one page per env id that ``import war_env`` registers, in Gymnasium's fixed sections: a table
  of what the registry and a made env say (spaces, entry points), then the env class's own docstring.
* ``probes/<name>.md``: one card per probe of ``war_env.core.probes.PROBES``, as bsuite's experiment cards: the
  capability, the env, the game and its optimum (the env's own description), the lines the suite plays, the score.
* ``reference/commands.md``: every console script of pyproject.toml's ``[project.scripts]``, then every other
  module of scripts/ that has a parser (run as ``python -m war_env.scripts.X``), each from its ``build_parser()``
  (sphinx-argparse renders it).

A docstring whose summary table names other spaces than the env has is a build warning (an error under ``-W``).
"""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import tomllib
from sphinx.application import Sphinx
from sphinx.util import logging

logger = logging.getLogger(__name__)

GENERATED = ("envs", "probes", "reference/commands.md")
"""What this extension writes under docs/ (.gitignore lists the same)."""


def setup(app: Sphinx) -> dict:
    app.connect("builder-inited", write_pages)
    return {"version": "1", "parallel_read_safe": True}


def write_pages(app: Sphinx) -> None:
    source = Path(app.srcdir)
    pages = {**env_pages(), **probe_cards(), **command_pages(source.parent)}
    for folder in ("envs", "probes"):  # a page of an id no longer registered goes with it
        for stale in sorted((source / folder).glob("*.md")):
            if f"{folder}/{stale.name}" not in pages:
                stale.unlink()
    for path, text in pages.items():
        write_if_changed(source / path, text)


def write_if_changed(path: Path, text: str) -> None:
    """Rewritten only when it changes, so that an unchanged page is not read again."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


# --- the env pages -------------------------------------------------------------------------------------------
def war_ids() -> list[str]:
    import gymnasium as gym

    import war_env  # noqa: F401  (registers the ids)

    return [env_id for env_id, spec in gym.registry.items() if _is_war_env(spec)]


def _is_war_env(spec) -> bool:
    entry = spec.entry_point if isinstance(spec.entry_point, str) else spec.entry_point.__module__
    return entry.startswith("war_env.")


def env_pages() -> dict[str, str]:
    pages = {f"envs/{env_id}.md": env_page(env_id) for env_id in war_ids()}
    rows = "\n".join(f"| [{env_id}]({env_id}.md) | {_summary(env_id)} |" for env_id in war_ids())
    pages["envs/index.md"] = (
        "# Environments\n\n"
        "Every id that `import war_env` registers with Gymnasium. Each page is written from the env's own docstring "
        "and spaces when the site is built.\n\n"
        f"| id | what it is |\n|---|---|\n{rows}\n\n"
        "```{toctree}\n:hidden:\n\n" + "\n".join(war_ids()) + "\n```\n"
    )
    return pages


def _env_class(env_id: str) -> type:
    import gymnasium as gym

    env = gym.make(env_id)
    try:
        return type(env.unwrapped)
    finally:
        env.close()


def _summary(env_id: str) -> str:
    return inspect.getdoc(_env_class(env_id)).splitlines()[0]


def env_page(env_id: str) -> str:
    import gymnasium as gym

    spec = gym.spec(env_id)
    env = gym.make(env_id)
    cls = type(env.unwrapped)
    facts = {
        "Action Space": f"`{env.action_space}`",
        "Observation Space": f"`{env.observation_space}`",
        "import": f'`gymnasium.make("{env_id}")`',
        "batched": f'`gymnasium.make_vec("{env_id}", num_envs=N)`',
        "class": f"`{cls.__module__}.{cls.__qualname__}`",
        "render modes": ", ".join(f"`{mode}`" for mode in cls.metadata.get("render_modes", [])) or "none",
        "max_episode_steps": f"`{spec.max_episode_steps}`",
    }
    env.close()
    summary, body = _split_docstring(env_id, inspect.getdoc(cls), facts)
    table = "\n".join(f"| {name} | {value} |" for name, value in facts.items())
    return f"# {env_id}\n\n{summary}\n\n| | |\n|---|---|\n{table}\n\n{body}\n"


SUMMARY_ROW = re.compile(r"^\| (Action Space|Observation Space) \| (.*) \|$")
SYMBOLIC_SHAPE = re.compile(r"\([^()]*[a-z_][^()]*,\)")
"""A shape written with an argument's name (``(18 + max_delay,)``): the page's table gives the default's."""


def _split_docstring(env_id: str, doc: str, facts: dict[str, str]) -> tuple[str, str]:
    """The docstring's first line, and its sections without its own summary table (the page's table replaces
    it)."""
    summary, _, body = doc.partition("\n")
    return summary, _without_summary_table(env_id, body, facts).strip()


def _without_summary_table(env_id: str, text: str, facts: dict[str, str]) -> str:
    """``text`` without the docstring's ``| | |`` table; a row of it that disagrees with ``facts`` (what the env
    has) is a warning."""
    kept, in_table = [], False
    for line in text.splitlines():
        if line.startswith("| | |"):
            in_table = True
            continue
        if in_table and line.startswith("|"):
            row = SUMMARY_ROW.match(line)
            if row and row[1] in facts and row[2] != facts[row[1]] and not SYMBOLIC_SHAPE.search(row[2]):
                logger.warning(f"{env_id}'s docstring says {row[1]} {row[2]}, the env has {facts[row[1]]}")
            continue
        in_table = False
        kept.append(line)
    return "\n".join(kept)


def _section(doc: str, title: str) -> str:
    """One ``## title`` section of a docstring, without its heading."""
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", doc, re.MULTILINE | re.DOTALL)
    return match[1].strip() if match else ""


# --- the probe cards -------------------------------------------------------------------------------------------
HARNESSES = {"clairvoyant": "the oracle of the pool member drawn for the round, as if told: the upper bound"}


def probe_cards() -> dict[str, str]:
    from war_env.core.probes import PROBES

    pages = {f"probes/{name}.md": probe_card(probe) for name, probe in PROBES.items()}
    rows = "\n".join(
        f"| [{name}]({name}.md) | [{probe.env_id}](../envs/{probe.env_id}.md) | {probe.capability} |"
        for name, probe in PROBES.items()
    )
    pages["probes/index.md"] = (
        "# Probe cards\n\n"
        "One card per probe: the capability it measures, its env, its optimum, the lines the suite plays and how "
        "it is scored. [The probes guide](../probes.md) says how the probes are built and run.\n\n"
        f"| probe | env | capability |\n|---|---|---|\n{rows}\n\n"
        "```{toctree}\n:hidden:\n\n" + "\n".join(PROBES) + "\n```\n"
    )
    return pages


def _agent_line(name: str) -> str:
    from war_env.agents import SCRIPTED

    if name in HARNESSES:
        return HARNESSES[name]
    doc = inspect.getdoc(SCRIPTED[name.split(":")[0]]) or ""
    return doc.split("\n\n")[0].replace("\n", " ")


def probe_card(probe) -> str:
    import gymnasium as gym

    env = gym.make(probe.env_id)
    size = env.observation_space.shape[0]
    env.close()
    doc = inspect.getdoc(_env_class(probe.env_id))
    hidden = ", ".join(f"`{field}`" for field in probe.hidden) or "none"
    weights = ", ".join(f"`{key}={value}`" for key, value in probe.rules.items())
    lines = [("oracle", "the score's 1"), *((name, "a simple baseline") for name in probe.simple)]
    lines += [(probe.lacking, "lacks the capability")] if probe.lacking not in probe.simple else []
    lines += [(name, "a reference") for name in probe.references if name != probe.lacking]
    lines += [(name, "a harness, not an agent") for name in probe.harnesses]
    line_rows = "\n".join(f"| `{name}` | {role} | {_agent_line(name)} |" for name, role in lines)
    simple = " and ".join(f"`{name}`" for name in probe.simple)
    return f"""# Probe: {probe.name}

**Capability.** {probe.capability}

## The environment

| | |
|---|---|
| env id | [{probe.env_id}](../envs/{probe.env_id}.md) |
| opponent | `{probe.opponent}` |
| latency | `{probe.latency}` |
| observation | `{probe.observation}`, {size} fields |
| fields shown as 0 | {hidden} |
| reward weights | {weights} (the others are War-v0's) |

## The game and its optimum

{_without_summary_table(probe.env_id, _section(doc, "Description"), {}).strip()}

## The lines

The suite plays these beside the agents it scores. They are yardsticks: the suite never ranks them.

| line | role | what it is |
|---|---|---|
{line_rows}

## The score

Each agent's regret per round to the `oracle`, on the same paired deals, mapped to a bounded scale: 1 is the
`oracle`, 0 is the best of {simple}. An agent no better than that baseline scores 0; its raw regret, kept
beside the score, says how much worse it is. The range is `war_env.league.stats.SCORE_RANGE`.

```bash
war-bench --suite --probes {probe.name} --agents AGENT
```

## Levels

{_levels_section(probe)}
"""


def _levels_section(probe) -> str:
    """The probe's difficulty scale from its row (``Probe.levels``), or a line saying it has one setting."""
    if not probe.levels:
        return "The probe has one setting."
    rows = "\n".join(
        f"| {n}{' (default)' if n == probe.default_level else ''} | `{level.opponent}` | {level.what} |"
        for n, level in enumerate(probe.levels, start=1)
    )
    return (
        f'Easiest first; level n is `gym.make("{probe.env_id}", level=n)`, and without `level` the env plays the '
        f'default level. Each level\'s exact figures: [the probes guide](../probes.md), "Levels".\n\n'
        f"| level | opponent | what it asks |\n|---|---|---|\n{rows}"
    )


# --- the commands' reference ---------------------------------------------------------------------------------------
def command_pages(root: Path) -> dict[str, str]:
    scripts = tomllib.loads((root / "pyproject.toml").read_text())["project"]["scripts"]
    modules = {target.split(":")[0]: command for command, target in scripts.items()}
    sections = []
    for module, command in modules.items():
        if not hasattr(importlib.import_module(module), "build_parser"):
            logger.warning(f"{command}: {module} has no build_parser(), so the reference cannot show its options")
            continue
        sections.append(_command_section(command, module))
    run_as_modules = [
        _command_section(f"python -m {module}", module)
        for module in _module_commands(root)
        if module not in modules and hasattr(importlib.import_module(module), "build_parser")
    ]
    intro = (
        "# Commands\n\n"
        "Every command of the installed package, with its options as `--help` prints them.\n\n"
        "## Console scripts\n\n"
        "The commands that `pip install war-env` puts on the `PATH`.\n\n"
    )
    modules_intro = (
        "\n## Commands run as modules\n\n"
        "The commands that `python -m` runs from the installed package: the learners' table, the probes' figures "
        "and the measurements of the results pages.\n\n"
    )
    return {"reference/commands.md": intro + "\n".join(sections) + modules_intro + "\n".join(run_as_modules)}


def _module_commands(root: Path) -> list[str]:
    """``war_env.scripts.X`` for every module of scripts/ (installed as war_env.scripts), by name."""
    return [f"war_env.scripts.{path.stem}" for path in sorted((root / "scripts").glob("[!_]*.py"))]


def _command_section(title: str, module: str) -> str:
    return f"### {title}\n\n```{{argparse}}\n:module: {module}\n:func: build_parser\n:prog: {title}\n```\n"
