"""war-env: War, the two-player card game, as a Gymnasium environment whose only action is timing.

``import war_env`` registers ``War-v0``, ``WarLatency-v0`` (War-v0 with action latency) and the benchmark's
probes (one id per row of ``war_env.core.probes.PROBES``: docs/probes.md) with Gymnasium, and nothing else
happens: no pygame, torch or Ray import. ``war_env.WarEnv`` is imported when first asked for. The game core
(``war_env.core``) imports nothing of Gymnasium (``tests/test_layout.py`` reads its imports).
"""

from war_env.core.bots import Bot, make_bot
from war_env.core.rules import WarConfig

__all__ = ["Bot", "WarConfig", "WarEnv", "make_bot"]
__version__ = "0.4.0"


def register_envs() -> None:
    """Register every env id of the package with Gymnasium (ids already registered are left alone)."""
    from gymnasium.envs.registration import register, registry

    from war_env.core.probes import PROBES
    from war_env.envs.registration import BatchedSpecKwargs, entry_points

    if "War-v0" not in registry:
        register(
            id="War-v0",
            entry_point="war_env.envs.war:WarEnv",
            vector_entry_point="war_env.envs.vector:WarVectorEnv",
            kwargs=BatchedSpecKwargs("War-v0"),
        )
    if "WarLatency-v0" not in registry:
        register(
            id="WarLatency-v0",
            entry_point="war_env.envs.latency:WarLatencyEnv",
            vector_entry_point="war_env.envs.vector:WarLatencyVectorEnv",
            kwargs=BatchedSpecKwargs("WarLatency-v0"),
        )
    for probe in PROBES.values():  # each probe's classes: envs.probe_envs' tables, looked up as Gymnasium makes the id
        if probe.env_id not in registry:
            entry_point, vector_entry_point = entry_points(probe.env_id)
            register(
                id=probe.env_id,
                entry_point=entry_point,
                vector_entry_point=vector_entry_point,
                kwargs=BatchedSpecKwargs(probe.env_id),
            )


def __getattr__(name: str):
    if name == "WarEnv":  # the env class imports Gymnasium: only when it is asked for
        from war_env.envs.war import WarEnv

        return WarEnv
    raise AttributeError(f"module 'war_env' has no attribute {name!r}")


register_envs()
