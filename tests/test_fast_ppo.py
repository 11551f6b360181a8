"""The fast PPO trainer (``war_env.training.fast_ppo``) and its model files (``war_env.agents.fast_model``).

Its advantages are SB3's on the same batch; it trains War-v0 to the optimum (``prompt``, which the oracle plays
without latency) on a small budget; its files play through ``war-bench``'s agent spec ``fast_ppo:PATH`` and the
suite exactly as the torch policy chose, and a forged or oversized file is refused before anything is built.
"""

from __future__ import annotations

import copy
import io
import json
import zipfile

import gymnasium as gym
import numpy as np
import pytest
import torch

import war_env  # noqa: F401
from war_env.agents import make_agent
from war_env.agents.fast_model import FastNetwork, read_fast_model, save_fast_model
from war_env.agents.model_files import METADATA_NAME, read_metadata
from war_env.envs.games import default_opponent
from war_env.support.run_folder import RunFolderConflict
from war_env.training.fast_ppo import FastPPOConfig, advantages_and_returns, build_policy, run_fast_ppo, train_fast_ppo

SMALL = {"num_envs": 16, "rollout_steps": 16, "minibatch_size": 64, "epochs": 1, "hidden": (8,)}
"""A config that trains one update in a blink: the tests of plumbing use it."""


