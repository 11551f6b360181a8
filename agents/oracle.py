"""``oracle``: the exact optimal timing policy against a known opponent bot, with or without latency.

The policy is ``war_env.core.optimum``'s, solved for the config (turn length, latency distribution, reward
weights as costs) and the opponent bot's reaction distribution: it uses the distributions only, never a
round's hashes. It reads the solver's state from the latency observation (``WarLatency-v0``): whose turn
is open and for how long, whether the opponent has been taken over, and the presses in flight. Built
per pairing, ``make_agent("oracle", config=config, opponent="human")``; an opponent that is not a bot (a
policy playing seat 1) has no known reaction distribution, and is refused.

Without latency its policy is "press if and only if the turn is open": exactly ``prompt``
(``tests/test_oracle.py`` plays both on paired rounds). Then it also gives the fast path ``prompt``'s
reaction model, read off the solved table, so a league plays it as fast as ``prompt``.
"""

from __future__ import annotations

import sys
from functools import lru_cache

import numpy as np

from war_env.agents.base import Agent
from war_env.agents.scripted import Prompt
from war_env.core.best_response import Stationary, problem_with
from war_env.core.bots import Bot, make_bot
from war_env.core.observation import INDEX, LATENCY_EXTRA_FIELDS, OBSERVATION_SIZE, inference_fields, latency_fields
from war_env.core.optimum import OURS, THEIRS, PoolPolicy, State, TimingPolicy, TimingProblem, solve
from war_env.core.rules import WarConfig

_CAN_DRAW, _TIMER_LEFT = INDEX["can_draw"], INDEX["timer_left"]
_OPPONENT_TAKEN_OVER = INDEX["opponent_taken_over"]
_OPPONENT_CAN_DRAW = OBSERVATION_SIZE + LATENCY_EXTRA_FIELDS.index("opponent_can_draw")
_OPPONENT_TIMER_LEFT = OBSERVATION_SIZE + LATENCY_EXTRA_FIELDS.index("opponent_timer_left")
_IN_FLIGHT = OBSERVATION_SIZE + len(LATENCY_EXTRA_FIELDS)  # in_flight_0, in_flight_1, ...


def timing_problem(config: WarConfig, opponent: Bot) -> TimingProblem:
    """The seat's timing problem in ``config`` against ``opponent`` (its reactions over its members or contexts,
    ``Bot.marginal_reactions``); the reward weights become costs."""
    return problem_with(config, opponent.marginal_reactions(config))


@lru_cache(maxsize=64)
def solved(problem: TimingProblem) -> TimingPolicy:
    """``optimum.solve`` once per problem (a league builds the oracle for every shard of a pairing); a solve
    that takes longer than a second says so on stderr, iteration by iteration."""
    reporter = _SlowSolveReporter(problem)
    try:
        return solve(problem, progress=reporter)
    finally:
        reporter.close()


class _SlowSolveReporter:
    """Prints one updating line on stderr once a solve has taken a second: what it solves, the stage, the
    iteration and the most it may make, the time so far and the time it was estimated to take."""

    def __init__(self, problem: TimingProblem):
        self.problem, self.shown = problem, False

    def __call__(self, stage: str, iteration: int, seconds: float) -> None:
        if seconds < 1.0:
            return
        self.shown = True
        problem = self.problem
        sys.stderr.write(
            f"\roracle: solving the timing of a {problem.turn_ticks}-tick turn with latency up to "
            f"{problem.max_delay}: {stage}, iteration {iteration} (of at most {problem.iteration_budget}), "
            f"{seconds:.0f} s (estimated {problem.seconds:.0f} s in all)   "
        )
        sys.stderr.flush()

    def close(self) -> None:
        if self.shown:
            sys.stderr.write("\n")


class BuiltForOpponent(Agent):
    """Base of the agents that play against a known opponent bot in a known config (``oracle``,
    ``anticipate``): ``make_agent`` gives them both, and they read the latency observation."""

    uses_config = True
    uses_opponent = True
    observes_latency = True
    """Reads the latency observation: ``war_env.evaluation`` plays it through ``WarLatency-v0``."""

    def __init__(self, *, config: WarConfig | None = None, opponent: str | Bot | Agent | None = None):
        self.config = WarConfig() if config is None else config
        if not isinstance(self.config, WarConfig):
            raise TypeError(f"config must be a WarConfig, got {type(self.config).__name__}")
        self.opponent = opponent_bot(opponent, self.name)

    def state_of(self, observation) -> State | None:
        return timing_state(observation, self.config, self.name)


