"""Stable-Baselines3 model files, saved and loaded without running code from them.

An SB3 ``.zip`` holds ``data`` (a JSON file whose non-JSON entries, such as the policy class, the
spaces, ``policy_kwargs`` and the learning-rate schedule, are *cloudpickled* and unpickled by
``PPO.load``: unpickling runs whatever code the file's author put there) and ``.pth`` files with the
weights (``policy.pth``, ``policy.optimizer.pth``, ``pytorch_variables.pth``).

``load_model`` never reads ``data``. It builds the model from the project's own code: the algorithm
named by the caller, War-v0's spaces (or the subset of observation fields the policy was trained on) and
the network architecture from the file's ``war_env_model.json`` (plain JSON that ``save_model`` adds next
to SB3's entries; SB3 ignores it) or, without one, SB3's default architecture for the algorithm. Then it
loads only the weights with ``model.set_parameters``, read by ``torch.load(weights_only=True)`` (tensors
and plain containers, no code). A file that does not fit gets a ``ValueError`` that says why.
``trust_model_file=True`` opts in to SB3's full ``load`` (which does unpickle ``data``).

Resources are bounded before they are spent, in whatever process loads the file (a league's workers,
the web server): a loader takes at most ``MAX_LOAD_BYTES`` of memory beyond its libraries. The zip's
directory is at most ``MAX_DIRECTORY_BYTES`` and entry sizes are read from it (an entry inflating past
``MAX_ENTRY_BYTES``, or a metadata entry past ``MAX_METADATA_BYTES``, is refused unread); the architecture
must fit both ``MAX_PARAMETERS`` and the bytes of ``policy.pth`` before the network is built; only the
``.pth`` entries the network has are read, each no larger than that network's tensors (and Adam's two
moments) allow, and each is checked from its records' sizes and its tensors' sizes and strides before
any tensor is built (``war_env.agents.pth_files``); every weight must be a finite float32 (a NaN network
would play garbage silently).
"""

from __future__ import annotations

import io
import json
import os
import zipfile
import zlib
from pathlib import Path

import gymnasium as gym
import numpy as np

from war_env.agents.algorithms import (
    DEFAULT_POLICY_KWARGS,
    POLICIES,
    algorithm_class,
    build_model,
    check_algorithm,
    check_policy_kwargs,
    network_parameters,
)
from war_env.agents.fields import check_observation_fields
from war_env.agents.pth_files import check_pth, check_zip_directory, load_pth
from war_env.support.atomic import write_atomic

METADATA_NAME = "war_env_model.json"
"""The plain-JSON entry ``save_model`` adds to an SB3 zip: how to rebuild the model safely."""
METADATA_FORMAT = "war-env-sb3/1"
FAST_METADATA_FORMAT = "war-env-fast-ppo/1"
"""The same entry in a model file of the fast PPO trainer (``war_env.agents.fast_model``): ``read_metadata`` reads
both, so every tool that asks a model file what it was trained on asks it the same way."""
MAX_METADATA_BYTES = 1 << 20
"""Largest ``war_env_model.json`` read (the real ones are about 1 kB)."""
MAX_ENTRY_BYTES = 256 << 20
"""Largest uncompressed entry of a model zip (a network at ``MAX_PARAMETERS`` with Adam's two moments is
about 120 MB); checked from the zip's directory before anything is inflated."""
MAX_LOAD_BYTES = 256 << 20
"""The memory a load may take beyond the libraries it imports (torch, SB3): the largest network allowed
(``MAX_PARAMETERS``) peaks 186 MiB above a small one (its 40 MB of weights built, then loaded, and Adam's
80 MB of moments); every crafted file of ``tests/test_model_files.py`` is refused without growing past the
small one's peak."""
MAX_FRAME_STACK = 64
"""Most observations a frame-stacked policy sees at once (``frame_stack`` in ``war_env_model.json``)."""
OVERHEAD_BYTES = 2 << 20
"""What a ``.pth`` entry holds besides its tensors: ``data.pkl`` (at most ``pth_files.MAX_PICKLE_BYTES``)
and the headers and alignment of its records."""


