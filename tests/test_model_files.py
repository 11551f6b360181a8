"""Loading SB3 model files without running code from them (agents/model_files.py, agents/sb3_agent.py).

An SB3 zip's ``data`` entry holds cloudpickled objects that ``PPO.load`` unpickles. The tests plant
a payload whose unpickling creates a marker file, prove that SB3's full load really runs it (so the
payload is live), and then that ``load_sb3_agent`` loads the same file without running it.
"""

from __future__ import annotations

import base64
import io
import json
import pathlib
import pickle
import re
import zipfile

import gymnasium as gym
import numpy as np
import pytest
import torch

import war_env  # noqa: F401
from war_env.agents.algorithms import build_model, check_algorithm
from war_env.agents.model_files import METADATA_NAME, read_metadata, save_model
from war_env.agents.sb3_agent import load_sb3_agent
from war_env.core.observation import INDEX

torch.set_num_threads(1)


class TouchOnUnpickle:
    """Unpickling this object creates ``marker``: what a hostile model file could do."""

    def __init__(self, marker: pathlib.Path):
        self.marker = marker

    def __reduce__(self):
        return (pathlib.Path.touch, (pathlib.Path(self.marker),))


def _small_model(algo: str):
    hyperparameters = {"dqn": {"buffer_size": 100, "learning_starts": 0}, "a2c": {"n_steps": 16}}.get(
        algo, {"n_steps": 16, "batch_size": 16}
    )
    return build_model(
        algo,
        gym.make("War-v0"),
        {"net_arch": [8, 8]} if algo == "dqn" else {"net_arch": {"pi": [8], "vf": [8]}},
        hyperparameters,
        seed=0,
    )


@pytest.fixture(scope="module")
def saved_ppo(tmp_path_factory):
    model = _small_model("ppo")
    path = tmp_path_factory.mktemp("models") / "ppo.zip"
    save_model(model, path, "ppo", {"net_arch": {"pi": [8], "vf": [8]}})
    return model, path


def _rewrite_zip(source: pathlib.Path, target: pathlib.Path, replace: dict[str, bytes]) -> None:
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w") as new:
        for name in old.namelist():
            new.writestr(name, replace.get(name, old.read(name)))
        for name, payload in replace.items():
            if name not in old.namelist():
                new.writestr(name, payload)


def _plant_in_data(source: pathlib.Path, target: pathlib.Path, marker: pathlib.Path) -> None:
    with zipfile.ZipFile(source) as archive:
        data = json.loads(archive.read("data"))
    data["planted"] = {
        ":type:": "<class 'object'>",
        ":serialized:": base64.b64encode(pickle.dumps(TouchOnUnpickle(marker))).decode(),
    }
    _rewrite_zip(source, target, {"data": json.dumps(data).encode()})


def test_a_saved_model_records_how_to_rebuild_it_in_plain_json(saved_ppo):
    model, path = saved_ppo
    metadata = read_metadata(path)
    assert metadata["algorithm"] == "ppo"
    assert metadata["policy_kwargs"] == {"net_arch": {"pi": [8], "vf": [8]}, "activation_fn": "tanh"}
    assert metadata["observation_fields"] == list(INDEX)


def test_the_loaded_agent_acts_exactly_like_the_saved_model(saved_ppo):
    model, path = saved_ppo
    agent = load_sb3_agent("ppo", str(path))
    observations = np.random.default_rng(0).random((50, len(INDEX)), dtype=np.float32)
    expected, _ = model.predict(observations, deterministic=True)
    actions, _ = agent.predict(observations)
    assert np.array_equal(actions, expected)
    assert [agent.act(row) for row in observations[:5]] == list(expected[:5])
    assert agent.spec() == f"ppo:{path}"


