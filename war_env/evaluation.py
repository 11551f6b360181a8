"""Paired-seed evaluation: the one way rounds are played to measure an agent.

Round ``k`` is ``env.reset(seed=seeds[k])``: the same deal, starter and round key for every agent
given the same seeds, and since every random event inside a round is hashed from that key, the same
cards fall the same way whatever the players' timing. ``play_rounds`` returns one
``war_env.records.RoundRecord`` per seed; it plays the rounds on the fast path when a bot meets an
agent whose draws are a reaction-time model (records proven equal by ``tests/test_fastpath.py``) and the
compiled engine is installed (the ``fast`` extra), else tick by tick through War-v0 (``play_round``). The benchmark's shards, ``war-train``'s comparison with
``prompt`` and self-play matches all call it. Rounds with action latency, and agents that read the latency
observation (``observes_latency``, the ``oracle``), are played tick by tick through ``WarLatency-v0``
(the same game as War-v0 when there is no latency, with the longer observation).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from war_env import batched
from war_env.bots import Bot
from war_env.env import WarEnv
from war_env.fastpath import agent_reaction_model
from war_env.fastpath import play_rounds as play_rounds_fast
from war_env.latency_env import WarLatencyEnv
from war_env.records import RoundRecord, agent_seed
from war_env.rules import WarConfig


def play_rounds(
    agent,
    opponent,
    config: WarConfig,
    seeds: Sequence[int],
    *,
    indices: Sequence[int] | None = None,
    agent_spec: str | None = None,
    opponent_spec: str | None = None,
    on_round: Callable[[RoundRecord], None] | None = None,
    trust_model_file: bool = False,
) -> list[RoundRecord]:
    """``agent`` (seat 0) against ``opponent`` (seat 1), round ``k`` dealt by ``reset(seed=seeds[k])``.

    ``agent`` is an ``Agent`` or an agent spec; ``opponent`` a bot spec or ``Bot``, or an agent (spec)
    that plays seat 1. ``indices`` numbers the rounds in the records (default ``0, 1, ...``);
    ``on_round`` sees each record as it is made; ``trust_model_file`` is passed to model specs (it
    lets SB3 unpickle a model file: only for files the user vouches for on the command line).
    """
    from war_env.agents import make_agent, make_opponent

    player = make_opponent(opponent, config=config, trust_model_file=trust_model_file)
    agent = make_agent(agent, config=config, opponent=player, trust_model_file=trust_model_file)
    indices = range(len(seeds)) if indices is None else indices
    if len(indices) != len(seeds):
        raise ValueError(f"indices must give one round index per seed, got {len(indices)} for {len(seeds)} seeds")
    if isinstance(player, Bot) and not config.has_latency and agent_reaction_model(agent, config) is not None:
        if batched.available():
            records = play_rounds_fast(config, agent, player, seeds, indices=indices, agent_spec=agent_spec,
                                       opponent_spec=opponent_spec)
            for record in records if on_round is not None else ():
                on_round(record)
            return records
        batched.warn_unavailable("war_env.evaluation.play_rounds", "plays these rounds tick by tick")
    latency = config.has_latency or getattr(agent, "observes_latency", False)
    env = (WarLatencyEnv if latency else WarEnv)(opponent=player, config=config)
    records = []
    for index, seed in zip(indices, seeds):
        records.append(play_round(env, agent, seed, index=index, agent_spec=agent_spec, opponent_spec=opponent_spec))
        if on_round is not None:
            on_round(records[-1])
    env.close()
    return records


def play_round(env, agent, seed: int, *, index: int = 0, agent_spec: str | None = None,
               opponent_spec: str | None = None) -> RoundRecord:
    """Reset ``env`` with ``seed``, let ``agent`` play seat 0 tick by tick to the end of the round.

    The agent is reset with ``records.agent_seed`` of the round key. ``agent_spec`` / ``opponent_spec``
    name the players in the record (default: their ``spec()``). A round cut short by a ``TimeLimit``
    wrapper is recorded with reason ``"truncated"``.
    """
    observation, _ = env.reset(seed=seed)
    base = env.unwrapped
    agent.reset(seed=agent_seed(base.round.round_key))
    total = 0.0
    terminated = truncated = False
    while not (terminated or truncated):
        observation, reward, terminated, truncated, info = env.step(agent.act(observation))
        total += reward
    summary = info["round"] if terminated else base.round_info()
    return RoundRecord.of_round(
        summary, round=index, seed=seed, agent=agent_spec if agent_spec is not None else agent.spec(),
        opponent=opponent_spec if opponent_spec is not None else _opponent_spec(base), episode_return=total,
        reason=None if terminated else "truncated",
    )


def _opponent_spec(env) -> str:
    player = env.opponent_bot if env.opponent_bot is not None else env.opponent_policy
    spec = getattr(player, "spec", None)
    return spec() if callable(spec) else type(player).__name__
