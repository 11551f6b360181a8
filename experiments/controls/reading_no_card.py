"""The learners' table with one more probe row, ``reading_no_card``: the reading probe (WarTableReading-v2) with the
field that decides it, ``opponent_card``, hidden as the probe hides the score, registered as
``WarTableReadingNoCard-v0``. A learner trained and scored on it lacks the capability by construction: the negative
control of the reading probe, judged against the same line (``card_blind``'s exact regret).

    python experiments/controls/reading_no_card.py --out OUT --learners fast_stack4 --probes reading_no_card ...

takes the arguments of ``python -m war_env.scripts.learners``. The row lives only in this process (and the suite's
workers, if any, would not have it: run with ``--workers 1 --jobs 1``)."""

import dataclasses
import sys

import war_env
from war_env.core.probes import PROBES
from war_env.scripts import learners

NO_CARD = dataclasses.replace(
    PROBES["reading"],
    name="reading_no_card",
    env_id="WarTableReadingNoCard-v0",
    hidden=(*PROBES["reading"].hidden, "opponent_card"),
    doc=None,
)


def register() -> None:
    PROBES[NO_CARD.name] = NO_CARD
    war_env.register_envs()


if __name__ == "__main__":
    register()
    sys.exit(learners.cli(sys.argv[1:]))
