"""Scripted baselines: fixed rules of *when* to draw, each a yardstick for trained agents.

| spec | what it does |
|---|---|
| ``prompt`` | draws on the first tick its turn is open: the optimum of the default reward |
| ``press_once`` | presses once, as its turn opens: with latency, never while its press is in flight |
| ``eager`` | presses draw on every tick, so it false-starts whenever its turn is not open |
| ``random:p=0.1`` | presses draw with probability ``p`` on every tick (open turn or not) |
| ``last_moment`` | draws on the last tick of its timer (the tick before it would be taken over) |
| ``never`` | always waits: taken over at the end of its first turn |
| ``human`` | the reaction-time model of the ``human`` opponent bot (same parameters, same CDF) |
| ``bot:SPEC`` | any opponent bot (``bot:fixed:ticks=5``, ``bot:uniform:low=1,high=10``) as an agent |

Agents that depend on the length of the turn (``last_moment``, ``human``, ``bot:*``) are built
for a ``WarConfig`` (the default one unless told): the reaction models are in seconds and the tick
length cannot be seen in an observation. They read their clock from the observation
(``timer_left`` is 1.0 on the opening tick and falls by ``1 / turn_ticks`` per tick) and raise a
``ValueError`` when it does not fit the config they were built for, instead of silently playing
another game.

Randomness (``random``, ``human``, ``bot:*``) is counter-based, like the env's bots: the n-th
uniform is ``hash_uniform(seed, stream, n)`` with the seed given to ``reset``, so a round is
reproducible from its seed and a batched implementation can compute the same numbers.
"""

from __future__ import annotations

from numbers import Real

import numpy as np

from war_env.agents.base import Agent
from war_env.core.bots import Bot, Fixed, Human, Instant, ReactionModel, make_bot, sample_reaction
from war_env.core.observation import INDEX
from war_env.core.randomness import STREAM_REACTION, Stream, hash_uniform
from war_env.core.rules import WarConfig

CAN_DRAW = INDEX["can_draw"]
TIMER_LEFT = INDEX["timer_left"]


class TurnClock:
    """Reads the seat's own turn clock from its observations.

    ``elapsed(observation)`` is the number of ticks the turn will have been open on the next tick
    (0 on the opening tick, ``turn_ticks - 1`` on the last), or ``None`` when the turn is not open.
    Consecutive open observations belong to one turn (a seat's turns are always separated by at
    least one closed tick), so the ticks left must start at ``turn_ticks`` and fall by one.
    """

    def __init__(self, turn_ticks: int):
        self.turn_ticks = turn_ticks
        self._last_left = 0

    def reset(self) -> None:
        self._last_left = 0

    def elapsed(self, observation) -> int | None:
        if observation[CAN_DRAW] < 0.5:
            self._last_left = 0
            return None
        exact = float(observation[TIMER_LEFT]) * self.turn_ticks
        left = round(exact)
        expected = self._last_left - 1 if self._last_left else self.turn_ticks
        if abs(exact - left) > 1e-3 or left != expected:
            raise ValueError(
                f"timer_left={float(observation[TIMER_LEFT]):.6f} does not fit a turn of {self.turn_ticks} ticks "
                f"(expected {expected} ticks left): build the agent with the WarConfig of the env it plays in"
            )
        self._last_left = left
        return self.turn_ticks - left


class Prompt(Agent):
    """Draws on the first tick its turn is open; never false-starts, never idles, never taken over."""

    name = "prompt"

    def act(self, observation) -> int:
        return int(observation[CAN_DRAW] > 0.5)

    def reaction_model(self, config):
        return ReactionModel(Fixed(0).reaction_cdf(config), STREAM_REACTION[0])


class PressOnce(Agent):
    """Presses once, on the tick its turn opens, and not again in that turn. With latency that is "never press
    while a press of yours is in flight" (its press surely lands within the turn), the first fix a reviewer
    makes to ``prompt``, which presses on every open tick; without latency it is ``prompt``. It reads only its
    own clock (War-v0's fields), so it plays from any observation, and it keeps no memory."""

    name = "press_once"

    def act(self, observation) -> int:
        return int(observation[CAN_DRAW] > 0.5 and observation[TIMER_LEFT] >= 1.0)

    def reaction_model(self, config):
        return None if config.has_latency else Prompt().reaction_model(config)

    def batch_policy(self):
        def policy(observations):
            return ((observations[:, CAN_DRAW] > 0.5) & (observations[:, TIMER_LEFT] >= 1.0)).astype(int)

        return policy


class Eager(Agent):
    """Presses draw on every tick: in turn as early as possible, a false start every other tick."""

    name = "eager"

    def act(self, observation) -> int:
        return 1

    def reaction_model(self, config):
        return ReactionModel(Instant().reaction_cdf(config), STREAM_REACTION[0], presses_always=True)


