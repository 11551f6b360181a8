"""Estimates with 95% intervals, each with the name of its method (scipy does the statistics).

Rates use the Wilson score interval; means a percentile bootstrap whose RNG is fixed by the data (a
run's numbers are reproducible, and equal data get equal intervals); the 95th percentile the
order-statistic interval. An estimate is a dict ``{"value", "low", "high", "method", ...}``, the
form ``results.json`` stores, with two flags a reader needs:

* ``"exact": true`` when every observation (two or more) had the same value: there is no spread to
  put an interval on, so the interval is the value itself (``prompt``'s false starts: 0 in every round);
* ``"not_finite": true`` when the value is not a finite float64 (huge values overflow
  a sum): value and interval are then ``None``, and the report says "not finite".
"""

from __future__ import annotations

import hashlib
import math
import zlib
from collections.abc import Callable, Sequence

import numpy as np

from war_env.evaluation.summary import order_statistics, reaction_quantile

CONFIDENCE = 0.95
BOOTSTRAP_RESAMPLES = 2000


def estimate(value, low, high, method: str, *, exact: bool = False, **extra) -> dict:
    """An estimate. ``value`` ``None``: nothing to estimate (no draws, say); a value that is not a
    finite number is ``None`` too, flagged ``not_finite``. An interval with an undefined or non-finite
    bound (a bootstrap over too few rounds, an overflow) is undefined as a whole."""

    def clean(number):
        return None if number is None or not math.isfinite(number) else float(number)

    flags = {}
    if value is not None and not math.isfinite(value):
        flags["not_finite"] = True
    low, high = clean(low), clean(high)
    if low is None or high is None:
        low = high = None
    if exact and not flags:
        flags["exact"] = True
    return {"value": clean(value), "low": low, "high": high, "method": method, **flags, **extra}


def is_finite(entry: dict | None) -> bool:
    """The estimate has a value (not missing, not an overflow)."""
    return entry is not None and entry["value"] is not None


def wilson(count: int, n: int) -> dict:
    """A rate with its Wilson score interval."""
    from scipy.stats import binomtest

    if n == 0:
        return estimate(None, None, None, "wilson", count=0)
    interval = binomtest(count, n).proportion_ci(CONFIDENCE, method="wilson")
    return estimate(count / n, interval.low, interval.high, "wilson", count=count)


def data_rng(*arrays: np.ndarray) -> np.random.Generator:
    """The bootstrap RNG is fixed by the data resampled: a run's numbers are reproducible, and equal
    data (battles of paired rounds, say) get equal intervals."""
    return np.random.default_rng(zlib.crc32(b"".join(np.ascontiguousarray(a, dtype=float).tobytes() for a in arrays)))


_bootstrap_cache: dict[bytes, dict] = {}


def _cached(kind: str, arrays: tuple[np.ndarray, ...], compute: Callable[[], dict]) -> dict:
    key = hashlib.sha256(kind.encode() + b"".join(a.tobytes() for a in arrays)).digest()
    if key not in _bootstrap_cache:
        _bootstrap_cache[key] = compute()
    return dict(_bootstrap_cache[key])


BOOTSTRAP_BATCH_VALUES = 1 << 23
"""Resampled values scipy's bootstrap holds at once (64 MB of float64): resamples are made in batches of
this many values, so a pairing of a million rounds costs a few batches, not 2000 x 8 MB."""