# --- the advantages: SB3's numbers -----------------------------------------------------------------------
def test_advantages_and_returns_are_sb3s_on_the_same_batch_with_rounds_ending_inside_it():
    from gymnasium import spaces
    from stable_baselines3.common.buffers import RolloutBuffer

    steps, envs, gamma, lam = 12, 5, 0.99, 0.95
    rng = np.random.default_rng(0)
    rewards = rng.normal(size=(steps, envs)).astype(np.float32)
    values = rng.normal(size=(steps, envs)).astype(np.float32)
    dones = (rng.random((steps, envs)) < 0.2).astype(np.float32)  # a round ended at step t
    dones[-1, 0] = 1.0  # ... at the very last step of one env, and at none of another's
    dones[:, 1] = 0.0
    last_values = rng.normal(size=envs).astype(np.float32)

    buffer = RolloutBuffer(
        steps, spaces.Box(0, 1, (3,)), spaces.Discrete(2), device="cpu", gamma=gamma, gae_lambda=lam, n_envs=envs
    )
    starts = np.vstack([np.ones((1, envs), np.float32), dones[:-1]])  # SB3's episode_starts[t + 1] is dones[t]
    for t in range(steps):
        buffer.add(
            np.zeros((envs, 3), np.float32),
            np.zeros((envs, 1)),
            rewards[t],
            starts[t],
            torch.from_numpy(values[t]),
            torch.zeros(envs),
        )
    buffer.compute_returns_and_advantage(torch.from_numpy(last_values), dones[-1])

    advantages, returns = advantages_and_returns(rewards, values, dones, last_values, gamma, lam)
    np.testing.assert_allclose(advantages, buffer.advantages, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(returns, buffer.returns, rtol=1e-5, atol=1e-5)
    assert np.abs(advantages).max() > 0.5  # not a trivially equal pair of zeros


def test_no_value_is_bootstrapped_across_the_end_of_a_round():
    rewards = np.array([[0.0], [1.0], [0.0]], np.float32)
    values = np.array([[0.5], [0.5], [7.0]], np.float32)
    dones = np.array([[0.0], [1.0], [0.0]], np.float32)  # the round ends at step 1: step 2 is another round
    advantages, returns = advantages_and_returns(rewards, values, dones, np.array([0.0], np.float32), 0.9, 1.0)
    assert returns[1, 0] == pytest.approx(1.0)  # the reward, and nothing of the next round's value 7
    assert returns[0, 0] == pytest.approx(0.9 * 1.0)


# --- it learns: War-v0 to the optimum ----------------------------------------------------------------------
def test_war_v0_is_trained_to_the_optimum_on_a_small_budget(tmp_path):
    """War-v0's optimum is to draw as the turn opens (``prompt``; the ``oracle`` plays it without latency): the final
    model plays exactly like it on 300 held-out paired rounds, no takeover, no false start."""
    run = run_fast_ppo(
        tmp_path / "run",
        60_000,
        overrides={"num_envs": 64, "rollout_steps": 64, "minibatch_size": 1024},
        seed=0,
        bench_rounds=300,
    )
    bench = run.model_card["benchmark_final"]
    assert bench["model"]["takeovers"] == 0 and bench["model"]["false_starts"] == 0, bench["model"]
    assert bench["mean_return_difference"] == 0.0 and bench["bar"]["passed"], bench
    assert run.model_card["timesteps"] >= 60_000


# --- model files: the agent plays what the torch policy chose ------------------------------------------------
@pytest.fixture(scope="module", params=["mlp", "stacked", "lstm"])
def trained(request, tmp_path_factory):
    extra = {"mlp": {}, "stacked": {"frame_stack": 3}, "lstm": {"lstm_hidden_size": 6}}[request.param]
    config = FastPPOConfig.with_overrides({**SMALL, **extra})
    result = train_fast_ppo(config, 1, env_id="WarMemory-v1", seed=3)
    path = tmp_path_factory.mktemp("fast") / f"{request.param}.zip"
    from war_env.training.fast_ppo import save

    save(result, path, config, 3, None, {})
    return result, config, path


def torch_greedy_actions(result, config, observations: np.ndarray) -> list[int]:
    """The torch policy's greedy actions over one round's observations, its memory built as in training."""
    width = observations.shape[1]
    frames, inputs = np.zeros(width * config.frame_stack, np.float32), []
    for observation in observations:
        frames = np.concatenate((frames[width:], observation))
        inputs.append(frames)
    x = torch.from_numpy(np.array(inputs)).unsqueeze(1)
    starts = torch.zeros(len(x), 1)
    starts[0] = 1.0
    units = result.network.lstm_hidden_size
    with torch.no_grad():
        features, _ = result.policy.features(x, starts, (torch.zeros(1, units), torch.zeros(1, units)))
        return result.policy.actor(features[:, 0]).argmax(dim=1).tolist()


def test_the_model_file_plays_the_torch_policys_greedy_actions_round_after_round(trained):
    result, config, path = trained
    agent = make_agent(f"fast_ppo:{path}")
    env = gym.make("WarMemory-v1")
    for seed in (0, 1):  # a second round: the agent's memory must start afresh, as the policy's did
        observation, _ = env.reset(seed=seed)
        agent.reset(seed)
        observations, actions, terminated = [], [], False
        for _ in range(300):
            observations.append(observation)
            actions.append(agent.act(observation))
            observation, _, terminated, _, _ = env.step(actions[-1])
            if terminated:
                break
        assert actions == torch_greedy_actions(result, config, np.array(observations))
    assert agent.has_memory == (config.frame_stack > 1 or config.lstm_hidden_size > 0)


def test_the_model_file_says_what_it_was_trained_on(trained):
    result, config, path = trained
    metadata = read_metadata(path)
    assert metadata["algorithm"] == "fast_ppo" and metadata["env_id"] == "WarMemory-v1" and metadata["seed"] == 3
    assert metadata["config"] == config.as_json() and metadata["opponent"] == default_opponent("WarMemory-v1")
    assert metadata["num_timesteps"] == SMALL["num_envs"] * SMALL["rollout_steps"]
    assert FastNetwork.from_json(metadata["network"]) == result.network


def test_war_bench_and_its_suite_play_the_model_by_its_spec(trained, tmp_path):
    from war_env.league import run_league
    from war_env.league.suite import run_suite

    _, config, path = trained
    if config.frame_stack > 1:
        pytest.skip("one model with memory (the LSTM) is enough for the suite's round-by-round play")
    spec = f"fast_ppo:{path}"
    league = run_league(
        agents=["prompt", spec],
        opponents=["human"],
        rounds=3,
        out=str(tmp_path / "bench"),
        env_id="WarMemory-v1",
        progress=False,
    )
    assert league.rounds_played == 3 * 3  # the oracle, prompt and the model, 3 rounds each
    assert f"`{spec}`" in (tmp_path / "bench" / "report.md").read_text()
    suite = run_suite(agents=[spec], probes=["memory"], rounds=2, out=tmp_path / "suite", progress=False)
    (memory,) = suite.results["probes"]
    assert spec in memory["agents"]


# --- refused files ---------------------------------------------------------------------------------------
def rewrite(path, tmp_path, header=None, weights=None, name="forged.zip"):
    """A copy of a model file with its header (a function of the JSON) or its weights (bytes) replaced."""
    with zipfile.ZipFile(path) as archive:
        record = json.loads(archive.read(METADATA_NAME))
        policy = archive.read("policy.pth")
    record = header(record) if header else record
    forged = tmp_path / name
    with zipfile.ZipFile(forged, "w") as archive:
        archive.writestr(METADATA_NAME, json.dumps(record))
        archive.writestr("policy.pth", weights if weights is not None else policy)
    return forged


@pytest.fixture
def mlp_file(tmp_path):
    network = FastNetwork(16, (4,), "tanh", 0)
    state = {name: torch.full(shape, 0.1) for name, shape in network.shapes().items()}
    from war_env.core.observation import OBSERVATION_FIELDS

    return save_fast_model(tmp_path / "m.zip", state, network, OBSERVATION_FIELDS, 1, "War-v0"), network


def torch_file(state) -> bytes:
    buffer = io.BytesIO()
    torch.save(state, buffer)
    return buffer.getvalue()


def test_a_header_promising_a_huge_network_is_refused_before_anything_is_read(mlp_file, tmp_path):
    path, _ = mlp_file

    def huge(record):
        record["network"]["hidden"] = [30_000, 30_000]
        return record

    with pytest.raises(ValueError, match=r"forged\.zip.*network.*parameters; at most 10,000,000"):
        read_fast_model(rewrite(path, tmp_path, huge))


def test_weights_larger_than_the_header_s_network_are_refused(mlp_file, tmp_path):
    path, network = mlp_file
    bigger = {name: torch.zeros(shape) for name, shape in FastNetwork(16, (4000,), "tanh", 0).shapes().items()}
    with pytest.raises(ValueError, match=r"forged\.zip.*policy\.pth"):
        read_fast_model(rewrite(path, tmp_path, weights=torch_file(bigger)))


def test_a_tensor_of_the_wrong_shape_or_name_is_refused_naming_it(mlp_file, tmp_path):
    path, network = mlp_file
    state = {name: torch.zeros(shape) for name, shape in network.shapes().items()}
    state["actor.0.weight"] = torch.zeros(network.shapes()["actor.0.weight"][::-1])
    with pytest.raises(ValueError, match=r"actor\.0\.weight has shape \(16, 4\)"):
        read_fast_model(rewrite(path, tmp_path, weights=torch_file(state)))
    renamed = {name.replace("critic", "value"): tensor for name, tensor in state.items()}
    with pytest.raises(ValueError, match=r"not this network's"):
        read_fast_model(rewrite(path, tmp_path, weights=torch_file(renamed), name="renamed.zip"))


def test_code_planted_in_the_weights_never_runs(mlp_file, tmp_path):
    path, _ = mlp_file
    marker = tmp_path / "ran"

    class Payload:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    with pytest.raises(ValueError, match=r"forged\.zip': policy\.pth: data\.pkl names io\.open"):
        read_fast_model(rewrite(path, tmp_path, weights=torch_file({"actor.0.weight": Payload()})))
    assert not marker.exists()


def test_nan_weights_and_sb3_specs_on_a_fast_file_are_refused_clearly(mlp_file, tmp_path):
    path, network = mlp_file
    state = {name: torch.zeros(shape) for name, shape in network.shapes().items()}
    state["critic.0.bias"][0] = float("nan")
    with pytest.raises(ValueError, match=r"critic\.0\.bias holds NaN"):
        read_fast_model(rewrite(path, tmp_path, weights=torch_file(state)))
    with pytest.raises(ValueError, match=r"holds a 'fast_ppo' model, not 'ppo'"):
        make_agent(f"ppo:{path}")
    assert make_agent(f"fast_ppo:{path}").batch_policy() is not None  # the file itself plays


# --- settings ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"gama": 0.99}, r"unknown fast_ppo setting\(s\) \['gama'\]"),
        ({"gamma": 1.5}, r"gamma must be a number in \(0\.0, 1\.0\]"),
        ({"num_envs": 0}, r"num_envs must be a whole number"),
        ({"hidden": "64xq"}, r"hidden must be layer sizes"),
        ({"activation": "sigmoid"}, r"activation must be one of"),
    ],
)
def test_bad_settings_are_refused_naming_them(overrides, message):
    with pytest.raises(ValueError, match=message):
        FastPPOConfig.with_overrides(overrides)


