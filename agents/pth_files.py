"""Torch ``.pth`` files checked from their sizes and strides before any tensor is built, then loaded
weights-only.

What ``torch.save`` writes is a zip: ``<name>/data.pkl`` (a pickle of the containers, each tensor a call of
``torch._utils._rebuild_tensor_v2(storage, offset, size, stride, ...)`` and each storage a reference
``('storage', torch.FloatStorage, key, location, numel)``) and one raw record ``<name>/data/<key>`` per
storage, never compressed. ``torch.load(weights_only=True)`` runs no code from the file, but it trusts the
file's numbers: a compressed record inflates to whatever it holds, and a tensor's size and stride may view
a one-element storage as a 30000 x 30000 matrix that the first arithmetic on it materialises.

``check_pth`` reads the zip's directory and unpickles ``data.pkl`` with stand-ins (``_Storage``,
``_Tensor``: numbers, no memory) instead of torch's classes, and refuses, with a ``ValueError`` naming the
file, anything that could cost more than ``budget`` bytes of tensors or more memory than the pickle's own size:
a pickle whose opcodes (walked by ``pickletools`` before anything is built) number a memo entry out of
sequence or announce more bytes than the file holds (``check_pickle_opcodes``), a directory larger than
``MAX_DIRECTORY_BYTES``, a compressed record, a storage whose record is not exactly its ``numel``
elements, a tensor that views more elements than its storage holds from its offset (a stride of 0 over
a large size, an offset past the end), containers nested deeper than ``MAX_DEPTH``, any global but an
``OrderedDict``, a tensor or a storage type, and storages that add up to more than ``budget``.
Only then does ``load_pth`` hand the bytes to ``torch.load``, whose allocations are those storages.
"""

from __future__ import annotations

import io
import math
import pickle
import pickletools
import struct
import zipfile
from dataclasses import dataclass
from typing import BinaryIO

MAX_DIRECTORY_BYTES = 1 << 20
"""Largest zip directory read (a model zip's has 7 entries in about 600 bytes; each entry costs zipfile
some hundred bytes of memory, so a directory of millions of tiny entries is refused before it is parsed)."""
MAX_PICKLE_BYTES = 1 << 20
"""Largest ``data.pkl`` unpickled (a 32-layer network's optimizer state needs a few kB)."""
MAX_DEPTH = 16
"""Deepest nesting of containers (an optimizer's state dict nests four deep)."""
MAX_NODES = 100_000
"""Most values in a walk of ``data.pkl``'s containers, a value counted once per place it is referred to from
(a network of ``MAX_LAYERS`` layers has a few hundred; its optimizer's state some thousand)."""
MAX_DIMENSIONS = 8

STORAGE_TYPES = {
    "FloatStorage": ("float32", 4),
    "DoubleStorage": ("float64", 8),
    "HalfStorage": ("float16", 2),
    "BFloat16Storage": ("bfloat16", 2),
    "LongStorage": ("int64", 8),
    "IntStorage": ("int32", 4),
    "ShortStorage": ("int16", 2),
    "CharStorage": ("int8", 1),
    "ByteStorage": ("uint8", 1),
    "BoolStorage": ("bool", 1),
}
"""The storage types a state dict may name: their torch dtype, and the bytes of one element."""

_END_OF_DIRECTORY = struct.Struct("<4s4H2LH")


def check_zip_directory(stream: BinaryIO, where: str) -> None:
    """Refuse a zip whose directory is larger than ``MAX_DIRECTORY_BYTES``, from its end record alone
    (what ``zipfile`` would parse into objects next). ``stream``: the zip, a seekable binary file."""
    size = stream.seek(0, io.SEEK_END)
    stream.seek(max(0, size - (_END_OF_DIRECTORY.size + 0xFFFF)))  # the record, then a comment of <= 64 kB
    tail = stream.read()
    stream.seek(0)
    found = tail.rfind(b"PK\x05\x06")
    if found < 0 or found + _END_OF_DIRECTORY.size > len(tail):
        raise ValueError(f"{where} is not a zip file, or a truncated one")
    entries, directory_bytes = _END_OF_DIRECTORY.unpack_from(tail, found)[4:6]
    if entries == 0xFFFF or directory_bytes == 0xFFFFFFFF:  # zip64: more than 65,534 entries or 4 GiB
        raise ValueError(f"{where} is a zip64 file; a model's zip is far smaller")
    if directory_bytes > MAX_DIRECTORY_BYTES:
        raise ValueError(
            f"{where}: its zip directory is {directory_bytes:,} bytes ({entries:,} entries); "
            f"at most {MAX_DIRECTORY_BYTES:,} are read"
        )