def save_model(
    model,
    path: str | os.PathLike,
    algo: str,
    policy_kwargs: dict,
    observation="all",
    frame_stack: int = 1,
    env_id: str | None = None,
    **metadata,
) -> Path:
    """Save ``model`` to ``path`` atomically (a temporary file in the same folder, then a rename), as
    SB3's own zip plus the plain-JSON ``war_env_model.json`` that ``load_sb3_agent`` reads.

    ``observation`` names the fields the policy sees (see ``check_observation_fields``); ``frame_stack`` how
    many of the last observations it sees at once (SB3's ``VecFrameStack``: oldest first, zeros before the
    round's first); ``env_id`` the game it was trained on; ``metadata`` adds JSON fields (e.g. ``opponent``);
    a crash never leaves a half-written zip.
    """
    path = Path(path)
    buffer = io.BytesIO()
    model.save(buffer)
    fields = check_observation_fields(observation)
    stack = check_frame_stack(frame_stack)
    record = {
        "format": METADATA_FORMAT,
        "algorithm": check_algorithm(algo),
        "policy": POLICIES.get(check_algorithm(algo), "MlpPolicy"),
        "policy_kwargs": check_policy_kwargs(algo, policy_kwargs, len(fields) * stack),
        "observation_fields": list(fields),
        "frame_stack": stack,
        "env_id": env_id,
        "num_timesteps": int(model.num_timesteps),
        **metadata,
    }
    with zipfile.ZipFile(buffer, mode="a") as archive:
        archive.writestr(METADATA_NAME, json.dumps(record, indent=2, sort_keys=True))
    write_atomic(path, buffer.getvalue())
    return path


def entry_sizes(path: str | os.PathLike) -> dict[str, int]:
    """The uncompressed size of every entry of a model zip, read from its directory (nothing is inflated).
    An entry larger than the caps (``MAX_METADATA_BYTES``, ``MAX_ENTRY_BYTES``) is refused here, so no
    later read can inflate a small file into gigabytes."""
    path = existing_file(path)
    try:
        with open(path, "rb") as file:
            check_zip_directory(file, f"model file {str(path)!r}")
        with zipfile.ZipFile(path) as archive:
            sizes = {info.filename: info.file_size for info in archive.infolist()}
    except (zipfile.BadZipFile, EOFError):
        raise ValueError(
            f"model file {str(path)!r} is not a zip file, or a truncated one (an SB3 model is a .zip)"
        ) from None
    for name, size in sizes.items():
        cap = MAX_METADATA_BYTES if name == METADATA_NAME else MAX_ENTRY_BYTES
        if size > cap:
            raise ValueError(
                f"model file {str(path)!r}: its entry {name!r} inflates to {size:,} bytes; at most {cap:,} are read"
            )
    return sizes


def read_metadata(path: str | os.PathLike) -> dict | None:
    """The ``war_env_model.json`` entry of a model zip (plain ``json.loads``, nothing unpickled), or
    ``None`` when the file has none (e.g. a model saved by plain SB3 or the RL Zoo)."""
    path = existing_file(path)
    if METADATA_NAME not in entry_sizes(path):
        return None
    try:
        with zipfile.ZipFile(path) as archive:
            text = archive.read(METADATA_NAME).decode("utf-8")
    except (zipfile.BadZipFile, EOFError, zlib.error) as error:  # a damaged entry (CRC, cut data)
        raise ValueError(f"model file {str(path)!r} is damaged: {error}") from None
    except UnicodeDecodeError as error:
        raise ValueError(f"model file {str(path)!r} has an unreadable {METADATA_NAME}: {error}") from None
    try:
        record = json.loads(text)
    except ValueError as error:  # JSONDecodeError, and an integer of more digits than Python converts
        raise ValueError(f"model file {str(path)!r} has an unreadable {METADATA_NAME}: {error}") from None
    except RecursionError:
        raise ValueError(
            f"model file {str(path)!r} has an unreadable {METADATA_NAME}: it nests deeper than Python parses"
        ) from None
    if not isinstance(record, dict) or record.get("format") not in (METADATA_FORMAT, FAST_METADATA_FORMAT):
        raise ValueError(
            f"model file {str(path)!r}: {METADATA_NAME} is not in format {METADATA_FORMAT!r} "
            f"(nor {FAST_METADATA_FORMAT!r})"
        )
    return record