@pytest.mark.parametrize("name, value", [("frame_stack", int("9" * 4299)), ("hidden", "64x" * 10_000 + "q")])
def test_a_huge_setting_is_refused_in_one_short_line_naming_it(name, value):
    """A 4,299-digit number (the longest JSON parses) or a long text: the refusal shows the start of it."""
    with pytest.raises(ValueError) as refused:
        FastPPOConfig.with_overrides({name: value})
    message = str(refused.value)
    assert f"{name} must be" in message and "characters)" in message
    assert "\n" not in message and len(message) < 300


def test_the_discount_is_longer_than_the_sb3_configs_by_default_and_settable():
    assert FastPPOConfig().gamma == 0.99 and 0.99**30 > 0.7
    assert FastPPOConfig.with_overrides({"gamma": 0.995, "hidden": "32x32"}).hidden == (32, 32)


def test_war_train_runs_fast_ppo_and_refuses_the_sb3_only_options(tmp_path, capsys):
    from war_env.scripts.train import cli

    assert (
        cli(
            [
                "--algo",
                "fast_ppo",
                "--timesteps",
                "10",
                "--set",
                "num_envs=8,rollout_steps=4,minibatch_size=8",
                "--run-dir",
                str(tmp_path / "run"),
                "--bench-rounds",
                "0",
            ]
        )
        == 0
    )
    assert "load it as fast_ppo:" in capsys.readouterr().out
    assert (tmp_path / "run" / "final.zip").is_file() and (tmp_path / "run" / "progress.jsonl").is_file()
    with pytest.raises(SystemExit):
        cli(["--algo", "fast_ppo", "--n-envs", "8", "--run-dir", str(tmp_path / "other")])
    assert "does not take --n-envs" in capsys.readouterr().err