_MEMO_PUTS = {"PUT", "BINPUT", "LONG_BINPUT"}
_MEMO_GETS = {"GET", "BINGET", "LONG_BINGET"}


def check_pickle_opcodes(pickled: bytes, where: str) -> None:
    """Refuse a pickle that asks the unpickler for memory its bytes do not hold, from its opcodes alone.

    The unpickler keeps its memo in an array indexed by the number a ``PUT`` names: one ``LONG_BINPUT`` of index
    2^27 in a 10-byte file grows it to gigabytes. A pickler numbers memo entries in sequence (0, 1, 2, ...), so an
    index past the entries made so far is refused, and so is a ``GET`` of an entry not yet made. A ``FRAME`` may
    not announce more bytes than follow it; every other length field is checked by ``pickletools`` itself
    against the bytes that remain."""
    memo = 0
    try:
        for opcode, argument, position in pickletools.genops(pickled):
            if opcode.name in _MEMO_PUTS or opcode.name == "MEMOIZE":
                index = memo if opcode.name == "MEMOIZE" else argument
                if index > memo:
                    raise ValueError(
                        f"memo entry {index:,} stored at byte {position} after {memo:,} entries; "
                        "a pickler numbers them in sequence"
                    )
                memo += index == memo
            elif opcode.name in _MEMO_GETS and argument >= memo:
                raise ValueError(f"memo entry {argument:,} read at byte {position}, of {memo:,} made")
            elif opcode.name == "FRAME" and argument > len(pickled) - position - 9:
                raise ValueError(
                    f"a frame of {argument:,} bytes announced at byte {position}; "
                    f"{len(pickled) - position - 9:,} follow"
                )
    except ValueError as error:  # pickletools' own: a length past the end, an unknown opcode
        raise ValueError(f"{where}: data.pkl: {error}") from None


@dataclass(frozen=True)
class _Storage:
    key: str
    kind: str
    numel: int

    @property
    def bytes(self) -> int:
        return self.numel * STORAGE_TYPES[self.kind][1]


@dataclass(frozen=True)
class _Tensor:
    storage: _Storage
    offset: int
    size: tuple
    stride: tuple


def _rebuild_tensor(storage, offset, size, stride, *rest) -> _Tensor:
    """The stand-in of ``torch._utils._rebuild_tensor_v2``: the tensor's numbers, checked."""
    if not isinstance(storage, _Storage):
        raise ValueError(f"a tensor's storage is {type(storage).__name__}, not a storage reference")
    numbers = (offset, *size, *stride) if isinstance(size, tuple) and isinstance(stride, tuple) else (None,)
    if (
        not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in numbers)
        or len(size) != len(stride)
        or len(size) > MAX_DIMENSIONS
    ):
        raise ValueError(
            f"a tensor's offset, size and stride are not {MAX_DIMENSIONS} or fewer whole numbers "
            f"(offset {offset!r}, size {size!r}, stride {stride!r})"
        )
    elements = math.prod(size)
    reach = offset + sum((n - 1) * step for n, step in zip(size, stride)) + 1 if elements else 0
    if elements > storage.numel - offset or reach > storage.numel:
        raise ValueError(
            f"a tensor of size {list(size)} and stride {list(stride)} at offset {offset} views "
            f"{elements:,} elements of a storage of {storage.numel:,}"
        )
    return _Tensor(storage, offset, size, stride)


class _Storages(pickle.Unpickler):
    """Unpickles ``data.pkl`` into containers of ``_Tensor``s: no torch class is touched. ``storages``: every
    storage referred to, by key."""

    def __init__(self, file):
        super().__init__(file)
        self.storages: dict[str, _Storage] = {}

    def find_class(self, module: str, name: str):
        if (module, name) == ("collections", "OrderedDict"):
            from collections import OrderedDict

            return OrderedDict
        if (module, name) == ("torch._utils", "_rebuild_tensor_v2"):
            return _rebuild_tensor
        if module == "torch" and name in STORAGE_TYPES:
            return name
        raise ValueError(f"data.pkl names {module}.{name}; a state dict holds only tensors and plain containers")

    def persistent_load(self, reference):
        if not (
            isinstance(reference, tuple)
            and len(reference) == 5
            and reference[0] == "storage"
            and reference[1] in STORAGE_TYPES
            and isinstance(reference[2], str)
            and isinstance(reference[4], int)
            and reference[4] >= 0
        ):
            raise ValueError(f"data.pkl refers to {str(reference)[:80]}, not to a storage")
        storage = _Storage(reference[2], reference[1], reference[4])
        if self.storages.setdefault(storage.key, storage) != storage:
            raise ValueError(f"data.pkl gives storage {storage.key!r} two different types or sizes")
        return storage