def test_a_payload_in_data_runs_under_sb3_load_but_not_under_load_sb3_agent(saved_ppo, tmp_path):
    from stable_baselines3 import PPO

    _, path = saved_ppo
    planted, marker = tmp_path / "planted.zip", tmp_path / "marker"
    _plant_in_data(path, planted, marker)

    load_sb3_agent("ppo", str(planted))  # weights only: the file's data is never unpickled
    assert not marker.exists()

    PPO.load(str(planted), device="cpu")  # the control: SB3's full load runs the payload
    assert marker.exists()


def test_trust_model_file_opts_in_to_the_full_sb3_load(saved_ppo, tmp_path):
    _, path = saved_ppo
    planted, marker = tmp_path / "planted.zip", tmp_path / "marker"
    _plant_in_data(path, planted, marker)
    agent = load_sb3_agent("ppo", str(planted), trust_model_file=True)
    assert marker.exists()
    assert agent.act(np.zeros(len(INDEX), np.float32)) in (0, 1)


def test_a_payload_in_the_weights_is_refused_without_running_it(saved_ppo, tmp_path):
    _, path = saved_ppo
    planted, marker = tmp_path / "planted.zip", tmp_path / "marker"
    _rewrite_zip(path, planted, {"policy.pth": pickle.dumps(TouchOnUnpickle(marker))})
    with pytest.raises(ValueError, match="does not fit"):
        load_sb3_agent("ppo", str(planted))
    assert not marker.exists()


def test_an_unexpected_weights_entry_is_refused(saved_ppo, tmp_path):
    _, path = saved_ppo
    planted = tmp_path / "extra.zip"
    buffer = __import__("io").BytesIO()
    torch.save({"x": torch.zeros(1)}, buffer)
    _rewrite_zip(path, planted, {"exploit.pth": buffer.getvalue()})
    with pytest.raises(ValueError, match="does not fit"):
        load_sb3_agent("ppo", str(planted))


def test_a_model_of_another_algorithm_gets_a_clear_error(saved_ppo):
    _, path = saved_ppo
    with pytest.raises(ValueError, match="holds a 'ppo' model, not 'dqn'"):
        load_sb3_agent("dqn", str(path))


def test_a_plain_sb3_file_with_another_architecture_does_not_fit(tmp_path):
    model = _small_model("ppo")  # 8-unit layers; without our metadata the loader expects SB3's 64x64
    path = tmp_path / "plain.zip"
    model.save(path)
    with pytest.raises(ValueError, match="does not fit a ppo War policy built from SB3's default"):
        load_sb3_agent("ppo", str(path))


def test_a_plain_sb3_file_with_the_default_architecture_loads(tmp_path):
    model = build_model("ppo", gym.make("War-v0"), {}, {"n_steps": 16, "batch_size": 16})
    path = tmp_path / "plain.zip"
    model.save(path)
    assert read_metadata(path) is None
    agent = load_sb3_agent("ppo", str(path))
    observations = np.random.default_rng(1).random((20, len(INDEX)), dtype=np.float32)
    assert np.array_equal(agent.predict(observations)[0], model.predict(observations, deterministic=True)[0])


def test_bad_files_and_names_get_clear_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        load_sb3_agent("ppo", str(tmp_path / "missing.zip"))
    text = tmp_path / "model.zip"
    text.write_text("not a zip")
    with pytest.raises(ValueError, match="not a zip file"):
        load_sb3_agent("ppo", str(text))
    with pytest.raises(ValueError, match="unknown algorithm 'sac'"):
        load_sb3_agent("sac", str(text))
    with pytest.raises(ValueError, match="unknown algorithm 'ppoo'.*did you mean 'ppo'"):
        load_sb3_agent("ppoo", str(text))
    assert check_algorithm("MaskablePPO") == "maskable_ppo"


def test_unreadable_metadata_is_refused(saved_ppo, tmp_path):
    _, path = saved_ppo
    broken = tmp_path / "broken.zip"
    _rewrite_zip(path, broken, {METADATA_NAME: b"{not json"})
    with pytest.raises(ValueError, match="unreadable"):
        load_sb3_agent("ppo", str(broken))


