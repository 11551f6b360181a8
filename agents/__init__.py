"""Policies that play a seat of War-v0: the ``Agent`` interface, scripted baselines, and trained
models loaded from files, all built from spec strings by ``make_agent``.

Spec grammar (the project's ``war_env.specs`` plus two rules for text that is not ``key=value``):

* ``name`` or ``name:key=value,key=value`` for the scripted agents: ``prompt``, ``eager``,
  ``random:p=0.2``, ``last_moment``, ``never``, ``human``, ``human:median=0.8``.
* ``bot:SPEC``: everything after the first ``:`` is a bot spec, taken verbatim
  (``bot:fixed:ticks=5``, ``bot:uniform:low=1,high=10``).
* ``ppo:PATH``, ``a2c:PATH``, ``dqn:PATH``, ``maskable_ppo:PATH``: when the text after the first
  ``:`` has no ``=`` it is the model file's path (``ppo:runs/x/best.zip``); otherwise it is read as
  ``key=value`` pairs: ``ppo:path=runs/x/best.zip,trust_model_file=true``. (A path containing ``=``
  or ``,`` cannot be written in a spec; call ``agents.sb3_model.load_sb3_agent`` directly.)
"""

from __future__ import annotations

from functools import partial

from agents.base import Agent
from agents.scripted import BotAgent, Eager, HumanAgent, LastMoment, Never, Prompt, RandomPress
from war_env.rules import WarConfig
from war_env.specs import build_from_spec, parse_spec

SCRIPTED = {
    "prompt": Prompt,
    "eager": Eager,
    "random": RandomPress,
    "last_moment": LastMoment,
    "never": Never,
    "human": HumanAgent,
}
MODEL_ALGOS = ("ppo", "a2c", "dqn", "maskable_ppo")
BASELINES = ("prompt", "eager", "random:p=0.2", "last_moment", "never", "human")
"""The benchmark's default agents: every scripted baseline."""

__all__ = ["Agent", "BASELINES", "MODEL_ALGOS", "SCRIPTED", "BotAgent", "make_agent"]


def make_agent(spec: str | Agent, *, config: WarConfig | None = None) -> Agent:
    """Build an agent from a spec string (see the module docstring); an ``Agent`` is returned as is.

    ``config`` is the ``WarConfig`` of the env the agent will play in; the agents that count
    ticks (``last_moment``, ``human``, ``bot:*``) need it when the rules differ from the defaults.
    """
    if isinstance(spec, Agent):
        return spec
    if config is not None and not isinstance(config, WarConfig):
        raise TypeError(f"config must be a WarConfig, got {type(config).__name__}")
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"an agent spec must be a non-empty string like 'prompt' or 'random:p=0.2', got {spec!r}")
    name, _, rest = spec.strip().partition(":")
    name = name.strip().lower()
    if name == "bot":
        if not rest.strip():
            raise ValueError(f"agent spec {spec!r} needs a bot spec after 'bot:', e.g. 'bot:human'")
        return BotAgent(rest.strip(), config=config)
    if name in MODEL_ALGOS:
        return _load_model(name, rest.strip(), spec)
    if name not in SCRIPTED:
        known = sorted(SCRIPTED) + ["bot:SPEC"] + [f"{algo}:PATH" for algo in MODEL_ALGOS]
        raise ValueError(f"unknown agent {name!r} in spec {spec!r}; known: {', '.join(known)}")
    registry = {
        key: partial(cls, config=config) if getattr(cls, "uses_config", False) else cls
        for key, cls in SCRIPTED.items()
    }
    return build_from_spec(spec, registry, "agent")


def _load_model(algo: str, rest: str, spec: str) -> Agent:
    if not rest:
        raise ValueError(f"agent spec {spec!r} needs a model file: '{algo}:PATH'")
    if "=" in rest:
        params = parse_spec(spec)[1]
        unknown = set(params) - {"path", "trust_model_file"}
        if unknown or "path" not in params:
            raise ValueError(
                f"bad parameters {sorted(params)} in spec {spec!r}: a model spec takes path=... and "
                f"optionally trust_model_file=true (or just '{algo}:PATH')"
            )
        path, trust = str(params["path"]), params.get("trust_model_file", False)
        if not isinstance(trust, bool):
            raise ValueError(f"trust_model_file must be true or false in spec {spec!r}, got {trust!r}")
    else:
        path, trust = rest, False
    try:
        from agents.sb3_model import load_sb3_agent  # lazy: torch and SB3 only when a model is asked for
    except ModuleNotFoundError as error:
        if error.name == "agents.sb3_model":
            raise ValueError(f"agent spec {spec!r} needs agents/sb3_model.py (the model loader), which is missing") from None
        raise
    return load_sb3_agent(algo, path, trust_model_file=trust)
