"""WarVectorEnv: every sub-env is the single War-v0, step for step.

The single env (``war_env.envs.war``) is the reference; the batched env is a second implementation of the
same rules for speed, so these tests play both side by side with the same seeds and actions and
compare everything they return: observation (bit for bit), reward, terminated, truncated, the action
mask and the round's info. Every test runs over both engines of the vector env: the compiled batched
engine (``war_env.batched``; skipped where numba, the ``fast`` extra, is missing) and the loop over
War-v0 envs that runs without numba (what is compared there is the vector env's own glue: seeding,
autoreset, options, info batching).
"""

import importlib.util
import sys
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import war_env  # noqa: F401
from war_env.core.rules import WarConfig
from war_env.envs.vector import WarVectorEnv, sub_env_round_info

BOTS = ["instant", "human", "uniform:low=1,high=10", "fixed:ticks=5", "fixed:ticks=30", "absent"]


def play_side_by_side(vector, singles, actions_for, steps, seed, options=None):
    """Step ``vector`` and the list of single envs with the same actions; assert equality at every step.
    Returns the ``info["round"]`` of every round that ended. Single env i is reset with ``seed + i`` and
    then with ``reset()`` after each of its rounds (the vector env's seeding rule)."""
    observations, info = vector.reset(seed=seed, options=options)
    needs_reset = [False] * len(singles)
    for i, env in enumerate(singles):
        observation, single_info = env.reset(seed=seed + i, options=options)
        np.testing.assert_array_equal(observations[i], observation)
        np.testing.assert_array_equal(info["action_mask"][i], single_info["action_mask"])
    ended = []
    for step in range(steps):
        actions = actions_for(step)
        observations, rewards, terminated, truncated, info = vector.step(actions)
        for i, env in enumerate(singles):
            if needs_reset[i]:  # NEXT_STEP autoreset: this step resets, the action is ignored
                observation, single_info = env.reset()
                reward, done, cut = 0.0, False, False
            else:
                observation, reward, done, cut, single_info = env.step(int(actions[i]))
            needs_reset[i] = done or cut
            context = f"sub-env {i}, step {step}"
            np.testing.assert_array_equal(observations[i], observation, err_msg=context)
            assert rewards[i] == reward, context
            assert (terminated[i], truncated[i]) == (done, cut), context
            np.testing.assert_array_equal(info["action_mask"][i], single_info["action_mask"], err_msg=context)
            assert sub_env_round_info(info, i) == single_info.get("round"), context
            if done:
                ended.append(single_info["round"])
    return ended


def pressing(num_envs, p, seed):
    rng = np.random.default_rng(seed)
    table = (rng.random((997, num_envs)) < p).astype(np.int64)
    return lambda step: table[step % len(table)]


@pytest.mark.slow
@pytest.mark.parametrize("pickup", ["in_order", "shuffled"])
@pytest.mark.parametrize("opponent", BOTS)
def test_each_sub_env_follows_the_single_env_over_whole_rounds(opponent, pickup, backend):
    config = WarConfig(pickup=pickup)
    vector = WarVectorEnv(3, opponent=opponent, config=config, backend=backend)
    singles = [gym.make("War-v0", opponent=opponent, config=config) for _ in range(3)]
    # p = 0.3 presses in and out of turn (false starts, idle ticks); rounds end by the rules.
    ended = play_side_by_side(vector, singles, pressing(3, 0.3, seed=1), steps=1200, seed=100)
    assert len(ended) >= 2


@pytest.mark.parametrize("opponent", ["human", "uniform:low=0,high=9"])
def test_other_rules_and_timers_are_batched_the_same(opponent, backend):
    config = WarConfig(
        turn_seconds=1.0,
        war_face_down=2,
        target_points=10,
        max_battles=30,
        pickup="shuffled",
        reward_idle_tick=-0.01,
        reward_false_start=-0.05,
        reward_draw=0.25,
    )
    vector = WarVectorEnv(3, opponent=opponent, config=config, backend=backend)
    singles = [gym.make("War-v0", opponent=opponent, config=config) for _ in range(3)]
    ended = play_side_by_side(vector, singles, pressing(3, 0.15, seed=4), steps=600, seed=50)
    assert len(ended) >= 6