@pytest.mark.parametrize(
    "field, value",
    [("frame_stack", int("9" * 4299)), ("frame_stack", "x" * 100_000), ("env_id", ["War-v0"] * 10_000)],
)
def test_a_huge_metadata_value_is_refused_in_one_short_line_naming_its_field(saved_ppo, tmp_path, field, value):
    """A 4,299-digit number (the longest JSON parses) or a long text: the refusal shows the start of it."""
    _, path = saved_ppo
    forged = tmp_path / "forged.zip"
    _rewrite_zip(path, forged, {METADATA_NAME: json.dumps({**read_metadata(path), field: value}).encode()})
    with pytest.raises(ValueError) as refused:
        load_sb3_agent("ppo", str(forged))
    message = str(refused.value)
    assert f"{field} must be" in message and "characters)" in message
    assert "\n" not in message and len(message) < 300


@pytest.mark.parametrize("algo", ["a2c", "dqn", "maskable_ppo"])
def test_every_algorithm_round_trips(algo, tmp_path):
    model = _small_model(algo)
    kwargs = {"net_arch": [8, 8]} if algo == "dqn" else {"net_arch": {"pi": [8], "vf": [8]}}
    path = save_model(model, tmp_path / f"{algo}.zip", algo, kwargs)
    agent = load_sb3_agent(algo, str(path))
    observations = np.random.default_rng(2).random((30, len(INDEX)), dtype=np.float32)
    if algo == "maskable_ppo":
        masks = np.stack([np.ones(30, bool), observations[:, INDEX["can_draw"]] > 0.5], axis=1)
        expected, _ = model.predict(observations, deterministic=True, action_masks=masks)
    else:
        expected, _ = model.predict(observations, deterministic=True)
    assert np.array_equal(agent.predict(observations)[0], expected)


def test_maskable_agent_never_draws_out_of_turn(tmp_path):
    model = _small_model("maskable_ppo")
    path = save_model(model, tmp_path / "m.zip", "maskable_ppo", {"net_arch": {"pi": [8], "vf": [8]}})
    agent = load_sb3_agent("maskable_ppo", str(path))
    observations = np.random.default_rng(3).random((200, len(INDEX)), dtype=np.float32)
    observations[:, INDEX["can_draw"]] = 0.0
    assert not agent.predict(observations)[0].any()


@pytest.mark.parametrize("activation", ["tanh", "relu", "elu", "leaky_relu"])
def test_the_fast_numpy_forward_pass_equals_sb3_predict(activation, tmp_path):
    kwargs = {"net_arch": {"pi": [32, 32], "vf": [8]}, "activation_fn": activation}
    model = build_model("ppo", gym.make("War-v0"), kwargs, {"n_steps": 16, "batch_size": 16}, seed=4)
    agent = load_sb3_agent("ppo", str(save_model(model, tmp_path / "m.zip", "ppo", kwargs)))
    assert agent._layers is not None  # the numpy path is the one under test
    observations = np.random.default_rng(4).random((500, len(INDEX)), dtype=np.float32)
    assert np.array_equal(agent.predict(observations)[0], model.predict(observations, deterministic=True)[0])


def test_stochastic_play_is_reproducible_from_the_round_seed(saved_ppo):
    _, path = saved_ppo
    agent = load_sb3_agent("ppo", str(path), deterministic=False)
    observation = np.full(len(INDEX), 0.5, np.float32)
    agent.reset(seed=1)
    first = [agent.act(observation) for _ in range(40)]
    agent.reset(seed=1)
    assert [agent.act(observation) for _ in range(40)] == first
    assert set(first) == {0, 1}  # an untrained policy is close to 50/50