def test_the_policy_s_tensors_are_the_files_shapes():
    for network in (FastNetwork(24, (64, 64), "tanh", 0), FastNetwork(16, (8,), "relu", 5)):
        state = build_policy(network).state_dict()
        assert {name: tuple(tensor.shape) for name, tensor in state.items()} == network.shapes()


def test_the_policy_s_tanh_is_torch_s_in_value_and_gradient():
    """The trainer computes tanh in place as ``2 sigmoid(2x) - 1``: the same outputs and weight gradients as the same
    network with ``torch.nn.Tanh`` (and the numpy forward of ``fast_ppo:PATH`` computes ``np.tanh``)."""
    torch.manual_seed(0)
    ours = build_policy(FastNetwork(7, (16, 16), "tanh", 0)).actor
    reference = torch.nn.Sequential(
        *[copy.deepcopy(module) if isinstance(module, torch.nn.Linear) else torch.nn.Tanh() for module in ours]
    )
    x = torch.randn(300, 7) * 3.0
    outputs = [network(x) for network in (ours, reference)]
    for output in outputs:
        output.pow(2).sum().backward()
    torch.testing.assert_close(outputs[0], outputs[1])
    for mine, theirs in zip(ours.parameters(), reference.parameters(), strict=True):
        torch.testing.assert_close(mine.grad, theirs.grad)


