"""The probes on the batched engine: every sub-env of ``gym.make_vec(probe_id, vectorization_mode=
"vector_entry_point")`` is the single probe env, step for step, and ``evaluation.play_rounds`` gives the same
records on the batched paths as tick by tick.

As in ``test_vector.py`` the single env (the scalar clock: ``TimedRound`` asking the ``pool`` and ``leader`` bots
``turn_cdf`` as each turn opens) is the reference, played side by side with the same seeds and random actions:
observations bit for bit (the memory probe's 16 fields over the latency game, the inference probe's
``opponent_reaction``), rewards, flags, action masks and round info, over both engines of the vector env.
"""

import gymnasium as gym
import numpy as np
import pytest
from test_vector import play_side_by_side, pressing

import war_env
from war_env import batched
from war_env.agents import make_agent
from war_env.core.bots import make_bot
from war_env.core.observation import INDEX, inference_fields
from war_env.core.probes import PROBES, Probe
from war_env.core.rules import WarConfig
from war_env.envs.games import GAMES, probe_of
from war_env.envs.latency import WarLatencyEnv
from war_env.envs.probe_envs import PROBE_ENVS, PROBE_VECTOR_ENVS, ProbeVectorEnv
from war_env.envs.war import WarEnv
from war_env.evaluation import play_round, play_rounds

PROBE_IDS = [probe.env_id for probe in PROBES.values()]


def probe_side_by_side(env_id, p, seed, steps, backend, num_envs=3, **kwargs):
    vector = gym.make_vec(env_id, num_envs=num_envs, vectorization_mode="vector_entry_point", backend=backend, **kwargs)
    singles = [gym.make(env_id, **kwargs) for _ in range(num_envs)]
    assert isinstance(vector.unwrapped, ProbeVectorEnv)
    assert vector.single_observation_space == singles[0].observation_space
    return play_side_by_side(vector, singles, pressing(num_envs, p, seed=seed), steps=steps, seed=seed)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 11, 2026])
@pytest.mark.parametrize("env_id", PROBE_IDS)
def test_each_sub_env_of_a_probe_follows_the_single_probe_env(env_id, seed, backend):
    # random presses, sparse and dense: false starts, presses in flight, idle ticks, rounds to their end
    ended = probe_side_by_side(env_id, 0.1, seed, 1500, backend)
    ended += probe_side_by_side(env_id, 0.5, seed + 1, 600, backend, target_points=8)
    assert len(ended) >= 5
    if env_id in (PROBES["inference"].env_id, PROBES["reading"].env_id):  # both members, both contexts were played
        reactions = {tick for info in ended for tick in info["reaction_ticks"][1]}
        assert {4, 5, 10, 11} <= reactions <= {4, 5, 10, 11}


@pytest.mark.slow
@pytest.mark.parametrize(
    "opponent, turn_seconds",
    [
        ("leader:ahead=2,behind=40,width=3", 3.0),  # behind: it misses its timer and is taken over
        ("pool:fast=0,slow=25,width=10,share_fast=0.3", 3.0),  # the slow member misses its timer in some turns
        ("leader:ahead=0,behind=1,width=1", 1.0),
    ],
)
@pytest.mark.parametrize("env_id", ["WarInference-v0", "WarMemory-v1"])
def test_other_pools_and_leaders_and_their_takeovers_are_batched_the_same(env_id, opponent, turn_seconds, backend):
    ended = probe_side_by_side(
        env_id,
        0.2,
        5,
        1500,
        backend,
        opponent=opponent,
        turn_seconds=turn_seconds,
        latency="uniform:low=1,high=3",
        target_points=6,
    )
    assert len(ended) >= 3
    if "behind=40" in opponent:
        assert any(info["takeover"][1] for info in ended)


@pytest.mark.slow
@pytest.mark.parametrize(
    "opponent", ["pool:fast=2,slow=9,width=3", "leader:ahead=1,behind=8,width=4", "leader:ahead=1,behind=35,width=2"]
)
@pytest.mark.parametrize("latency", [None, "fixed:ticks=3"])
def test_the_varying_bots_play_war_v0_and_warlatency_v0_batched_too(opponent, latency, backend):
    env_id = "War-v0" if latency is None else "WarLatency-v0"
    kwargs = {} if latency is None else {"latency": latency}
    vector = gym.make_vec(
        env_id,
        num_envs=3,
        vectorization_mode="vector_entry_point",
        backend=backend,
        opponent=opponent,
        target_points=10,
        **kwargs,
    )
    singles = [gym.make(env_id, opponent=opponent, target_points=10, **kwargs) for _ in range(3)]
    ended = play_side_by_side(vector, singles, pressing(3, 0.3, seed=8), steps=1200, seed=30)
    assert len(ended) >= 5


