"""Model files of the fast PPO trainer (``war_env.training.fast_ppo``), saved and played without running code
from them: the spec ``fast_ppo:PATH`` (or ``fast_ppo:path=PATH,threads=N``) in ``war-bench`` and its suite.

A file is a zip of two entries:

* ``war_env_model.json``: plain JSON in format ``FORMAT``: the network (``FastNetwork``: inputs, hidden layers,
  activation, LSTM units), the observation fields the policy sees, the frames it sees at once, whether each frame
  ends with the policy's previous action (``previous_action``), the running statistics that scale its observations
  (``observation_scaling``, ``ObservationScaling``), whether its card fields are one-hot (``one_hot_cards``,
  ``CardEncoding``), the env id it was trained on, and the trainer's config, seed, opponent and steps (a file
  without ``previous_action``, ``observation_scaling`` or ``one_hot_cards`` has none of them);
* ``policy.pth``: ``torch.save`` of the network's state dict (tensors only).

Loading reads the JSON (``model_files.read_metadata``: bounded, nothing unpickled), derives from it the name and
shape of every tensor the network has (``FastNetwork.shapes``), refuses a network larger than
``algorithms.MAX_PARAMETERS`` and a ``policy.pth`` larger than those tensors need, checks ``policy.pth``'s records
(``pth_files``: sizes and strides) before torch builds any tensor, loads it with ``torch.load(weights_only=True)``
and requires exactly those names and shapes, every value a finite float32. Greedy play then runs as numpy
(``numpy_nets``), a round's memory (stacked frames, the LSTM's state) reset by ``reset``.
"""

from __future__ import annotations

import io
import json
import math
import os
import zipfile
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from war_env.agents.algorithms import MAX_LAYERS, MAX_LSTM_HIDDEN, MAX_PARAMETERS
from war_env.agents.base import Agent
from war_env.agents.fields import check_observation_fields, columns_of, observes_latency
from war_env.agents.model_files import (
    FAST_METADATA_FORMAT,
    METADATA_NAME,
    OVERHEAD_BYTES,
    check_frame_stack,
    check_weights,
    entry_file,
    entry_sizes,
    env_id_of,
    existing_file,
    read_metadata,
)
from war_env.agents.numpy_nets import forward, lstm_step
from war_env.agents.pth_files import load_pth
from war_env.support.atomic import write_atomic
from war_env.support.threads import use_threads

ALGORITHM = "fast_ppo"
"""The algorithm's name in specs (``fast_ppo:PATH``), model files and ``war-train --algo``."""
FORMAT = FAST_METADATA_FORMAT
"""``war_env_model.json``'s format in a fast PPO model file (SB3's files say ``model_files.METADATA_FORMAT``)."""
FAST_ACTIVATIONS = ("tanh", "relu")
"""The activations the trainer builds (``tanh``: SB3's default; computed as ``2 sigmoid(2x) - 1``, the same function,
because torch's CPU tanh is six times slower than its sigmoid)."""
ACTIONS = 2


@dataclass(frozen=True)
class ObservationScaling:
    """Observations scaled by running statistics, as SB3's ``VecNormalize``: ``(x - mean) / sqrt(var + 1e-8)``,
    clipped to ``[-clip, clip]``, computed in float64 and handed to the network as float32. The trainer keeps the
    statistics (``count`` observations seen) and writes them into the model file, so the agent scales as it trained.
    """

    mean: np.ndarray
    var: np.ndarray
    count: float
    clip: float = 10.0

    EPSILON = 1e-8

    def __post_init__(self):
        mean, var = np.asarray(self.mean, np.float64), np.asarray(self.var, np.float64)
        if mean.ndim != 1 or mean.shape != var.shape or not np.isfinite(mean).all() or not (var >= 0).all():
            raise ValueError("observation_scaling needs a mean and a variance >= 0 per field, finite and equally long")
        if not (isinstance(self.clip, (int, float)) and self.clip > 0 and math.isfinite(self.count)):
            raise ValueError(f"observation_scaling needs a clip > 0 and a finite count, got {self.clip!r}")
        object.__setattr__(self, "mean", mean)
        object.__setattr__(self, "var", var)

    def apply(self, observations: np.ndarray) -> np.ndarray:
        scaled = (np.asarray(observations, np.float64) - self.mean) / np.sqrt(self.var + self.EPSILON)
        return np.clip(scaled, -self.clip, self.clip).astype(np.float32)

    def as_json(self) -> dict:
        return {"mean": self.mean.tolist(), "var": self.var.tolist(), "count": float(self.count), "clip": self.clip}

    @classmethod
    def from_json(cls, record) -> ObservationScaling | None:
        if record is None:
            return None
        if not isinstance(record, dict) or set(record) != {"mean", "var", "count", "clip"}:
            raise ValueError(f"observation_scaling must hold mean, var, count and clip, got {str(record)[:200]}")
        try:
            mean, var = np.array(record["mean"], np.float64), np.array(record["var"], np.float64)
            return cls(mean, var, float(record["count"]), float(record["clip"]))
        except (TypeError, ValueError) as error:
            raise ValueError(f"observation_scaling: {error}") from None


