"""agents/pth_files.py: a torch.save file is checked from its opcodes, sizes and strides before anything is built.

A pickle's opcodes are walked first: a memo entry numbered out of sequence or a length past the end of the file is
refused in one line that names the file, before the unpickler allocates for it. The crafted model files that end up
here through a whole model zip are in tests/test_model_files.py (with the memory bound measured in a process)."""

from __future__ import annotations

import io
import pickle
import struct
import zipfile

import pytest
import torch

from war_env.agents.pth_files import check_pickle_opcodes, check_pth

WHERE = "model file 'x.zip': policy.pth"


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_what_a_pickler_writes_passes_at_every_protocol(protocol):
    shared = [1.5, "weight"]
    check_pickle_opcodes(pickle.dumps({"a": shared, "b": shared, "c": [shared, (2, 3)]}, protocol=protocol), WHERE)


def test_what_torch_save_writes_passes():
    buffer = io.BytesIO()
    torch.save({"layer.weight": torch.zeros(3, 2), "layer.bias": torch.ones(3)}, buffer)
    with zipfile.ZipFile(buffer) as archive:
        (name,) = [name for name in archive.namelist() if name.endswith("data.pkl")]
        check_pickle_opcodes(archive.read(name), WHERE)


@pytest.mark.parametrize(
    "pickled, message",
    [
        (b"\x80\x02Nr" + struct.pack("<I", 2**27) + b".", "memo entry 134,217,728 stored at byte 3 after 0 entries"),
        (b"\x80\x02Nr" + struct.pack("<I", 2**31) + b".", "memo entry 2,147,483,648 stored at byte 3 after 0 entries"),
        (b"\x80\x02Nq\x00Nq\x05.", "memo entry 5 stored at byte 6 after 1 entries"),
        (b"\x80\x02Np99999999\n.", "memo entry 99,999,999 stored at byte 3"),
        (b"\x80\x02j\x05\x00\x00\x00.", "memo entry 5 read at byte 2, of 0 made"),
        (b"\x80\x04\x95" + struct.pack("<Q", 2**40) + b"N.", "a frame of 1,099,511,627,776 bytes announced at byte 2"),
        (b"\x80\x04\x8e" + struct.pack("<Q", 2**40) + b".", "expected 1099511627776 bytes in a bytes8, but only 1"),
        (b"\x80\x02\x8b" + struct.pack("<i", 2**30) + b".", "not enough data in stream to read long4"),
    ],
    ids=[
        "LONG_BINPUT 2^27",
        "LONG_BINPUT 2^31",
        "BINPUT skips",
        "PUT text",
        "GET unmade",
        "FRAME",
        "BINBYTES8",
        "LONG4",
    ],
)
def test_a_pickle_that_asks_for_more_than_it_holds_is_refused_naming_the_file(pickled, message):
    with pytest.raises(ValueError) as refused:
        check_pickle_opcodes(pickled, WHERE)
    text = str(refused.value)
    assert text.startswith(f"{WHERE}: data.pkl: ") and message in text and "\n" not in text and len(text) < 300


def test_check_pth_walks_the_opcodes_before_it_unpickles(tmp_path):
    """The 10-byte memo bomb inside a torch.save zip: refused by check_pth, the unpickler never runs on it."""
    buffer = io.BytesIO()
    torch.save({"w": torch.zeros(4)}, buffer)
    with zipfile.ZipFile(buffer) as archive:
        records = {name: archive.read(name) for name in archive.namelist()}
    (name,) = [name for name in records if name.endswith("data.pkl")]
    records[name] = b"\x80\x02Nr" + struct.pack("<I", 2**27) + b"."
    crafted = io.BytesIO()
    with zipfile.ZipFile(crafted, "w", zipfile.ZIP_STORED) as archive:
        for record, data in records.items():
            archive.writestr(record, data)
    with pytest.raises(ValueError, match=r"^model file 'x.zip': policy.pth: data.pkl: memo entry 134,217,728"):
        check_pth(crafted, budget=1 << 20, where=WHERE)
