"""``exec:COMMAND`` agents: the example clients play in lock-step and in real time, and a bad client cannot
hurt the run (each way of breaking the protocol is one case: a one-line error naming the agent and what it
sent, the seat left to the rules, no process left behind)."""

import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from war_env.agents import ExecAgent, make_agent
from war_env.agents.exec_agent import STDERR_BYTES, program_argv
from war_env.core.rules import WarConfig
from war_env.evaluation import play_rounds

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
SHORT = WarConfig(target_points=8)
SEEDS = [0, 1, 2]


def python_example() -> str:
    return f"exec:{sys.executable} {EXAMPLES / 'python_agent.py'}"


def node_example() -> str:
    return f"exec:node {EXAMPLES / 'node_agent.js'}"


needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="Node.js (node) is not installed")


@pytest.mark.parametrize("spec", [python_example, pytest.param(node_example, marks=needs_node)])
def test_an_example_client_presses_once_per_turn_as_prompt_does_in_lock_step(spec):
    played = play_rounds(spec(), "human", SHORT, SEEDS)
    expected = play_rounds("prompt", "human", SHORT, SEEDS, agent_spec=spec())
    assert played == expected
    assert all(record.agent_error is None for record in played)


@pytest.mark.parametrize("spec", [python_example, pytest.param(node_example, marks=needs_node)])
def test_an_example_client_plays_in_real_time_and_its_compute_time_is_recorded(spec):
    played = play_rounds(spec(), "instant", SHORT, SEEDS[:2], realtime=0.02)
    for record in played:
        assert record.agent_error is None and not record.takeover[0]
        assert len(record.compute_seconds) == len(record.compute_ticks) > 0
        assert sorted(record.compute_ticks)[len(record.compute_ticks) // 2] == 0  # a pipe round trip: < 20 ms


def test_python_in_a_command_is_the_interpreter_that_runs_it_whatever_path_holds(monkeypatch, tmp_path):
    """As the docs and examples write it: ``exec:python examples/python_agent.py``, on a machine whose PATH
    has no ``python`` (only ``python3``, or nothing at all)."""
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty folder: no program at all
    spec = f"exec:python {EXAMPLES / 'python_agent.py'}"
    played = play_rounds(spec, "human", SHORT, SEEDS[:1])
    assert played == play_rounds("prompt", "human", SHORT, SEEDS[:1], agent_spec=spec)
    assert played[0].agent_error is None
    command = ["python3", "agent.py"]
    assert program_argv(command) == command  # any other program runs as written


def test_an_action_written_as_an_integral_float_is_that_action(tmp_path):
    """Some JSON writers spell every number with a point (jq, JSON.NET): 1.0 draws and 0.0 waits."""
    path = tmp_path / "floats.py"
    path.write_text(
        HELLO + "for line in sys.stdin:\n    message = json.loads(line)\n"
        "    if message['type'] == 'observation':\n"
        "        print(json.dumps({'action': float(message['observation'][0] > 0.5)}), flush=True)\n"
    )
    spec = f"exec:{sys.executable} {path}"
    played = play_rounds(spec, "human", SHORT, SEEDS[:2])
    assert all(record.agent_error is None for record in played)
    assert played == play_rounds("prompt", "human", SHORT, SEEDS[:2], agent_spec=spec)


# --- bad clients -------------------------------------------------------------------------------------
HELLO = 'import json, sys, time\nline = sys.stdin.readline()\nprint(json.dumps({"type": "hello"}), flush=True)\n'
ON_OBSERVATION = HELLO + "for line in sys.stdin:\n    if json.loads(line)['type'] == 'observation':\n"

BAD_CLIENTS = {
    "malformed": ("print('not json', flush=True)", "sent a line that is not JSON; it sent 'not json'"),
    "oversized": ("print('x' * 100000, flush=True)", "sent a line longer than 4096 bytes; it sent 'xxxx"),
    "action outside {0, 1}": ("print(json.dumps({'action': 2}), flush=True)", "answered without an action 0 or 1"),
    "a bool for an action": ("print(json.dumps({'action': True}), flush=True)", "it sent '{\"action\": true}'"),
    "a fraction for an action": ("print(json.dumps({'action': 0.5}), flush=True)", "it sent '{\"action\": 0.5}'"),
    "no answer": ("time.sleep(60)", "did not answer an observation by its deadline"),
    "crash": ("sys.exit(3)", "ended its output (it exited with status 3)"),
    # The flood is one write: printed line by line (PYTHONUNBUFFERED=1), a client preempted after every line by
    # the agent it woke is, in lock-step, indistinguishable from one answering each observation in time.
    "flood": (
        "sys.stdout.write((json.dumps({'action': 0}) + '\\n') * 10000); sys.stdout.flush()",
        "sent more than the one line asked for",
    ),
}


def bad_client(tmp_path: Path, body: str) -> str:
    path = tmp_path / "client.py"
    path.write_text(ON_OBSERVATION + textwrap.indent(body, " " * 8) + "\n")
    return f"{sys.executable} {path}"


@pytest.mark.parametrize("case", sorted(BAD_CLIENTS))
def test_a_bad_client_gets_a_one_line_error_and_its_seat_is_left_to_the_rules(case, tmp_path, capfd):
    body, expected = BAD_CLIENTS[case]
    agent = ExecAgent(bad_client(tmp_path, body), config=SHORT, deadline=2.0)  # only the silent client waits it out
    records = play_rounds(agent, "instant", SHORT, SEEDS[:2])
    for record in records:
        assert expected in record.agent_error and agent.spec() in record.agent_error
        assert "\n" not in record.agent_error
        assert record.takeover[0]  # it waited from its first decision on: the turn timer took the seat over
    printed = capfd.readouterr().err
    assert printed.count(records[0].agent_error) == 1  # the same error, twice in the records, printed once
    agent.close()


def test_a_client_that_never_reads_is_given_up_at_the_deadline(tmp_path):
    path = tmp_path / "deaf.py"
    path.write_text('import json, time\nprint(json.dumps({"type": "hello"}), flush=True)\ntime.sleep(60)\n')
    agent = ExecAgent(f"{sys.executable} {path}", config=SHORT, deadline=0.2)
    started = time.monotonic()
    [record] = play_rounds(agent, "instant", SHORT, [0])
    assert time.monotonic() - started < 5
    assert "did not answer an observation by its deadline" in record.agent_error
    agent.close()


def test_a_client_that_dies_in_one_round_plays_the_next_round_anew(tmp_path):
    marker = tmp_path / "crashed-once"
    body = (
        f"import pathlib\nm = pathlib.Path({str(marker)!r})\nif not m.exists():\n    m.touch(); sys.exit(1)\n"
        "print(json.dumps({'action': int(json.loads(line)['observation'][0] > 0.5)}), flush=True)"
    )
    agent = ExecAgent(bad_client(tmp_path, body), config=SHORT, deadline=5.0)  # roomy: the second round must answer
    first, second = play_rounds(agent, "human", SHORT, SEEDS[:2])
    assert "exited with status 1" in first.agent_error and first.takeover[0]
    assert second.agent_error is None
    assert (
        second == play_rounds("eager", "human", SHORT, SEEDS[1:2], indices=[1], agent_spec=agent.spec())[0]
        or not second.takeover[0]
    )
    agent.close()


def spawner(tmp_path: Path, *, new_session: bool, exits_on_close: bool) -> tuple[str, Path]:
    """A client that starts ``sleep 60`` (in a session of its own if ``new_session``, out of the reach of
    ``killpg``) and writes its pid to a file; then it sleeps, or it exits when told to close."""
    child_pid_file = tmp_path / "child.pid"
    path = tmp_path / "spawner.py"
    then = "sys.stdin.readline()\n" if exits_on_close else "time.sleep(60)\n"
    path.write_text(
        HELLO.replace("import json, sys, time", "import json, subprocess, sys, time")
        + f"child = subprocess.Popen(['sleep', '60'], start_new_session={new_session})\n"
        f"open({str(child_pid_file)!r}, 'w').write(str(child.pid))\n" + then
    )
    return f"{sys.executable} {path}", child_pid_file


def _read_pid(path: Path) -> int:
    for _ in range(200):
        if path.exists() and path.read_text():
            return int(path.read_text())
        time.sleep(0.05)
    raise AssertionError(f"{path} was not written")


@pytest.mark.parametrize("new_session", [False, True], ids=["same group", "setsid"])
@pytest.mark.parametrize("exits_on_close", [False, True], ids=["killed", "exits on close"])
def test_no_process_of_a_client_outlives_it(tmp_path, new_session, exits_on_close):
    command, child_pid_file = spawner(tmp_path, new_session=new_session, exits_on_close=exits_on_close)
    agent = ExecAgent(command, config=SHORT, deadline=0.2)
    pids = [agent.process.pid, _read_pid(child_pid_file)]
    agent.close()
    for pid in pids:
        assert _dies_soon(pid), f"process {pid} outlived the agent"


def test_no_process_of_a_client_outlives_the_process_of_its_agent_killed_with_sigkill(tmp_path):
    """No clean-up code of a process killed with ``kill -9`` runs: the kernel tells the keeper, which
    sweeps the tree (the grandchild here is in the client's group, which no one kills any more)."""
    command, child_pid_file = spawner(tmp_path, new_session=False, exits_on_close=False)
    host = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\nfrom war_env.agents import ExecAgent\n"
            f"agent = ExecAgent({command!r})\nprint('ready', flush=True)\ntime.sleep(60)\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert host.stdout.readline() == "ready\n"
        grandchild = _read_pid(child_pid_file)
    finally:
        host.kill()
        host.wait()
    assert _dies_soon(grandchild), f"the client's child {grandchild} outlived the killed process of its agent"


def test_what_a_client_writes_on_stderr_is_capped(tmp_path, capfd):
    path = tmp_path / "chatty.py"
    path.write_text(
        "import sys\nsys.stderr.write('x' * 3_000_000)\nsys.stderr.flush()\n" + HELLO + "sys.stdin.readline()\n"
    )
    agent = ExecAgent(f"{sys.executable} {path}", config=SHORT)
    agent.close()
    printed = capfd.readouterr().err
    assert printed.count("x") == STDERR_BYTES
    assert "the rest of this program's stderr is dropped" in printed


def _dies_soon(pid: int, seconds: float = 5.0) -> bool:
    """A SIGKILL is delivered at once, but a loaded machine may take a moment to end the process."""
    deadline = time.monotonic() + seconds
    while _alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as stat:  # a zombie (reaped by no one yet) is dead
        return stat.read().split()[2] != "Z"


def test_a_command_that_does_not_start_or_says_no_hello_is_refused_when_built():
    with pytest.raises(ValueError, match="cannot start 'no-such-program-war-env'"):
        make_agent("exec:no-such-program-war-env --flag")
    with pytest.raises(
        ValueError, match=r"agent 'exec:true' (ended its output|closed its input) \(it exited with status 0\)"
    ):
        make_agent("exec:true")
    with pytest.raises(ValueError, match="needs a command after 'exec:'"):
        make_agent("exec:")


def test_a_client_whose_input_is_full_is_given_up_at_the_deadline_of_the_write(tmp_path):
    path = tmp_path / "deaf.py"
    path.write_text(
        'import json, sys, time\nsys.stdin.readline()\nprint(json.dumps({"type": "hello"}), flush=True)\n'
        "time.sleep(60)\n"
    )
    agent = ExecAgent(f"{sys.executable} {path}", config=SHORT, deadline=0.3)
    agent.reset(seed=0)
    started = time.monotonic()
    assert agent.act([0.5] * 200_000) == 0  # a line of megabytes: more than a pipe holds, and nobody reads it
    assert time.monotonic() - started < 5
    assert "stopped reading its input" in agent.round_error()
    agent.close()


def test_output_that_comes_after_the_answer_is_caught_before_the_next_question(tmp_path):
    body = "print(json.dumps({'action': 0}), flush=True); time.sleep(0.05); print('late', flush=True)"
    agent = ExecAgent(bad_client(tmp_path, body), config=SHORT, deadline=5.0)
    agent.reset(seed=0)
    assert agent.act([0.0] * 16) == 0 and agent.round_error() is None
    time.sleep(0.5)
    agent.act([0.0] * 16)
    assert "sent more than the one line asked for; it sent 'late" in agent.round_error()
    agent.close()


@pytest.mark.slow
def test_no_client_outlives_a_league_played_by_worker_processes(tmp_path):
    from war_env.league import run_league

    pids = tmp_path / "pids"
    client = tmp_path / "client.py"
    client.write_text(
        f"import os\nopen({str(pids)!r}, 'a').write(f'{{os.getpid()}}\\n')\n"
        + (EXAMPLES / "python_agent.py").read_text()
    )
    spec = f"exec:{sys.executable} {client}"
    run = run_league(
        [spec],
        ["instant", "human"],
        rounds=2,
        env_kwargs={"target_points": 8},
        out=tmp_path / "run",
        workers=2,
        shard_rounds=1,
        progress=False,
    )
    assert run.rounds_played == 2 * 2 * 2  # the oracle and the client, against two opponents
    started = [int(pid) for pid in pids.read_text().split()]
    assert len(started) >= 5  # the check of the spec, then one per shard
    assert all(_dies_soon(pid) for pid in started)


def test_an_exec_client_can_play_seat_1_in_lock_step():
    played = play_rounds("prompt", python_example(), SHORT, SEEDS)
    assert played == play_rounds("prompt", "prompt", SHORT, SEEDS, opponent_spec=python_example())
