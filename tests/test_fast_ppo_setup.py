"""The fast PPO trainer's practitioner settings (``war_env.training.fast_ppo.FastPPOConfig``): observation scaling by
running statistics, the previous action as an input, the card fields one-hot, the LSTM's forget-gate bias, the best
model kept on evaluation seeds, and the warning of a budget that plays too few rounds.

The model file records each setting that changes play, so ``fast_ppo:PATH`` plays a model exactly as it trained: the
inputs the trainer built are the agent's, and so are the actions; a file without those fields plays as before.
"""

from __future__ import annotations

import json
import zipfile

import gymnasium as gym
import numpy as np
import pytest
import torch

import war_env  # noqa: F401
from war_env.agents import make_agent
from war_env.agents.fast_model import (
    CardEncoding,
    FastNetwork,
    ObservationScaling,
    card_encoding,
    load_fast_agent,
    read_fast_model,
)
from war_env.agents.model_files import METADATA_NAME
from war_env.envs.games import default_opponent, game_config, make_vector_game
from war_env.training.fast_ppo import (
    EVALUATION_SEED,
    FastPPOConfig,
    FastPPOResult,
    Rollout,
    RunningStatistics,
    build_policy,
    few_rounds_warning,
    run_fast_ppo,
    save,
    train_fast_ppo,
)

SMALL = {"num_envs": 16, "rollout_steps": 16, "minibatch_size": 64, "epochs": 1, "hidden": (8,)}
MEMORY = "WarMemory-v1"
READING = "WarTableReading-v2"


# --- the forget gate --------------------------------------------------------------------------------------
def test_the_lstm_forget_gate_starts_at_the_bias_given_and_the_other_gates_at_zero():
    units = 6
    policy = build_policy(FastNetwork(5, (4,), "tanh", units), forget_bias=1.0)
    bias = policy.lstm.bias_ih_l0.detach()
    assert torch.equal(bias[units : 2 * units], torch.ones(units))  # torch's gates: input, forget, cell, output
    assert not bias[:units].any() and not bias[2 * units :].any() and not policy.lstm.bias_hh_l0.any()
    assert not build_policy(FastNetwork(5, (4,), "tanh", units)).lstm.bias_ih_l0.any()  # the default: zeros


# --- observation scaling -------------------------------------------------------------------------------
def test_observations_are_scaled_as_sb3s_vec_normalize_and_clipped_at_ten():
    from stable_baselines3.common.running_mean_std import RunningMeanStd

    rng = np.random.default_rng(0)
    batches = [rng.normal(3.0, 2.0, size=(32, 4)).astype(np.float32) for _ in range(5)]
    ours, theirs = RunningStatistics(4), RunningMeanStd(shape=(4,))
    for batch in batches:
        scaled = ours.scaled(batch)
        theirs.update(batch.astype(np.float64))
    expected = np.clip((batches[-1] - theirs.mean) / np.sqrt(theirs.var + 1e-8), -10.0, 10.0)
    np.testing.assert_allclose(scaled, expected, rtol=1e-6)
    far = ours.frozen().scaled(np.full((1, 4), 1e6, np.float32))
    assert (far == 10.0).all()


def test_frozen_statistics_do_not_move():
    statistics = RunningStatistics(3)
    statistics.scaled(np.ones((8, 3), np.float32))
    frozen = statistics.frozen()
    before = frozen.scaling().as_json()
    frozen.scaled(np.full((8, 3), 5.0, np.float32))
    assert frozen.scaling().as_json() == before


# --- training-time inputs are play-time inputs -----------------------------------------------------------------
class RecordedEnv:
    """A vector env that keeps every observation it hands out (sub-env 0's), in order."""

    def __init__(self, env):
        self.env, self.observations = env, []

    def reset(self, **kwargs):
        observations, info = self.env.reset(**kwargs)
        self.observations.append(observations[0].copy())
        return observations, info

    def step(self, actions):
        result = self.env.step(actions)
        self.observations.append(result[0][0].copy())
        return result

    def close(self):
        self.env.close()


