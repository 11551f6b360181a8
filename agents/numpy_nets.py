"""Greedy play of small networks as numpy: a stack of Linear and activation layers (``forward``) and one tick of
torch's LSTM (``lstm_step``). At one call per tick, torch's per-call overhead costs far more than these networks;
the model agents (``sb3_agent``, ``fast_model``) copy their weights out of torch once and play with these."""

from __future__ import annotations

import numpy as np


def lstm_step(lstm: tuple, x: np.ndarray, state: tuple | None) -> tuple[np.ndarray, np.ndarray]:
    """One tick of torch's LSTM (gates in its order: input, forget, cell, output); ``state`` ``None`` is the
    zero state of a round's first tick. Returns the new ``(h, c)``."""
    w_ih, w_hh, bias = lstm
    hidden = w_hh.shape[0]
    h, c = state if state is not None else (np.zeros(hidden, np.float32), np.zeros(hidden, np.float32))
    gates = x @ w_ih + h @ w_hh + bias
    i, f, g, o = (gates[k * hidden : (k + 1) * hidden] for k in range(4))
    c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
    return sigmoid(o) * np.tanh(c), c


def sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def forward(layers: list, x: np.ndarray) -> np.ndarray:
    """``x`` (one row per observation) through ``layers``: ``("linear", W, b)`` (``x @ W + b``), ``("tanh",)``,
    ``("relu",)``, ``("elu",)`` or ``("leaky_relu", slope)``."""
    for layer in layers:
        kind = layer[0]
        if kind == "linear":
            x = x @ layer[1] + layer[2]
        elif kind == "tanh":
            x = np.tanh(x)
        elif kind == "relu":
            x = np.maximum(x, 0)
        elif kind == "elu":
            x = np.where(x > 0, x, np.expm1(np.minimum(x, 0)))
        else:
            x = np.where(x > 0, x, x * layer[1])
    return x
