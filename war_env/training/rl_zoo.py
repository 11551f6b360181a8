"""Any RL Baselines3 Zoo script with War-v0 registered (the ``zoo`` extra)::

    python -m war_env.training.rl_zoo record_video --algo ppo --env War-v0 -f logs -n 1000 -o videos

The zoo's ``train`` and ``enjoy`` take ``--gym-packages war_env``, which imports this package and so
registers War-v0. Its ``record_video`` and ``record_training`` have no such option (``unrecognized
arguments``) and without it stop with ``KeyError: 'War-v0'``. This module imports ``war_env`` and then
runs ``rl_zoo3.SCRIPT`` exactly as ``python -m rl_zoo3.SCRIPT ARGS`` would (docs/training.md, "RL Zoo").
"""

from __future__ import annotations

import importlib.util
import runpy
import sys
from collections.abc import Sequence

import war_env  # noqa: F401  (registers War-v0)
from war_env.support.extras import MissingExtra, require

USAGE = (
    "usage: python -m war_env.training.rl_zoo SCRIPT [ARGS ...]   (SCRIPT: record_video, enjoy, train, ... of rl_zoo3)"
)


def run_zoo_script(argv: Sequence[str]) -> None:
    """Run ``rl_zoo3.<argv[0]>`` as ``__main__`` with ``argv[1:]`` as its arguments."""
    if not argv or argv[0] in ("-h", "--help"):
        raise SystemExit(USAGE)
    try:
        require("zoo", "python -m war_env.training.rl_zoo")
    except MissingExtra as error:
        raise SystemExit(f"war_env.training.rl_zoo: error: {error}") from None
    script, *arguments = argv
    module = f"rl_zoo3.{script}"
    if importlib.util.find_spec(module) is None:
        raise SystemExit(f"war_env.training.rl_zoo: error: rl_zoo3 has no script {script!r}\n{USAGE}")
    sys.argv = [module, *arguments]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    run_zoo_script(sys.argv[1:])
