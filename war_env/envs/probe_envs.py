"""The probes' envs: the latency game (``WarLatencyEnv``) with each probe's opponent, latency, rewards and
observation as defaults (``war_env.core.probes``), and their batched vector envs (``WarLatencyVectorEnv``
with the same defaults and observation: ``gym.make_vec(env_id, num_envs=N,
vectorization_mode="vector_entry_point")``). Thin glue: no rule of the game lives here.

A new probe's class: a ``ProbeEnv`` whose ``probe`` is its row of ``PROBES`` (its observation is that row's) and
whose docstring says what is its own, in ``PROBE_ENVS`` (keyed by the probe's name); its vector env is made from it
(``PROBE_VECTOR_ENVS``). Nothing else names them: ``import war_env`` registers every row of ``PROBES``, and
``war_env.envs.games`` (what Gymnasium's
entry points, SB3's vec env and the tools read) finds the classes here."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from string import Template

import numpy as np
from gymnasium.vector import AutoresetMode

from war_env.core.probes import PROBES, Probe
from war_env.envs.latency import WarLatencyEnv
from war_env.envs.vector import WarLatencyVectorEnv


class ProbeEnv(WarLatencyEnv):
    """WarLatency-v0 with a probe's defaults: its opponent, and, unless a ``config`` is given, its latency and
    reward weights (each may be overridden by keyword)."""

    probe: Probe

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.observation_kind = cls.probe.observation  # the probe's declared observation, read by its vector env too
        if cls.__doc__:  # a probe's own sections, and the shared ones where it says $interface and $play
            cls.__doc__ = Template(cls.__doc__).substitute(shared_sections(cls))

    def __init__(self, render_mode: str | None = None, opponent=None, config=None, **rules):
        opponent = self.probe.opponent if opponent is None else opponent
        if config is None:
            rules = {"latency": self.probe.latency, **self.probe.rules, **rules}
        super().__init__(render_mode=render_mode, opponent=opponent, config=config, **rules)

    @classmethod
    def observation_width(cls, config) -> int:
        """Floats of the probe's observation under ``config`` (``fields_for``: ``Probe.observation``'s fields)."""
        return len(cls.fields_for(config))

    @classmethod
    def hidden_columns(cls, config) -> list[int]:
        """The columns of the probe's ``hidden`` fields, which it shows as 0 (its vector env too)."""
        fields = cls.fields_for(config)
        return [fields.index(name) for name in cls.probe.hidden]


def shared_sections(env: type[ProbeEnv]) -> dict[str, str]:
    """The docstring sections every probe env has alike, written from its row of ``PROBES``: ``$interface`` (the
    summary table and the Action Space) and ``$play`` (Rewards, Starting State, Episode End, Arguments). Each probe's
    class writes only what is its own (Description, Observation Space, Version History)."""
    probe, indent = env.probe, "\n    "
    weights = ", ".join(f"``{name}={value:g}``" for name, value in probe.rules.items())
    width = env.observation_width(probe.config())
    interface = [
        "| | |",
        "|---|---|",
        "| Action Space | `Discrete(2)` |",
        f"| Observation Space | `Box(0.0, 1.0, ({width},), float32)` |",
        f'| import | `gymnasium.make("{probe.env_id}")` |',
        "",
        "## Action Space",
        f"WarLatency-v0's: 0 waits, 1 sends a press that lands after the latency (``{probe.latency}``).",
    ]
    play = [
        "## Rewards",
        f"War-v0's with {weights}",
        "(``war_env.core.probes.PROBE_REWARDS``).",
        "",
        "## Starting State",
        "WarLatency-v0's.",
        "",
        "## Episode End",
        "WarLatency-v0's.",
        "",
        "## Arguments",
        f'``gym.make("{probe.env_id}", opponent=None, render_mode=None, config=None, **rules)``:',
        f"the probe's opponent (``{probe.opponent}``) unless one is given; its latency and weights unless",
        "a ``config`` (taken as it is) or keywords say otherwise.",
    ]
    return {"interface": indent.join(interface), "play": indent.join(play)}


