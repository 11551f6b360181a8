"""The probes' envs, made from their rows: the latency game (``WarLatencyEnv``) with each probe's opponent,
latency, rewards and observation as defaults (``war_env.core.probes.PROBES``), and its batched vector env
(``WarLatencyVectorEnv`` with the same defaults and observation: ``gym.make_vec(env_id, num_envs=N,
vectorization_mode="vector_entry_point")``). Thin glue: no rule of the game lives here.

A probe has no class to write: ``PROBE_ENVS`` and ``PROBE_VECTOR_ENVS`` (keyed by probe name) make both of its
classes from its row on first use, the same way (``probe_classes``), its docstring from the row's ``doc`` and the
sections every probe has alike. Each is a module attribute of its name (``WarMemoryEnv``, ``WarMemoryVectorEnv``:
the module's ``__getattr__``), so that it imports and pickles like a written class. Nothing else names them:
``import war_env`` registers every row of ``PROBES``, and ``war_env.envs.games`` (what Gymnasium's entry points,
SB3's vec env and the tools read) finds the classes here."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator, Mapping

import numpy as np
from gymnasium.vector import AutoresetMode

from war_env.core.probes import PROBES, EnvDoc, Probe
from war_env.envs.latency import WarLatencyEnv
from war_env.envs.vector import WarLatencyVectorEnv

DOC_WIDTH = 116
"""The width of a generated docstring's lines (as a written one indented in its class)."""


def level_opponent(probe: Probe, opponent, level: int | None):
    """The opponent a probe's env plays: the one given, else its ``level``'s (``Probe.at_level``), else the row's."""
    if level is None:
        return probe.opponent if opponent is None else opponent
    if opponent is not None:
        raise ValueError(f"{probe.env_id} takes a level or an opponent, not both (got level={level!r})")
    return probe.at_level(level).opponent


class ProbeEnv(WarLatencyEnv):
    """WarLatency-v0 with a probe's defaults: its opponent (or its ``level``'s: ``Probe.levels``), and, unless a
    ``config`` is given, its latency and reward weights (each may be overridden by keyword); it shows the probe's
    ``hidden`` fields as 0. Each probe's class is made from its row (``PROBE_ENVS``)."""

    probe: Probe

    def __init__(self, render_mode: str | None = None, opponent=None, config=None, level: int | None = None, **rules):
        opponent = level_opponent(self.probe, opponent, level)
        if config is None:
            rules = {"latency": self.probe.latency, **self.probe.rules, **rules}
        super().__init__(render_mode=render_mode, opponent=opponent, config=config, **rules)

    @classmethod
    def observation_width(cls, config) -> int:
        """Floats of the probe's observation under ``config`` (``fields_for``: ``Probe.observation``'s fields)."""
        return len(cls.fields_for(config))

    @classmethod
    def hidden_columns(cls, config) -> list[int]:
        """The columns of the probe's ``hidden`` fields, which it shows as 0 (its vector env too)."""
        fields = cls.fields_for(config)
        return [fields.index(name) for name in cls.probe.hidden]

    def _observe(self, seat: int) -> np.ndarray:
        observation = super()._observe(seat)
        if self.probe.hidden:
            observation[self.hidden_columns(self.config)] = 0.0
        return observation


def shared_sections(probe: Probe, width: int) -> tuple[list[str], list[str]]:
    """The docstring sections every probe env has alike, written from its row of ``PROBES`` and its observation's
    ``width``: the interface (the summary table and the Action Space) and the play (Rewards, Starting State,
    Episode End, Arguments)."""
    weights = ", ".join(f"``{name}={value:g}``" for name, value in probe.rules.items())
    interface = [
        "| | |",
        "|---|---|",
        "| Action Space | `Discrete(2)` |",
        f"| Observation Space | `Box(0.0, 1.0, ({width},), float32)` |",
        f'| import | `gymnasium.make("{probe.env_id}")` |',
        "",
        "## Action Space",
        f"WarLatency-v0's: 0 waits, 1 sends a press that lands after the latency (``{probe.latency}``).",
    ]
    play = [
        "## Rewards",
        f"War-v0's with {weights}",
        "(``war_env.core.probes.PROBE_REWARDS``).",
        "",
        "## Starting State",
        "WarLatency-v0's.",
        "",
        "## Episode End",
        "WarLatency-v0's.",
        "",
        "## Arguments",
        f'``gym.make("{probe.env_id}", opponent=None, render_mode=None, config=None, level=None, **rules)``:',
        f"the probe's opponent (``{probe.opponent}``) unless one is given; its latency and weights unless",
        "a ``config`` (taken as it is) or keywords say otherwise.",
    ]
    if probe.levels:
        play += [
            f"``level`` (1 to {len(probe.levels)}, easiest first) plays that level's opponent instead (docs/probes.md,",
            f'"Levels"); the default is level {probe.default_level}.',
        ]
    return interface, play