def parameter_count(path: str | os.PathLike) -> int:
    """The weights and biases in a model zip's ``policy.pth`` (PPO, A2C: the policy and value networks,
    RecurrentPPO's with their LSTMs; DQN: the Q-network and its target copy), counted from its records without
    torch and without running code."""
    path = existing_file(path)
    if "policy.pth" not in entry_sizes(path):
        raise ValueError(f"model file {str(path)!r} has no policy.pth")
    with zipfile.ZipFile(path) as archive, entry_file(archive, path, "policy.pth") as stream:
        return check_pth(stream, MAX_ENTRY_BYTES, f"model file {str(path)!r}: policy.pth")


def existing_file(path) -> Path:
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"model path must be a string or path, got {path!r}")
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"model file {str(path)!r} does not exist")
    return path


# --- loading --------------------------------------------------------------------------------------
def load_model(algo: str, path: str | os.PathLike, trust_model_file: bool = False, env=None):
    """The SB3 model in ``path``, built as ``algo``; weights only unless ``trust_model_file``.

    ``env`` (optional) is attached to the model, e.g. to continue training.
    """
    algo = check_algorithm(algo)
    path = existing_file(path)
    metadata = read_metadata(path)
    if metadata is not None and metadata.get("algorithm") != algo:
        stored = metadata.get("algorithm")
        named = isinstance(stored, str) and len(stored) <= 40 and stored.isidentifier()
        advice = f"use the spec {stored}:{path}" if named else f"its {METADATA_NAME} names no algorithm"
        raise ValueError(f"model file {str(path)!r} holds a {shown(stored)} model, not {algo!r}: {advice}")
    if trust_model_file:
        _check_every_pth(path)
        model = _load_trusted(algo, path, env)
        check_weights(path, {"policy": model.policy.state_dict()})
        return model
    source = (
        f"its {METADATA_NAME}" if metadata else f"SB3's default MlpPolicy for {algo} (the file has no {METADATA_NAME})"
    )
    inputs = len(observation_fields(metadata)) * frame_stack_of(metadata)
    try:
        policy_kwargs = check_policy_kwargs(
            algo, metadata["policy_kwargs"] if metadata else DEFAULT_POLICY_KWARGS[algo], inputs
        )
    except (KeyError, TypeError, ValueError) as error:
        raise ValueError(f"model file {str(path)!r}: {METADATA_NAME} has no valid policy_kwargs: {error}") from None
    # The network is built before its weights are read: its size must fit the tensors the file holds
    # (4 bytes per float32 parameter), so a small file cannot make this process allocate a huge one.
    needed = 4 * network_parameters(algo, policy_kwargs, inputs)
    held = entry_sizes(path).get("policy.pth", 0)
    if needed > held:
        raise _does_not_fit(
            path, algo, source, f"that network needs {needed:,} bytes of weights, the file's policy.pth holds {held:,}"
        )
    if env is None:
        env = SpacesOnly(inputs)
    hyperparameters = {"buffer_size": 1, "learning_starts": 0} if algo == "dqn" else {}
    model = build_model(algo, env, policy_kwargs, hyperparameters)
    try:
        parameters = _read_parameters(path, model, needed)
    except EntriesDiffer as error:
        raise _does_not_fit(path, algo, source, str(error)) from None
    check_weights(path, parameters)
    try:
        model.set_parameters(parameters, exact_match=True, device="cpu")
    except Exception as error:  # load_state_dict's RuntimeError (shapes, names), SB3's ValueError
        raise _does_not_fit(path, algo, source, f"{type(error).__name__}: {error}") from None
    if metadata is not None:
        model.num_timesteps = int(metadata.get("num_timesteps", 0))
    return model