def test_takeovers_are_played_out_within_the_step_exactly_as_the_single_env_does(backend):
    # Pressing rarely lets the timer run out: seat 0 is taken over and the round is played out.
    vector = WarVectorEnv(4, opponent="human", backend=backend)
    singles = [gym.make("War-v0", opponent="human") for _ in range(4)]
    ended = play_side_by_side(vector, singles, pressing(4, 0.02, seed=2), steps=1500, seed=7)
    assert len(ended) >= 20 and any(info["takeover"][0] for info in ended)


@pytest.mark.parametrize("pickup", ["in_order", "shuffled"])
def test_dealt_piles_and_starter_reach_every_sub_env(pickup, backend):
    # Short piles with ties: wars, a war shortage, every card counted.
    piles = [["2C", "5D", "9H", "KS", "3C"], ["2D", "5H", "9S", "QC", "4D", "7H"]]
    config = WarConfig(pickup=pickup)
    vector = WarVectorEnv(2, opponent="instant", config=config, backend=backend)
    singles = [gym.make("War-v0", opponent="instant", config=config) for _ in range(2)]
    options = {"piles": piles, "starter": 1}
    ended = play_side_by_side(vector, singles, pressing(2, 1.0, seed=0), steps=40, seed=3, options=options)
    assert len(ended) >= 2


def test_reset_options_can_differ_per_sub_env(backend):
    piles = [[["AC"], ["2C"]], [["2D"], ["AD"]]]
    vector = WarVectorEnv(2, opponent="instant", backend=backend)
    vector.reset(seed=0, options={"piles": piles, "starter": [0, 1]})
    _, _, terminated, _, info = vector.step(np.array([1, 0]))
    assert not terminated.any()  # env 0: seat 0 drew; env 1: seat 1 drew, seat 0 is next
    _, _, terminated, _, info = vector.step(np.array([0, 1]))
    assert terminated.all()
    assert sub_env_round_info(info, 0)["winner"] == 0 and sub_env_round_info(info, 1)["winner"] == 1
    with pytest.raises(ValueError, match="piles"):
        vector.reset(options={"piles": [piles[0]] * 3})


WAR_IDS = sorted(env_id for env_id, spec in gym.registry.items() if str(spec.entry_point).startswith("war_env."))


@pytest.mark.parametrize("env_id", WAR_IDS)
@pytest.mark.parametrize("vectorization_mode", [None, "vector_entry_point"])
def test_vector_kwargs_for_the_batched_env_are_refused_naming_the_keyword_form(env_id, vectorization_mode):
    # Gymnasium's own error ("can be passed arguments only through kwargs") does not say what to write.
    expected = (
        f"{env_id}'s batched vector env takes these as keywords, not in vector_kwargs: "
        f'gym.make_vec("{env_id}", num_envs=..., autoreset_mode=AutoresetMode.SAME_STEP) '
        f'(vector_kwargs is for vectorization_mode="sync" or "async")'
    )
    with pytest.raises(gym.error.Error) as raised:
        gym.make_vec(
            env_id,
            num_envs=2,
            vectorization_mode=vectorization_mode,
            vector_kwargs={"autoreset_mode": AutoresetMode.SAME_STEP},
        )
    assert str(raised.value) == expected


def test_vector_kwargs_still_reach_gymnasiums_sync_vector_env_and_the_keyword_the_batched_one():
    sync = gym.make_vec(
        "War-v0", num_envs=2, vectorization_mode="sync", vector_kwargs={"autoreset_mode": AutoresetMode.SAME_STEP}
    )
    batched = gym.make_vec("War-v0", num_envs=2, autoreset_mode=AutoresetMode.SAME_STEP)
    assert sync.autoreset_mode is batched.autoreset_mode is AutoresetMode.SAME_STEP
    assert gym.make("War-v0", opponent="uniform").spec.kwargs == {"opponent": "uniform"}


