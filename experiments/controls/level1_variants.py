"""The learners' table with more probe rows, the negative controls of anticipation and inference at level 1:

- ``anticipation_after_open`` (``WarAnticipationAfterOpen-v0``): anticipation at level 1 (one mode, 3-4 ticks in)
  where a press counts only while the agent's own turn is open on the next tick (``info["action_mask"][1]``) and none
  of its presses is in flight; any other press is played as a wait. The agent cannot press for a turn before it has
  seen that turn open, so its best is ``press_once`` (it presses as its turn opens and waits out the latency).
- ``anticipation_no_ahead`` (``WarAnticipationNoAhead-v0``), the first try, kept because it was run: a press counts
  while the agent's own turn is open, in flight or not. That does not take the capability away: the optimum sends
  its press in the tick its previous press lands, while the turn that press closes is still open.
- ``inference_no_reaction`` (``WarInferenceNoReaction-v0``): inference at level 1 (the default) with
  ``opponent_reaction`` shown as 0, as a probe hides a field. A memoryless learner then sees what ``blind`` sees.

Their suites' own ``oracle`` plays under the same change, so ``score_level1.py`` scores their models against the
real probe's oracle on the same deals.

    python experiments/controls/level1_variants.py --out OUT --learners fast_mlp --probes inference_no_reaction ...

takes the arguments of ``python -m war_env.scripts.learners``. The rows live only in this process (run with
``--workers 1 --jobs 1``)."""

import dataclasses
import sys

import numpy as np

import war_env
from war_env.core.probes import PROBES
from war_env.envs import probe_envs
from war_env.scripts import learners


def anticipation_row(name: str, env_id: str):
    return dataclasses.replace(PROBES["anticipation"].at_level(1), name=name, env_id=env_id, levels=(), doc=None)


AFTER_OPEN = anticipation_row("anticipation_after_open", "WarAnticipationAfterOpen-v0")
NO_AHEAD = anticipation_row("anticipation_no_ahead", "WarAnticipationNoAhead-v0")
NO_REACTION = dataclasses.replace(
    PROBES["inference"],
    name="inference_no_reaction",
    env_id="WarInferenceNoReaction-v0",
    hidden=(*PROBES["inference"].hidden, "opponent_reaction"),
    doc=None,
)


def in_flight_columns(env_class, config) -> list[int]:
    """The columns of the observation's presses in flight (``in_flight_a``) in ``env_class``'s game."""
    return [i for i, name in enumerate(env_class.fields_for(config)) if name.startswith("in_flight_")]


def masked_classes(probe, nothing_in_flight: bool):
    """The probe's env and vector env with every press played as a wait unless the agent's own turn is open on the
    next tick (``action_mask``'s second column) and, with ``nothing_in_flight``, none of its presses is in flight
    (the observation's ``in_flight_a``)."""
    env, vector = probe_envs.probe_classes(probe)

    class MaskedEnv(env):
        def allow(self, observation, info) -> None:
            free = not (nothing_in_flight and observation[in_flight_columns(type(self), self.config)].any())
            self.may_press = bool(info["action_mask"][1]) and free

        def reset(self, *args, **kwargs):
            observation, info = super().reset(*args, **kwargs)
            self.allow(observation, info)
            return observation, info

        def step(self, action):
            if not self.may_press:
                action = 0
            observation, reward, terminated, truncated, info = super().step(action)
            self.allow(observation, info)
            return observation, reward, terminated, truncated, info

    class MaskedVectorEnv(vector):
        single_env = MaskedEnv

        def step(self, actions):
            actions = self._check_actions(actions)
            engine = self._engine
            allowed = engine.masks[:, 1].copy()
            if nothing_in_flight:
                allowed &= ~engine.observations[:, in_flight_columns(self.single_env, self.config)].any(axis=1)
            return super().step(np.where(allowed, actions, 0).astype(actions.dtype))

    for made, base in ((MaskedEnv, env), (MaskedVectorEnv, vector)):
        made.__name__ = made.__qualname__ = base.__name__
        made.__module__ = base.__module__
    return MaskedEnv, MaskedVectorEnv


def register() -> None:
    for row in (AFTER_OPEN, NO_AHEAD, NO_REACTION):
        PROBES[row.name] = row
    probe_envs._MADE[AFTER_OPEN.name] = masked_classes(AFTER_OPEN, nothing_in_flight=True)
    probe_envs._MADE[NO_AHEAD.name] = masked_classes(NO_AHEAD, nothing_in_flight=False)
    war_env.register_envs()


if __name__ == "__main__":
    register()
    sys.exit(learners.cli(sys.argv[1:]))