def _read_parameters(path: Path, model, needed: int) -> dict:
    """The state dicts ``model.set_parameters`` takes (``policy``, ``policy.optimizer``), each from its
    ``.pth`` entry, checked (``pth_files``) and read with ``torch.load(weights_only=True)``: tensors and
    plain containers, no code. ``needed``: the bytes of the network's float32 weights; the policy holds
    that much, an optimizer at most twice that (Adam's two moments) and its step counters. Entries
    ending in ``.pth`` that the network does not have are refused; other entries are never read."""
    names = set(model._get_torch_save_params()[0])  # what set_parameters(exact_match=True) asks for
    sizes = entry_sizes(path)
    present = {name[: -len(".pth")] for name in sizes if name.endswith(".pth")} - {"pytorch_variables"}
    if present != names:
        raise EntriesDiffer(f"its weights entries are {sorted(present)}, the network's are {sorted(names)}")
    parameters = {}
    with zipfile.ZipFile(path) as archive:
        for name in sorted(names):
            budget = needed if name == "policy" else 2 * needed + (64 << 10)
            entry, where = f"{name}.pth", f"model file {str(path)!r}: {name}.pth"
            if sizes[entry] > budget + OVERHEAD_BYTES:
                raise EntriesDiffer(
                    f"{entry} is {sizes[entry]:,} bytes; this network's fits in {budget + OVERHEAD_BYTES:,}"
                )
            with entry_file(archive, path, entry) as stream:
                parameters[name] = load_pth(stream, budget, where, float32=name == "policy")
    return parameters


class EntriesDiffer(ValueError):
    """A model zip's weights entries are not the ones of the network its metadata describes."""


SPOOL_BYTES = 8 << 20
"""A ``.pth`` entry up to this size is copied into memory to be read; a larger one into a temporary file."""


def entry_file(archive: zipfile.ZipFile, path: Path, name: str):
    """A seekable copy of an entry (at most the size the directory gives: ``zipfile`` stops there): a
    torch file is read by seeking to its records, which an entry inflated in place cannot do cheaply, and
    a copy in a temporary file keeps the entry's bytes out of memory while its tensors are built."""
    import shutil
    import tempfile

    copy = tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES)
    try:
        with archive.open(name) as entry:
            shutil.copyfileobj(entry, copy, 1 << 20)
    except (zipfile.BadZipFile, EOFError, zlib.error) as error:  # a damaged entry (CRC, cut data)
        copy.close()
        raise ValueError(f"model file {str(path)!r} is damaged: {error}") from None
    copy.seek(0)
    return copy


def _check_every_pth(path: Path) -> None:
    """Before SB3's full load (which reads every ``.pth`` entry): each is checked like the weights of a
    safe load, all of them together within ``MAX_ENTRY_BYTES``."""
    sizes = {name: size for name, size in entry_sizes(path).items() if name.endswith(".pth")}
    if sum(sizes.values()) > MAX_ENTRY_BYTES:
        raise ValueError(
            f"model file {str(path)!r}: its .pth entries add up to {sum(sizes.values()):,} bytes; "
            f"at most {MAX_ENTRY_BYTES:,} are read"
        )
    with zipfile.ZipFile(path) as archive:
        for name in sizes:
            with entry_file(archive, path, name) as stream:
                check_pth(stream, MAX_ENTRY_BYTES, f"model file {str(path)!r}: {name}")


def _does_not_fit(path: Path, algo: str, source: str, why: str) -> ValueError:
    return ValueError(
        f"model file {str(path)!r} does not fit a {algo} War policy built from {source}: {why}. Only weights "
        "are loaded (no code from the file runs); pass trust_model_file=True (--trust-model-file) to let SB3 "
        "unpickle the whole file if you trust it."
    )


