import importlib.util
import os

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
