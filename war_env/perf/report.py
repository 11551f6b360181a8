"""``war-perf``'s table: its rows (War's figure beside its peer's), the project's speed targets, the markdown."""

from __future__ import annotations

from dataclasses import dataclass, field

from war_env.perf.harness import Timing
from war_env.perf.workloads import WORKLOADS

TARGET_ENV_STEPS_N256 = 5e6
TARGET_START_SECONDS = 3.0
TARGET_FAST_MLP_RATIO = 15.0
TARGET_FAST_MLP_RATE = 150_000
TARGET_FAST_LSTM_RATIO = 10.0
FAST_ROW = "fast_ppo {network} learning"
"""The rows of the fast trainer (``{network}``: MLP or LSTM), one per peer."""


@dataclass
class Row:
    what: str
    war: Timing
    peer_name: str = ""
    peer: Timing | None = None
    unit: str = "steps/s"

    @property
    def ratio(self) -> float | None:
        return None if self.peer is None else self.war.rate / self.peer.rate

    @property
    def cpu_ratio(self) -> float | None:
        return None if self.peer is None else self.war.cpu_rate / self.peer.cpu_rate


@dataclass
class PerfResult:
    rows: list[Row] = field(default_factory=list)
    memory: dict = field(default_factory=dict)
    machine: dict = field(default_factory=dict)
    start: dict = field(default_factory=dict)
    cold_start: dict = field(default_factory=dict)
    env_share: dict = field(default_factory=dict)
    targets: list[tuple[str, str, bool]] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    """Sections asked for and not measured, each with why (a missing extra) and how to install it."""
    table: str = ""

    def row(self, what: str) -> Row | None:
        return next((row for row in self.rows if row.what == what), None)


def _rate(value: float) -> str:
    for scale, suffix in ((1e6, "M"), (1e3, "k")):
        if value >= scale:
            return f"{value / scale:.3g}{suffix}"
    return f"{value:.3g}"


TARGET_RATIO_N4096 = 1.2
"""The default vector env at N = 4096 against CartPole's, env-steps per second, wall and CPU, both workloads."""
WITHOUT_ROUND_INFO = "round_info=False"
"""The vector env leaving ``info["round"]`` out (``WarVectorEnv(round_info=False)``): the row of its own step."""


def vector_row_name(num_envs: int, workload: str, variant: str = "") -> str:
    """The row of a vector env measurement: ``variant`` a backend (``reference (no numba)``) or
    ``WITHOUT_ROUND_INFO``."""
    if variant == WITHOUT_ROUND_INFO:
        return f"vector env N={num_envs}, {workload}, {variant}"
    return f"vector env N={num_envs}, {workload}" + (f", {variant} backend" if variant else "")


def targets(result: PerfResult) -> list[tuple[str, str, bool]]:
    """Each speed target of the project: what it asks, what was measured here, and whether it is met."""
    found = []
    ratios = [(workload, result.row(vector_row_name(4096, workload))) for workload in WORKLOADS]
    if all(row is not None for _, row in ratios):
        measured = "; ".join(f"{workload}: {row.ratio:.2f} wall, {row.cpu_ratio:.2f} CPU" for workload, row in ratios)
        found.append(
            (
                f"vector env at N=4096, reading the ended rounds' info, at least {TARGET_RATIO_N4096}x CartPole's",
                measured,
                all(min(row.ratio, row.cpu_ratio) >= TARGET_RATIO_N4096 for _, row in ratios),
            )
        )
    rates = [(workload, result.row(vector_row_name(256, workload))) for workload in WORKLOADS]
    if all(row is not None for _, row in rates):
        measured = "; ".join(
            f"{workload}: {_rate(row.war.rate)} wall, {_rate(row.war.cpu_rate)} per CPU-second"
            for workload, row in rates
        )
        found.append(
            (
                "vector env at N=256: at least 5M env-steps/s",
                measured,
                all(row.war.rate >= TARGET_ENV_STEPS_N256 for _, row in rates),
            )
        )
    if result.start:
        found.append(
            (
                f"first compiled calls of a new process (from numba's cache) under {TARGET_START_SECONDS:.0f} s",
                f"{result.start['seconds']:.2f} s ({'from the cache' if result.start['from_cache'] else 'compiled'})",
                result.start["from_cache"] and result.start["seconds"] < TARGET_START_SECONDS,
            )
        )
    found += _fast_targets(result)
    mem = result.memory
    if mem:
        flat = mem["state_bytes_after"] == mem["state_bytes"] and abs(mem["traced_growth_bytes"]) < 64e3
        found.append(
            (
                "memory per game flat over 10M env steps (fewer at --budget < 1 or without numba)",
                f"{mem['state_bytes'] / mem['num_envs']:.0f} bytes per game before, "
                f"{mem['state_bytes_after'] / mem['num_envs']:.0f} after {mem['env_steps']:,} env steps; traced "
                f"allocations {mem['traced_growth_bytes'] / 1e3:+.1f} kB",
                flat,
            )
        )
    return found


