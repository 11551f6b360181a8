"""The agents by name, built from spec strings by ``make_agent`` (and seat 1's player by ``make_opponent``):
the scripted agents of ``SCRIPTED``, a bot's reaction model, trained models loaded from files
(``war_env.agents.model_specs``) and programs over JSON lines.

Spec grammar (the project's ``war_env.core.specs`` plus two rules for text that is not ``key=value``):

* ``name`` or ``name:key=value,key=value`` for the scripted agents: ``prompt``, ``eager``,
  ``random:p=0.2``, ``last_moment``, ``never``, ``human``, ``human:median=0.8``, and ``oracle`` (the exact
  optimum against the pairing's opponent bot, ``war_env.agents.oracle``) and ``anticipate`` (a simple
  heuristic for latency, ``war_env.agents.anticipate``); these two are built per opponent bot, as are the
  probes' yardsticks ``lead`` (the best fixed lead, ``war_env.agents.lead``), ``blind`` (the optimum that
  ignores a pool's members or a table reader's contexts) and ``counting`` (the oracle from War-v0's fields, by
  counting: ``war_env.agents.counting``). ``press_once`` (press as the turn opens, once) needs neither.
* ``bot:SPEC``: everything after the first ``:`` is a bot spec, taken verbatim
  (``bot:fixed:ticks=5``, ``bot:uniform:low=1,high=10``).
* ``ppo:PATH``, ``a2c:PATH``, ``dqn:PATH``, ``maskable_ppo:PATH``, ``recurrent_ppo:PATH``: the text after the
  first ``:`` is the model file's path, verbatim (``ppo:runs/x/best.zip``; any characters, ``=`` and ``,``
  included), unless it starts with ``path=``: then it is ``key=value`` options, ``path=FILE`` (a path without
  ``,``) and ``threads=N``, the CPU threads of the agent's inference (1 to the machine's cores; 1 by default,
  the fastest for small networks: ``war_env.support.threads``): ``ppo:path=runs/x/best.zip,threads=2``. A
  frame-stacked policy is an ordinary ``ppo:PATH`` (its file says how many frames it sees). ``fast_ppo:PATH`` plays
  a model of the fast PPO trainer (``war_env.agents.fast_model``), whichever its network (MLP, stacked frames, LSTM),
  greedily; ``fast_ppo:path=PATH,actions=sampled`` draws each action from the policy's distribution as in training
  (seeded per round: the same round, the same presses), which is how a timing policy that hedges (a press
  probability under 0.5 in every state) plays at all (docs/results/learners.md, "What each probe shows").
  Model files are loaded weights-only. Whether to trust a file's pickled data is never part of a spec
  (specs are stored in run folders, which other people send): it is the ``trust_model_file`` argument,
  which the commands take from their own command line only.
* ``exec:COMMAND``: the text after the first ``:`` is a command line, verbatim, whose program plays the seat
  through a JSON-lines protocol (``war_env.agents.exec_agent``, docs/realtime.md). A command runs only when
  typed on a command line: every resume of a run folder (``war-bench --resume``, ``war-bench --suite --resume``,
  ``war-train --resume``) needs the folder's ``exec:`` specs restated (``check_commands_restated``).
"""

from __future__ import annotations

from functools import partial

from war_env.agents.anticipate import Anticipate
from war_env.agents.base import Agent
from war_env.agents.counting import Counting
from war_env.agents.exec_agent import ExecAgent
from war_env.agents.lead import Lead
from war_env.agents.model_specs import MODEL_ALGOS, load_model
from war_env.agents.oracle import Blind, Oracle
from war_env.agents.scripted import BotAgent, Eager, HumanAgent, LastMoment, Never, PressOnce, Prompt, RandomPress
from war_env.core.bots import BOTS, Bot, make_bot
from war_env.core.rules import WarConfig
from war_env.core.specs import build_from_spec, did_you_mean, split_spec, unknown_name

