"""How fast War-v0 is, side by side with its peers in one run on one machine (``war-perf``).

``harness``: how a figure is taken (medians of runs in turns, wall and CPU time); ``workloads``: the loops
timed (War's and its peers'); ``report``: the table's rows, the speed targets and the markdown;
``sections``: ``measure_all``, every section of ``war-perf`` in the order of its table. ``trainers`` (the
fast PPO trainer against SB3), ``step_profile``, ``solver``, ``report_memory`` and ``ray_scaling`` are the
figures of their own.
"""

from war_env.perf.harness import Timing, machine_info, measure, measure_side_by_side, progress_to_stderr
from war_env.perf.report import FAST_ROW, WITHOUT_ROUND_INFO, PerfResult, Row, render, targets, vector_row_name
from war_env.perf.sections import measure_all
from war_env.perf.workloads import (
    MEMORY_ENV_STEPS,
    REFERENCE_SHARE,
    WORKLOADS,
    memory_figures,
    reference_cards_run,
    vector_env_loop,
)

__all__ = [
    "FAST_ROW",
    "MEMORY_ENV_STEPS",
    "REFERENCE_SHARE",
    "WITHOUT_ROUND_INFO",
    "WORKLOADS",
    "PerfResult",
    "Row",
    "Timing",
    "machine_info",
    "measure",
    "measure_all",
    "measure_side_by_side",
    "memory_figures",
    "progress_to_stderr",
    "reference_cards_run",
    "render",
    "targets",
    "vector_env_loop",
    "vector_row_name",
]