CARD_FIELDS = ("own_card", "opponent_card")
"""The observation fields that hold a card: its rank value (2..14) / 14, 0 for no card (``core.observation``)."""
CARD_VALUES = (0, *range(2, 15))
"""The values a card field holds, times 14: 0 (no card, or a field the game hides) and the rank values 2..14. A
one-hot card field has one column per value, in this order."""
_CARD_COLUMN = np.full(15, -1, dtype=np.int64)
_CARD_COLUMN[list(CARD_VALUES)] = np.arange(len(CARD_VALUES))


@dataclass(frozen=True)
class CardEncoding:
    """The card fields of a policy's observation as one-hot vectors over ``CARD_VALUES`` (``one_hot_cards``), each
    in its field's place, the other fields as they come. A practitioner's encoding of categorical data: which ranks
    make the opponent fast (the reading probe's even ones) is then a sum of weights, not 12 switches of one input.

    ``encode(raw, seen)`` takes the observations as the game gives them (``raw``) and as the policy sees its other
    fields (``seen``: the same, or scaled by ``ObservationScaling``): each card's value is read from ``raw`` (round(x *
    14)), the rest from ``seen``. The order is the trainer's and the agent's: scale, then encode, then append the
    previous action and stack the frames (an LSTM reads the stacked frames). A one-hot column is 0 or 1 by
    construction, so it is not standardised (that would only weigh each rank by how rarely it shows), and a scaled
    value could not be rounded back to its rank; the statistics keep one entry per field, card fields included,
    so a model file's ``observation_scaling`` is the same with or without the encoding."""

    fields: tuple[str, ...]
    """The observation fields the policy sees, in order."""

    @property
    def positions(self) -> tuple[int, ...]:
        """The columns of the card fields among ``fields``."""
        return tuple(i for i, name in enumerate(self.fields) if name in CARD_FIELDS)

    @property
    def width(self) -> int:
        """Floats of an encoded observation."""
        return len(self.fields) + (len(CARD_VALUES) - 1) * len(self.positions)

    def encode(self, raw: np.ndarray, seen: np.ndarray) -> np.ndarray:
        """``(n, fields)`` observations -> ``(n, width)`` float32 inputs; a card value that is none of
        ``CARD_VALUES`` is a ``ValueError`` naming the field."""
        raw, seen = np.asarray(raw), np.asarray(seen, dtype=np.float32)
        parts, begin = [], 0
        for position in self.positions:
            parts.append(seen[:, begin:position])
            parts.append(self.one_hot(raw[:, position], self.fields[position]))
            begin = position + 1
        parts.append(seen[:, begin:])
        return np.concatenate(parts, axis=1)

    @staticmethod
    def one_hot(column: np.ndarray, name: str = "card") -> np.ndarray:
        values = np.asarray(column, dtype=np.float64) * 14.0
        ranks = np.rint(np.nan_to_num(values, nan=-1.0, posinf=-1.0, neginf=-1.0))
        columns = _CARD_COLUMN[np.clip(ranks, 0, 14).astype(np.int64)]
        bad = (columns < 0) | (ranks != np.clip(ranks, 0, 14)) | (np.abs(values - ranks) > 1e-3)
        if bad.any():
            value = float(np.asarray(column)[np.flatnonzero(bad)[0]])
            raise ValueError(f"one_hot_cards: {name} is {value!r}, not a rank value / 14 (0 for none, 2..14)")
        encoded = np.zeros((len(columns), len(CARD_VALUES)), dtype=np.float32)
        encoded[np.arange(len(columns)), columns] = 1.0
        return encoded


