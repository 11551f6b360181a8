"""war-bench on a real Ray cluster of two nodes, each started with ``ray start`` on this machine (a head
and a worker node with one CPU each): the worker node is killed in the middle of a league, and the league
completes on the head with the results of a run nobody disturbed."""

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from war_env.league import ROUNDS_FILE, read_rounds, run_league

pytest.importorskip("ray")
RAY = Path(sys.executable).parent / "ray"
LEAGUE = ["--agents", "random:p=0.2", "--opponents", "human", "--rounds", "600", "--seed", "5"]


def _free_ports(count: int) -> list[int]:
    sockets = [socket.socket() for _ in range(count)]
    for sock in sockets:
        sock.bind(("127.0.0.1", 0))
    ports = [sock.getsockname()[1] for sock in sockets]
    for sock in sockets:
        sock.close()
    return ports


class Node:
    """One ``ray start`` in a process group of its own: its raylet and agents, and the workers its raylet
    starts for tasks (in groups of their own). Killing them all is what a lost machine does."""

    def __init__(self, arguments: list[str], env: dict, log: Path):
        self.process = subprocess.Popen(
            [str(RAY), "start", *arguments, "--disable-usage-stats"],
            env=env,
            stdout=log.open("w"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        if self.process.wait(timeout=120) != 0:
            raise RuntimeError(f"ray start failed: {log.read_text()[-2000:]}")

    def processes(self) -> list[str]:
        """``pid command`` of the node's processes that are still alive."""
        group = _pgrep("-g", str(self.process.pid))
        workers = _pgrep("-P", ",".join(pid for pid, _ in group)) if group else []
        return [f"{pid} {command}" for pid, command in group + workers if not _is_zombie(pid)]

    def kill(self) -> None:
        for line in self.processes():
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(line.split()[0]), signal.SIGKILL)


def _pgrep(*selection: str) -> list[tuple[str, str]]:
    found = subprocess.run(["pgrep", "-a", *selection], capture_output=True, text=True).stdout
    return [tuple(line.split(" ", 1)) for line in found.splitlines()]


def _is_zombie(pid: str) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True  # gone


@pytest.fixture
def cluster():
    """A head and a worker node on this machine, in a temporary folder with a home of their own (so no
    ``~/.ray`` of the user's decides how the nodes authenticate), on ports nobody else uses. The folder is
    removed afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="ray", dir="/tmp"))  # short: Ray's socket paths have a length limit
    (folder / "home").mkdir()
    # a user's shell: no RAY_* variables (a Ray instance started earlier in this process sets some, such as
    # RAY_AUTH_MODE=token), and a home of the nodes' own
    env = {name: value for name, value in os.environ.items() if not name.startswith("RAY_")}
    env["HOME"] = str(folder / "home")
    gcs, client, dashboard, head_agent, worker_agent = _free_ports(5)
    common = ["--num-cpus=1", f"--temp-dir={folder}", "--node-ip-address=127.0.0.1"]
    nodes = []
    try:
        nodes.append(
            Node(
                [
                    "--head",
                    f"--port={gcs}",
                    f"--ray-client-server-port={client}",
                    "--include-dashboard=false",
                    f"--dashboard-port={dashboard}",
                    f"--dashboard-agent-listen-port={head_agent}",
                    *common,
                ],
                env,
                folder / "head.log",
            )
        )
        nodes.append(
            Node(
                [f"--address=127.0.0.1:{gcs}", f"--dashboard-agent-listen-port={worker_agent}", *common],
                env,
                folder / "worker.log",
            )
        )
        yield f"127.0.0.1:{gcs}", env, nodes[1]
    finally:
        for node in nodes:
            node.kill()
        shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.slow
def test_a_league_survives_the_loss_of_a_worker_node_with_the_results_of_an_undisturbed_run(cluster, tmp_path):
    address, env, worker_node = cluster
    run = tmp_path / "run"
    command = [
        sys.executable,
        "-m",
        "war_env.scripts.benchmark",
        *LEAGUE,
        "--shard-rounds",
        "50",
        "--workers",
        "2",
        "--backend",
        "ray",
        "--address",
        address,
        "--out",
        str(run),
        "--quiet",
    ]
    bench = subprocess.Popen(
        command,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        start_new_session=True,
    )
    try:
        log, killed, deadline = run / ROUNDS_FILE, False, time.monotonic() + 180
        while not killed and bench.poll() is None and time.monotonic() < deadline:
            busy = any("ray::_play_in_task" in line for line in worker_node.processes())
            if busy and log.exists() and sum(r.agent == "random:p=0.2" for r in read_rounds(log)) >= 50:
                worker_node.kill()  # in the middle of a shard on the worker node
                killed = True
            time.sleep(0.05)
        out, err = bench.communicate(timeout=180)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(bench.pid, signal.SIGKILL)
    assert killed, f"the league ended before the worker node ran a shard:\n{err[-2000:]}"
    assert bench.returncode == 0, err[-3000:]
    assert not worker_node.processes()
    whole = run_league(
        agents=["random:p=0.2"], opponents=["human"], rounds=600, seed=5, out=tmp_path / "whole", progress=False
    )
    assert (run / "results.json").read_bytes() == (whole.run_dir / "results.json").read_bytes()
    assert len(read_rounds(run / ROUNDS_FILE)) == 1200  # the oracle plays too; no round twice
