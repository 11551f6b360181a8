"""The vector env of WarLatency-v0: every sub-env is the single WarLatency-v0, step for step, and the
press-in-flight rules of ``test_clock.py`` hold through the batched engine.

As in ``test_vector.py`` the single env (the scalar clock) is the reference and both are played side by
side with the same seeds and actions: observations bit for bit (War-v0's fields, the opponent's clock,
the presses in flight), rewards, flags, action masks and round info, with every bot and several
latencies, over both engines of the vector env (the compiled one and the loop over single envs).
"""

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from test_vector import play_side_by_side, pressing

import war_env  # noqa: F401
from war_env.batched.state import LATENCY_OBSERVATION
from war_env.core.latency import latency_cdf, sample_delay
from war_env.core.observation import OBSERVATION_FIELDS, OBSERVATION_SIZE, observation_fields
from war_env.core.randomness import STREAM_LATENCY, hash_uniform
from war_env.core.rules import WarConfig
from war_env.envs.latency import WarLatencyEnv
from war_env.envs.vector import WarLatencyVectorEnv, WarVectorEnv, sub_env_round_info

BOTS = ["instant", "human", "uniform:low=1,high=10", "fixed:ticks=5", "absent"]
LATENCIES = ["fixed:ticks=1", "fixed:ticks=3", "uniform:low=1,high=4", "uniform:low=0,high=2", "fixed:ticks=0"]


def side_by_side(latency, opponent, p, steps, num_envs=3, seed=100, backend="numba", **rules):
    config = WarConfig(latency=latency, **rules)
    vector = WarLatencyVectorEnv(num_envs, opponent=opponent, config=config, backend=backend)
    singles = [gym.make("WarLatency-v0", opponent=opponent, config=config) for _ in range(num_envs)]
    return play_side_by_side(vector, singles, pressing(num_envs, p, seed=seed), steps=steps, seed=seed)


@pytest.mark.slow
@pytest.mark.parametrize("latency", LATENCIES)
@pytest.mark.parametrize("opponent", BOTS)
def test_each_sub_env_follows_the_single_latency_env_over_whole_rounds(latency, opponent, backend):
    # p = 0.4: several presses in flight, landing in and out of turn, some together
    ended = side_by_side(latency, opponent, 0.4, steps=900, backend=backend, target_points=15)
    assert len(ended) >= 3


@pytest.mark.slow
@pytest.mark.parametrize("latency", ["fixed:ticks=4", "uniform:low=1,high=4"])
def test_takeovers_with_presses_in_flight_are_played_out_as_the_single_env_does(latency, backend):
    # Pressing rarely lets the timer run out, often with a press still in flight.
    ended = side_by_side(latency, "human", 0.03, steps=1500, num_envs=4, seed=7, backend=backend, turn_seconds=1.0)
    assert len(ended) >= 20 and any(info["takeover"][0] for info in ended)


def test_many_presses_landing_together_and_shuffled_pickups_and_other_rules(backend):
    # the widest latency: up to 16 presses in flight, several landing in one tick (rewards summed one by one)
    ended = side_by_side(
        "uniform:low=1,high=16",
        "uniform:low=0,high=30",
        0.9,
        steps=800,
        backend=backend,
        turn_seconds=2.0,
        pickup="shuffled",
        war_face_down=2,
        target_points=10,
        reward_false_start=-0.03,
        reward_idle_tick=-0.007,
    )
    assert len(ended) >= 2 and max(info["false_starts"][0] for info in ended) > 20


@pytest.mark.parametrize("latency", ["fixed:ticks=2", "uniform:low=1,high=4"])
def test_the_gymnasium_sync_vector_env_of_single_latency_envs_gives_the_same_batches(latency, backend):
    kwargs = {"opponent": "human", "max_episode_steps": 120, "latency": latency, "target_points": 10}
    ours = gym.make_vec("WarLatency-v0", num_envs=4, vectorization_mode="vector_entry_point", backend=backend, **kwargs)
    theirs = gym.make_vec("WarLatency-v0", num_envs=4, vectorization_mode="sync", **kwargs)
    assert isinstance(ours.unwrapped, WarLatencyVectorEnv)
    assert ours.single_observation_space == theirs.single_observation_space
    assert theirs.metadata["autoreset_mode"] == ours.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    np.testing.assert_array_equal(ours.reset(seed=5)[0], theirs.reset(seed=5)[0])
    act = pressing(4, 0.5, seed=3)
    rounds = truncations = 0
    for step in range(1500):
        a, b = ours.step(act(step)), theirs.step(act(step))
        for mine, their in zip(a[:4], b[:4]):
            np.testing.assert_array_equal(mine, their)
        truncations += b[3].sum()
        if "round" in b[4]:
            for i in np.flatnonzero(b[4]["_round"]):
                assert sub_env_round_info(a[4], i) == {
                    key: b[4]["round"][key][i] for key in b[4]["round"] if not key.startswith("_")
                }
                rounds += 1
    assert rounds >= 2 and truncations >= 1