@pytest.mark.parametrize("mode", list(AutoresetMode), ids=lambda mode: mode.value)
def test_the_gymnasium_sync_vector_env_of_single_envs_gives_the_same_batches(mode, backend):
    """``check_environments_match`` for vector envs: Gymnasium's own SyncVectorEnv over War-v0 (its
    autoreset in each of the three modes, its info batching) against the batched env, on whole arrays.
    With autoreset disabled, both reset the sub-envs that ended with a partial reset, as the caller must."""
    kwargs = {"opponent": "human", "max_episode_steps": 900}
    ours = gym.make_vec(
        "War-v0", num_envs=4, vectorization_mode="vector_entry_point", **kwargs, backend=backend, autoreset_mode=mode
    )
    theirs = gym.make_vec(
        "War-v0", num_envs=4, vectorization_mode="sync", vector_kwargs={"autoreset_mode": mode}, **kwargs
    )
    assert isinstance(ours.unwrapped, WarVectorEnv)
    assert theirs.metadata["autoreset_mode"] == ours.metadata["autoreset_mode"] == ours.autoreset_mode == mode
    obs_a, info_a = ours.reset(seed=5)
    obs_b, info_b = theirs.reset(seed=5)
    np.testing.assert_array_equal(obs_a, obs_b)
    act = pressing(4, 0.5, seed=3)
    rounds = truncations = 0
    for step in range(2500):
        obs_a, rew_a, term_a, trunc_a, info_a = ours.step(act(step))
        obs_b, rew_b, term_b, trunc_b, info_b = theirs.step(act(step))
        for mine, theirs_value in ((obs_a, obs_b), (rew_a, rew_b), (term_a, term_b), (trunc_a, trunc_b)):
            np.testing.assert_array_equal(mine, theirs_value)
        truncations += trunc_b.sum()
        np.testing.assert_array_equal(info_a["action_mask"], info_b["action_mask"])
        if mode == AutoresetMode.SAME_STEP:
            assert ("final_obs" in info_a) == ("final_obs" in info_b)
            if "final_obs" in info_b:
                np.testing.assert_array_equal(info_a["_final_obs"], info_b["_final_obs"])
                for i in np.flatnonzero(info_b["_final_obs"]):
                    np.testing.assert_array_equal(info_a["final_obs"][i], info_b["final_obs"][i])
                    np.testing.assert_array_equal(
                        info_a["final_info"]["action_mask"][i], info_b["final_info"]["action_mask"][i]
                    )
                info_a, info_b = info_a["final_info"], info_b["final_info"]
        assert ("round" in info_a) == ("round" in info_b)
        if "round" in info_b:
            np.testing.assert_array_equal(info_a["_round"], info_b["_round"])
            for i in np.flatnonzero(info_b["_round"]):
                theirs_round = {key: info_b["round"][key][i] for key in info_b["round"] if not key.startswith("_")}
                assert sub_env_round_info(info_a, i) == theirs_round
                rounds += 1
        if mode == AutoresetMode.DISABLED and (term_b | trunc_b).any():
            ended = {"reset_mask": term_b | trunc_b}
            obs_a, _ = ours.reset(options=ended)
            obs_b, _ = theirs.reset(options=ended)
            np.testing.assert_array_equal(obs_a, obs_b)
    assert rounds >= 2 and truncations >= 1


def test_with_autoreset_disabled_a_sub_env_that_ended_must_be_reset_before_it_steps_again(backend):
    vector = WarVectorEnv(2, opponent="instant", autoreset_mode="Disabled", backend=backend)
    vector.reset(seed=[21, 22])
    terminated = np.zeros(2, dtype=bool)
    while not terminated.any():
        _, _, terminated, _, _ = vector.step(np.ones(2, dtype=np.int64))
    with pytest.raises(RuntimeError, match=f"sub-env {int(np.flatnonzero(terminated)[0])}'s round is over: reset it"):
        vector.step(np.ones(2, dtype=np.int64))
    vector.reset(options={"reset_mask": terminated})
    vector.step(np.ones(2, dtype=np.int64))  # both play on
    with pytest.raises(ValueError, match="autoreset_mode must be one of"):
        WarVectorEnv(2, autoreset_mode="later", backend=backend)