@pytest.mark.parametrize(
    "extra, env_id",
    [
        ({"frame_stack": 3}, MEMORY),
        ({"lstm_hidden_size": 6}, MEMORY),
        ({"frame_stack": 3, "one_hot_cards": True}, READING),
        ({"lstm_hidden_size": 6, "one_hot_cards": True}, READING),
    ],
    ids=["stacked", "lstm", "stacked-one-hot", "lstm-one-hot"],
)
def test_the_inputs_built_in_training_are_the_agents_inputs_at_play(extra, env_id, tmp_path):
    """One sub-env's rollout, frozen observation statistics: at every tick of its first round the trainer's input
    (scaled fields, the cards one-hot when asked, and the previous action, stacked) is what the model file's agent
    builds from the same observation after the same actions."""
    config = FastPPOConfig.with_overrides(
        {**SMALL, **extra, "num_envs": 1, "rollout_steps": 200, "normalize_observation": True, "previous_action": True}
    )
    result = train_fast_ppo(config, 1, env_id=env_id, seed=1)  # trained statistics, a policy that presses sometimes
    path = save(result, tmp_path / "model.zip", config, 1, None, {})
    statistics = RunningStatistics(len(result.fields), learning=False)
    statistics.restore(result.scaling)
    env = RecordedEnv(make_vector_game(env_id, 1, default_opponent(env_id), game_config(env_id, {})))
    rollout = Rollout(config, result.network, env, [7], torch, statistics, fields=result.fields)
    batch = rollout.collect(result.policy)
    dealing = np.flatnonzero(batch["valid"][:, 0].numpy() == 0)  # the step after a round's end deals the next
    first_round = int(dealing[0]) if dealing.size else len(batch["actions"])
    actions = batch["actions"][:first_round, 0].tolist()
    assert 0 < sum(actions) < len(actions)  # the previous action is 0 and 1 in turn: it is really compared

    agent = load_fast_agent(path)
    agent.reset(7)
    for t in range(first_round):
        seen = agent.network_input(env.observations[t])
        np.testing.assert_array_equal(seen, batch["inputs"][t, 0].numpy(), err_msg=f"tick {t}")
        agent.remember(actions[t])


@pytest.fixture(scope="module", params=["stacked", "lstm"])
def scaled_model(request, tmp_path_factory):
    extra = {"stacked": {"frame_stack": 3}, "lstm": {"lstm_hidden_size": 6, "lstm_forget_bias": 1.0}}[request.param]
    config = FastPPOConfig.with_overrides({**SMALL, **extra, "normalize_observation": True, "previous_action": True})
    result = train_fast_ppo(config, 3 * 256, env_id=MEMORY, seed=3)
    path = tmp_path_factory.mktemp("scaled") / f"{request.param}.zip"
    save(result, path, config, 3, None, {})
    return result, config, path


def torch_actions(result, config, observations: np.ndarray) -> list[int]:
    """The torch policy's greedy actions over one round, its inputs built from the observations with the trained
    statistics, each frame followed by the action it chose before."""
    scaled = result.scaling.apply(observations)
    width = scaled.shape[1] + 1
    frames, state, previous, actions = np.zeros(width * config.frame_stack, np.float32), None, 0.0, []
    units = result.network.lstm_hidden_size
    state = (torch.zeros(1, units), torch.zeros(1, units))
    with torch.no_grad():
        for t, row in enumerate(scaled):
            frames = np.concatenate((frames[width:], row, np.float32([previous])))
            x = torch.from_numpy(frames).reshape(1, 1, -1)
            features, state = result.policy.features(x, torch.full((1, 1), float(t == 0)), state)
            actions.append(int(result.policy.actor(features[0]).argmax(dim=1)))
            previous = float(actions[-1])
    return actions