@pytest.mark.parametrize("env_id", PROBE_IDS)
def test_make_vec_gives_the_probe_s_batched_env_with_its_defaults(env_id):
    probe = next(probe for probe in PROBES.values() if probe.env_id == env_id)
    envs = gym.make_vec(env_id, num_envs=2, vectorization_mode="vector_entry_point")
    single = gym.make(env_id)
    assert type(envs.unwrapped) is PROBE_VECTOR_ENVS[probe.name]
    assert envs.unwrapped.single_env is PROBE_ENVS[probe.name]
    assert envs.unwrapped.config == single.unwrapped.config == probe.config()
    assert envs.unwrapped.opponent_bot == make_bot(probe.opponent)
    assert envs.single_observation_space == single.observation_space
    assert type(gym.make_vec(env_id, num_envs=2).unwrapped) is PROBE_VECTOR_ENVS[probe.name]  # the default mode
    overridden = gym.make_vec(
        env_id,
        num_envs=2,
        vectorization_mode="vector_entry_point",
        opponent="instant",
        config=WarConfig(latency="fixed:ticks=1"),
    )
    assert overridden.unwrapped.config == WarConfig(latency="fixed:ticks=1")
    assert overridden.unwrapped.opponent_bot == make_bot("instant")


def test_the_sync_vector_env_of_single_probe_envs_gives_the_same_batches(backend):
    ours = gym.make_vec(
        "WarInference-v0", num_envs=4, vectorization_mode="vector_entry_point", backend=backend, max_episode_steps=150
    )
    theirs = gym.make_vec("WarInference-v0", num_envs=4, vectorization_mode="sync", max_episode_steps=150)
    np.testing.assert_array_equal(ours.reset(seed=9)[0], theirs.reset(seed=9)[0])
    act = pressing(4, 0.3, seed=2)
    truncations = 0
    for step in range(700):
        a, b = ours.step(act(step)), theirs.step(act(step))
        for mine, their in zip(a[:4], b[:4]):
            np.testing.assert_array_equal(mine, their)
        truncations += b[3].sum()
    assert truncations >= 4


# --- evaluation.play_rounds: the batched paths give the records of play_round -------------------------------------
needs_numba = pytest.mark.skipif(not batched.available(), reason="the batched engine needs numba (the fast extra)")
SEEDS = [3, 77, 1_000_003, 12, 5]


def one_by_one(agent_spec, opponent, config, seeds, latency):
    env = (WarLatencyEnv if latency else WarEnv)(opponent=make_bot(opponent), config=config)
    return [
        play_round(env, make_agent(agent_spec, config=config), seed, index=index) for index, seed in enumerate(seeds)
    ]


@needs_numba
@pytest.mark.parametrize("name", sorted(PROBES))
def test_play_rounds_plays_a_probe_batched_to_the_records_of_play_round(name, monkeypatch):
    import war_env.evaluation.paired_rounds as evaluation

    calls = []
    original = evaluation.play_rounds_batched
    monkeypatch.setattr(evaluation, "play_rounds_batched", lambda *a, **k: calls.append(1) or original(*a, **k))
    probe = PROBES[name]
    config = probe.config()
    records = play_rounds("press_once", probe.opponent, config, SEEDS)
    assert calls == [1]  # the batched vector env of the latency game, not tick by tick
    assert records == one_by_one("press_once", probe.opponent, config, SEEDS, latency=True)


@needs_numba
@pytest.mark.parametrize(
    "opponent",
    [
        "pool:fast=4,slow=10,width=2",
        "pool:fast=1,slow=20,width=15,share_fast=0.2",
        "leader:ahead=4,behind=10,width=2",
        "leader:ahead=3,behind=40,width=2",
        "parity:even=4,odd=10,width=2",
        "parity:even=3,odd=40,width=2",
    ],
)
@pytest.mark.parametrize("agent", ["prompt", "human", "never", "press_once"])
def test_play_rounds_plays_the_varying_bots_on_the_fast_path_to_the_records_of_play_round(agent, opponent, monkeypatch):
    import war_env.evaluation.paired_rounds as evaluation

    calls = []
    for path in ("play_reaction_time_rounds", "play_rounds_batched"):
        original = getattr(evaluation, path)
        monkeypatch.setattr(evaluation, path, lambda *a, _original=original, **k: calls.append(1) or _original(*a, **k))
    config = WarConfig(pickup="shuffled", target_points=25)
    seeds = list(range(20, 32))
    records = play_rounds(agent, opponent, config, seeds)
    assert calls == [1]  # the fast path (prompt, human, never) or the batched vector env (press_once)
    assert records == one_by_one(agent, opponent, config, seeds, latency=False)


