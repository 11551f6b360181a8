"""The one way rounds are played to measure an agent: ``play_rounds``, on paired seeds, and the ways it plays them.

Round ``k`` is ``env.reset(seed=seeds[k])``: the same deal, starter and round key for every agent
given the same seeds, and since every random event inside a round is hashed from that key, the same
cards fall the same way whatever the players' timing. ``play_rounds`` returns one
``war_env.evaluation.records.RoundRecord`` per seed; it plays the rounds on the fast path when a bot meets an
agent whose draws are a reaction-time model (records proven equal by ``tests/test_fastpath.py``) and the
compiled engine is installed (the ``fast`` extra); when a bot meets an agent whose action depends on
the observation alone (``Agent.batch_policy``: a greedy trained model), all rounds at once on the
batched vector env, one policy call per tick for every round (``play_rounds_batched``, records proven
equal by ``tests/test_evaluation.py``); else tick by tick through War-v0 (``play_round``). Every bot plays on
both, the probes' ``pool``, ``leader`` and ``parity`` too. The benchmark's shards, ``war-train``'s comparison with
``prompt``, ``war-curves`` and self-play matches all call it. Rounds with action latency, and agents that
read the latency observation (``observes_latency``, the ``oracle``), are played through ``WarLatency-v0``
(the same game as War-v0 when there is no latency, with the longer observation): on its batched vector env
for an agent with a ``batch_policy``, else tick by tick. In real time (``realtime=`` seconds per tick) every
round is played tick by tick through ``war_env.envs.realtime.RealTime``: the clock runs while the agent
computes, and each record keeps the agent's compute time per decision.
``env_id`` names another game of ``war_env.envs.games`` (a probe's, ``WarMemory-v1``): its rounds are played
through that env (batched, or tick by tick), so that every agent, and a model trained there, sees that probe's
observation (``observation_game``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial

import numpy as np

from war_env import batched
from war_env.core.bots import Bot
from war_env.core.rules import WarConfig
from war_env.envs.games import game_fields, make_game, make_vector_game
from war_env.envs.realtime import RealTime
from war_env.evaluation.fastpath import agent_reaction_model, play_reaction_time_rounds
from war_env.evaluation.records import RoundRecord, agent_seed
from war_env.support.threads import one_blas_thread


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
    realtime: float | None = None,
    clock=None,
    env_id: str | None = None,
) -> list[RoundRecord]:
    """``agent`` (seat 0) against ``opponent`` (seat 1), round ``k`` dealt by ``reset(seed=seeds[k])``.

    ``agent`` is an ``Agent`` or an agent spec; ``opponent`` a bot spec or ``Bot``, or an agent (spec)
    that plays seat 1. ``env_id`` the game (``war_env.envs.games``; by default War-v0, or WarLatency-v0 when
    the rules have latency or the agent reads its observation). ``indices`` numbers the rounds in the records (default
    ``0, 1, ...``);
    ``on_round`` sees each record as it is made; ``trust_model_file`` is passed to model specs (it
    lets SB3 unpickle a model file: only for files the user vouches for on the command line).
    ``realtime`` plays every round in real time, each tick ``realtime`` seconds of ``clock`` (a
    ``war_env.support.wall_clock.Clock``; default the machine's), see ``war_env.envs.realtime.RealTime``.
    An agent (in either seat) built here from a spec is closed at the end (an ``exec:`` agent's program stops).
    """
    from war_env.agents import Agent, make_agent, make_opponent

    built = [spec is not None and not isinstance(spec, (Agent, Bot)) for spec in (agent, opponent)]
    player = make_opponent(opponent, config=config, trust_model_file=trust_model_file)
    agent = make_agent(agent, config=config, opponent=player, trust_model_file=trust_model_file)
    try:
        return _play_rounds(
            agent, player, config, seeds, indices, agent_spec, opponent_spec, on_round, realtime, clock, env_id
        )
    finally:
        for made, player_made in zip(built, (agent, player)):
            if made and isinstance(player_made, Agent):
                player_made.close()


def _play_rounds(agent, player, config, seeds, indices, agent_spec, opponent_spec, on_round, realtime, clock, env_id):
    indices = range(len(seeds)) if indices is None else indices
    if len(indices) != len(seeds):
        raise ValueError(f"indices must give one round index per seed, got {len(indices)} for {len(seeds)} seeds")
    played = None if realtime is not None else _whole_rounds_player(agent, player, config, env_id)
    if played is not None:
        records = played(
            agent, player, config, seeds, indices=indices, agent_spec=agent_spec, opponent_spec=opponent_spec
        )
        for record in records if on_round is not None else ():
            on_round(record)
        return records
    env = make_game(observation_game(env_id, config, agent), player, config)
    if realtime is not None:
        env = RealTime(env, seconds_per_tick=realtime, clock=clock)
    records = []
    for index, seed in zip(indices, seeds):
        records.append(play_round(env, agent, seed, index=index, agent_spec=agent_spec, opponent_spec=opponent_spec))
        if on_round is not None:
            on_round(records[-1])
    env.close()
    return records


def _whole_rounds_player(agent, player, config: WarConfig, env_id: str | None):
    """The fast path or the batched one when they can play this pairing's rounds, else ``None``: every bot
    plays on both (the probes' ``pool``, ``leader`` and ``parity`` too); the batched vector env is the one of the game
    ``observation_game`` chooses (a probe's, WarLatency-v0's or War-v0's)."""
    batchable = isinstance(player, Bot)
    if batchable and not config.has_latency and agent_reaction_model(agent, config) is not None:
        if batched.available():
            return play_reaction_time_rounds
        batched.warn_unavailable("war_env.evaluation.play_rounds", "plays these rounds tick by tick")
    elif batchable and agent.batch_policy() is not None and batched.available():
        return partial(play_rounds_batched, env_id=env_id)
    return None


def observation_game(env_id: str | None, config: WarConfig, agent) -> str:
    """The game ``agent`` plays when asked to play ``env_id``: that one, but for an agent that reads
    the opponent's clock in a game whose observation hides it (the ``oracle`` in the memory probe, the reference of
    its regrets), which plays the same game from WarLatency-v0's observation. Without ``env_id``: WarLatency-v0 when
    the rules have latency or the agent reads its observation, else War-v0. A model that sees a field the chosen
    game does not show (one trained on a probe whose observation is longer) is refused, naming the fields."""
    reads_latency = getattr(agent, "observes_latency", False)
    if env_id is None:
        game = "WarLatency-v0" if config.has_latency or reads_latency else "War-v0"
    elif reads_latency and "opponent_can_draw" not in game_fields(env_id, config):
        game = "WarLatency-v0"
    else:
        game = env_id
    check_fields_shown(agent, game, config)
    return game


def check_fields_shown(agent, game: str, config: WarConfig) -> None:
    """Refuse an agent that sees observation fields ``game`` does not show under ``config`` (a model trained on
    a probe whose presses in flight outnumber these rules' latency, or on WarInference-v0's ``opponent_reaction``):
    cutting its columns from this game's observation would read past its end."""
    needed = getattr(agent, "fields", None)
    shown = game_fields(game, config)
    missing = [name for name in needed or () if name not in shown]
    if missing:
        trained_on = getattr(agent, "env_id", None)
        where = f"; it was trained on {trained_on}: play it there (--env-id {trained_on})" if trained_on else ""
        raise ValueError(
            f"agent {agent.spec()!r} sees {missing}, which {game}'s observation (latency {config.latency}) "
            f"does not show{where}"
        )


BATCH_ROUNDS = 1024
"""Rounds played together by ``play_rounds_batched`` (the batch waits for its longest round)."""


def play_rounds_batched(
    agent,
    opponent: Bot,
    config: WarConfig,
    seeds: Sequence[int],
    *,
    indices: Sequence[int] | None = None,
    agent_spec: str | None = None,
    opponent_spec: str | None = None,
    env_id: str | None = None,
) -> list[RoundRecord]:
    """``play_round`` for many seeds at once: sub-env ``k`` of the batched vector env of the game ``play_rounds``
    plays (``observation_game``: War-v0, WarLatency-v0 or a probe's) is reset with ``seeds[k]`` (the same deal as
    ``env.reset(seed=seeds[k])``) and every tick asks the agent's ``batch_policy()`` for the actions of all rounds
    still playing. The records equal ``play_round``'s."""
    policy = agent.batch_policy()
    if policy is None:
        raise ValueError(f"agent {agent.spec()!r} cannot play a batch of rounds (its batch_policy() is None)")
    indices = range(len(seeds)) if indices is None else indices
    agent_spec = agent_spec if agent_spec is not None else agent.spec()
    opponent_spec = opponent_spec if opponent_spec is not None else opponent.spec()
    with one_blas_thread():
        return _play_batches(
            config, policy, opponent, seeds, indices, agent_spec, opponent_spec, observation_game(env_id, config, agent)
        )


def _play_batches(config, policy, opponent, seeds, indices, agent_spec, opponent_spec, game) -> list[RoundRecord]:
    from war_env.envs.vector import sub_env_round_info

    records = []
    for start in range(0, len(seeds), BATCH_ROUNDS):
        chunk = [int(seed) for seed in seeds[start : start + BATCH_ROUNDS]]
        env = make_vector_game(game, len(chunk), opponent, config)
        observations, _ = env.reset(seed=chunk)
        returns = np.zeros(len(chunk))
        summaries: list[dict | None] = [None] * len(chunk)
        playing = np.ones(len(chunk), dtype=bool)
        while playing.any():
            observations, rewards, terminated, _, info = env.step(np.asarray(policy(observations), dtype=np.int64))
            returns[playing] += rewards[playing]  # a finished sub-env starts a new round: not counted
            for k in np.flatnonzero(terminated & playing).tolist():
                summaries[k] = sub_env_round_info(info, k)
            playing &= ~terminated
        env.close()
        records += [
            RoundRecord.of_round(
                summary, round=index, seed=seed, agent=agent_spec, opponent=opponent_spec, episode_return=float(total)
            )
            for summary, index, seed, total in zip(summaries, indices[start : start + BATCH_ROUNDS], chunk, returns)
        ]
    return records


def play_round(
    env, agent, seed: int, *, index: int = 0, agent_spec: str | None = None, opponent_spec: str | None = None
) -> RoundRecord:
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
        summary,
        round=index,
        seed=seed,
        agent=agent_spec if agent_spec is not None else agent.spec(),
        opponent=opponent_spec if opponent_spec is not None else _opponent_spec(base),
        episode_return=total,
        reason=None if terminated else "truncated",
        agent_error=agent.round_error(),
    )


def _opponent_spec(env) -> str:
    player = env.opponent_bot if env.opponent_bot is not None else env.opponent_policy
    spec = getattr(player, "spec", None)
    return spec() if callable(spec) else type(player).__name__