def test_a_scaled_model_with_the_previous_action_plays_the_training_policys_actions(scaled_model):
    result, config, path = scaled_model
    model = read_fast_model(path)
    assert model.previous_action and model.scaling.as_json() == result.scaling.as_json()
    agent = make_agent(f"fast_ppo:{path}")
    env = gym.make(MEMORY)
    for seed in (0, 1):
        observation, _ = env.reset(seed=seed)
        agent.reset(seed)
        observations, actions = [], []
        for _ in range(400):
            observations.append(observation)
            actions.append(agent.act(observation))
            observation, _, terminated, truncated, _ = env.step(actions[-1])
            if terminated or truncated:
                break
        assert actions == torch_actions(result, config, np.array(observations))
    assert agent.has_memory


def test_a_model_file_without_the_new_fields_plays_as_before(tmp_path):
    """A file written before the trainer recorded scaling and the previous action: it has neither."""
    config = FastPPOConfig.with_overrides({**SMALL, "frame_stack": 2})
    result = train_fast_ppo(config, 1, env_id=MEMORY, seed=0)
    path = save(result, tmp_path / "new.zip", config, 0, None, {})
    old = tmp_path / "old.zip"
    with zipfile.ZipFile(path) as archive, zipfile.ZipFile(old, "w") as forged:
        header = json.loads(archive.read(METADATA_NAME))
        for key in ("previous_action", "observation_scaling", "one_hot_cards", "evaluation"):
            del header[key]
        forged.writestr(METADATA_NAME, json.dumps(header))
        forged.writestr("policy.pth", archive.read("policy.pth"))
    model = read_fast_model(old)
    assert not model.previous_action and model.scaling is None
    new_agent, old_agent = make_agent(f"fast_ppo:{path}"), make_agent(f"fast_ppo:{old}")
    env = gym.make(MEMORY)
    observation, _ = env.reset(seed=5)
    new_agent.reset(5)
    old_agent.reset(5)
    for _ in range(100):
        action = old_agent.act(observation)
        assert action == new_agent.act(observation)
        observation, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            break


# --- one-hot cards -----------------------------------------------------------------------------------------
def test_one_hot_cards_replace_each_card_field_by_its_value_in_place_and_leave_the_other_fields_as_seen():
    """A known observation of the reading probe: no card of its own (0), the opponent's queen (12 / 14); the other
    fields come from the scaled observation, the cards from the raw one."""
    fields = game_fields_of(READING)
    raw = np.zeros((1, len(fields)), np.float32)
    raw[0, fields.index("can_draw")], raw[0, fields.index("timer_left")] = 1.0, 0.5
    raw[0, fields.index("opponent_card")], raw[0, fields.index("in_flight_3")] = 12 / 14, 1.0
    seen = raw * 3.0 - 1.0  # scaled: the other fields must come from here, the cards from raw
    encoded = card_encoding(fields, True).encode(raw, seen)
    own, opponent = fields.index("own_card"), fields.index("opponent_card")
    none, queen = np.eye(14, dtype=np.float32)[0], np.eye(14, dtype=np.float32)[11]  # columns: none, 2, 3, ..., 14
    expected = np.concatenate((seen[0, :own], none, queen, seen[0, opponent + 1 :]))
    np.testing.assert_array_equal(encoded[0], expected)
    assert encoded.shape == (1, len(fields) + 2 * 13) and card_encoding(fields, False) is None


def test_a_card_value_that_is_no_rank_is_refused_naming_the_field():
    encoding = CardEncoding(("own_card", "pot"))
    with pytest.raises(ValueError, match=r"one_hot_cards: own_card is 0\.07\d*, not a rank value / 14"):
        encoding.encode(np.float32([[1 / 14, 0.0]]), np.float32([[0.0, 0.0]]))  # rank 1 is no card
    with pytest.raises(ValueError, match=r"one_hot_cards needs a card field \(own_card, opponent_card\)"):
        card_encoding(("can_draw", "pot"), True)


def game_fields_of(env_id: str) -> tuple[str, ...]:
    from war_env.envs.games import game_fields

    return game_fields(env_id, game_config(env_id, {}))


