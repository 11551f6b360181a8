"""WarLatency-v0: War-v0 with action latency and the observation a seat needs to anticipate."""

from __future__ import annotations

from war_env.envs.war import WarEnv

DEFAULT_LATENCY = "fixed:ticks=2"
"""The latency of ``gym.make("WarLatency-v0")`` when neither ``latency`` nor ``config`` is given."""


def with_default_latency(config, rules: dict) -> dict:
    """The rule keywords of a WarLatency-v0 env (single or batched): ``DEFAULT_LATENCY`` unless a latency
    or a whole config is given."""
    return {**rules, "latency": DEFAULT_LATENCY} if config is None and "latency" not in rules else rules


class WarLatencyEnv(WarEnv):
    """War-v0 where a press is sent now and lands later: timing becomes a real decision.

    ## Description
    The card game, the turn timer, the takeover and the rewards are War-v0's (see ``war_env.envs.war.WarEnv``).
    New: *action latency*. A press the agent makes in a step is sent in that tick and acts ``d`` ticks
    later, ``d`` drawn from the ``latency`` distribution (``"fixed:ticks=2"``, ``"uniform:low=1,high=4"``;
    ``war_env.core.latency``), each press's delay hashed from the round key (the k-th press of a round gets the
    same delay whatever the timing). A press acts in the tick it lands exactly as a War-v0 press acts: it
    draws if the agent's turn is open then, else it is a false start, penalised in that tick. Several
    presses may be in flight and may land together (the first may draw; the turn is then closed, so the
    others are false starts). Presses still in flight when the agent is taken over, or when the round
    ends, do nothing. The opponent bot and the takeover bot have no latency, so the turn timer still
    bounds every turn. An agent that waits to *see* its turn open pays the latency in idle ticks; one
    that presses ahead risks false starts. The exact optimum is the ``oracle`` agent
    (``war_env.core.optimum``).

    | | |
    |---|---|
    | Action Space | `Discrete(2)` |
    | Observation Space | `Box(0.0, 1.0, (18 + max_delay,), float32)` |
    | import | `gymnasium.make("WarLatency-v0", latency="fixed:ticks=2")` |
    | batched | `gymnasium.make_vec("WarLatency-v0", num_envs=N, vectorization_mode="vector_entry_point")` |

    ## Action Space
    | Num | Action |
    |-----|--------|
    | 0   | wait   |
    | 1   | send a draw press (it lands after its delay: a draw if the turn is open then, else a false start) |
    ``info["action_mask"]`` is War-v0's: whether the agent's turn is open on the next tick (a press with
    delay 0 would draw); with latency it does not say whether a press sent now will.

    ## Observation Space
    War-v0's 16 fields (indices 0-15, the same values), then:
    | Index | Name | Meaning |
    |-------|------|---------|
    | 16 | opponent_can_draw   | 1 if the opponent's turn is open on the next step |
    | 17 | opponent_timer_left | share of the opponent's turn timer left on the next step (0 if not open) |
    | 18 + a | in_flight_a     | 1 if the agent's press sent a steps ago has not landed yet, a = 0 .. max_delay - 1 |
    ``max_delay`` is the largest delay of the latency (``WarConfig.max_delay``). The opponent's clock is
    what the table shows (the renderer draws both timers); the agent's own presses in flight are what it
    sent, and with them the state is Markov (as in the delayed-MDP literature). Future delays and the
    opponent's reaction times are never observable.

    ## Rewards
    War-v0's. A false start is charged in the tick its press lands.

    ## Starting State
    War-v0's (the deal, the starter, the round key); no press is in flight.

    ## Episode End
    War-v0's.

    ## Arguments
    ``gym.make("WarLatency-v0", opponent="human", render_mode=None, config=None, latency="fixed:ticks=2", **rules)``:
    War-v0's arguments plus ``latency`` (a ``WarConfig`` field; largest delay below ``turn_ticks`` and at most
    16 ticks). Without ``latency`` and ``config`` the latency is ``fixed:ticks=2``; ``latency="fixed:ticks=0"``
    is War-v0's game, with the longer observation. The vector env plays it too (the table above); the fast
    path and the two-seat env refuse a config with latency.

    ## Rendering
    War-v0's, and the agent's presses in flight as small marks beside its timer ring (one per age, filled
    while a press flies).

    ## Version History
    * v0: first release (war-env 0.2.0): War-v0 with action latency (``WarConfig.latency``) and the observation
      of the opponent's turn clock and the agent's presses in flight.
    """

    observes_latency = True
    observation_kind = "latency"

    def __init__(self, render_mode: str | None = None, opponent="human", config=None, **rules):
        super().__init__(
            render_mode=render_mode, opponent=opponent, config=config, **with_default_latency(config, rules)
        )