def test_a_sequence_replayed_in_one_pass_gives_the_rollouts_step_by_step_lstm_outputs():
    """The update replays a rollout's sequences in a few ``nn.LSTM`` calls cut at round starts; the rollout ran them
    one step at a time: the same features, the state zeroed wherever a round starts."""
    torch.manual_seed(0)
    policy = build_policy(FastNetwork(5, (4,), "tanh", 6))
    x, starts = torch.randn(12, 3, 5), (torch.rand(12, 3) < 0.25).float()
    starts[0, 0], starts[7, 1] = 1.0, 1.0
    state = (torch.randn(3, 6), torch.randn(3, 6))
    with torch.no_grad():
        whole, last = policy.features(x, starts, state)
        steps, carried = [], state
        for t in range(len(x)):
            out, carried = policy.features(x[t : t + 1], starts[t : t + 1], carried)
            steps.append(out)
    torch.testing.assert_close(whole, torch.cat(steps))
    torch.testing.assert_close(last[0], carried[0])
    fresh, _ = policy.features(x[7:8, 1:2], torch.ones(1, 1), (torch.zeros(1, 6), torch.zeros(1, 6)))
    torch.testing.assert_close(whole[7, 1], fresh[0, 0].detach())  # a round's first step forgets the state before


# --- greedy and sampled play ---------------------------------------------------------------------------
@pytest.fixture
def hedging_file(tmp_path):
    """A policy that draws with probability 0.3 in every state: greedy, it never draws."""
    network = FastNetwork(16, (4,), "tanh", 0)
    state = {name: torch.zeros(shape) for name, shape in network.shapes().items()}
    state["actor.2.bias"] = torch.tensor([0.0, float(np.log(0.3 / 0.7))])
    from war_env.core.observation import OBSERVATION_FIELDS

    return save_fast_model(tmp_path / "hedging.zip", state, network, OBSERVATION_FIELDS, 1, "War-v0")


def test_a_sampled_policy_draws_with_its_probability_and_the_same_round_seed_draws_the_same(hedging_file):
    from war_env.evaluation import play_rounds

    sampled = make_agent(f"fast_ppo:path={hedging_file},actions=sampled")
    assert sampled.spec() == f"fast_ppo:path={hedging_file},actions=sampled" and sampled.batch_policy() is None
    observation = np.zeros(16, dtype=np.float32)
    draws = []
    for seed in (7, 7, 8):
        sampled.reset(seed=seed)
        draws.append([sampled.act(observation) for _ in range(4000)])
    assert draws[0] == draws[1] != draws[2]
    assert np.mean(draws[0] + draws[2]) == pytest.approx(0.3, abs=0.02)
    greedy = play_rounds(f"fast_ppo:{hedging_file}", "human", war_env.WarConfig(target_points=8), [0, 1, 2])
    played = [
        play_rounds(
            f"fast_ppo:path={hedging_file},actions=sampled", "human", war_env.WarConfig(target_points=8), [0, 1, 2]
        )
        for _ in range(2)
    ]
    assert all(record.takeover[0] for record in greedy)  # it never draws: the timer takes its seat over
    assert played[0] == played[1] and not any(record.takeover[0] for record in played[0])


def test_only_a_fast_model_takes_the_actions_option(hedging_file):
    with pytest.raises(ValueError, match="actions must be greedy or sampled, got 'random'"):
        make_agent(f"fast_ppo:path={hedging_file},actions=random")
    with pytest.raises(ValueError, match="has no option 'actions'"):
        make_agent(f"ppo:path={hedging_file},actions=sampled")


# --- checkpoints and resume ------------------------------------------------------------------------------
CHECKPOINTED = {**SMALL, "checkpoint_every": 512}  # an update is 16 x 16 = 256 steps: a checkpoint every second one


class CutOff(Exception):
    pass


def cut_off_run(run_dir, after_steps: int):
    """A run of 2,048 steps stopped (as by Ctrl-C) after the update that reaches ``after_steps``."""

    def log(entry):
        if entry["steps"] >= after_steps:
            raise CutOff

    with pytest.raises(CutOff):
        run_fast_ppo(run_dir, 2048, overrides=CHECKPOINTED, env_id="WarLatency-v0", seed=3, bench_rounds=0, log=log)


