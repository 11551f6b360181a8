"""scripts/perf.py runs end to end on a tiny budget (speed itself is measured by the script, not here)."""

import random

import pytest

from war_env.perf import measure_all as main
from war_env.perf import python_war_round
from war_env.bots import make_bot
from war_env.rules import WarConfig


def test_the_table_has_every_measurement_and_its_peer():
    result = main(repeats=1, budget=0.01, fast_rounds=64, league=False, memory=False, print_table=False)
    names = [row.what for row in result.rows]
    assert "single env via gym.make" in names
    assert [f"vector env N={n}" in names for n in (1, 16, 256, 4096)] == [True] * 4
    assert any(name.startswith("fast path battles") for name in names)
    assert all(row.ratio > 0 for row in result.rows if row.peer is not None)
    assert "CartPole-v1" in result.table and "Blackjack-v1" in result.table and "pure-Python War" in result.table


def test_the_pure_python_baseline_plays_rounds_of_the_same_rules():
    config = WarConfig()
    cdf = make_bot("human").reaction_cdf(config)
    rng = random.Random(0)
    battles = [python_war_round(rng, (cdf, cdf), config) for _ in range(200)]
    assert all(1 <= b <= config.max_battles for b in battles)
    assert 50 <= sum(battles) / len(battles) <= 150  # War rounds to 50 points take about 70-100 battles


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="repeats"):
        main(repeats=0)