def card_encoding(fields, one_hot_cards: bool) -> CardEncoding | None:
    """The encoding of a policy that sees ``fields`` with ``one_hot_cards``, or ``None`` without it; a policy whose
    fields hold no card field cannot have it (``ValueError``)."""
    if not one_hot_cards:
        return None
    encoding = CardEncoding(tuple(fields))
    if not encoding.positions:
        raise ValueError(f"one_hot_cards needs a card field ({', '.join(CARD_FIELDS)}); the policy sees {list(fields)}")
    return encoding


def frame_width(fields, previous_action: bool, one_hot_cards: bool = False) -> int:
    """Floats of one frame: the fields the policy sees (each card field one-hot with ``one_hot_cards``), and its
    previous action when it is given one."""
    encoding = card_encoding(fields, one_hot_cards)
    return (len(fields) if encoding is None else encoding.width) + int(previous_action)


@dataclass(frozen=True)
class FastNetwork:
    """The network of a fast PPO policy: an optional LSTM, then an actor and a critic MLP (SB3's separate ``pi`` and
    ``vf`` networks, or sb3-contrib's ``MlpLstmPolicy`` with one shared LSTM)."""

    inputs: int
    """Floats the network reads per step: the observation fields times the frames stacked."""
    hidden: tuple[int, ...] = (64, 64)
    """Layer sizes of the actor's MLP and of the critic's (each has its own)."""
    activation: str = "tanh"
    """Between the MLP's layers: one of ``FAST_ACTIVATIONS``."""
    lstm_hidden_size: int = 0
    """Units of the LSTM before both MLPs (shared by them); 0: no LSTM."""

    def __post_init__(self):
        def whole(n, low):
            return isinstance(n, int) and not isinstance(n, bool) and n >= low

        if not whole(self.inputs, 1):
            raise ValueError(f"network inputs must be a whole number >= 1, got {self.inputs!r}")
        if (
            not isinstance(self.hidden, tuple)
            or not 1 <= len(self.hidden) <= MAX_LAYERS
            or not all(whole(size, 1) for size in self.hidden)
        ):
            raise ValueError(f"hidden must be 1 to {MAX_LAYERS} layer sizes >= 1, got {self.hidden!r}")
        if self.activation not in FAST_ACTIVATIONS:
            raise ValueError(f"activation must be one of {FAST_ACTIVATIONS}, got {self.activation!r}")
        if not whole(self.lstm_hidden_size, 0) or self.lstm_hidden_size > MAX_LSTM_HIDDEN:
            raise ValueError(
                f"lstm_hidden_size must be a whole number in [0, {MAX_LSTM_HIDDEN}], got {self.lstm_hidden_size!r}"
            )
        if self.parameters() > MAX_PARAMETERS:
            raise ValueError(f"this network has {self.parameters():,} parameters; at most {MAX_PARAMETERS:,}")

    @classmethod
    def from_json(cls, record) -> FastNetwork:
        if not isinstance(record, dict) or set(record) != {"inputs", "hidden", "activation", "lstm_hidden_size"}:
            raise ValueError(
                f"network must be an object with inputs, hidden, activation and lstm_hidden_size, "
                f"got {str(record)[:200]}"
            )
        hidden = record["hidden"]
        return cls(
            record["inputs"],
            tuple(hidden) if isinstance(hidden, list) else hidden,
            record["activation"],
            record["lstm_hidden_size"],
        )

    def as_json(self) -> dict:
        return {**asdict(self), "hidden": list(self.hidden)}

    @property
    def recurrent(self) -> bool:
        return self.lstm_hidden_size > 0

    def shapes(self) -> dict[str, tuple[int, ...]]:
        """Every tensor of the network's state dict, by name (torch's: ``lstm.weight_ih_l0``, ``actor.0.weight``,
        ...; the MLPs are ``nn.Sequential``s of Linear and activation modules)."""
        shapes = {}
        body = self.inputs
        if self.recurrent:
            units = self.lstm_hidden_size
            shapes.update(
                {
                    "lstm.weight_ih_l0": (4 * units, self.inputs),
                    "lstm.weight_hh_l0": (4 * units, units),
                    "lstm.bias_ih_l0": (4 * units,),
                    "lstm.bias_hh_l0": (4 * units,),
                }
            )
            body = units
        for head, outputs in (("actor", ACTIONS), ("critic", 1)):
            sizes = [body, *self.hidden, outputs]
            for layer, (fan_in, fan_out) in enumerate(zip(sizes, sizes[1:])):
                shapes[f"{head}.{2 * layer}.weight"] = (fan_out, fan_in)
                shapes[f"{head}.{2 * layer}.bias"] = (fan_out,)
        return shapes

    def parameters(self) -> int:
        return sum(math.prod(shape) for shape in self.shapes().values())


