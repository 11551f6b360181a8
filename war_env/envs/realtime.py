"""Real time: the game's ticks advance on a clock while the agent thinks (``RealTime``, a Gymnasium wrapper)."""

from __future__ import annotations

import gymnasium as gym

from war_env.support.wall_clock import NANOSECONDS, Clock, WallClock, to_nanoseconds


class RealTime(gym.Wrapper):
    """War-v0 or WarLatency-v0 on a clock that does not wait for the agent.

    ## Description
    Every tick of the game has a fixed slot of wall time, ``seconds_per_tick`` (the rules' ``tick_seconds``,
    0.1 s, unless given: shorter slots make faster benchmarks). Tick ``k`` happens at ``start + k *
    seconds_per_tick``, where ``start`` is the moment of ``reset``. What the agent spends between
    receiving an observation and calling ``step`` is its *compute time*, and the world does not wait for it:

    * ``reset`` and every ``step`` hand the agent the newest observation, the one taken right after the
      latest tick;
    * the action passed to ``step`` acts in the first tick whose moment comes after the call: ``step``
      sleeps until that moment, plays the tick with the action and returns the observation after it;
    * every tick whose moment passed while the agent computed was played before that, with the seat
      waiting (action 0): a slow agent draws late, and one whose timer runs out while it thinks is taken
      over by the rules, exactly as in the lock-step game;
    * the game itself is unchanged: a press acts as it does in lock-step (with the rules' own latency on
      top in WarLatency-v0), so a press that lands after its turn closed is a false start.

    An agent that answers within its tick's slot plays exactly the lock-step game. One that takes ``c``
    seconds per decision plays each decision ``floor(c / seconds_per_tick)`` ticks late (a little more when
    the machine wakes the wrapper late): the measured compute time is an action delay, and the wrapper
    measures the delay of every decision. The semantics are rtgym's elapsed-time ones (the action computed
    during a time step is sent at the start of the next one, and ``step`` returns the observation taken
    then), with one difference: rtgym stretches a time step that the agent overran, while here the ticks
    of the game keep their moments, because the opponent and the turn timer keep theirs.

    | | |
    |---|---|
    | Action Space | the wrapped env's (`Discrete(2)`) |
    | Observation Space | the wrapped env's |
    | import | `war_env.envs.realtime.RealTime(gym.make("War-v0"), seconds_per_tick=0.1)` |

    ## Action Space
    The wrapped env's; ``wait_action`` (0, wait) is what the seat does on the ticks it missed.

    ## Observation Space
    The wrapped env's: the observation after the latest tick played.

    ## Rewards
    The sum of the wrapped env's rewards over the ticks one ``step`` played (the missed ones and the
    tick of the action).

    ## Starting State
    The wrapped env's; the clock starts at ``reset``.

    ## Episode End
    The wrapped env's. A round that ends during the missed ticks ends the ``step`` there, without the
    action and without sleeping.

    ## Information
    The wrapped env's info of the last tick played, plus ``realtime``: ``compute_seconds`` (from handing
    out the observation to the ``step`` call), ``compute_ticks`` (ticks missed while computing) and
    ``ticks`` (ticks this step played). On the last step ``round`` also gets ``compute_ticks`` and
    ``compute_seconds``: one entry per decision of the round.

    ## Arguments
    ``RealTime(env, seconds_per_tick=None, clock=None, wait_action=0)``: ``env`` is a War-v0 or
    WarLatency-v0 env (any env whose step is one tick of a game that goes on without the agent);
    ``seconds_per_tick`` the slot of one tick in wall time (default: the rules' ``tick_seconds``);
    ``clock`` a ``war_env.support.wall_clock.Clock`` (default: the machine's monotonic clock; tests pass a
    ``SimulatedClock``). Wrap the game env directly: the wrapper plays several ticks per step.

    ## Version History
    * v0: first release (war-env 0.3.0).
    """

    def __init__(
        self, env: gym.Env, seconds_per_tick: float | None = None, clock: Clock | None = None, wait_action: int = 0
    ):
        super().__init__(env)
        if seconds_per_tick is None:
            config = getattr(env.unwrapped, "config", None)
            if config is None:
                raise ValueError("RealTime needs seconds_per_tick for an env without a war_env config")
            seconds_per_tick = config.tick_seconds
        if (
            isinstance(seconds_per_tick, bool)
            or not isinstance(seconds_per_tick, (int, float))
            or not 0 < seconds_per_tick <= 60
        ):
            raise ValueError(
                f"seconds_per_tick must be a number of seconds above 0 and at most 60, got {seconds_per_tick!r}"
            )
        self.seconds_per_tick = float(seconds_per_tick)
        self.tick_nanoseconds = to_nanoseconds(seconds_per_tick)
        self.clock = clock if clock is not None else WallClock()
        self.wait_action = wait_action
        self.compute_ticks: list[int] = []
        """Ticks each decision of the current round missed while it was computed."""
        self.compute_seconds: list[float] = []
        """Each decision's compute time: from handing out its observation to the ``step`` call."""
        self._start: int | None = None
        self._tick = 0
        self._handed = 0
        self._ended = True

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        observation, info = self.env.reset(seed=seed, options=options)
        self._start = self._handed = self.clock.now()
        self._tick = 0
        self._ended = False
        self.compute_ticks, self.compute_seconds = [], []
        return observation, info

    def step(self, action):
        if self._ended:
            raise RuntimeError("the round is over (or was never started): call reset() before step()")
        if not self.action_space.contains(action):
            raise ValueError(f"invalid action {action!r}: the action space is {self.action_space}")
        returned = self.clock.now()
        missed = max(0, (returned - self._start) // self.tick_nanoseconds - self._tick)
        self.compute_ticks.append(int(missed))
        self.compute_seconds.append(round((returned - self._handed) / NANOSECONDS, 6))
        total = 0.0
        for played in range(1, missed + 2):
            if played <= missed:
                step = self.env.step(self.wait_action)
            else:
                self.clock.sleep_until(self._start + (self._tick + 1) * self.tick_nanoseconds)
                step = self.env.step(action)
            observation, reward, terminated, truncated, info = step
            total += reward
            self._tick += 1
            if terminated or truncated:
                break
        self._handed = self.clock.now()
        self._ended = terminated or truncated
        info = {
            **info,
            "realtime": {
                "compute_seconds": self.compute_seconds[-1],
                "compute_ticks": self.compute_ticks[-1],
                "ticks": played,
            },
        }
        if self._ended and "round" in info:
            info["round"] = {
                **info["round"],
                "compute_ticks": list(self.compute_ticks),
                "compute_seconds": list(self.compute_seconds),
            }
        return observation, total, terminated, truncated, info
