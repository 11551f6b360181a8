"""The reward of every event of a round, written once: every engine, the fast path and the league use these.

A seat's reward in a tick is the sum of its timing events in that tick, added in this order: each false
start, the idle tick (its turn was open and it did not draw), its takeover (on the last tick of a turn it
let run out; that tick is idle too). The round's outcome is added on its last step. The weights are the
``WarConfig`` fields ``reward_*``.

Float sums are made in exactly this order everywhere (``total += reward`` from 0.0), so the scalar clock,
the batched engine and the fast path give bit-identical rewards and returns.
"""

from __future__ import annotations

import numpy as np

from war_env.core.rules import WarConfig

CAUSES = ("outcome", "false_starts", "idle_ticks", "takeover")
"""The parts of a round's return, in the order reports list them."""


def tick_reward(config: WarConfig, false_starts: int, idle: bool, takeover: bool) -> float:
    """A seat's reward of one tick: ``false_starts`` false starts, then an idle tick, then a takeover."""
    total = 0.0
    for _ in range(false_starts):
        total += config.reward_false_start
    if idle:
        total += config.reward_idle_tick
    if takeover:
        total += config.reward_takeover
    return total


def tick_reward_table(config: WarConfig) -> tuple[float, float, float, float]:
    """``tick_reward`` of the four ticks a batched engine tells apart, by ``false_start + 2 * idle + takeover``:
    nothing, one false start, an idle tick, an idle tick with the takeover. (A tick with several false
    starts adds ``tick_reward(config, 1, ...)`` once per false start, as ``tick_reward`` does.)"""
    return (
        tick_reward(config, 0, False, False),
        tick_reward(config, 1, False, False),
        tick_reward(config, 0, True, False),
        tick_reward(config, 0, True, True),
    )


def outcome_reward(config: WarConfig, winner: int | None, seat: int) -> float:
    """What ``seat`` gets at the end of a round won by ``winner`` (``None``: a draw)."""
    if winner is None:
        return config.reward_draw
    return config.reward_win if winner == seat else config.reward_loss


def outcome_rewards(config: WarConfig, seat: int) -> tuple[float, float, float]:
    """``outcome_reward`` by ``winner + 1``, with winner -1 for a draw: the table a batched engine indexes."""
    return tuple(outcome_reward(config, winner, seat) for winner in (None, 0, 1))


def return_by_cause(config: WarConfig, winner, false_starts, idle_ticks, taken_over, seat: int = 0) -> dict:
    """A round's return for ``seat`` split by cause (``CAUSES``); the parts add up to the return (up to the
    rounding of a sum made tick by tick). Takes the numbers of one round (``winner`` None for a draw) or
    numpy arrays of many (``winner`` -1 for a draw), and gives floats or arrays alike."""
    if np.ndim(false_starts) == 0:
        return {
            "outcome": outcome_reward(config, None if winner is None or winner < 0 else winner, seat),
            "false_starts": false_starts * config.reward_false_start,
            "idle_ticks": idle_ticks * config.reward_idle_tick,
            "takeover": config.reward_takeover if taken_over else 0.0,
        }
    return {
        "outcome": np.asarray(outcome_rewards(config, seat))[np.asarray(winner) + 1],
        "false_starts": np.asarray(false_starts) * config.reward_false_start,
        "idle_ticks": np.asarray(idle_ticks) * config.reward_idle_tick,
        "takeover": np.where(taken_over, config.reward_takeover, 0.0),
    }
