"""Paired-seed evaluation: round ``k`` of every agent is dealt by ``reset(seed=seeds[k])``.

``paired_rounds``: ``play_rounds``, the one loop every tool measures with, and the ways it plays a round (the fast
path, the batched vector env, tick by tick, in real time); ``fastpath``: whole bot-timed rounds on the batched
engine; ``records``: ``RoundRecord``, one played round; ``summary``: ``RoundColumns``, the one summariser of rounds.
"""

from war_env.evaluation.paired_rounds import (
    BATCH_ROUNDS,
    observation_game,
    play_round,
    play_rounds,
    play_rounds_batched,
)

__all__ = ["BATCH_ROUNDS", "observation_game", "play_round", "play_rounds", "play_rounds_batched"]