def test_a_policy_trained_on_some_fields_gets_those_fields_from_the_full_observation(tmp_path):
    from war_env.agents.fields import TIMING_FIELDS, select_observation

    env = select_observation(gym.make("War-v0"), "timing")
    assert env.observation_space.shape == (len(TIMING_FIELDS),)
    model = build_model("a2c", env, {"net_arch": {"pi": [8], "vf": [8]}}, {"n_steps": 8}, seed=5)
    path = save_model(model, tmp_path / "timing.zip", "a2c", {"net_arch": {"pi": [8], "vf": [8]}}, observation="timing")
    assert read_metadata(path)["observation_fields"] == list(TIMING_FIELDS)
    agent = load_sb3_agent("a2c", str(path))
    full = np.random.default_rng(5).random((200, len(INDEX)), dtype=np.float32)
    columns = [INDEX[name] for name in TIMING_FIELDS]
    assert np.array_equal(agent.predict(full)[0], model.predict(full[:, columns], deterministic=True)[0])


@pytest.mark.parametrize(
    "fields, message",
    [
        (["can_draw", "pile"], r"unknown observation field\(s\) \['pile'\]"),
        ([], "non-empty list"),
        (["can_draw", "can_draw"], "must not repeat"),
    ],
)
def test_bad_observation_fields_get_clear_errors(fields, message):
    from war_env.agents.fields import check_observation_fields

    with pytest.raises(ValueError, match=message):
        check_observation_fields(fields)


# --- bounded resources: a small file cannot make the loader inflate, allocate or play garbage ------------
def _with_policy_tensors(source: pathlib.Path, target: pathlib.Path, change) -> None:
    """Rewrite ``policy.pth`` of ``source`` after ``change(state_dict)``."""

    with zipfile.ZipFile(source) as archive:
        state = torch.load(io.BytesIO(archive.read("policy.pth")), weights_only=True)
    change(state)
    buffer = io.BytesIO()
    torch.save(state, buffer)
    _rewrite_zip(source, target, {"policy.pth": buffer.getvalue()})


def test_an_entry_that_inflates_past_the_cap_is_refused_from_the_zip_directory(saved_ppo, tmp_path, monkeypatch):
    from war_env.agents.model_files import MAX_ENTRY_BYTES

    _, path = saved_ppo
    bomb = tmp_path / "bomb.zip"
    _rewrite_zip(path, bomb, {})
    with (
        zipfile.ZipFile(bomb, "a", compression=zipfile.ZIP_DEFLATED) as archive,
        archive.open("padding.pth", "w", force_zip64=True) as entry,
    ):
        chunk = bytes(1 << 20)
        for _ in range(MAX_ENTRY_BYTES // len(chunk) + 1):
            entry.write(chunk)
    assert bomb.stat().st_size < MAX_ENTRY_BYTES // 100  # a small file on disk
    opened = []
    open_entry = zipfile.ZipFile.open
    monkeypatch.setattr(
        zipfile.ZipFile, "open", lambda self, name, *a, **k: opened.append(name) or open_entry(self, name, *a, **k)
    )
    with pytest.raises(ValueError, match="'padding.pth' inflates to 269,484,032 bytes; at most"):
        load_sb3_agent("ppo", str(bomb))
    assert "padding.pth" not in [getattr(name, "filename", name) for name in opened]  # refused before inflating


def test_a_huge_metadata_entry_is_refused_before_it_is_read(saved_ppo, tmp_path):
    _, path = saved_ppo
    with zipfile.ZipFile(path) as archive:
        record = json.loads(archive.read(METADATA_NAME))
    record["padding"] = " " * (2 << 20)
    padded = tmp_path / "padded.zip"
    _rewrite_zip(path, padded, {METADATA_NAME: json.dumps(record).encode()})
    with pytest.raises(ValueError, match=f"'{METADATA_NAME}' inflates to .* bytes; at most 1,048,576"):
        read_metadata(padded)


@pytest.mark.parametrize(
    "net_arch, message",
    [
        ({"pi": [60000, 60000], "vf": [8]}, "make a network of 3,601,.* parameters; at most 10,000,000"),
        ({"pi": [1] * 200, "vf": [8]}, "200 layers; at most 32"),
        ({"pi": [1000, 1000], "vf": [8]}, "needs 4,0.* bytes of weights, the file's policy.pth holds"),
    ],
)
def test_an_architecture_larger_than_the_weights_in_the_file_is_refused_before_it_is_built(
    saved_ppo, tmp_path, net_arch, message
):
    _, path = saved_ppo
    with zipfile.ZipFile(path) as archive:
        record = json.loads(archive.read(METADATA_NAME))
    record["policy_kwargs"]["net_arch"] = net_arch
    inflated = tmp_path / "inflated.zip"
    _rewrite_zip(path, inflated, {METADATA_NAME: json.dumps(record).encode()})
    with pytest.raises(ValueError, match=message):
        load_sb3_agent("ppo", str(inflated))


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda state: state["action_net.weight"].__setitem__((0, 0), float("nan")), "action_net.weight holds NaN"),
        (lambda state: state["mlp_extractor.policy_net.0.bias"].__setitem__(0, float("inf")), "holds NaN or infinite"),
        (
            lambda state: state.__setitem__("action_net.bias", state["action_net.bias"].double()),
            "action_net.bias is torch.float64, not torch.float32",
        ),
    ],
)
def test_weights_that_are_not_finite_float32_are_refused_naming_the_file(saved_ppo, tmp_path, change, message):
    _, path = saved_ppo
    broken = tmp_path / "broken.zip"
    _with_policy_tensors(path, broken, change)
    with pytest.raises(ValueError, match=f"model file '{broken}': policy.pth: .*{message}"):
        load_sb3_agent("ppo", str(broken))