@pytest.fixture(scope="module")
def one_hot_model(tmp_path_factory):
    overrides = {**SMALL, "frame_stack": 2, "one_hot_cards": True, "normalize_observation": True}
    config = FastPPOConfig.with_overrides({**overrides, "previous_action": True})
    result = train_fast_ppo(config, 3 * 256, env_id=READING, seed=4)
    path = tmp_path_factory.mktemp("one_hot") / "model.zip"
    save(result, path, config, 4, None, {})
    return result, config, path


def test_a_saved_one_hot_model_is_reloaded_with_its_encoding_and_plays_the_training_policys_actions(one_hot_model):
    """The file says ``one_hot_cards``; its agent plays, round by round, the greedy actions of the torch policy fed
    the trained statistics, the cards one-hot from the raw observation (np.eye here), the previous action, stacked."""
    result, config, path = one_hot_model
    model = read_fast_model(path)
    assert model.one_hot_cards and model.metadata["config"]["one_hot_cards"] is True
    assert result.network.inputs == 2 * (len(result.fields) + 2 * 13 + 1)
    fields = result.fields
    cards = [fields.index("own_card"), fields.index("opponent_card")]
    column = {0: 0, **{rank: rank - 1 for rank in range(2, 15)}}
    agent = make_agent(f"fast_ppo:{path}")
    env = gym.make(READING)
    pressed, ranks = 0, set()
    for seed in (0, 1):
        observation, _ = env.reset(seed=seed)
        agent.reset(seed)
        frames, previous, state = np.zeros(result.network.inputs, np.float32), 0.0, None
        for t in range(400):
            scaled = result.scaling.apply(observation[None, :])[0]
            parts = [scaled[: cards[0]]]
            for i, position in enumerate(cards):
                parts.append(np.eye(14, dtype=np.float32)[column[round(float(observation[position]) * 14)]])
                parts.append(scaled[position + 1 : cards[1]] if i == 0 else scaled[position + 1 :])
            frame = np.concatenate((*parts, np.float32([previous])))
            frames = np.concatenate((frames[frame.size :], frame))
            with torch.no_grad():
                x = torch.from_numpy(frames).reshape(1, 1, -1)
                features, state = result.policy.features(x, torch.full((1, 1), float(t == 0)), state)
                expected = int(result.policy.actor(features[0]).argmax(dim=1))
            action = agent.act(observation)
            assert action == expected, f"seed {seed}, tick {t}"
            ranks.add(round(float(observation[cards[1]]) * 14))
            pressed, previous = pressed + action, float(action)
            observation, _, terminated, truncated, _ = env.step(action)
            if terminated or truncated:
                break
    assert pressed > 0 and len(ranks) > 5  # the policy presses, and sees many of the opponent's cards


def test_a_one_hot_model_file_without_its_encoding_is_refused_naming_the_inputs(one_hot_model, tmp_path):
    _, _, path = one_hot_model
    forged = tmp_path / "forged.zip"
    with zipfile.ZipFile(path) as archive, zipfile.ZipFile(forged, "w") as out:
        header = json.loads(archive.read(METADATA_NAME))
        header["one_hot_cards"] = False
        out.writestr(METADATA_NAME, json.dumps(header))
        out.writestr("policy.pth", archive.read("policy.pth"))
    with pytest.raises(ValueError, match=r"network inputs \d+ are not \(22 fields \+ the previous action\) x 2"):
        read_fast_model(forged)


def test_scaling_that_does_not_fit_the_fields_is_refused_naming_it(tmp_path):
    config = FastPPOConfig.with_overrides({**SMALL, "normalize_observation": True})
    result = train_fast_ppo(config, 1, env_id=MEMORY, seed=0)
    result.scaling = ObservationScaling(np.zeros(3), np.ones(3), 1.0)
    with pytest.raises(ValueError, match="observation_scaling has 3 fields; the policy sees"):
        save(result, tmp_path / "bad.zip", config, 0, None, {})


