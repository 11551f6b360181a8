"""THE batched engine: the rules of ``engine`` (cards) and ``clock`` (time) for thousands of rounds,
compiled with numba (the ``fast`` extra), and nothing else.

The scalar reference (``war_env.core.engine.Game``, ``war_env.core.clock.TimedRound``) is the oracle of every
test; this package is the one other implementation of the same rules, proven equal to it round by round
and observation by observation (``tests/test_batched.py``, ``tests/test_vector.py``,
``tests/test_fastpath.py``). Its drivers are thin: the vector env steps it (``BatchedSteps``), the fast
path plays whole rounds with it (``BatchedRounds``: cards first, then the clock over the moves).

* ``state``: the engine's data, named and typed: n rounds as a record array of ``ROUND`` records, a game's
  ``PARAMS`` and the seats' reaction tables (numpy only), and the bundles the compiled calls take them in
  (``RoundArrays``, ``Rules``, ``StepOutputs``, ``Resets``, ``Deals``);
* ``models``: how each seat times its draws (``ReactionModel``; numpy only);
* ``cards``, ``clock``: the rules, compiled, one round's record at a time;
* ``hashing``, ``borrow``, ``generators``: what the compiled loops need (``randomness.hash64``, arrays
  without reference counts, the rounds' own numpy Generators);
* ``stepping``: the vector env's step (its input checked once, before any round moves: ``InvalidAction``,
  ``RoundOver``), resets and observation, compiled;
* ``rounds``: the Python side (``BatchedRounds``, ``BatchedSteps``).

``import war_env.batched`` imports neither numba nor the compiled modules; ``available()`` says whether
they can run here. Every compiled function is cached on disk (numba's ``cache=True``): a process loads
them instead of compiling, except the first time after an install or an upgrade.
"""

from __future__ import annotations

import warnings

from war_env.support.extras import has_extra, install_hint


def available() -> bool:
    """Whether the compiled engine can run: numba (the ``fast`` extra) is installed."""
    return has_extra("fast")


def warn_unavailable(what: str, instead: str) -> None:
    """Say once per place that ``what`` falls back to the scalar reference (``instead``) for want of numba."""
    warnings.warn(
        f"{what}: numba is not installed, so the batched engine cannot run and it {instead} "
        f"(the scalar reference: the same results, many times slower): {install_hint('fast')}",
        RuntimeWarning,
        stacklevel=3,
    )