def test_the_opt_in_full_load_refuses_a_nan_network_too(saved_ppo, tmp_path):
    _, path = saved_ppo  # (SB3 copies the tensors into its float32 network, so only the values can be checked)
    broken = tmp_path / "broken.zip"
    _with_policy_tensors(path, broken, lambda state: state["action_net.weight"].__setitem__((0, 0), float("nan")))
    with pytest.raises(ValueError, match="action_net.weight holds NaN"):
        load_sb3_agent("ppo", str(broken), trust_model_file=True)


def test_a_truncated_model_file_is_named_as_such(saved_ppo, tmp_path):
    _, path = saved_ppo
    cut = tmp_path / "cut.zip"
    cut.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    with pytest.raises(ValueError, match="not a zip file, or a truncated one"):
        load_sb3_agent("ppo", str(cut))


# --- crafted files: refused within a memory bound, in a process of their own ------------------------------
def _zip_by_hand(entries: dict[str, bytes | int | tuple]) -> bytes:
    """A zip whose entries are stored bytes, (an int) that many zero bytes deflated, or (a tuple
    ``(bytes,)``) bytes deflated once and reused for every entry that names the same bytes. Deflating
    gigabytes takes seconds per GiB: every MiB of zeros after a full flush deflates to the same bytes, so
    the stream of zeros is those bytes repeated, and writing it costs the CRC."""
    import functools
    import struct
    import zlib

    chunk = bytes(1 << 20)
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = compressor.compress(chunk) + compressor.flush(zlib.Z_FULL_FLUSH)
    end = compressor.flush()

    @functools.cache
    def deflated(content: bytes) -> bytes:
        squeeze = zlib.compressobj(1, zlib.DEFLATED, -15)
        return squeeze.compress(content) + squeeze.flush()

    body, directory = b"", b""
    for name, content in entries.items():
        if isinstance(content, int):
            method, size, data, crc = 8, content, block * (content >> 20) + end, 0
            for _ in range(content >> 20):
                crc = zlib.crc32(chunk, crc)
        elif isinstance(content, tuple):
            method, size, data, crc = 8, len(content[0]), deflated(content[0]), zlib.crc32(content[0])
        else:
            method, size, data, crc = 0, len(content), content, zlib.crc32(content)
        fields = (method, 0, 0x21, crc, len(data), size, len(name.encode()))
        directory += struct.pack("<4s6H3L5H2L", b"PK\x01\x02", 20, 20, 0, *fields, 0, 0, 0, 0, 0, len(body))
        directory += name.encode()
        body += struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, 0, *fields, 0) + name.encode() + data
    count = len(entries)
    return body + directory + struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, count, count, len(directory), len(body), 0)


