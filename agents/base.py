"""The one policy interface every seat player satisfies: scripted baselines, trained models, and
the opponent bots (through an adapter).

An ``Agent`` sees the observation of its seat on every tick and answers 0 (wait) or 1 (draw). It is
told when a round starts (``reset(seed)``), so agents with memory or randomness can start afresh
and stay reproducible. ``predict`` is Stable-Baselines3's protocol on top, so that
``stable_baselines3.common.evaluation.evaluate_policy`` measures a scripted agent exactly as it
measures a model.
"""

from __future__ import annotations

import copy

import numpy as np


class Agent:
    """Base class: override ``act`` (and ``reset`` when the agent keeps per-round state)."""

    name = "agent"

    def reset(self, seed: int | None = None) -> None:
        """A new round starts; ``seed`` makes any randomness of the agent reproducible."""

    def act(self, observation: np.ndarray) -> int:
        raise NotImplementedError

    def round_error(self) -> str | None:
        """The first error of the agent's own program in the current round (an ``exec:`` agent that broke
        the protocol: its seat waited from then on), kept in the round's record; ``None`` (the default)."""
        return None

    def close(self) -> None:
        """Free what the agent holds (an ``exec:`` agent's child process); the default holds nothing."""

    def spec(self) -> str:
        """The spec string that builds this agent again (see ``war_env.agents.make_agent``)."""
        return self.name

    def reaction_model(self, config):
        """How the fast path can play this agent without ticks: a ``war_env.batched.models.ReactionModel``
        when the agent's draws depend only on its own turn clock, else ``None`` (the default), and its
        rounds are played tick by tick. ``config`` is the env's ``WarConfig``. The fast path ignores
        this method in a subclass that overrides ``act`` below the class that defines it."""
        return None

    def batch_policy(self):
        """How a whole batch of rounds can be played at once: a function from observations (one row per
        round, shape ``(n, 16)``) to actions (shape ``(n,)``) when the agent's action depends on the
        current observation alone (no memory, no randomness), else ``None`` (the default), and its
        rounds are played one by one. ``war_env.evaluation.play_rounds`` uses it."""
        return None

    def predict(self, observation, state=None, episode_start=None, deterministic: bool = True):
        """SB3's ``predict``: one observation -> ``(action, state)``; a batch of shape (n_envs, obs)
        -> ``(actions, state)``, with one independent copy of the agent per env, reset wherever
        ``episode_start`` is true."""
        observation = np.asarray(observation)
        if observation.ndim == 1:
            return np.asarray(self.act(observation)), state
        copies = self._copies_for(len(observation), episode_start)
        actions = np.array([agent.act(row) for agent, row in zip(copies, observation)])
        return actions, state

    def _copies_for(self, n_envs: int, episode_start) -> list[Agent]:
        copies = self.__dict__.get("_batch_copies")
        if copies is None or len(copies) != n_envs:
            copies = [copy.deepcopy(self) for _ in range(n_envs)]
            for index, agent in enumerate(copies):
                agent.reset(seed=index)
            self.__dict__["_batch_copies"] = copies
        elif episode_start is not None:
            for index in np.flatnonzero(np.asarray(episode_start)):
                copies[index].reset(seed=None)
        return copies