def _fast_targets(result: PerfResult) -> list[tuple[str, str, bool]]:
    """The fast trainer's targets, judged against the SB3 peers at their shipped configs (what
    ``war-train`` runs); the ratio at the fast trainer's own settings is shown beside them."""
    found = []
    for network, ratio, rate in (
        ("MLP", TARGET_FAST_MLP_RATIO, TARGET_FAST_MLP_RATE),
        ("LSTM", TARGET_FAST_LSTM_RATIO, 0),
    ):
        rows = [row for row in result.rows if row.what == FAST_ROW.format(network=network)]
        if len(rows) != 2:
            continue
        same, shipped = rows
        measured = (
            f"{shipped.ratio:.1f}x wall, {shipped.cpu_ratio:.1f}x CPU against {shipped.peer_name}; "
            f"{same.ratio:.1f}x wall, {same.cpu_ratio:.1f}x CPU against {same.peer_name}; "
            f"{_rate(shipped.war.rate)} steps/s wall, {_rate(shipped.war.cpu_rate)} per CPU-second"
        )
        peer = "SB3's PPO" if network == "MLP" else "sb3-contrib's RecurrentPPO"
        wanted = f"fast_ppo {network} at least {ratio:.0f}x {peer} (shipped config)"
        met = min(shipped.ratio, shipped.cpu_ratio) >= ratio
        if rate:
            wanted += f" and {rate / 1e3:.0f}k steps per CPU-second"
            met = met and shipped.war.cpu_rate >= rate
        found.append((wanted, measured, met))
    return found


def render(result: PerfResult) -> str:
    m = result.machine
    lines = [
        f"War-v0 speed, {m['date']}: {m['cpu']} ({m['cores']} cores), Python {m['python']}, numpy {m['numpy']}, "
        f"Gymnasium {m['gymnasium']}, numba {m['numba']}; load average {m['load_before'][0]:.1f} before, "
        f"{m['load_after'][0]:.1f} after",
        "",
        "| measurement | War | peer | peer figure | ratio (wall) | ratio (CPU) | War per CPU-second |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in result.rows:
        peer = "" if row.peer is None else _rate(row.peer.rate)
        ratio = "" if row.ratio is None else f"{row.ratio:.2f}"
        cpu_ratio = "" if row.cpu_ratio is None else f"{row.cpu_ratio:.2f}"
        lines.append(
            f"| {row.what} | {_rate(row.war.rate)} {row.unit} | {row.peer_name} | {peer} | {ratio} | "
            f"{cpu_ratio} | {_rate(row.war.cpu_rate)} |"
        )
    if result.env_share:
        lines += [
            "",
            "Share of PPO's training time spent in the env: "
            + ", ".join(f"{name} {share:.0%}" for name, share in result.env_share.items())
            + ".",
        ]
    start = result.start
    if start:
        how = "loaded from numba's on-disk cache" if start["from_cache"] else "compiled by numba (no cache yet)"
        lines += [
            "",
            f"Engine start: a new process imports the engine and makes its first vector env step in "
            f"{start['vector_seconds']:.2f} s, its first fast-path rounds {start['seconds']:.2f} s after it "
            f"started ({how}); excluded from every figure above.",
        ]
    if result.cold_start:
        lines += [
            f"With an empty cache (numba compiles every kernel): {result.cold_start['vector_seconds']:.1f} s to "
            f"the first vector env step, {result.cold_start['seconds']:.1f} s in all."
        ]
    mem = result.memory
    if mem:
        lines += [
            "",
            f"Memory: state of {mem['num_envs']} games {mem['state_bytes'] / 1e6:.2f} MB "
            f"({mem['state_bytes_after'] / 1e6:.2f} MB after {mem['env_steps']:,} more env steps); "
            f"traced allocations grew by {mem['traced_growth_bytes'] / 1e3:.1f} kB over those steps.",
        ]
    if result.skipped:
        lines += [""] + [f"Not measured: {section}." for section in result.skipped]
    if result.targets:
        lines += ["", "| target | measured here | met |", "|---|---|---|"]
        lines += [
            f"| {target} | {measured} | {'yes' if met else '**no**'} |" for target, measured, met in result.targets
        ]
    return "\n".join(lines)