@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"normalize_observation": "yes"}, r"normalize_observation must be true or false"),
        ({"previous_action": 1}, r"previous_action must be true or false"),
        ({"one_hot_cards": "yes"}, r"one_hot_cards must be true or false, got 'yes'"),
        ({"lstm_forget_bias": 20}, r"lstm_forget_bias must be a number in \[-10, 10\]"),
        ({"eval_every": -1}, r"eval_every must be a whole number"),
        ({"eval_rounds": 0}, r"eval_rounds must be a whole number"),
    ],
)
def test_bad_new_settings_are_refused_naming_them(overrides, message):
    with pytest.raises(ValueError, match=message):
        FastPPOConfig.with_overrides(overrides)


# --- the best model on evaluation seeds ---------------------------------------------------------------------
def test_the_best_evaluation_is_kept_beside_the_last_model_and_scores_what_the_agent_plays(tmp_path):
    """``best.zip`` holds the evaluation with the highest mean return; that mean is the return of its agent,
    played greedily round by round on the evaluation seeds."""
    from war_env.evaluation import play_rounds

    overrides = {**SMALL, "eval_every": 256, "eval_rounds": 8, "previous_action": True, "frame_stack": 2}
    run = run_fast_ppo(tmp_path / "run", 6 * 256, overrides=overrides, env_id=MEMORY, seed=2, bench_rounds=0)
    progress = [json.loads(line) for line in (tmp_path / "run" / "progress.jsonl").read_text().splitlines()]
    returns = [entry["eval_mean_return"] for entry in progress]
    assert len(returns) == 6
    best = run.model_card["model"]["best_evaluation"]
    assert run.model_card["model"]["best"] == "best.zip" and best["mean_return"] == max(returns)
    assert best["steps"] == progress[returns.index(max(returns))]["steps"]
    assert read_fast_model(tmp_path / "run" / "final.zip").metadata["num_timesteps"] == 6 * 256  # the last model

    seeds = [EVALUATION_SEED + i for i in range(8)]
    agent = load_fast_agent(tmp_path / "run" / "best.zip")
    records = play_rounds(agent, default_opponent(MEMORY), game_config(MEMORY, {}), seeds, env_id=MEMORY)
    assert np.mean([record.episode_return for record in records]) == pytest.approx(best["mean_return"], abs=1e-9)


def test_a_run_without_evaluations_keeps_no_best_model(tmp_path):
    run = run_fast_ppo(tmp_path / "run", 256, overrides=SMALL, env_id=MEMORY, seed=0, bench_rounds=0)
    assert run.model_card["model"]["best"] is None and not (tmp_path / "run" / "best.zip").exists()


# --- too few rounds ---------------------------------------------------------------------------------------
def test_a_budget_that_plays_fewer_than_ten_rounds_per_sub_env_warns_and_says_so_in_the_card(tmp_path):
    with pytest.warns(
        UserWarning, match="rounds per sub-env .* with fewer than 10 rounds each the policy has seen few rounds end"
    ):
        run = run_fast_ppo(tmp_path / "short", 256, overrides=SMALL, env_id=MEMORY, seed=0, bench_rounds=0)
    assert run.model_card["rounds_per_sub_env"] < 10 and "fewer than 10" in run.model_card["warnings"][0]


def test_the_warning_counts_the_rounds_every_sub_env_finished():
    """Ten rounds per sub-env is enough: 10 x 16 rounds finished over the updates do not warn, one fewer does."""
    config = FastPPOConfig.with_overrides(SMALL)

    def finished(rounds: list[int]) -> FastPPOResult:
        history = [{"steps": 256 * (i + 1), "rounds": count, "mean_return": 0.0} for i, count in enumerate(rounds)]
        return FastPPOResult(None, None, (), MEMORY, 256 * len(rounds), 1.0, history)

    assert few_rounds_warning(finished([0, 100, 60]), config) is None
    assert "9.9 rounds per sub-env" in few_rounds_warning(finished([0, 100, 59]), config)
