"""war-env: War, the two-player card game, as a Gymnasium environment whose only action is timing.

``import war_env`` registers ``War-v0``, ``WarLatency-v0`` (War-v0 with action latency) and the benchmark's
probes (``WarAnticipation-v1``, ``WarMemory-v1``, ``WarInference-v0``, ``WarTableReading-v1``: docs/probes.md)
and nothing else happens: no pygame, torch or Ray import.
"""

from gymnasium.envs.registration import register, registry

from war_env.core.bots import Bot, make_bot
from war_env.core.probes import PROBES
from war_env.core.rules import WarConfig
from war_env.envs.registration import BatchedSpecKwargs
from war_env.envs.war import WarEnv

__all__ = ["Bot", "WarConfig", "WarEnv", "make_bot"]
__version__ = "0.3.0"

if "War-v0" not in registry:
    register(id="War-v0", entry_point="war_env.envs.war:WarEnv", vector_entry_point="war_env.envs.vector:WarVectorEnv",
             kwargs=BatchedSpecKwargs("War-v0"))
if "WarLatency-v0" not in registry:
    register(id="WarLatency-v0", entry_point="war_env.envs.latency:WarLatencyEnv",
             vector_entry_point="war_env.envs.vector:WarLatencyVectorEnv", kwargs=BatchedSpecKwargs("WarLatency-v0"))
_PROBE_CLASSES = {"anticipation": "WarAnticipationEnv", "memory": "WarMemoryEnv", "inference": "WarInferenceEnv",
                  "reading": "WarTableReadingEnv"}
for _probe in PROBES.values():
    if _probe.env_id not in registry:
        _class = _PROBE_CLASSES[_probe.name]
        register(id=_probe.env_id, entry_point=f"war_env.envs.probes:{_class}",
                 vector_entry_point=f"war_env.envs.probes:{_class.removesuffix('Env')}VectorEnv",
                 kwargs=BatchedSpecKwargs(_probe.env_id))