def test_the_default_latency_and_the_spaces_are_the_single_envs():
    vector = gym.make_vec("WarLatency-v0", num_envs=2, vectorization_mode="vector_entry_point")
    single = gym.make("WarLatency-v0")
    assert vector.unwrapped.config.latency == single.unwrapped.config.latency == "fixed:ticks=2"
    assert vector.single_observation_space == single.observation_space
    assert vector.observation_space.shape == (2, OBSERVATION_SIZE + 2 + 2)


def test_without_latency_its_first_fields_are_war_v0s_vector_env(backend):
    plain = WarVectorEnv(3, opponent="human", backend=backend)
    latency = WarLatencyVectorEnv(3, opponent="human", latency="fixed:ticks=0", backend=backend)
    assert np.array_equal(plain.reset(seed=4)[0], latency.reset(seed=4)[0][:, :OBSERVATION_SIZE])
    act = pressing(3, 0.3, seed=9)
    for step in range(600):
        a, b = plain.step(act(step)), latency.step(act(step))
        np.testing.assert_array_equal(a[0], b[0][:, :OBSERVATION_SIZE])
        for mine, their in zip(a[1:4], b[1:4]):
            np.testing.assert_array_equal(mine, their)


def test_war_v0s_vector_env_refuses_latency_and_names_the_latency_id(backend):
    with pytest.raises(ValueError, match="War-v0's vector env has no action latency.*WarLatency-v0"):
        WarVectorEnv(2, latency="fixed:ticks=2", backend=backend)


def test_the_engine_writes_the_observation_the_single_env_declares_and_refuses_a_width_it_does_not():
    pytest.importorskip("numba")

    class Undeclared(WarLatencyEnv):  # shows War-v0's 16 fields but declares WarLatency-v0's observation
        @classmethod
        def fields_for(cls, config):
            return OBSERVATION_FIELDS

    class UndeclaredVector(WarLatencyVectorEnv):
        single_env = Undeclared

    assert WarLatencyVectorEnv(2, backend="numba")._engine.rounds.rules.params["observation"][0] == LATENCY_OBSERVATION
    with pytest.raises(ValueError, match="Undeclared shows 16 floats, but its declared observation 'latency' has 20"):
        UndeclaredVector(2, backend="numba")
    with pytest.raises(ValueError, match="unknown observation 'latncy'"):
        observation_fields("latncy", WarConfig())


# --- the rules of presses in flight (test_clock.py's latency table), through the batched engine ---------------
LONG_DEAL = [["AC", "KC", "QC", "JC"], ["2D", "3D", "4D", "5D"]]
IN_FLIGHT = slice(OBSERVATION_SIZE + 2, None)
OPPONENT_HAS_DRAWN = 3


def seed_with_delays(latency: str, delays: list[int]) -> int:
    """A reset seed whose round key delays the first presses of seat 0 by ``delays`` (the latency's rule)."""
    env = WarLatencyEnv(latency=latency)
    for seed in range(10_000):
        env.reset(seed=seed)
        key = env.round.round_key
        if [
            sample_delay(latency_cdf(latency), hash_uniform(key, STREAM_LATENCY[0], k)) for k in range(len(delays))
        ] == delays:
            return seed
    raise AssertionError(f"no seed below 10000 gives delays {delays}")


