"""The learners' table with two more probe rows, the negative controls of anticipation and inference at level 1:

- ``anticipation_no_ahead`` (``WarAnticipationNoAhead-v0``): anticipation at level 1 (one mode, 3-4 ticks in) where a
  press counts only while the agent's own turn is open on the next tick (``info["action_mask"][1]``); any other press
  is played as a wait. The agent cannot press ahead of its own turn, so its best is ``press_once`` (it presses as
  its turn opens and waits out the latency).
- ``inference_no_reaction`` (``WarInferenceNoReaction-v0``): inference at level 1 (the default) with
  ``opponent_reaction`` shown as 0, as a probe hides a field. A memoryless learner then sees what ``blind`` sees.

A learner trained and scored on one of them lacks the capability by construction. Their suites' own ``oracle``
plays under the same change (it cannot press ahead, or read the reaction), so ``score_level1.py`` scores their models
against the real probe's oracle on the same deals.

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

NO_AHEAD = dataclasses.replace(
    PROBES["anticipation"].at_level(1),
    name="anticipation_no_ahead",
    env_id="WarAnticipationNoAhead-v0",
    levels=(),
    doc=None,
)
NO_REACTION = dataclasses.replace(
    PROBES["inference"],
    name="inference_no_reaction",
    env_id="WarInferenceNoReaction-v0",
    hidden=(*PROBES["inference"].hidden, "opponent_reaction"),
    doc=None,
)


def no_ahead_classes(probe):
    """The probe's env and vector env with every press made while the agent's own turn is closed on the next tick
    (``action_mask``'s second column false) played as a wait."""
    env, vector = probe_envs.probe_classes(probe)

    class NoAheadEnv(env):
        def reset(self, *args, **kwargs):
            observation, info = super().reset(*args, **kwargs)
            self.may_press = bool(info["action_mask"][1])
            return observation, info

        def step(self, action):
            if not self.may_press:
                action = 0
            observation, reward, terminated, truncated, info = super().step(action)
            self.may_press = bool(info["action_mask"][1])
            return observation, reward, terminated, truncated, info

    class NoAheadVectorEnv(vector):
        single_env = NoAheadEnv

        def step(self, actions):
            actions = self._check_actions(actions)
            return super().step(np.where(self._engine.masks[:, 1], actions, 0).astype(actions.dtype))

    for made, base in ((NoAheadEnv, env), (NoAheadVectorEnv, vector)):
        made.__name__ = made.__qualname__ = base.__name__
        made.__module__ = base.__module__
    return NoAheadEnv, NoAheadVectorEnv


def register() -> None:
    PROBES[NO_AHEAD.name] = NO_AHEAD
    PROBES[NO_REACTION.name] = NO_REACTION
    probe_envs._MADE[NO_AHEAD.name] = no_ahead_classes(NO_AHEAD)
    war_env.register_envs()


if __name__ == "__main__":
    register()
    sys.exit(learners.cli(sys.argv[1:]))
