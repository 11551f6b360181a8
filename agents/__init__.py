"""Policies that play a seat of War-v0: the ``Agent`` interface, scripted baselines, and trained models loaded
from files, all built from spec strings by ``make_agent`` (``registry``: the names and the spec grammar;
``model_specs``: a model agent's spec, checked and loaded).

This package is installed as ``war_env.agents`` (its source lives in the repository's ``agents/``).
"""

from war_env.agents.base import Agent
from war_env.agents.exec_agent import ExecAgent, check_commands_restated, is_exec_spec
from war_env.agents.model_specs import MODEL_ALGOS, ModelSpec, model_spec, trained_on
from war_env.agents.registry import AGENT_NAMES, BASELINES, SCRIPTED, make_agent, make_opponent, uses_opponent
from war_env.agents.scripted import BotAgent

__all__ = [
    "AGENT_NAMES",
    "Agent",
    "BASELINES",
    "MODEL_ALGOS",
    "SCRIPTED",
    "BotAgent",
    "ExecAgent",
    "ModelSpec",
    "check_commands_restated",
    "is_exec_spec",
    "make_agent",
    "make_opponent",
    "model_spec",
    "trained_on",
    "uses_opponent",
]
