"""Model agents' specs: ``ALGO:PATH`` or ``ALGO:path=PATH,threads=N`` (``fast_ppo`` also ``actions=sampled``),
checked and loaded (the spec grammar: ``war_env.agents.registry``). torch and SB3 are imported only when a model
is loaded."""

from __future__ import annotations

from typing import NamedTuple

from war_env.agents.base import Agent
from war_env.core.specs import parse_assignments, split_spec
from war_env.support.threads import machine_cores

MODEL_ALGOS = ("ppo", "a2c", "dqn", "maskable_ppo", "recurrent_ppo", "fast_ppo")
"""The model agents' prefixes: ``ALGO:PATH`` or ``ALGO:path=PATH,threads=N``."""


class ModelSpec(NamedTuple):
    algo: str
    path: str
    threads: int = 1
    sampled: bool = False
    """Actions drawn from the policy's distribution (``actions=sampled``, fast_ppo only), not its greedy ones."""


def model_spec(spec: str) -> ModelSpec:
    """A model agent's spec (see the module docstring), checked."""
    algo, rest = split_spec(spec)
    if not rest or rest == "path=":
        raise ValueError(f"agent spec {spec!r} needs a model file: '{algo}:PATH' or '{algo}:path=PATH,threads=N'")
    if not rest.startswith("path="):
        return ModelSpec(algo, rest)
    options = {key: str(value) for key, value in parse_assignments([rest], f"agent spec {spec!r}").items()}
    known = {"path", "threads", "actions"} if algo == "fast_ppo" else {"path", "threads"}
    unknown = sorted(set(options) - known)
    if unknown:
        raise ValueError(
            f"agent spec {spec!r} has no option {unknown[0]!r}; a {algo} model agent takes "
            f"{', '.join(sorted(known))} (trusting a model file is the command line's --trust-model-file, "
            "never a spec's)"
        )
    actions = options.get("actions", "greedy")
    if actions not in ("greedy", "sampled"):
        raise ValueError(f"agent spec {spec!r}: actions must be greedy or sampled, got {actions!r}")
    return ModelSpec(algo, options["path"], _threads(options.get("threads", "1"), spec), actions == "sampled")


def trained_on(spec: str) -> str | None:
    """The env id a model spec's file was trained on (``None``: not a model, or a file that does not say)."""
    from war_env.agents.model_files import env_id_of, read_metadata

    if split_spec(spec)[0] not in MODEL_ALGOS:
        return None
    return env_id_of(read_metadata(model_spec(spec).path))  # PATH, or path=PATH of the keyword form


def _threads(text: str, spec: str) -> int:
    cores = machine_cores()
    if not (text.isascii() and text.isdigit() and 1 <= int(text) <= cores):
        raise ValueError(
            f"agent spec {spec!r}: threads must be a whole number from 1 to {cores} (this machine's "
            f"cores), got {text!r}"
        )
    return int(text)


def load_model(spec: str, trust_model_file: bool) -> Agent:
    algo, path, threads, sampled = model_spec(spec)
    if algo == "fast_ppo":  # always weights only: its files hold nothing to unpickle
        from war_env.agents.fast_model import load_fast_agent

        return load_fast_agent(path, threads=threads, sampled=sampled)
    from war_env.agents.sb3_agent import load_sb3_agent  # lazy: torch and SB3 only when a model is asked for

    return load_sb3_agent(algo, path, trust_model_file=trust_model_file, threads=threads)