def test_autoreset_next_step_resets_on_the_step_after_the_end_and_ignores_its_action(backend):
    # As Gymnasium's own autoreset tests: the step after a termination returns the reset
    # observation, reward 0, terminated = truncated = False, and the action is not applied.
    vector = WarVectorEnv(2, opponent="instant", backend=backend)
    reference = gym.make("War-v0", opponent="instant")
    vector.reset(seed=[21, 22])
    reference.reset(seed=21)
    terminated = np.zeros(2, dtype=bool)
    steps = 0
    while not terminated[0]:
        _, _, terminated, _, info = vector.step(np.array([1, 0]))
        reference.step(1)
        steps += 1
    assert info["_round"][0] and sub_env_round_info(info, 0)["steps"] == steps
    first_observation, _ = reference.reset()
    observations, rewards, terminated, truncated, info = vector.step(np.array([1, 1]))
    np.testing.assert_array_equal(observations[0], first_observation)
    assert rewards[0] == 0.0 and not terminated[0] and not truncated[0]
    assert "round" not in info or not info["_round"][0]
    # Had the draw been applied to the new round it would show as a false start or a draw in it.
    done = False
    while not done:
        _, _, terminated, _, info = vector.step(np.array([0, 0]))
        _, _, done, _, reference_info = reference.step(0)
        assert terminated[0] == done
    assert sub_env_round_info(info, 0) == reference_info["round"]


def test_without_round_info_the_steps_are_the_same_and_only_info_round_is_left_out(backend):
    # round_info=False is for callers that never read info["round"] (a third of a step at N = 4096:
    # docs/results/speed.md).
    with_info = WarVectorEnv(4, opponent="instant", backend=backend)
    without = gym.make_vec(
        "War-v0",
        num_envs=4,
        vectorization_mode="vector_entry_point",
        opponent="instant",
        backend=backend,
        round_info=False,
    )
    with_info.reset(seed=5)
    without.reset(seed=5)
    rounds_ended = 0
    for step in range(400):
        actions = np.array([1, 0, step % 3 == 0, 1], dtype=np.int64)
        *results, info = with_info.step(actions)
        *bare_results, bare_info = without.step(actions)
        for result, bare in zip(results, bare_results):
            np.testing.assert_array_equal(result, bare)
        assert "round" not in bare_info and "_round" not in bare_info
        np.testing.assert_array_equal(info["action_mask"], bare_info["action_mask"])
        rounds_ended += "round" in info
    assert rounds_ended > 0  # the default env did report rounds over these steps
    with pytest.raises(ValueError, match="round_info must be True or False"):
        WarVectorEnv(2, round_info="no", backend=backend)


def test_max_episode_steps_truncates_like_gymnasiums_time_limit(backend):
    vector = WarVectorEnv(3, opponent="absent", max_episode_steps=5, backend=backend)
    vector.reset(seed=0)
    for step in range(1, 6):
        _, _, terminated, truncated, _ = vector.step(np.zeros(3, dtype=np.int64))
        assert truncated.all() == (step == 5)
        assert not terminated.any()
    _, rewards, terminated, truncated, _ = vector.step(np.zeros(3, dtype=np.int64))
    assert not truncated.any() and not terminated.any() and (rewards == 0.0).all()
    made = gym.make_vec(
        "War-v0", num_envs=2, vectorization_mode="vector_entry_point", max_episode_steps=7, backend=backend
    )
    assert made.unwrapped.max_episode_steps == 7


def test_shapes_and_dtypes_of_every_return(backend):
    vector = WarVectorEnv(5, opponent="instant", backend=backend)
    observations, info = vector.reset(seed=1)
    assert observations.shape == (5, 16) and observations.dtype == np.float32
    assert vector.observation_space.contains(observations)
    assert info["action_mask"].shape == (5, 2) and info["action_mask"].dtype == bool
    ended = False
    for _ in range(400):
        observations, rewards, terminated, truncated, info = vector.step(vector.action_space.sample())
        assert observations.shape == (5, 16) and observations.dtype == np.float32
        assert vector.observation_space.contains(observations)
        assert rewards.shape == (5,) and rewards.dtype == np.float64
        assert terminated.shape == truncated.shape == (5,) and terminated.dtype == truncated.dtype == bool
        assert info["action_mask"].shape == (5, 2) and info["_action_mask"].all()
        if "round" in info:
            ended = True
            batch = info["round"]
            assert batch["winner"].shape == batch["battles"].shape == (5,)
            assert batch["points"].shape == batch["cards"].shape == batch["takeover"].shape == (5, 2)
            assert batch["takeover"].dtype == bool and batch["reaction_ticks"].dtype == object
            assert all(batch[f"_{key}"] is not None for key in ("winner", "reason", "points"))
    assert ended