# --- saving -------------------------------------------------------------------------------------------
def save_fast_model(
    path: str | os.PathLike,
    state_dict: dict,
    network: FastNetwork,
    fields,
    frame_stack: int,
    env_id: str | None,
    *,
    previous_action: bool = False,
    scaling: ObservationScaling | None = None,
    one_hot_cards: bool = False,
    **metadata,
) -> Path:
    """Write a model file atomically: ``state_dict`` (exactly ``network.shapes()``) and the JSON header;
    ``previous_action``, ``scaling`` and ``one_hot_cards`` say how the policy's inputs are built; ``metadata`` adds
    JSON fields (the trainer's ``config``, ``seed``, ``opponent``, ``num_timesteps``)."""
    import torch

    check_state_dict(state_dict, network, f"the network to save to {str(path)!r}")
    fields = check_observation_fields(list(fields))
    record = {
        "format": FORMAT,
        "algorithm": ALGORITHM,
        "network": network.as_json(),
        "observation_fields": list(fields),
        "frame_stack": check_frame_stack(frame_stack),
        "previous_action": bool(previous_action),
        "observation_scaling": None if scaling is None else scaling.as_json(),
        "one_hot_cards": bool(one_hot_cards),
        "env_id": env_id,
        **metadata,
    }
    _check_inputs(network, fields, record["frame_stack"], previous_action, scaling, one_hot_cards)
    weights = io.BytesIO()
    torch.save({name: tensor.detach().to(torch.float32).contiguous() for name, tensor in state_dict.items()}, weights)
    archive_bytes = io.BytesIO()
    with zipfile.ZipFile(archive_bytes, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(METADATA_NAME, json.dumps(record, indent=2, sort_keys=True))
        archive.writestr("policy.pth", weights.getvalue())
    write_atomic(path, archive_bytes.getvalue())
    return Path(path)


def check_state_dict(state_dict: dict, network: FastNetwork, where: str) -> None:
    """Exactly the network's tensors, each of its shape."""
    expected = network.shapes()
    if set(state_dict) != set(expected):
        missing, extra = sorted(set(expected) - set(state_dict)), sorted(set(state_dict) - set(expected))
        raise ValueError(f"{where}: its tensors are not this network's (missing {missing}, unexpected {extra})")
    for name, shape in expected.items():
        if tuple(state_dict[name].shape) != shape:
            raise ValueError(f"{where}: {name} has shape {tuple(state_dict[name].shape)}, this network's is {shape}")


def _check_inputs(
    network: FastNetwork, fields, frame_stack: int, previous_action: bool, scaling, one_hot_cards: bool = False
) -> None:
    width = frame_width(fields, previous_action, one_hot_cards)
    if network.inputs != width * frame_stack:
        action = " + the previous action" if previous_action else ""
        cards = f", {width - int(previous_action)} floats with one-hot cards" if one_hot_cards else ""
        raise ValueError(
            f"network inputs {network.inputs} are not ({len(fields)} fields{cards}{action}) x {frame_stack} frames"
        )
    if scaling is not None and scaling.mean.size != len(fields):
        raise ValueError(f"observation_scaling has {scaling.mean.size} fields; the policy sees {len(fields)}")


# --- loading ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class FastModel:
    """A fast PPO model file, read and checked: its header and its weights as numpy arrays."""

    path: Path
    metadata: dict
    network: FastNetwork
    fields: tuple[str, ...]
    frame_stack: int
    weights: dict[str, np.ndarray]
    previous_action: bool = False
    """Each frame ends with the policy's previous action (0 at a round's first tick)."""
    scaling: ObservationScaling | None = None
    """The running statistics the observations are scaled by (``None``: they are not)."""
    one_hot_cards: bool = False
    """The card fields are one-hot vectors over their values (``CardEncoding``)."""


def read_fast_model(path: str | os.PathLike) -> FastModel:
    """The model in ``path``, checked as the module says, or a ``ValueError`` naming the file and the problem."""
    path = existing_file(path)
    where = f"model file {str(path)!r}"
    metadata = read_metadata(path)
    if metadata is None or metadata.get("format") != FORMAT or metadata.get("algorithm") != ALGORITHM:
        held = "no war_env_model.json" if metadata is None else f"a {metadata.get('algorithm')!r} model"
        raise ValueError(
            f"{where} is not a fast_ppo model file (it holds {held}); "
            f"an SB3 model is played as ALGO:PATH, e.g. ppo:{path}"
        )
    try:
        network = FastNetwork.from_json(metadata.get("network"))
        fields = check_observation_fields(metadata.get("observation_fields"))
        frame_stack = check_frame_stack(metadata.get("frame_stack"))
        env_id_of(metadata)
        previous_action = metadata.get("previous_action", False)
        if not isinstance(previous_action, bool):
            raise ValueError(f"previous_action must be true or false, got {previous_action!r}")
        scaling = ObservationScaling.from_json(metadata.get("observation_scaling"))
        one_hot_cards = metadata.get("one_hot_cards", False)
        if not isinstance(one_hot_cards, bool):
            raise ValueError(f"one_hot_cards must be true or false, got {one_hot_cards!r}")
        _check_inputs(network, fields, frame_stack, previous_action, scaling, one_hot_cards)
    except ValueError as error:
        raise ValueError(f"{where}: {METADATA_NAME}: {error}") from None
    needed = 4 * network.parameters()  # float32: sizes known before anything is read
    held = entry_sizes(path).get("policy.pth")
    if held is None or held > needed + OVERHEAD_BYTES:
        raise ValueError(
            f"{where}: policy.pth {'is missing' if held is None else f'is {held:,} bytes'}; the network "
            f"its header describes fits in {needed + OVERHEAD_BYTES:,}"
        )
    with zipfile.ZipFile(path) as archive, entry_file(archive, path, "policy.pth") as stream:
        state = load_pth(stream, needed, f"{where}: policy.pth", float32=True)
    if not isinstance(state, dict):
        raise ValueError(f"{where}: policy.pth holds a {type(state).__name__}, not a state dict")
    check_state_dict(state, network, f"{where}: policy.pth")
    check_weights(path, {"policy": state})
    weights = {name: tensor.numpy() for name, tensor in state.items()}
    return FastModel(path, metadata, network, fields, frame_stack, weights, previous_action, scaling, one_hot_cards)


def load_fast_agent(path: str | os.PathLike, threads: int = 1, sampled: bool = False) -> FastPPOAgent:
    """The ``Agent`` that plays the model in ``path`` (``fast_ppo:PATH``; ``sampled``: ``actions=sampled``)."""
    return FastPPOAgent(read_fast_model(path), threads, sampled)


class FastPPOAgent(Agent):
    """A fast PPO policy behind the ``Agent`` interface, computed as numpy from the observation fields it was trained
    on (scaled by the file's statistics when it has them, its card fields one-hot when it was trained so:
    ``CardEncoding``), each followed by its previous action when it was trained
    so (0 at a round's first tick), its last ``frame_stack`` such frames (zeros before a round's first, as in
    training) and, when it has one, its LSTM's state (zero at a round's first tick). It plays the greedy action
    (argmax of the actor's logits), or with ``sampled`` an action drawn from the actor's distribution by a generator
    seeded by ``reset(seed)`` (each round's own seed in ``play_rounds``: paired and reproducible).
    ``tests/test_fast_ppo.py`` checks its actions equal to the torch policy's."""

    name = ALGORITHM

    def __init__(self, model: FastModel, threads: int = 1, sampled: bool = False):
        self.path = str(model.path)
        self.threads = int(threads)
        self.sampled = bool(sampled)
        self.fields = model.fields
        """The observation fields the policy sees (the evaluation loop refuses a game that does not show them)."""
        self.env_id = env_id_of(model.metadata)
        """The game the policy was trained on."""
        self.frame_stack = model.frame_stack
        self.previous_action = model.previous_action
        self.scaling = model.scaling
        self.cards = card_encoding(self.fields, model.one_hot_cards)
        self.network = model.network
        self.observes_latency = observes_latency(self.fields)
        self._columns = columns_of(self.fields)
        self._actor = _numpy_mlp(model.weights, "actor", len(model.network.hidden) + 1, model.network.activation)
        self._lstm = _numpy_lstm(model.weights) if model.network.recurrent else None
        self.reset()

    def spec(self) -> str:
        options = ([f"threads={self.threads}"] if self.threads != 1 else []) + (
            ["actions=sampled"] if self.sampled else []
        )
        return f"{ALGORITHM}:{self.path}" if not options else f"{ALGORITHM}:path={self.path}," + ",".join(options)

    @property
    def has_memory(self) -> bool:
        return self.frame_stack > 1 or self._lstm is not None or self.previous_action

    def reset(self, seed: int | None = None) -> None:
        self._frames = np.zeros(self.network.inputs, dtype=np.float32)
        self._state = None
        self._previous = 0
        self._rng = np.random.default_rng(seed)

    def network_input(self, observation) -> np.ndarray:
        """The network's input at this tick (its frames shifted: the oldest out, this tick's last), as in training."""
        frame = self._seen(np.asarray(observation, dtype=np.float32).reshape(1, -1))[0]
        if self.previous_action:
            frame = np.append(frame, np.float32(self._previous))
        self._frames = np.concatenate((self._frames[frame.size :], frame))
        return self._frames

    def remember(self, action: int) -> None:
        """The action played at this tick: the next frame's previous action."""
        self._previous = int(action)

    def act(self, observation) -> int:
        use_threads(self.threads)
        seen = self.network_input(observation)
        if self._lstm is not None:
            self._state = lstm_step(self._lstm, seen, self._state)
            seen = self._state[0]
        logits = forward(self._actor, seen[None, :])[0]
        if self.sampled:  # P(draw) = softmax(logits)[1], as torch's Categorical in training
            action = int(self._rng.random() < 1.0 / (1.0 + np.exp(logits[0] - logits[1])))
        else:
            action = int(logits.argmax())
        self.remember(action)
        return action

    def batch_policy(self):
        """Without memory the greedy action depends on the observation alone: many rounds at once. A sampled policy
        plays round by round (each round's draws come from its own seed)."""
        return None if self.has_memory or self.sampled else self._actions

    def _actions(self, observations: np.ndarray) -> np.ndarray:
        use_threads(self.threads)
        return forward(self._actor, self._seen(np.asarray(observations, dtype=np.float32))).argmax(axis=1)

    def _seen(self, observations: np.ndarray) -> np.ndarray:
        """The policy's frame of each observation, as the trainer builds it (``Rollout._frame``)."""
        raw = observations if self._columns is None else observations[:, self._columns]
        seen = raw if self.scaling is None else self.scaling.apply(raw)
        return seen if self.cards is None else self.cards.encode(raw, seen)


def _numpy_mlp(weights: dict, head: str, layers: int, activation: str) -> list:
    stack = []
    for layer in range(layers):
        if layer:
            stack.append((activation,))
        stack.append(
            ("linear", weights[f"{head}.{2 * layer}.weight"].T.copy(), weights[f"{head}.{2 * layer}.bias"].copy())
        )
    return stack


def _numpy_lstm(weights: dict) -> tuple:
    return (
        weights["lstm.weight_ih_l0"].T.copy(),
        weights["lstm.weight_hh_l0"].T.copy(),
        weights["lstm.bias_ih_l0"] + weights["lstm.bias_hh_l0"],
    )