def probe_docstring(probe: Probe, width: int) -> str:
    """The env's docstring in Gymnasium's order of sections: the row's own (``Probe.doc``: its summary, Description,
    Observation Space, Version History; from ``capability`` when it has none) around the shared ones."""
    doc = probe.doc or EnvDoc(
        f"The {probe.name} probe.",
        probe.capability,
        f"The ``{probe.observation}`` observation (``war_env.core.observation.OBSERVATIONS``).",
    )
    interface, play = shared_sections(probe, width)
    versions = [textwrap.fill(f"* {version}", DOC_WIDTH, subsequent_indent="  ") for version in doc.versions]
    return "\n".join(
        [
            textwrap.fill(doc.summary, DOC_WIDTH),
            "",
            "## Description",
            textwrap.fill(doc.description, DOC_WIDTH),
            "",
            *interface,
            "",
            "## Observation Space",
            textwrap.fill(doc.observation_space, DOC_WIDTH),
            "",
            *play,
            "",
            "## Version History",
            *versions,
        ]
    )


def class_name(probe: Probe, vector: bool = False) -> str:
    """The name of a probe's env class, from its env id: ``WarMemory-v1`` -> ``WarMemoryEnv`` (or
    ``WarMemoryVectorEnv``)."""
    return probe.env_id.rsplit("-v", 1)[0] + ("VectorEnv" if vector else "Env")


class ProbeVectorEnv(WarLatencyVectorEnv):
    """A probe batched: ``num_envs`` rounds of its single env (``single_env``, read its docstring), stepped by
    the batched engine, with the single env's defaults (opponent, latency, reward weights) and observation.
    Everything else (spaces of actions, step, autoreset, seeding, reset options, info, backends) is
    ``WarVectorEnv``'s. Sub-env ``i`` is ``gym.make(env_id)`` reset with ``seed + i``, step for step
    (``tests/test_vector_probes.py``): the inference probe's member of the pool drawn per round by the engine as by
    ``Pool.member_of``, the reading probe's parity context read as each of its turns opens and its hidden columns
    zeroed after every step (``vector.HidingSteps``). Each probe's class is made from its row with its env
    (``PROBE_VECTOR_ENVS``)."""

    single_env: type[ProbeEnv]

    def __init__(
        self,
        num_envs: int = 1,
        opponent=None,
        max_episode_steps: int | None = None,
        render_mode: str | None = None,
        config=None,
        backend: str = "auto",
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        level: int | None = None,
        **rules,
    ):
        probe = self.single_env.probe
        opponent = level_opponent(probe, opponent, level)
        if config is None:
            rules = {"latency": probe.latency, **probe.rules, **rules}
        super().__init__(
            num_envs,
            opponent=opponent,
            max_episode_steps=max_episode_steps,
            render_mode=render_mode,
            config=config,
            backend=backend,
            autoreset_mode=autoreset_mode,
            **rules,
        )


def probe_classes(probe: Probe) -> tuple[type[ProbeEnv], type[ProbeVectorEnv]]:
    """A probe's env and its batched vector env, made from its row: the env is ``ProbeEnv`` bound to the row, with
    the row's observation and docstring; the vector env is ``ProbeVectorEnv`` bound to the env."""
    env_name, vector_name = class_name(probe), class_name(probe, vector=True)
    env = type(env_name, (ProbeEnv,), {"probe": probe, "observation_kind": probe.observation, "__module__": __name__})
    env.__doc__ = probe_docstring(probe, env.observation_width(probe.config()))
    vector = type(
        vector_name,
        (ProbeVectorEnv,),
        {
            "single_env": env,
            "__module__": __name__,
            "__doc__": f"``{probe.env_id}`` batched: ``{env_name}``'s game and observation, every round stepped by "
            "the engine (``ProbeVectorEnv``).",
        },
    )
    return env, vector


class _ProbeClasses(Mapping):
    """Probe name -> one of its classes (the env, or with ``vector`` the vector env), made from its row of ``PROBES``
    on first use and again if the row changes (``probe_classes``, both at once)."""

    def __init__(self, vector: bool):
        self.vector = vector

    def __getitem__(self, name: str) -> type:
        probe = PROBES[name]
        made = _MADE.get(name)
        if made is None or made[0].probe is not probe:
            made = _MADE[name] = probe_classes(probe)
        return made[self.vector]

    def __iter__(self) -> Iterator[str]:
        return iter(PROBES)

    def __len__(self) -> int:
        return len(PROBES)


_MADE: dict[str, tuple[type[ProbeEnv], type[ProbeVectorEnv]]] = {}
PROBE_ENVS: Mapping[str, type[ProbeEnv]] = _ProbeClasses(vector=False)
"""Probe name -> the env ``gym.make(probe.env_id)`` builds."""
PROBE_VECTOR_ENVS: Mapping[str, type[ProbeVectorEnv]] = _ProbeClasses(vector=True)
"""Probe name -> its batched vector env (``gym.make_vec(probe.env_id, vectorization_mode="vector_entry_point")``)."""


def __getattr__(name: str) -> type:
    """A probe's class by its name (``WarMemoryEnv``, ``WarMemoryVectorEnv``): what ``from war_env.envs.probe_envs
    import WarMemoryEnv`` and unpickling ask."""
    for probe_name, probe in PROBES.items():
        for vector, table in ((False, PROBE_ENVS), (True, PROBE_VECTOR_ENVS)):
            if class_name(probe, vector) == name:
                return table[probe_name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