def test_seeding_a_list_and_continuing_the_generators(backend):
    vector = WarVectorEnv(2, opponent="human", backend=backend)
    first, _ = vector.reset(seed=[9, None])
    again, _ = vector.reset(seed=[9, 4])
    np.testing.assert_array_equal(first[0], again[0])
    single = gym.make("War-v0", opponent="human")
    single.reset(seed=4)
    continued, _ = vector.reset()
    np.testing.assert_array_equal(continued[1], single.reset()[0])


def test_a_partial_reset_leaves_the_other_sub_envs_alone(backend):
    vector = WarVectorEnv(3, opponent="instant", backend=backend)
    vector.reset(seed=0)
    for _ in range(7):
        before, *_ = vector.step(np.ones(3, dtype=np.int64))
    after, _ = vector.reset(options={"reset_mask": np.array([False, True, False])})
    np.testing.assert_array_equal(after[[0, 2]], before[[0, 2]])
    assert after[1, 12] == 0.0  # battles of a fresh round


def test_a_refused_step_moves_no_sub_env(backend):
    # The step is checked whole before any round moves: one invalid action, or (autoreset disabled) one round
    # over, refuses it for every sub-env, also those before it in the batch.
    vector = WarVectorEnv(4, opponent="instant", autoreset_mode="Disabled", backend=backend)
    vector.reset(seed=[21, 22, 23, 24])
    presses = np.ones(4, dtype=np.int64)
    for _ in range(5):
        vector.step(presses)

    def snapshot():  # every sub-env's observation and whole state
        engine = vector._engine
        rounds = engine.rounds.state.copy() if backend == "numba" else [env.round_info() for env in engine.envs]
        return engine.observations.copy(), rounds

    def assert_unchanged(before):
        np.testing.assert_equal(snapshot(), before)

    before = snapshot()
    with pytest.raises(ValueError, match=r"invalid action\(s\) \[2\]"):
        vector.step(np.array([1, 1, 1, 2]))
    assert_unchanged(before)
    terminated = np.zeros(4, dtype=bool)
    while not terminated.any():
        _, _, terminated, _, _ = vector.step(presses)
    over = int(np.flatnonzero(terminated)[0])
    assert over > 0  # sub-envs before it in the batch, which a kernel checking as it goes would have moved
    before = snapshot()
    with pytest.raises(RuntimeError, match=f"sub-env {over}'s round is over"):
        vector.step(presses)
    assert_unchanged(before)


@pytest.mark.parametrize(
    "actions, message",
    [
        (np.array([0, 2]), "invalid action"),
        (np.array([0.0, 1.0]), "integers"),
        (np.array([1]), "shape"),
        (np.array([True, False]), "integers"),
        (np.array([-1, 0], dtype=np.int8), "invalid action"),
    ],
)
def test_bad_actions_are_named_in_the_error_and_change_nothing(actions, message, backend):
    vector = WarVectorEnv(2, backend=backend)
    before, _ = vector.reset(seed=0)
    with pytest.raises(ValueError, match=message):
        vector.step(actions)
    after, *_ = vector.step(np.zeros(2, dtype=np.int64))
    np.testing.assert_array_equal(after[:, 2:], before[:, 2:])  # the refused step did not move a card


@pytest.mark.parametrize("action", [True, np.bool_(True), 1.0, 2, -1])
def test_both_front_ends_refuse_the_same_actions(action, backend):
    single = gym.make("War-v0")
    single.reset(seed=0)
    with pytest.raises(ValueError, match="invalid action"):
        single.step(action)
    vector = WarVectorEnv(2, backend=backend)
    vector.reset(seed=0)
    with pytest.raises(ValueError, match="invalid action|integers"):
        vector.step(np.array([action, action]))