def _batch(size: int) -> int:
    """Resamples per batch for a sample of ``size`` values (``BOOTSTRAP_BATCH_VALUES`` at most)."""
    return max(1, min(BOOTSTRAP_RESAMPLES, BOOTSTRAP_BATCH_VALUES // max(size, 1)))


def bootstrap_mean(values: Sequence[float]) -> dict:
    """A mean with its percentile-bootstrap interval."""
    x = np.asarray(values, dtype=float)
    return _cached("mean", (x,), lambda: _bootstrap_mean(x))


def _bootstrap_mean(x: np.ndarray) -> dict:
    from scipy.stats import bootstrap

    method = f"bootstrap percentile ({BOOTSTRAP_RESAMPLES} resamples)"
    if x.size == 0:
        return estimate(None, None, None, method)
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is reported as not finite
        value = x.mean()
    if x.size > 1 and np.all(x == x[0]):  # no spread to resample
        return estimate(value, value, value, method, exact=True)
    if x.size < 2 or not math.isfinite(value):
        return estimate(value, None, None, method)
    with np.errstate(over="ignore", invalid="ignore"):
        result = bootstrap(
            (x,),
            np.mean,
            confidence_level=CONFIDENCE,
            n_resamples=BOOTSTRAP_RESAMPLES,
            batch=_batch(x.size),
            method="percentile",
            rng=data_rng(x),
        )
    return estimate(value, result.confidence_interval.low, result.confidence_interval.high, method)


def bootstrap_ratio(sums: Sequence[float], counts: Sequence[float]) -> dict:
    """sum(sums) / sum(counts) (a mean over draws) with a bootstrap over rounds, which keeps the
    draws of one round together."""
    s, c = np.asarray(sums, dtype=float), np.asarray(counts, dtype=float)
    return _cached("ratio", (s, c), lambda: _bootstrap_ratio(s, c))


def _bootstrap_ratio(s: np.ndarray, c: np.ndarray) -> dict:
    from scipy.stats import bootstrap

    method = f"bootstrap percentile over rounds ({BOOTSTRAP_RESAMPLES} resamples)"
    if c.sum() == 0:
        return estimate(None, None, None, method)
    value = s.sum() / c.sum()
    rounds_with_draws = c > 0
    per_round = s[rounds_with_draws] / c[rounds_with_draws]
    if rounds_with_draws.sum() < 2:
        return estimate(value, None, None, method)
    if np.all(per_round == per_round[0]):  # every round gave the same mean: no spread to resample
        return estimate(value, value, value, method, exact=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        result = bootstrap(
            (s, c),
            lambda a, b, axis=-1: a.sum(axis) / b.sum(axis),
            paired=True,
            batch=_batch(s.size),
            confidence_level=CONFIDENCE,
            n_resamples=BOOTSTRAP_RESAMPLES,
            method="percentile",
            rng=data_rng(s, c),
        )
    return estimate(value, result.confidence_interval.low, result.confidence_interval.high, method)


def bootstrap_score(agent: Sequence[float], zero: Sequence[float], one: Sequence[float]) -> dict:
    """The normalised score ``(mean(agent) - mean(zero)) / (mean(one) - mean(zero))`` of paired rounds (round i
    of each is the same deal) with a paired percentile bootstrap over rounds: 0 is the ``zero`` agent's return,
    1 the ``one`` agent's (bsuite's idea of one score per capability). Exactly 0 or 1 (``exact``) for an agent
    whose returns are ``zero``'s or ``one``'s round for round; ``None`` when ``one`` is not above ``zero`` on
    these rounds (no scale to score on)."""
    a, z, o = (np.asarray(x, dtype=float) for x in (agent, zero, one))
    return _cached("score", (a, z, o), lambda: _bootstrap_score(a, z, o))


def _bootstrap_score(a: np.ndarray, z: np.ndarray, o: np.ndarray) -> dict:
    from scipy.stats import bootstrap

    method = f"paired bootstrap percentile over rounds ({BOOTSTRAP_RESAMPLES} resamples)"
    span = o.mean() - z.mean() if a.size else 0.0
    if not span > 0:
        return estimate(None, None, None, method)
    for value, same in ((0.0, z), (1.0, o)):
        if np.array_equal(a, same):
            return estimate(value, value, value, method, exact=True)
    value = (a.mean() - z.mean()) / span
    if a.size < 2:
        return estimate(value, None, None, method)

    def statistic(x, y, w, axis=-1):
        return (x.mean(axis) - y.mean(axis)) / (w.mean(axis) - y.mean(axis))

    with np.errstate(invalid="ignore", divide="ignore"):
        result = bootstrap(
            (a, z, o),
            statistic,
            paired=True,
            confidence_level=CONFIDENCE,
            n_resamples=BOOTSTRAP_RESAMPLES,
            batch=_batch(3 * a.size),
            method="percentile",
            rng=data_rng(a, z, o),
        )
    return estimate(value, result.confidence_interval.low, result.confidence_interval.high, method)


SCORE_RANGE = (0.0, 1.0)
"""The bounded score's range (docs/probes.md, "The score"): 0 is the probe's best simple baseline and
everything worse, 1 the oracle and any luck of the deals beyond it. Below the baseline an agent shows none of the
capability, and how much worse it is (takeovers at -100, false starts) is in a unit of the probe's own gap that
differs by probe, so it counts 0 in every probe; the raw regret, kept beside the score, says how much worse."""


def bound(value: float) -> float:
    """A normalised score clipped to ``SCORE_RANGE``."""
    low, high = SCORE_RANGE
    return min(high, max(low, value))


def bounded_score(score: dict) -> dict:
    """A ``bootstrap_score`` estimate clipped to ``SCORE_RANGE``: its value and both ends of its interval (a
    percentile interval of the clipped score is the clipped interval, clipping being monotone), with
    ``"clipped": "below"`` or ``"above"`` when the value lay outside the range."""
    if score["value"] is None:
        return dict(score)
    clipped = {key: None if score[key] is None else bound(score[key]) for key in ("value", "low", "high")}
    low, high = SCORE_RANGE
    side = "below" if score["value"] < low else "above" if score["value"] > high else None
    return {**score, **clipped, **({"clipped": side} if side else {})}


def iqm(values) -> float:
    """The interquartile mean: the mean of the middle half (``scipy.stats.trim_mean(values, 0.25)``)."""
    from scipy.stats import trim_mean

    return float(trim_mean(np.asarray(values, dtype=float), 0.25))


def iqm_interval(*tasks: Sequence[float]) -> dict:
    """The IQM of the runs of one or more tasks (runs = training seeds) with a stratified percentile
    bootstrap, as rliable does (Agarwal et al. 2021, "Deep RL at the edge of the statistical precipice"):
    each task's runs are resampled with replacement on their own (scipy's ``bootstrap`` with one sample
    per task, ``paired=False``), and the IQM is taken over all resampled runs together."""
    from scipy.stats import bootstrap, trim_mean

    samples = tuple(np.asarray(task, dtype=float) for task in tasks)
    method = f"IQM, stratified bootstrap percentile over runs ({BOOTSTRAP_RESAMPLES} resamples)"
    pooled = np.concatenate(samples) if samples else np.zeros(0)
    if pooled.size == 0:
        return estimate(None, None, None, method)
    value = iqm(pooled)
    if pooled.size > 1 and np.all(pooled == pooled[0]):  # every run the same: no spread to resample
        return estimate(value, value, value, method, exact=True)
    if min(sample.size for sample in samples) < 2:
        return estimate(value, None, None, method)

    def statistic(*resampled, axis=-1):
        return trim_mean(np.concatenate(resampled, axis=axis), 0.25, axis=axis)

    result = bootstrap(
        samples,
        statistic,
        paired=False,
        confidence_level=CONFIDENCE,
        n_resamples=BOOTSTRAP_RESAMPLES,
        batch=_batch(pooled.size),
        method="percentile",
        rng=data_rng(*samples),
    )
    return estimate(value, result.confidence_interval.low, result.confidence_interval.high, method)


def probability_of_improvement(x_tasks: Sequence[Sequence[float]], y_tasks: Sequence[Sequence[float]]) -> dict:
    """P(X > Y) as rliable defines it (Agarwal et al. 2021): per task, the Mann-Whitney probability that a run of
    X scores above a run of Y (ties count one half), averaged over the tasks; with a stratified percentile
    bootstrap (each task's runs of X and of Y resampled on their own)."""
    from scipy.stats import bootstrap

    xs = tuple(np.asarray(task, dtype=float) for task in x_tasks)
    ys = tuple(np.asarray(task, dtype=float) for task in y_tasks)
    method = f"probability of improvement, stratified bootstrap percentile over runs ({BOOTSTRAP_RESAMPLES} resamples)"
    if len(xs) != len(ys) or not xs or min(task.size for task in xs + ys) == 0:
        raise ValueError("probability_of_improvement needs the runs of both algorithms on the same non-empty tasks")
    tasks = len(xs)

    def statistic(*samples, axis=-1):
        per_task = []
        for x, y in zip(samples[:tasks], samples[tasks:]):
            x, y = np.moveaxis(x, axis, -1), np.moveaxis(y, axis, -1)
            wins = (x[..., :, None] > y[..., None, :]) + 0.5 * (x[..., :, None] == y[..., None, :])
            per_task.append(wins.mean(axis=(-2, -1)))
        return np.mean(per_task, axis=0)

    value = float(statistic(*xs, *ys))
    if min(task.size for task in xs + ys) < 2:
        return estimate(value, None, None, method)
    if all(np.all(task == task[0]) for task in xs + ys):  # nothing to resample
        return estimate(value, value, value, method, exact=True)
    result = bootstrap(
        xs + ys,
        statistic,
        paired=False,
        confidence_level=CONFIDENCE,
        n_resamples=BOOTSTRAP_RESAMPLES,
        method="percentile",
        rng=data_rng(*xs, *ys),
    )
    return estimate(value, result.confidence_interval.low, result.confidence_interval.high, method)


def quantile_95(histogram: np.ndarray) -> dict:
    """The 95th percentile of draws counted per tick (``histogram[t]`` draws on tick t), with the
    distribution-free order-statistic interval (draws taken as independent): the ranks of
    ``scipy.stats.quantile_test``'s interval, read from the histogram, so no list of draws is needed."""
    from scipy.stats import binom

    method = "order statistics (scipy.stats.quantile_test's ranks)"
    histogram = np.asarray(histogram)
    n = int(histogram.sum())
    if n == 0:
        return estimate(None, None, None, method)
    value = reaction_quantile(histogram, 0.95)
    if n > 1 and np.count_nonzero(histogram) == 1:
        return estimate(value, value, value, method, exact=True)
    tail = (1 - CONFIDENCE) / 2
    ranks = binom(n, 0.95)
    low_rank, high_rank = int(ranks.ppf(tail)) - 1, int(ranks.isf(tail))
    low = float(order_statistics(histogram, [low_rank])[0]) if low_rank >= 0 else None
    high = float(order_statistics(histogram, [high_rank])[0]) if high_rank < n else None
    return estimate(value, low, high, method)


def scaled(entry: dict, factor: float) -> dict:
    return {**entry, **{key: None if entry[key] is None else entry[key] * factor for key in ("value", "low", "high")}}