# (rule, latency, opponent, piles, starter, seed, rules, actions, expected rewards, presses in flight after each
# step, expected (false starts, takeover, reaction ticks) of the round at its end or None)
RULES = [
    (
        "a delayed press draws in the tick it lands, the ticks before are idle",
        "fixed:ticks=2",
        "instant",
        LONG_DEAL,
        0,
        0,
        {},
        [1, 0, 0],
        [-0.001, -0.001, 0.0],
        [[1, 0], [0, 1], [0, 0]],
        None,
    ),
    (
        "a press sent before the turn opens draws if it lands after the opening",
        "fixed:ticks=1",
        "instant",
        LONG_DEAL,
        1,
        0,
        {},
        [1, 0],
        [0.0, 0.0],
        [[1], [0]],
        None,
    ),
    (
        "a press landing while the turn is closed is a false start, charged as it lands",
        "fixed:ticks=2",
        "fixed:ticks=5",
        LONG_DEAL,
        1,
        0,
        {},
        [1, 0, 0],
        [0.0, 0.0, -0.1],
        [[1, 0], [0, 1], [0, 0]],
        None,
    ),
    (
        "presses landing in the same tick act one after another, so only the first draws",
        "uniform:low=1,high=2",
        "instant",
        LONG_DEAL,
        0,
        ("uniform:low=1,high=2", [2, 1]),
        {},
        [1, 1, 0],
        [-0.001, -0.001, -0.1],
        [[1, 0], [1, 1], [0, 0]],
        None,
    ),
    (
        "a taken-over seat's presses in flight do nothing",
        "fixed:ticks=4",
        "instant",
        LONG_DEAL,
        0,
        0,
        {"turn_seconds": 0.5},
        [0, 1, 0, 0, 0],
        [-0.001] * 4 + [-0.001 - 1.0 + 1.0],
        [[0] * 4, [1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0] * 4],
        ((0, 0), (True, False), ([], [0, 0, 0, 0])),
    ),  # the takeover bot wins the rest: +1
    (
        "presses in flight when the round ends do nothing (and are still seen in flight)",
        "fixed:ticks=2",
        "instant",
        [["AC"], ["2D"]],
        0,
        0,
        {},
        [1, 0, 1, 1],
        [-0.001, -0.001, 0.0, 1.0],
        [[1, 0], [0, 1], [1, 0], [1, 1]],
        ((0, 0), (False, False), ([2], [0])),
    ),
]


@pytest.mark.parametrize("backend_name", ["numba", "reference"])
@pytest.mark.parametrize(
    "rule, latency, opponent, piles, starter, seed, rules, actions, rewards, flights, end",
    RULES,
    ids=[rule[0] for rule in RULES],
)
def test_the_press_in_flight_rules_hold_in_the_vector_env(
    rule, latency, opponent, piles, starter, seed, rules, actions, rewards, flights, end, backend_name
):
    if backend_name == "numba":
        pytest.importorskip("numba")
    seed = seed_with_delays(*seed) if isinstance(seed, tuple) else seed
    vector = WarLatencyVectorEnv(1, opponent=opponent, latency=latency, backend=backend_name, **rules)
    vector.reset(seed=seed, options={"piles": piles, "starter": starter})
    seen_rewards, seen_flights, info = [], [], {}
    for action in actions:
        observation, reward, terminated, _, info = vector.step(np.array([action]))
        seen_rewards.append(float(reward[0]))
        seen_flights.append(observation[0, IN_FLIGHT].tolist())
    assert seen_rewards == pytest.approx(rewards, abs=1e-12) and seen_flights == flights
    if end is not None:
        round_info = sub_env_round_info(info, 0)
        assert (
            tuple(round_info["false_starts"]),
            tuple(round_info["takeover"]),
            tuple(map(list, round_info["reaction_ticks"])),
        ) == end


def test_bots_have_no_latency_in_the_vector_env(backend):
    vector = WarLatencyVectorEnv(1, opponent="fixed:ticks=2", latency="fixed:ticks=3", backend=backend)
    vector.reset(seed=0, options={"piles": LONG_DEAL, "starter": 1})
    opponent_drawn = [vector.step(np.array([0]))[0][0, OPPONENT_HAS_DRAWN] for _ in range(3)]
    assert opponent_drawn == [0.0, 0.0, 1.0]  # its turn opens in tick 1, it draws 2 ticks later


def test_the_compiled_delay_of_the_kth_press_is_the_scalar_clocks():
    pytest.importorskip("numba")
    from war_env.batched.state import new_state, params_of
    from war_env.batched.turn_clock import delay

    for latency in ("uniform:low=1,high=4", "uniform:low=0,high=16", "fixed:ticks=3"):
        config = WarConfig(latency=latency, turn_seconds=2.0)
        params = params_of(config, (None, None))
        state = new_state(2)
        state["round_key"] = [2024, 2**63 + 17]
        for g, key in enumerate(state["round_key"].tolist()):
            for seat in (0, 1):
                compiled = [delay(state[g], params[0], seat, k) for k in range(200)]
                scalar = [
                    sample_delay(latency_cdf(latency), hash_uniform(key, STREAM_LATENCY[seat], k)) for k in range(200)
                ]
                assert compiled == scalar, (latency, key, seat)