class WarAnticipationEnv(ProbeEnv):
    """The anticipation probe: WarLatency-v0 against an opponent with three modes of reaction, where pressing ahead
    pays.

    ## Description
    WarLatency-v0's game (read ``war_env.envs.latency.WarLatencyEnv``) with the probe's defaults: the opponent
    ``modes:first=3,every=8,count=3,width=2`` (it draws 3-4, 11-12 or 19-20 ticks into its turn, each tick
    alike), a fixed latency of 6 ticks, and a false start weighed at -0.02, an idle tick at -0.01, a takeover at
    -100 (``war_env.core.probes.PROBE_REWARDS``). Waiting to see the turn open costs the 6 ticks of latency on
    every move; the optimum sends one press per mode, each landing just after the mode's last tick (the first as
    its own draw lands, the others 7 and 15 ticks into the opponent's turn), and no rule of one or two press
    times comes within 0.48 per round of it (docs/probes.md).

    $interface

    ## Observation Space
    WarLatency-v0's: War-v0's 16 fields, the opponent's turn clock, the presses in flight by age.

    $play

    ## Version History
    * v1 (war-env 0.4.0): the opponent reacts in three modes (``modes:first=3,every=8,count=3,width=2``), not
      ``uniform:low=3,high=12``, against which the two-press rule "2 and 7" was the optimum.
    * v0: first release (war-env 0.3.0).
    """

    probe = PROBES["anticipation"]


class WarMemoryEnv(ProbeEnv):
    """The memory probe: WarLatency-v0's game with War-v0's observation, so the clocks must be counted.

    ## Description
    WarLatency-v0's game with the probe's defaults: the opponent ``modes:first=5,every=8,count=3,width=2`` (it
    draws 5-6, 13-14 or 21-22 ticks into its turn), a fixed latency of 6 ticks, the probe weights. The
    observation is War-v0's 16 fields: the opponent's turn clock and the agent's own presses in flight are left
    out. They stay knowable to an agent with memory (its own turn's end starts the opponent's; a fixed latency
    lands every press 6 ticks after it was sent), so the optimum is the game's (``counting`` plays it from these
    fields); during the opponent's turn the observation does not change, so a memoryless policy cannot time the
    presses the optimum sends 1, 9 and 17 ticks into it.

    $interface

    ## Observation Space
    War-v0's 16 fields (``war_env.envs.war.WarEnv``), nothing more.

    $play

    ## Version History
    * v1 (war-env 0.4.0): the opponent reacts in three modes (``modes:first=5,every=8,count=3,width=2``) and the
      latency is 6 ticks, not ``uniform:low=12,high=13`` with 4, where one press 10 ticks in was the optimum.
    * v0: first release (war-env 0.3.0).
    """

    probe = PROBES["memory"]


class WarInferenceEnv(ProbeEnv):
    """The inference probe: the opponent is one of a pool's two bots, drawn per round and never named.

    ## Description
    WarLatency-v0's game with the probe's defaults: the opponent ``pool:fast=4,slow=10,width=2``, which plays
    each round as ``uniform:low=4,high=5`` or as ``uniform:low=10,high=11`` (even odds, drawn by a hash of the
    round key: ``war_env.core.bots.Pool``), a fixed latency of 4 ticks, the probe weights. The two bots' reaction
    windows do not overlap, so the opponent's first own draw of a round tells which it is; the observation
    shows how long its last draw took, so telling them apart needs inference, not memory. The optimum is
    Bayes-optimal and exact (``war_env.core.optimum.solve_pool``); the clairvoyant that knows the bot from the
    start does better only in the first turns (docs/probes.md).

    $interface

    ## Observation Space
    WarLatency-v0's, then ``opponent_reaction``: (ticks from the opening of the opponent's turn to its last
    own draw + 1) / turn ticks, 0 before its first.

    $play

    ## Version History
    * v0: first release (war-env 0.3.0).
    """

    probe = PROBES["inference"]