def test_a_cut_off_run_resumes_from_its_latest_checkpoint_and_its_progress_has_every_update_once(tmp_path, capsys):
    from war_env.scripts.train import cli

    run_dir = tmp_path / "run"
    cut_off_run(run_dir, after_steps=1280)  # checkpoints at 512 and 1,024; the update to 1,280 is lost
    assert sorted(path.name for path in (run_dir / "checkpoints").iterdir()) == [
        "fast_ppo_1024_steps.optimizer.pth",
        "fast_ppo_1024_steps.zip",
        "fast_ppo_512_steps.optimizer.pth",
        "fast_ppo_512_steps.zip",
    ]
    checkpoint = make_agent(f"fast_ppo:{run_dir / 'checkpoints' / 'fast_ppo_1024_steps.zip'}")
    assert checkpoint.env_id == "WarLatency-v0"
    assert cli(["--algo", "fast_ppo", "--resume", str(run_dir), "--bench-rounds", "0"]) == 0
    card = json.loads((run_dir / "model_card.json").read_text())
    assert card["timesteps"] == 2048 and card["resumed_from_timesteps"] == 1024 and card["seed"] == 3
    progress = [json.loads(line) for line in (run_dir / "progress.jsonl").read_text().splitlines()]
    assert [entry["steps"] for entry in progress] == list(range(256, 2049, 256))
    seconds = [entry["seconds"] for entry in progress]
    assert seconds == sorted(seconds)  # the wall clock goes on from the checkpoint's
    sessions = json.loads((run_dir / "run.json").read_text())["sessions"]  # the cut-off session recorded nothing
    assert [(session["from_timesteps"], session["to_timesteps"]) for session in sessions] == [(1024, 2048)]


def test_a_resume_at_the_checkpoints_own_budget_writes_the_checkpoints_weights(tmp_path):
    run_dir = tmp_path / "run"
    cut_off_run(run_dir, after_steps=768)
    run_fast_ppo(run_dir, 512, bench_rounds=0, resume=True)
    final = read_fast_model(run_dir / "final.zip").weights
    saved = read_fast_model(run_dir / "checkpoints" / "fast_ppo_512_steps.zip").weights
    assert final.keys() == saved.keys() and all(np.array_equal(final[name], saved[name]) for name in final)


def test_a_folder_with_an_unfinished_run_is_resumed_not_overwritten(tmp_path, capsys):
    from war_env.scripts.train import cli

    run_dir = tmp_path / "run"
    cut_off_run(run_dir, after_steps=256)
    with pytest.raises(RunFolderConflict, match="did not finish: continue it with war-train --algo fast_ppo --resume"):
        run_fast_ppo(run_dir, 2048, overrides=SMALL, bench_rounds=0)
    with pytest.raises(SystemExit):
        cli(["--algo", "fast_ppo", "--resume", str(run_dir), "--seed", "4"])
    assert "it does not take --seed" in capsys.readouterr().err


def test_a_resumed_folder_never_starts_the_program_of_an_exec_opponent_it_names(tmp_path):
    run_dir = tmp_path / "run"
    cut_off_run(run_dir, after_steps=256)
    marker = tmp_path / "marker"
    settings = json.loads((run_dir / "config.json").read_text())
    settings["opponent"] = f"exec:touch {marker}"
    (run_dir / "config.json").write_text(json.dumps(settings))
    with pytest.raises(ValueError, match="a run folder never starts a program by itself"):
        run_fast_ppo(run_dir, None, bench_rounds=0, resume=True)
    assert not marker.exists()


def test_runs_of_neighbouring_seeds_deal_from_no_common_sub_env_seed():
    # Gymnasium's seed + i would give seed 1's sub-env 0 the seed of seed 0's sub-env 1: 1,023 of 1,024 shared
    from war_env.training.fast_ppo import sub_env_seeds

    runs = {seed: sub_env_seeds(seed, 0, 1024) for seed in range(5)}
    assert all(len(set(seeds)) == 1024 for seeds in runs.values())
    assert not set(runs[0]) & set(runs[1]) and not set(runs[0]) & set(runs[4])
    assert not set(sub_env_seeds(0, 21 << 20, 1024)) & set(runs[0])  # a resumed run deals new rounds
    assert sub_env_seeds(3, 0, 1024) == runs[3]  # and a seed is a seed