def check_weights(path: Path, state_dicts: dict) -> None:
    """Every tensor of the policy is float32 and every floating tensor (optimizer state too) is finite: a
    network with a NaN would choose an arbitrary action on every tick (and be taken over all the time)."""
    import torch

    for module, state in state_dicts.items():
        for name, tensor in _tensors(state):
            if not isinstance(tensor, torch.Tensor):
                continue
            where = f"{module}.pth: {name}"
            if module == "policy" and tensor.dtype != torch.float32:
                raise ValueError(f"model file {str(path)!r}: {where} is {tensor.dtype}, not torch.float32")
            if tensor.is_floating_point() and not bool(torch.isfinite(tensor).all()):
                raise ValueError(f"model file {str(path)!r}: {where} holds NaN or infinite values")


def _tensors(state, prefix: str = ""):
    """(dotted name, value) of every leaf of a state dict (an optimizer's nests dicts and lists)."""
    if isinstance(state, dict):
        for key, value in state.items():
            yield from _tensors(value, f"{prefix}{key}.")
    elif isinstance(state, (list, tuple)):
        for index, value in enumerate(state):
            yield from _tensors(value, f"{prefix}{index}.")
    else:
        yield prefix.rstrip("."), state


def observation_fields(metadata: dict | None) -> tuple[str, ...]:
    """The fields a saved policy sees: from its metadata, else all of them."""
    try:
        return check_observation_fields((metadata or {}).get("observation_fields", "all"))
    except ValueError as error:
        raise ValueError(f"{METADATA_NAME}: {error}") from None


def check_frame_stack(frame_stack) -> int:
    if isinstance(frame_stack, bool) or not isinstance(frame_stack, int) or not 1 <= frame_stack <= MAX_FRAME_STACK:
        raise ValueError(f"frame_stack must be an integer in [1, {MAX_FRAME_STACK}], got {shown(frame_stack)}")
    return frame_stack


def shown(value, width: int = 60) -> str:
    """``value``'s repr cut to ``width`` characters, for a one-line error (a metadata value may be a
    4,000-digit number or a megabyte of text)."""
    try:
        text = repr(value)
    except ValueError:  # an integer too long to print
        return f"an integer of {value.bit_length():,} bits"
    return text if len(text) <= width else f"{text[: width - 3]}... ({len(text):,} characters)"


def frame_stack_of(metadata: dict | None) -> int:
    """How many observations a saved policy sees at once: from its metadata, else 1."""
    try:
        return check_frame_stack((metadata or {}).get("frame_stack", 1))
    except ValueError as error:
        raise ValueError(f"{METADATA_NAME}: {error}") from None


def env_id_of(metadata: dict | None) -> str | None:
    """The game a saved policy was trained on (``None``: not recorded, a file from before the probes)."""
    env_id = (metadata or {}).get("env_id")
    if env_id is not None and not isinstance(env_id, str):
        raise ValueError(f"{METADATA_NAME}: env_id must be a string or null, got {shown(env_id)}")
    return env_id


class SpacesOnly(gym.Env):
    """The spaces a saved policy was built for, and nothing to play: SB3 reads them to build the network
    the weights go into (it never steps this env)."""

    def __init__(self, inputs: int):
        self.observation_space = gym.spaces.Box(0.0, 1.0, (inputs,), np.float32)
        self.action_space = gym.spaces.Discrete(2)

    def reset(self, *, seed=None, options=None):
        raise RuntimeError("a model loaded for its weights has no env to play")

    def step(self, action):
        raise RuntimeError("a model loaded for its weights has no env to play")


def _load_trusted(algo: str, path: Path, env):
    """SB3's full ``load``: unpickles the file's ``data`` (runs code from it). Opt-in only."""
    model = algorithm_class(algo).load(str(path), env=env, device="cpu")
    metadata = read_metadata(path)
    size = len(observation_fields(metadata)) * frame_stack_of(metadata)
    shape = getattr(model.observation_space, "shape", None)
    actions = getattr(model.action_space, "n", None)
    if shape != (size,) or actions != 2:
        raise ValueError(
            f"model file {str(path)!r} was trained on observations {shape} and {actions} actions; "
            f"War-v0 (with the file's observation fields) has ({size},) and 2"
        )
    return model
