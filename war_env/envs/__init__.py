"""The front ends: thin drivers of the scalar reference (``war_env.core``) or of the batched engine
(``war_env.batched``) behind a standard API.

``war`` (War-v0), ``latency`` (WarLatency-v0), ``vector`` (the batched Gymnasium vector env),
``sb3_vec`` (Stable-Baselines3's VecEnv over the batched engine) and ``multiagent`` (PettingZoo, the
``multiagent`` extra: not imported here).
"""
