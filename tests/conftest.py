import importlib.util
import os

import pytest

# Headless and single-threaded everywhere: pygame needs no display, torch stays on one core.
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("OMP_NUM_THREADS", "1")

NUMBA_INSTALLED = importlib.util.find_spec("numba") is not None


@pytest.fixture(
    params=["numpy", pytest.param("numba", marks=pytest.mark.skipif(not NUMBA_INSTALLED, reason="numba not installed"))]
)
def backend(request):
    """Both implementations of the batched game: numpy, and the compiled kernels of the ``fast`` extra."""
    return request.param