class Never(Agent):
    """Always waits: its seat is taken over at the end of its first turn."""

    name = "never"

    def act(self, observation) -> int:
        return 0

    def reaction_model(self, config):
        return ReactionModel(Fixed(config.turn_ticks).reaction_cdf(config), STREAM_REACTION[0])


class RandomPress(Agent):
    """Presses draw with probability ``p`` on every tick, whether its turn is open or not."""

    name = "random"

    def __init__(self, p: float = 0.1):
        if isinstance(p, bool) or not isinstance(p, Real) or not 0.0 <= p <= 1.0:
            raise ValueError(f"random agent p must be a probability in [0, 1], got {p!r}")
        self.p = float(p)
        self._seed = 0
        self._tick = 0

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:  # None: continue the current stream (SB3's episode restarts)
            self._seed, self._tick = _check_seed(seed), 0

    def act(self, observation) -> int:
        uniform = hash_uniform(self._seed, Stream.AGENT_PRESS, self._tick)
        self._tick += 1
        return int(uniform < self.p)

    def spec(self) -> str:
        return f"random:p={self.p}"


class LastMoment(Agent):
    """Draws on the last tick of its timer: in time, but paying the idle-tick cost of every tick."""

    name = "last_moment"
    uses_config = True

    def __init__(self, *, config: WarConfig | None = None):
        self.config = _check_config(config)
        self._clock = TurnClock(self.config.turn_ticks)

    def reset(self, seed: int | None = None) -> None:
        self._clock.reset()

    def act(self, observation) -> int:
        elapsed = self._clock.elapsed(observation)
        return int(elapsed is not None and elapsed >= self.config.turn_ticks - 1)

    def reaction_model(self, config):
        _check_same_clock(self, config)
        return ReactionModel(Fixed(config.turn_ticks - 1).reaction_cdf(config), STREAM_REACTION[0])


class BotAgent(Agent):
    """Any opponent bot of ``war_env.core.bots`` as an agent: on the opening tick of each turn it samples
    a reaction tick from the bot's own ``reaction_cdf`` and draws once the turn has been open that
    long (a reaction of ``turn_ticks`` means no draw: taken over), exactly as the clock times a bot seat."""

    name = "bot"
    uses_config = True

    def __init__(self, bot: str | Bot = "human", *, config: WarConfig | None = None):
        self.bot = make_bot(bot)
        self.config = _check_config(config)
        self._cdf = self.bot.reaction_cdf(self.config)
        self._clock = TurnClock(self.config.turn_ticks)
        self._seed = 0
        self._turn = 0
        self._reaction = self.config.turn_ticks

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._seed, self._turn = _check_seed(seed), 0
        self._clock.reset()

    def act(self, observation) -> int:
        elapsed = self._clock.elapsed(observation)
        if elapsed is None:
            return 0
        if elapsed == 0:
            uniform = hash_uniform(self._seed, Stream.AGENT_REACTION, self._turn)
            self._reaction = sample_reaction(self._cdf, uniform)
            self._turn += 1
        return int(elapsed >= self._reaction)

    def reaction_model(self, config):
        _check_same_clock(self, config)
        return ReactionModel(self.bot.reaction_cdf(config), Stream.AGENT_REACTION, Stream.AGENT_SEED)

    def spec(self) -> str:
        return f"bot:{self.bot.spec()}"


class HumanAgent(BotAgent):
    """A person at the agent's seat: the ``human`` bot's log-normal reaction model (median
    ``median`` s, log-space ``sigma``, no reaction on a share ``miss`` of turns)."""

    name = "human"

    def __init__(self, median: float = 0.6, sigma: float = 0.5, miss: float = 1 / 200, *, config=None):
        super().__init__(Human(median=median, sigma=sigma, miss=miss), config=config)

    def spec(self) -> str:
        return self.bot.spec()


def _check_config(config) -> WarConfig:
    if config is None:
        return WarConfig()
    if not isinstance(config, WarConfig):
        raise TypeError(f"config must be a WarConfig, got {type(config).__name__}")
    return config


def _check_same_clock(agent, config: WarConfig) -> None:
    if agent.config.turn_ticks != config.turn_ticks or agent.config.tick_seconds != config.tick_seconds:
        raise ValueError(
            f"agent {agent.spec()!r} was built for a turn of {agent.config.turn_ticks} ticks of "
            f"{agent.config.tick_seconds} s, the env has {config.turn_ticks} of {config.tick_seconds} s"
        )


def _check_seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"an agent seed must be a whole number >= 0, got {seed!r}")
    return int(seed)
