"""``python -m war_env.scripts.step_profile`` runs on a tiny budget (its figures are read from the command)."""

import math

import pytest

pytest.importorskip("numba")

from war_env.perf.step_profile import profile  # noqa: E402
from war_env.scripts.step_profile import cli  # noqa: E402


def test_the_profile_times_every_piece_of_a_step_and_cartpole_beside_them():
    pieces, _ = profile(num_envs=16, steps=2, warm_up=5)
    names = [piece.name for piece in pieces]
    assert names[0] == "WarVectorEnv.step (all of it)" and names[-1] == "CartPole-v1 vector step"
    assert any("kernel" in name and "alone" not in name for name in names)
    assert any(name.startswith("info['round']") for name in names)
    # A piece timed inside the step is 0 when it never ran (no round ended in 2 steps of 16 envs); the rest ran.
    assert all(math.isfinite(piece.micros) and (piece.micros > 0 or "inside" in piece.name) for piece in pieces)


def test_a_size_below_one_is_refused_with_the_option_named(capsys):
    with pytest.raises(SystemExit):
        cli(["--num-envs", "0"])
    assert "--num-envs" in capsys.readouterr().err
