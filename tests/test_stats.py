"""Estimates with intervals: a value every round shares is exact, an overflow is not finite, never a
crash and never a number that is not one."""

import json
import math

import numpy as np
import pytest
from scipy import stats as scipy_stats

from war_env.league.stats import (
    BOOTSTRAP_RESAMPLES,
    bootstrap_mean,
    bootstrap_ratio,
    data_rng,
    estimate,
    iqm,
    iqm_interval,
    quantile_95,
    scaled,
    wilson,
)


def test_a_mean_that_every_round_shares_is_exact_with_the_value_as_its_interval():
    entry = bootstrap_mean([0.0] * 50)
    assert entry["exact"] is True and entry["value"] == entry["low"] == entry["high"] == 0.0


def test_a_mean_with_spread_has_an_interval_and_is_not_exact():
    entry = bootstrap_mean([0.0, 1.0] * 25)
    assert "exact" not in entry and entry["low"] < entry["value"] == 0.5 < entry["high"]


def test_a_mean_that_overflows_float64_is_not_finite_and_has_no_interval():
    # every value is finite, their sum is not: what records built by hand can hold
    entry = bootstrap_mean([-1e307, -1e308] * 20)
    assert entry["not_finite"] is True and entry["value"] is entry["low"] is entry["high"] is None
    assert "exact" not in entry
    json.dumps(entry, allow_nan=False)  # results.json stays valid JSON


def test_infinite_observations_give_a_value_that_is_not_finite():
    assert bootstrap_mean([-math.inf] * 5)["not_finite"] is True
    assert bootstrap_mean([1.0, math.nan])["not_finite"] is True


def test_nothing_to_estimate_is_none_without_the_not_finite_flag():
    entry = bootstrap_ratio([0, 0], [0, 0])  # no draws at all
    assert entry["value"] is None and "not_finite" not in entry


def test_a_ratio_is_exact_when_every_round_has_the_same_mean():
    assert bootstrap_ratio([0, 0, 0], [5, 7, 9])["exact"] is True
    assert "exact" not in bootstrap_ratio([0, 7, 9], [5, 7, 9])


def test_a_ratio_from_a_single_round_with_draws_has_no_interval():
    entry = bootstrap_ratio([3, 0], [2, 0])
    assert entry["value"] == 1.5 and entry["low"] is None and "exact" not in entry


def histogram(draws) -> np.ndarray:
    return np.bincount(np.asarray(draws, dtype=int), minlength=30)


def test_the_95th_percentile_of_equal_draws_is_exact():
    assert quantile_95(histogram([29] * 100))["exact"] is True
    assert "exact" not in quantile_95(histogram(list(range(100))))


@pytest.mark.parametrize("seed", range(6))
def test_the_95th_percentile_from_a_histogram_is_scipys_quantile_test_on_the_draws(seed):
    from scipy.stats import quantile_test

    draws = np.random.default_rng(seed).geometric(0.2 + 0.1 * seed, size=[3, 40, 900, 5000][seed % 4]) - 1
    entry = quantile_95(histogram(draws))
    value = float(np.percentile(draws, 95))
    interval = quantile_test(draws, q=value, p=0.95).confidence_interval(0.95)
    assert entry["value"] == value
    expected = [None if not np.isfinite(bound) else float(bound) for bound in (interval.low, interval.high)]
    assert [entry["low"], entry["high"]] == (expected if None not in expected else [None, None])


def test_rates_keep_the_wilson_interval_even_at_zero():
    entry = wilson(0, 1600)
    assert entry["value"] == 0 and entry["high"] > 0 and "exact" not in entry


def test_scaling_keeps_the_flags():
    assert scaled(bootstrap_ratio([0, 0], [1, 1]), 0.1)["exact"] is True


@pytest.mark.parametrize("low, high", [(math.nan, 1.0), (0.0, math.inf), (None, 1.0)])
def test_an_interval_with_an_undefined_bound_is_dropped_as_a_whole(low, high):
    entry = estimate(0.5, low, high, "m")
    assert entry["value"] == 0.5 and entry["low"] is entry["high"] is None


def test_a_single_observation_is_neither_exact_nor_given_an_interval():
    for entry in (bootstrap_mean([0.7]), quantile_95(histogram([4]))):
        assert entry["low"] is None and "exact" not in entry


# --- IQM across training runs, with rliable's stratified bootstrap ---------------------------------
def test_the_iqm_is_the_mean_of_the_middle_half():
    assert iqm([0.0, 1.0, 2.0, 3.0, 100.0]) == 2.0  # 5 runs: the lowest and the highest are trimmed
    assert iqm([0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 100.0]) == 3.5


def test_the_iqm_interval_of_one_task_is_scipys_percentile_bootstrap_over_its_runs():
    runs = [0.0, 0.02, 0.001, 0.5, 0.0]
    entry = iqm_interval(runs)
    x = np.asarray(runs)
    expected = scipy_stats.bootstrap(
        (x,),
        lambda a, axis=-1: scipy_stats.trim_mean(a, 0.25, axis=axis),
        n_resamples=BOOTSTRAP_RESAMPLES,
        method="percentile",
        rng=data_rng(x),
    )
    assert entry["value"] == scipy_stats.trim_mean(x, 0.25)
    assert (entry["low"], entry["high"]) == (expected.confidence_interval.low, expected.confidence_interval.high)
    assert entry["low"] <= entry["value"] <= entry["high"]


def test_a_stratified_bootstrap_resamples_each_tasks_runs_on_their_own():
    """Two tasks, each run resampled within its task: a resample always holds 3 runs of each."""
    easy, hard = [0.0, 0.1, 0.2], [10.0, 11.0, 12.0]
    entry = iqm_interval(easy, hard)
    assert entry["value"] == scipy_stats.trim_mean(easy + hard, 0.25)
    # pooled resampling could draw 6 hard runs (IQM 10 or more); stratified never gets that far
    assert entry["high"] < 10.0 and entry["low"] > 0.1


def test_runs_that_all_agree_are_exact_and_one_run_has_no_interval():
    entry = iqm_interval([0.0] * 5)
    assert entry["exact"] is True and entry["value"] == entry["low"] == entry["high"] == 0.0
    single = iqm_interval([0.3])
    assert single["value"] == 0.3 and single["low"] is single["high"] is None