class WarTableReadingEnv(ProbeEnv):
    """The reading probe: the opponent reacts fast when it is ahead on points, slowly when it is not.

    ## Description
    WarLatency-v0's game with the probe's defaults: the opponent ``leader:ahead=4,behind=10,width=2``, which,
    as each of its turns opens, reacts ``uniform`` over ticks 4-5 if it has more points than the agent and
    over ticks 10-11 if not (``war_env.core.bots.Leader``), a fixed latency of 4 ticks, the probe weights. The
    score is in the observation (``own_points``, ``opponent_points``), so the optimum reads it and is exact
    (every window starts 3 or more ticks in, so nothing carries over from one turn to the next:
    ``war_env.core.optimum.nothing_carries_over``).

    $interface

    ## Observation Space
    WarLatency-v0's, with ``own_pile``, ``opponent_pile`` and ``battles`` always 0: the pile counts show who is
    ahead on points in most turns without the score (a policy reading only them got 0.69 of the way from ``blind``
    to the optimum in v0), so the score is the one field that shows the bot's context (docs/probes.md).

    $play

    ## Version History
    * v1 (war-env 0.4.0): the pile counts and the battle count are hidden.
    * v0: first release (war-env 0.3.0).
    """

    probe = PROBES["reading"]

    def _observe(self, seat: int) -> np.ndarray:
        observation = super()._observe(seat)
        observation[self.hidden_columns(self.config)] = 0.0
        return observation


PROBE_ENVS = {env.probe.name: env for env in (WarAnticipationEnv, WarMemoryEnv, WarInferenceEnv, WarTableReadingEnv)}
"""Probe name -> the env ``gym.make(probe.env_id)`` builds."""


class ProbeVectorEnv(WarLatencyVectorEnv):
    """A probe batched: ``num_envs`` rounds of its single env (``single_env``, read its docstring), stepped by
    the batched engine, with the single env's defaults (opponent, latency, reward weights) and observation.
    Everything else (spaces of actions, step, autoreset, seeding, reset options, info, backends) is
    ``WarVectorEnv``'s. Sub-env ``i`` is ``gym.make(env_id)`` reset with ``seed + i``, step for step
    (``tests/test_vector_probes.py``): the inference probe's member of the pool drawn per round by the engine as by
    ``Pool.member_of``, the reading probe's leader context read as each of its turns opens and its hidden columns
    zeroed after every step (``vector.HidingSteps``). Each probe's class is made from its env
    (``PROBE_VECTOR_ENVS``)."""

    single_env: type[ProbeEnv]

    def __init__(
        self,
        num_envs: int = 1,
        opponent=None,
        max_episode_steps: int | None = None,
        render_mode: str | None = None,
        config=None,
        backend: str = "auto",
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        **rules,
    ):
        probe = self.single_env.probe
        opponent = probe.opponent if opponent is None else opponent
        if config is None:
            rules = {"latency": probe.latency, **probe.rules, **rules}
        super().__init__(
            num_envs,
            opponent=opponent,
            max_episode_steps=max_episode_steps,
            render_mode=render_mode,
            config=config,
            backend=backend,
            autoreset_mode=autoreset_mode,
            **rules,
        )


class _BatchedProbes(Mapping):
    """Probe name -> its batched vector env: ``ProbeVectorEnv`` bound to the probe's env in ``PROBE_ENVS``, made on
    first use (one class per env, kept as a module attribute of its name, ``WarMemoryVectorEnv``, so that it pickles
    like a written one). A probe has no vector env class to write: it has nothing of its own."""

    def __init__(self, envs: dict[str, type[ProbeEnv]]):
        self._envs, self._made = envs, {}

    def __getitem__(self, name: str) -> type[ProbeVectorEnv]:
        env = self._envs[name]
        if env not in self._made:
            class_name = env.__name__.removesuffix("Env") + "VectorEnv"
            self._made[env] = type(
                class_name,
                (ProbeVectorEnv,),
                {
                    "single_env": env,
                    "__module__": __name__,
                    "__qualname__": class_name,
                    "__doc__": f"``{env.probe.env_id}`` batched: ``{env.__name__}``'s game and observation, "
                    "every round stepped by the engine (``ProbeVectorEnv``).",
                },
            )
            if env.__module__ == __name__:
                globals()[class_name] = self._made[env]
        return self._made[env]

    def __iter__(self) -> Iterator[str]:
        return iter(self._envs)

    def __len__(self) -> int:
        return len(self._envs)


PROBE_VECTOR_ENVS: Mapping[str, type[ProbeVectorEnv]] = _BatchedProbes(PROBE_ENVS)
"""Probe name -> its batched vector env (``gym.make_vec(probe.env_id, vectorization_mode="vector_entry_point")``)."""