def test_the_starter_option_takes_a_list_or_an_array_per_sub_env(backend):
    vector = WarVectorEnv(3, opponent="instant", backend=backend)
    for starters in ([1, 0, 1], (1, 0, 1), np.array([1, 0, 1]), np.array([1, 0, 1], dtype=np.int8)):
        observations, _ = vector.reset(seed=0, options={"starter": starters})
        assert observations[:, 13].tolist() == [0.0, 1.0, 0.0]  # "started"
    observations, _ = vector.reset(seed=0, options={"starter": np.int64(1)})
    assert observations[:, 13].tolist() == [0.0, 0.0, 0.0]
    for bad in (np.array([1, 0]), np.array([[1, 0, 1]]), [0, 1, 2], np.array(True), 1.0):
        with pytest.raises(ValueError, match="starter"):
            vector.reset(seed=0, options={"starter": bad})


def test_bad_construction_and_use_are_named_in_the_error(backend):
    class Policy:
        def act(self, observation):
            return 0

    with pytest.raises(TypeError, match="bot opponents only"):
        WarVectorEnv(2, opponent=Policy(), backend=backend)
    with pytest.raises(ValueError, match="num_envs"):
        WarVectorEnv(0, backend=backend)
    with pytest.raises(ValueError, match="max_episode_steps"):
        WarVectorEnv(2, max_episode_steps=0, backend=backend)
    with pytest.raises(ValueError, match="War-v0 got an unexpected keyword argument"):
        WarVectorEnv(2, turn_secs=3, backend=backend)
    vector = WarVectorEnv(2, backend=backend)
    with pytest.raises(RuntimeError, match="reset"):
        vector.step(np.zeros(2, dtype=np.int64))
    with pytest.raises(ValueError, match="unknown reset option"):
        vector.reset(options={"new_match": True})


@pytest.mark.slow
def test_memory_stays_flat_over_many_steps(backend):
    vector = WarVectorEnv(64, opponent="human", backend=backend)
    vector.reset(seed=0)
    act = pressing(64, 0.5, seed=0)
    for step in range(2000):
        vector.step(act(step))
    size = vector.state_nbytes()
    for step in range(2000):
        vector.step(act(step))
    assert vector.state_nbytes() == size


@pytest.mark.parametrize("target_points, max_battles", [(None, 2000), (300, None)])
def test_long_rounds_outgrow_the_reaction_log_and_stay_equal(target_points, max_battles, backend):
    # Rounds far longer than the 128 reactions the log starts with: it grows within a step and in a
    # play-out (rare presses let the timer run out), and the reaction ticks stay the single env's.
    config = WarConfig(target_points=target_points, max_battles=max_battles)
    vector = WarVectorEnv(2, opponent="instant", config=config, backend=backend)
    singles = [gym.make("War-v0", opponent="instant", config=config) for _ in range(2)]
    ended = play_side_by_side(vector, singles, pressing(2, 0.9, seed=6), steps=1500, seed=11)
    assert max(len(info["reaction_ticks"][0]) for info in ended) > 128


def test_the_backend_is_chosen_by_the_flag_and_falls_back_to_the_reference_without_numba(monkeypatch):
    numba_installed = importlib.util.find_spec("numba") is not None
    assert WarVectorEnv(2, backend="reference").backend == "reference"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # with numba, "auto" warns about nothing
        assert WarVectorEnv(2).backend == ("numba" if numba_installed else "reference")
    for removed in ("cuda", "numpy"):
        with pytest.raises(ValueError, match=f"'{removed}'"):
            WarVectorEnv(2, backend=removed)
    monkeypatch.setitem(sys.modules, "numba", None)  # as if numba were not installed
    with pytest.warns(RuntimeWarning, match=r'numba is not installed.*pip install "war-env\[fast\]"'):
        vector = WarVectorEnv(2, backend="auto")
    assert vector.backend == "reference"
    with pytest.raises(ImportError, match=r'"fast" extra'):
        WarVectorEnv(2, backend="numba")