class Oracle(BuiltForOpponent):
    """Plays the exact optimum for ``config`` against the bot ``opponent`` (``Bot.optimal_timing``): the
    solver's stationary policy, the Bayes-optimal one against a ``pool``, each context's against a bot that reads the
    table (a ``leader``, a ``parity``)."""

    name = "oracle"

    def __init__(self, *, config: WarConfig | None = None, opponent: str | Bot | Agent | None = None):
        super().__init__(config=config, opponent=opponent)
        self.timing = self.opponent.optimal_timing(self.config, solved)

    @property
    def policy(self) -> TimingPolicy | PoolPolicy | None:
        """The solved policy against a bot with one reaction distribution (a ``TimingPolicy``) or a pool
        (a ``PoolPolicy``); ``None`` against a table reader (one policy per context: ``timing.policies``)."""
        return getattr(self.timing, "policy", None)

    def reset(self, seed: int | None = None) -> None:
        self.timing.reset()

    def act(self, observation) -> int:
        state = self.state_of(observation)
        return 0 if state is None else int(self.timing.press(state, observation))

    def presses_exactly_when_its_turn_is_open(self) -> bool:
        """Whether the solved policy is ``prompt``'s (nothing is ever in flight without latency)."""
        return (
            not self.config.has_latency
            and isinstance(self.timing, Stationary)
            and self.timing.policy.presses_exactly_when_its_turn_is_open()
        )

    def reaction_model(self, config):
        if config != self.config or not self.presses_exactly_when_its_turn_is_open():
            return None
        return Prompt().reaction_model(config)


class Blind(BuiltForOpponent):
    """The exact optimum against the opponent's reactions taken over its members or contexts
    (``Bot.marginal_reactions``): the best an agent can do that times every turn alike, never telling a
    ``pool`` bot's members or a table reader's (``leader``, ``parity``) contexts apart. Against any other bot it is
    the ``oracle``."""

    name = "blind"

    def __init__(self, *, config: WarConfig | None = None, opponent: str | Bot | Agent | None = None):
        super().__init__(config=config, opponent=opponent)
        self.policy = solved(timing_problem(self.config, self.opponent))

    def act(self, observation) -> int:
        state = self.state_of(observation)
        return 0 if state is None else int(self.policy.press(state))


def timing_state(observation, config: WarConfig, reader: str) -> State | None:
    """The solver's state after the last tick, read from the latency observation in ``config``'s game, or the
    inference probe's, which adds a field after it (``None`` when neither turn is open: the round is over).
    ``reader`` names the agent in errors."""
    size = len(latency_fields(config))
    if len(observation) not in (size, len(inference_fields(config))):
        raise ValueError(
            f"the {reader} agent reads the latency observation of WarLatency-v0 ({size} values for "
            f"latency {config.latency!r}), got {len(observation)} values"
        )
    if observation[_CAN_DRAW] > 0.5:
        phase, left = OURS, observation[_TIMER_LEFT]
    elif observation[_OPPONENT_CAN_DRAW] > 0.5:
        phase, left = THEIRS, observation[_OPPONENT_TIMER_LEFT]
    else:
        return None
    ticks = config.turn_ticks
    in_flight = int(np.dot(observation[_IN_FLIGHT:size] > 0.5, 1 << np.arange(size - _IN_FLIGHT)))
    return State(phase, ticks - round(float(left) * ticks), bool(observation[_OPPONENT_TAKEN_OVER] > 0.5), in_flight)


def opponent_bot(opponent, agent: str) -> Bot:
    """The bot an agent that optimises against its reaction times is built for; anything else is refused."""
    if opponent is None:
        raise ValueError(
            f"the {agent} agent is built for an opponent bot: make_agent({agent!r}, config=..., opponent='human')"
        )
    if isinstance(opponent, Bot):
        return opponent
    if isinstance(opponent, str):
        try:
            return make_bot(opponent)
        except ValueError as error:
            raise ValueError(
                f"the {agent} agent needs a bot opponent (it plays against the bot's reaction times): {error}"
            ) from None
    spec = opponent.spec() if callable(getattr(opponent, "spec", None)) else type(opponent).__name__
    raise ValueError(
        f"the {agent} agent needs a bot opponent (it plays against the bot's reaction times), "
        f"got the agent {spec!r} playing seat 1"
    )