def check_pth(stream: BinaryIO, budget: int, where: str, float32: bool = False) -> int:
    """Refuse ``stream`` (a ``torch.save`` file, seekable) unless loading it builds at most ``budget`` bytes
    of tensors (and, with ``float32``, only float32 ones); see the module. ``where`` names it in the
    message (``model file 'x.zip': policy.pth``). Returns the number of elements of its tensors."""
    check_zip_directory(stream, where)
    try:
        archive = zipfile.ZipFile(stream)
        records = {info.filename: info for info in archive.infolist()}
        (pickle_name,) = [name for name in records if name.endswith("/data.pkl") or name == "data.pkl"]
    except (zipfile.BadZipFile, EOFError, ValueError):
        raise ValueError(f"{where} is not a torch.save file (a zip with one data.pkl)") from None
    compressed = sorted(name for name, info in records.items() if info.compress_type != zipfile.ZIP_STORED)
    if compressed:
        raise ValueError(f"{where}: its record {compressed[0]!r} is compressed; torch.save stores records as they are")
    if records[pickle_name].file_size > MAX_PICKLE_BYTES:
        raise ValueError(f"{where}: data.pkl is {records[pickle_name].file_size:,} bytes; at most {MAX_PICKLE_BYTES:,}")
    pickled = archive.read(pickle_name)
    check_pickle_opcodes(pickled, where)
    unpickler = _Storages(io.BytesIO(pickled))
    try:
        tensors = _walk(unpickler.load())
    except (
        ValueError,
        pickle.UnpicklingError,
        EOFError,
        TypeError,
        AttributeError,
        IndexError,
        KeyError,
        MemoryError,
        RecursionError,
    ) as error:
        raise ValueError(f"{where}: {error}") from None
    for name, tensor in tensors:
        if float32 and tensor.storage.kind != "FloatStorage":
            raise ValueError(f"{where}: {name} is torch.{STORAGE_TYPES[tensor.storage.kind][0]}, not torch.float32")
    storages = unpickler.storages
    prefix = pickle_name[: -len("data.pkl")]
    for storage in storages.values():
        record = records.get(f"{prefix}data/{storage.key}")
        if record is None or record.file_size != storage.bytes:
            held = "none" if record is None else f"{record.file_size:,} bytes"
            raise ValueError(
                f"{where}: storage {storage.key!r} of {storage.numel:,} elements needs {storage.bytes:,} "
                f"bytes; its record holds {held}"
            )
    total = sum(storage.bytes for storage in storages.values())
    if total > budget:
        raise ValueError(f"{where} holds {total:,} bytes of tensors; at most {budget:,} fit this network")
    return sum(math.prod(tensor.size) for _, tensor in tensors)


def _walk(tree) -> list[tuple[str, _Tensor]]:
    """(dotted name, tensor) of every tensor in the containers, in a walk (the one ``model_files.check_weights``
    makes of what ``torch.load`` builds) of at most ``MAX_NODES`` values and ``MAX_DEPTH`` levels. A pickle
    may refer to one list from many places (a list that holds itself 500,000 times fits in ``data.pkl``'s
    1 MiB), so every child is counted before it is stacked: the walk never holds more than ``MAX_NODES``
    entries (counting them only as they come off the stack would let 16 levels of such a list stack gigabytes)."""
    found, stack, values = [], [(tree, 0, "")], 1
    while stack:
        node, depth, name = stack.pop()
        if isinstance(node, _Tensor):
            found.append((name, node))
        elif isinstance(node, (dict, list, tuple, set, frozenset)):
            if depth >= MAX_DEPTH:
                raise ValueError(f"data.pkl nests containers deeper than {MAX_DEPTH}")
            values += len(node)
            if values > MAX_NODES:
                raise ValueError(
                    f"data.pkl holds more than {MAX_NODES:,} values (counting each place a value is referred to from)"
                )
            items = node.items() if isinstance(node, dict) else enumerate(node)
            stack.extend((child, depth + 1, f"{name}.{key}" if name else str(key)) for key, child in items)
    return found


def load_pth(stream: BinaryIO, budget: int, where: str, float32: bool = False):
    """``check_pth``, then ``torch.load(weights_only=True)`` on the CPU."""
    check_pth(stream, budget, where, float32)
    import torch

    stream.seek(0)
    try:
        return torch.load(stream, map_location="cpu", weights_only=True)
    except Exception as error:  # torch's UnpicklingError, RuntimeError on a record it cannot read
        raise ValueError(f"{where}: torch.load refused it: {type(error).__name__}: {error}") from None
