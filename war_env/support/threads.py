"""One thread per process for the numeric libraries, set in code rather than by the caller's shell.

The networks here are tiny MLPs: on this project's 2-core machines two torch threads were measured
100x slower than one. And a worker process forked from a parent whose OpenMP runtime was already
started hangs in OpenMP's barrier, so worker processes are spawned (never forked) and start with the
thread variables already set (``one_thread_environment``), before anything numeric is imported.
"""

from __future__ import annotations

import os
from contextlib import contextmanager, nullcontext

THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMEXPR_NUM_THREADS",
                    "NUMBA_NUM_THREADS")


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