SCRIPTED = {
    "prompt": Prompt,
    "eager": Eager,
    "random": RandomPress,
    "last_moment": LastMoment,
    "never": Never,
    "human": HumanAgent,
    "oracle": Oracle,
    "anticipate": Anticipate,
    "press_once": PressOnce,
    "lead": Lead,
    "blind": Blind,
    "counting": Counting,
}
AGENT_NAMES = tuple(SCRIPTED) + ("bot:SPEC",) + tuple(f"{algo}:PATH" for algo in MODEL_ALGOS) + ("exec:COMMAND",)
"""What an agent spec may start with, as the error for an unknown name lists them."""
BASELINES = ("prompt", "eager", "random:p=0.2", "last_moment", "never", "human")
"""The benchmark's default agents: every scripted baseline."""


def make_agent(
    spec: str | Agent,
    *,
    config: WarConfig | None = None,
    opponent: str | Bot | Agent | None = None,
    trust_model_file: bool = False,
) -> Agent:
    """Build an agent from a spec string (see the module docstring); an ``Agent`` is returned as is.

    ``config`` is the ``WarConfig`` of the env the agent will play in; the agents that count
    ticks (``last_moment``, ``human``, ``bot:*``) need it when the rules differ from the defaults.
    ``opponent`` is who plays seat 1 (a bot spec or ``Bot``, or an agent); only ``oracle`` and
    ``anticipate`` use it, and need it to be a bot.
    ``trust_model_file`` lets SB3 unpickle a model file's data (it can run code from the file).
    """
    if isinstance(spec, Agent):
        return spec
    if config is not None and not isinstance(config, WarConfig):
        raise TypeError(f"config must be a WarConfig, got {type(config).__name__}")
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"an agent spec must be a non-empty string like 'prompt' or 'random:p=0.2', got {spec!r}")
    name, rest = split_spec(spec)
    if name == "bot":
        if not rest:
            raise ValueError(f"agent spec {spec!r} needs a bot spec after 'bot:', e.g. 'bot:human'")
        return BotAgent(rest, config=config)
    if name in MODEL_ALGOS:
        return load_model(spec, trust_model_file)
    if name == "exec":
        return ExecAgent(rest, config=config)
    if name not in SCRIPTED:
        raise unknown_name("agent", name, spec, AGENT_NAMES)
    registry = {key: _bind(cls, config, opponent) for key, cls in SCRIPTED.items()}
    return build_from_spec(spec, registry, "agent")


def uses_opponent(spec: str | Agent) -> bool:
    """Whether the agent of ``spec`` is built for its opponent (``oracle``, ``anticipate``): then it is
    made once per opponent, and only against bots."""
    if isinstance(spec, Agent):
        return False
    name = split_spec(spec)[0]
    return getattr(SCRIPTED.get(name), "uses_opponent", False)


def make_opponent(
    spec: str | Bot | Agent, *, config: WarConfig | None = None, trust_model_file: bool = False
) -> Bot | Agent:
    """Who plays seat 1: a bot spec (``instant``, ``human``, ``fixed:ticks=5``, ...) or ``Bot`` gives the
    env's opponent bot; any other spec is an agent playing seat 1 (``prompt``, ``ppo:PATH``). The name
    ``human`` is the bot (the agent of the same model is ``bot:human``)."""
    if isinstance(spec, (Bot, Agent)):
        return spec
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"an opponent spec must be a non-empty string like 'human' or 'prompt', got {spec!r}")
    name = split_spec(spec)[0]
    if name in BOTS:
        return make_bot(spec)
    if name not in SCRIPTED and name not in ("bot", "exec") and name not in MODEL_ALGOS:
        agents = [agent for agent in AGENT_NAMES if agent not in BOTS]
        raise ValueError(
            f"unknown opponent {name!r} in spec {spec!r}; known bots: {', '.join(sorted(BOTS))}; "
            f"agents (playing seat 1): {', '.join(agents)}{did_you_mean(name, [*BOTS, *agents])}"
        )
    return make_agent(spec, config=config, trust_model_file=trust_model_file)


def _bind(cls, config, opponent):
    """The agent class with what the caller, never the spec, gives it: the config, the opponent."""
    given = {}
    if getattr(cls, "uses_config", False):
        given["config"] = config
    if getattr(cls, "uses_opponent", False):
        given["opponent"] = opponent
    return partial(cls, **given) if given else cls