@needs_numba
@pytest.mark.parametrize(
    "opponent, windows",
    [
        ("leader:ahead=2,behind=9,width=3", {2, 3, 4, 9, 10, 11}),
        ("parity:even=2,odd=9,width=3", {2, 3, 4, 9, 10, 11}),
        ("pool:fast=2,slow=9,width=3", {2, 3, 4, 9, 10, 11}),
    ],
)
def test_the_fast_path_reads_the_table_and_the_pool_s_member_as_the_tick_by_tick_env_does(opponent, windows):
    from war_env.evaluation.fastpath import play_reaction_time_rounds

    config = WarConfig()
    seeds = list(range(300, 340))
    expected = one_by_one("human", opponent, config, seeds, latency=False)
    assert play_reaction_time_rounds(make_agent("human", config=config), opponent, config, seeds) == expected
    assert {tick for record in expected for tick in record.reaction_ticks[1]} == windows  # both contexts, members


def test_the_reading_probe_shows_its_hidden_fields_as_zero_on_both_engines(backend):
    """The reading probe hides the pile counts, the score and the battle count: 0 in every observation of the
    single env and of the batched one, while the cards move."""
    probe = PROBES["reading"]
    envs = gym.make_vec(probe.env_id, num_envs=2, vectorization_mode="vector_entry_point", backend=backend)
    hidden = PROBE_ENVS["reading"].hidden_columns(probe.config())
    observations, _ = envs.reset(seed=0)
    seen = [observations]
    for _ in range(400):
        observations, *_ = envs.step(np.ones(2, dtype=np.int64))
        seen.append(observations)
    seen = np.concatenate(seen)
    assert len(hidden) == 5 and not seen[:, hidden].any()
    assert seen[:, INDEX["opponent_card"]].any()  # the card the bot reads, shown


def test_a_new_probe_is_one_row_of_probes_and_everything_else_follows_from_it(monkeypatch, tmp_path):
    """The way docs/architecture.md gives to add a probe: its row in ``core.probes.PROBES``, nothing else. Its env
    and vector env classes, registration, ``gym.make``, ``make_vec``, the games by env id, its exact gaps, its
    ladder, the suite and the table of probes of docs/probes.md follow."""
    from war_env.envs import probe_envs
    from war_env.evaluation.probe_gaps import exact_gaps, ladder
    from war_env.league.probe_figures import agents_of, probes_table, yardsticks
    from war_env.league.suite import run_suite

    toy = Probe(
        "toy",
        "WarToy-v0",
        "Nothing: a test's toy.",
        "uniform:low=3,high=6",
        "fixed:ticks=2",
        "inference",
        "press_once",
        references=("last_moment",),
    )
    monkeypatch.setitem(PROBES, toy.name, toy)
    war_env.register_envs()  # what ``import war_env`` runs
    try:
        single = gym.make("WarToy-v0")
        vector = gym.make_vec("WarToy-v0", num_envs=2, vectorization_mode="vector_entry_point")
        made = PROBE_ENVS["toy"]
        assert made.__name__ == "WarToyEnv" and made is probe_envs.WarToyEnv and made.probe is toy
        assert type(single.unwrapped) is made and type(vector.unwrapped) is PROBE_VECTOR_ENVS["toy"]
        assert isinstance(vector.unwrapped, ProbeVectorEnv) and vector.unwrapped.single_env is made
        assert "## Observation Space" in made.__doc__ and 'gymnasium.make("WarToy-v0")' in made.__doc__
        assert single.unwrapped.config == vector.unwrapped.config == toy.config()
        assert vector.single_observation_space == single.observation_space
        assert single.unwrapped.observation_fields() == inference_fields(toy.config())
        assert np.array_equal(vector.reset(seed=5)[0][1], single.reset(seed=6)[0])  # sub-env 1 is seeded seed + 1
        assert GAMES["WarToy-v0"] is made and probe_of("WarToy-v0") is toy
        assert agents_of(toy) == ["oracle", "last_moment", "press_once", "lead"]  # its table and the suite's
        assert "last_moment" in yardsticks()  # a reference is never ranked
        gaps = exact_gaps(toy)  # solved: every yardstick's exact cost, none below the oracle's
        assert min(gaps.gap(agent) for agent in gaps.per_move) >= 0 and gaps.gap("press_once") > 0
        rungs = ladder(toy, gaps)  # laddered: 1, 2 and 3 press times (no other fields bear on one distribution)
        assert len(rungs) == 3 and all(rung.margin >= -1e-9 for rung in rungs)
        suite = run_suite(["prompt"], ["toy"], 3, 7, tmp_path / "suite", progress=False)
        (played,) = suite.results["probes"]
        assert (played["name"], played["env_id"]) == ("toy", "WarToy-v0") and "prompt" in played["agents"]
        assert "| toy | `WarToy-v0` | Nothing: a test's toy. |" in probes_table()  # listed as docs/probes.md lists
    finally:
        del gym.registry["WarToy-v0"]
