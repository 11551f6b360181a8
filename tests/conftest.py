import importlib.util
import os
import sys

import pytest

# Headless everywhere: pygame needs no display. No thread variables are set: the code limits its own
# threads (war_env/support/threads.py), and the tests must see what a user's plain shell gives.
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

NUMBA_INSTALLED = importlib.util.find_spec("numba") is not None


@pytest.fixture(
    params=[
        "reference",
        pytest.param("numba", marks=pytest.mark.skipif(not NUMBA_INSTALLED, reason="numba not installed")),
    ]
)
def backend(request):
    """Both engines of the vector env: the compiled batched engine of the ``fast`` extra, and War-v0 envs
    stepped in a loop (the scalar reference, what runs without numba)."""
    return request.param


@pytest.fixture(scope="session")
def count_calls():
    """``count_calls(fn)``: how many function calls (Python's and C's) ``fn()`` makes. A bound on the work
    done, unlike a bound on the seconds taken, holds on a loaded machine."""

    def count(fn) -> int:
        calls = 0

        def profile(frame, event, arg):
            nonlocal calls
            if event in ("call", "c_call"):
                calls += 1

        previous = sys.getprofile()
        sys.setprofile(profile)
        try:
            fn()
        finally:
            sys.setprofile(previous)
        return calls

    return count