def _entries(path: pathlib.Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def _strided(size: int):
    """policy.pth whose action_net.weight is one float seen as a size x size matrix (stride 0)."""

    def craft(entries):
        state = torch.load(io.BytesIO(entries["policy.pth"]), weights_only=True)
        state["action_net.weight"] = torch.zeros(1).as_strided((size, size), (0, 0))
        buffer = io.BytesIO()
        torch.save(state, buffer)
        return {**entries, "policy.pth": buffer.getvalue()}

    return craft


def _inner_deflated_record(entries):
    """policy.pth's first storage record replaced by 1 GiB of deflated zeros (1 MB in the file)."""
    with zipfile.ZipFile(io.BytesIO(entries["policy.pth"])) as inner:
        records = {name: inner.read(name) for name in inner.namelist()}
    first = next(name for name in records if name.endswith("/data/0"))
    return {**entries, "policy.pth": _zip_by_hand({**records, first: 1 << 30})}


def _ten_large_entries(entries):
    """Ten more weights entries, each a torch file of 200 MB of float32 zeros (deflated: 2 MB on disk)."""
    buffer = io.BytesIO()
    torch.save({"padding": torch.zeros(50_000_000)}, buffer)
    weights = (buffer.getvalue(),)
    return {**entries, **{f"padding{i}.pth": weights for i in range(10)}}


def _nested_metadata(entries):
    return {**entries, METADATA_NAME: b"[" * 100_000 + b"]" * 100_000}


def _self_referencing(entry: str):
    """``entry``'s data.pkl a list that holds itself 500,000 times (1 MB of pickle; issue 31: 3.4 GB and 38 s
    before the walk of its containers refused it)."""

    def craft(entries):
        pickled = b"\x80\x02]q\x00(" + b"h\x00" * 500_000 + b"e."
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as inner:
            inner.writestr("archive/data.pkl", pickled)
        return {**entries, entry: buffer.getvalue()}

    return craft


def _memo_index(index: int):
    """policy.pth's data.pkl replaced by 10 bytes that store one memo entry at ``index`` (``LONG_BINPUT``), beside
    its storage records of the network's size: the unpickler grows its memo array to ``index`` entries (2^27:
    2.3 GB and 35 s before the opcodes were checked)."""

    def craft(entries):
        with zipfile.ZipFile(io.BytesIO(entries["policy.pth"])) as inner:
            records = {name: inner.read(name) for name in inner.namelist()}
        pickle_name = next(name for name in records if name.endswith("data.pkl"))
        records[pickle_name] = b"\x80\x02Nr" + index.to_bytes(4, "little") + b"."
        return {**entries, "policy.pth": _zip_by_hand(records)}

    return craft


def _huge_integer_metadata(entries):
    """A 5,000-digit number in war_env_model.json: more digits than Python converts (issue 31: an error
    that did not name the file)."""
    text = re.sub(rb'"num_timesteps": \d+', b'"num_timesteps": 1' + b"0" * 4999, entries[METADATA_NAME])
    return {**entries, METADATA_NAME: text}


LOAD = """
import sys
from war_env.agents.sb3_agent import load_sb3_agent
try:
    load_sb3_agent("ppo", sys.argv[1])
    status = 0
except ValueError as error:
    print(error)
    status = 3
peak = [line for line in open("/proc/self/status") if line.startswith("VmHWM:")][0].split()[1]
print(f"peak KiB {peak}")
sys.exit(status)
"""


def _load_in_a_process(path) -> tuple[int, float, str]:
    """Exit status, peak memory (MiB: the process's own high-water mark, not its parent's share, which
    getrusage would count) and output of a fresh Python that loads ``path``."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", LOAD, str(path)], capture_output=True, text=True, timeout=300)
    *lines, peak = done.stdout.strip().splitlines() or [""]
    if not peak.startswith("peak KiB "):
        return done.returncode, float("nan"), done.stdout + done.stderr
    return done.returncode, int(peak.split()[-1]) / 1024, "\n".join(lines) + done.stderr


@pytest.fixture(scope="module")
def loading_a_small_model(saved_ppo):
    """Peak memory (MiB) of a process that loads a small model: the libraries' share."""
    status, peak, output = _load_in_a_process(saved_ppo[1])
    assert status == 0, output
    return peak


@pytest.mark.slow
@pytest.mark.parametrize(
    "craft, message",
    [
        (
            _strided(30_000),
            r"policy.pth: a tensor of size \[30000, 30000\] and stride \[0, 0\] at offset 0 views "
            "900,000,000 elements of a storage of 1",
        ),
        (_strided(100_000), "views 10,000,000,000 elements of a storage of 1"),
        (_inner_deflated_record, "record 'archive/data/0' is compressed"),
        (_ten_large_entries, "its weights entries are .*'padding0'"),
        (_nested_metadata, f"unreadable {METADATA_NAME}: it nests deeper than Python parses"),
        (_self_referencing("policy.pth"), "crafted.zip': policy.pth: data.pkl holds more than 100,000 values"),
        (
            _self_referencing("policy.optimizer.pth"),
            "crafted.zip': policy.optimizer.pth: data.pkl holds more than 100,000 values",
        ),
        (_huge_integer_metadata, f"crafted.zip' has an unreadable {METADATA_NAME}: Exceeds the limit"),
        (_memo_index(2**27), "crafted.zip': policy.pth: data.pkl: memo entry 134,217,728 stored at byte 3 after 0"),
        (_memo_index(2**31), "crafted.zip': policy.pth: data.pkl: memo entry 2,147,483,648 stored at byte 3 after 0"),
    ],
    ids=[
        "stride-0 30000x30000",
        "stride-0 100000x100000",
        "inner 1 GiB deflated record",
        "ten 200 MB entries",
        "nested metadata",
        "self-referencing policy",
        "self-referencing optimizer",
        "5000-digit metadata",
        "memo index 2^27",
        "memo index 2^31",
    ],
)
def test_a_crafted_model_file_is_refused_in_one_line_within_the_memory_bound(
    saved_ppo, loading_a_small_model, tmp_path, craft, message
):

    from war_env.agents.model_files import MAX_LOAD_BYTES

    crafted = tmp_path / "crafted.zip"
    crafted.write_bytes(_zip_by_hand(craft(_entries(saved_ppo[1]))))
    status, peak, output = _load_in_a_process(crafted)
    assert status == 3 and len(output.strip().splitlines()) == 1 and re.search(message, output), output[-2000:]
    assert peak - loading_a_small_model < MAX_LOAD_BYTES / 2**20, f"{peak:.0f} MiB"


@pytest.mark.slow
def test_the_largest_network_allowed_loads_within_the_memory_bound(loading_a_small_model, tmp_path):
    from war_env.agents.algorithms import MAX_PARAMETERS, network_parameters
    from war_env.agents.model_files import MAX_LOAD_BYTES
    from war_env.core.observation import OBSERVATION_SIZE

    arch = {"pi": [2200, 2200], "vf": [2200, 2200]}
    assert 0.95 * MAX_PARAMETERS < network_parameters("ppo", {"net_arch": arch}, OBSERVATION_SIZE) <= MAX_PARAMETERS
    model = build_model(
        "ppo", gym.make("War-v0"), {"net_arch": arch}, {"n_steps": 16, "batch_size": 16, "n_epochs": 1}, seed=0
    )
    model.learn(16)  # Adam's moments are in the file, as in every checkpoint
    path = save_model(model, tmp_path / "largest.zip", "ppo", {"net_arch": arch})
    status, peak, output = _load_in_a_process(path)
    assert status == 0, output
    assert peak - loading_a_small_model < MAX_LOAD_BYTES / 2**20, f"{peak:.0f} MiB"
