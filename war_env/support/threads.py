"""One thread per process for the numeric libraries, set in code rather than by the caller's shell.

The networks here are tiny MLPs: two torch threads train them many times slower than one (the threads
synchronise more than they compute; docs/training.md), so one is every default; a model agent may ask for more
(``ppo:path=FILE,threads=2``: ``use_threads``). And a worker process forked from a parent whose OpenMP runtime was
already
started hangs in OpenMP's barrier, so worker processes are spawned (never forked) and start with the
thread variables already set (``one_thread_environment``), before anything numeric is imported.
"""

from __future__ import annotations

import os
from contextlib import contextmanager, nullcontext

THREAD_VARIABLES = (
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "NUMEXPR_NUM_THREADS",
    "NUMBA_NUM_THREADS",
)


def limit_process_threads() -> None:
    """In a fresh worker process, before torch, numba or BLAS start their thread pools."""
    for name in THREAD_VARIABLES:
        os.environ[name] = "1"


def single_threaded_torch():
    """Import torch with one intra-op and one inter-op thread; returns the module."""
    import torch

    torch.set_num_threads(1)
    try:
        torch.set_num_interop_threads(1)
    except RuntimeError:  # already set, or inter-op work already ran in this process: keep it
        pass
    return torch


def machine_cores() -> int:
    """The CPU cores of the machine (``os.cpu_count``): the most threads an agent may ask for."""
    return os.cpu_count() or 1


def use_threads(threads: int) -> None:
    """Set torch's intra-op threads and numpy's BLAS threads to ``threads`` where they differ: process-wide
    settings, so a model agent calls this before each of its inferences (a check of about a
    microsecond when nothing changes). Without threadpoolctl (the train extra) BLAS is left as it is."""
    import torch

    if torch.get_num_threads() != threads:
        torch.set_num_threads(threads)
    for library in _blas_libraries():
        if library.get_num_threads() != threads:
            library.set_num_threads(threads)


_BLAS: list | None = None


def _blas_libraries() -> list:
    """threadpoolctl's controllers of the BLAS libraries loaded (found once per process: it takes milliseconds)."""
    global _BLAS
    if _BLAS is None:
        try:
            from threadpoolctl import ThreadpoolController
        except ImportError:
            _BLAS = []
        else:
            _BLAS = ThreadpoolController().select(user_api="blas").lib_controllers
    return _BLAS


def one_blas_thread():
    """A context in which numpy's BLAS runs on one thread (threadpoolctl, the train extra). Matrix
    products of a few thousand rows, a greedy policy over a batch of rounds, are 10x slower on two
    BLAS threads than on one when the cores are shared. Without threadpoolctl: no limit."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return nullcontext()
    return threadpool_limits(1, user_api="blas")


@contextmanager
def one_thread_environment():
    """Within the block, the thread variables say 1: processes started in it (spawned workers) begin
    with them set before their first import. The caller's environment is restored afterwards."""
    saved = {name: os.environ.get(name) for name in THREAD_VARIABLES}
    limit_process_threads()
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
