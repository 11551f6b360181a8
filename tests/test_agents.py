"""Agents: the scripted baselines behave as their names say, specs build them (or fail clearly),
any agent can sit in the opponent seat, and SB3's evaluate_policy measures them unchanged."""

import os

import gymnasium as gym
import numpy as np
import pytest

import war_env  # noqa: F401  (registers War-v0)
from war_env.agents import BASELINES, MODEL_ALGOS, make_agent, make_opponent
from war_env.agents.base import Agent
from war_env.agents.scripted import BotAgent, TurnClock
from war_env.core.bots import Human, make_bot, sample_reaction
from war_env.core.randomness import Stream, hash_uniform
from war_env.core.rules import WarConfig
from war_env.evaluation import play_round

OPPONENTS = ["instant", "fixed:ticks=5", "uniform:low=1,high=10", "human", "absent"]


def rounds(agent_spec, opponent="human", seeds=range(4), **rules):
    config = WarConfig(**rules)
    env = gym.make("War-v0", opponent=opponent, config=config)
    agent = make_agent(agent_spec, config=config)
    return [play_round(env, agent, seed) for seed in seeds]


# --- specs ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "spec",
    list(BASELINES)
    + ["random:p=0.25", "human:median=0.8", "bot:fixed:ticks=5", "bot:uniform:low=1,high=10", "bot:absent"],
)
def test_every_spec_builds_an_agent_whose_spec_builds_it_again(spec):
    agent = make_agent(spec)
    assert isinstance(agent, Agent)
    assert make_agent(agent.spec()).spec() == agent.spec()


@pytest.mark.parametrize(
    "spec, complaint",
    [
        ("rando", "unknown agent 'rando'.*did you mean 'random'"),
        ("random:p=1.5", "p must be a probability"),
        ("random:p=true", "p must be a probability"),
        ("random:q=0.2", "agent 'random' has no parameter 'q'.*it takes p"),
        ("prompt:fast=1", "agent 'prompt' has no parameter 'fast'.*takes none"),
        ("human:medain=1", "no parameter 'medain'.*takes median, sigma, miss; did you mean 'median'"),
        ("random:p", "expected key=value"),
        ("bot:", "needs a bot spec"),
        ("bot:robot", "unknown bot 'robot'"),
        ("human:median=-1", "median must be a positive"),
        ("ppo:", "needs a model file"),
        ("", "non-empty string"),
    ],
)
def test_a_bad_spec_is_refused_naming_the_problem(spec, complaint):
    with pytest.raises(ValueError, match=complaint):
        make_agent(spec)


@pytest.mark.parametrize(
    "spec, complaint",
    [
        (
            "humann",
            r"unknown opponent 'humann'.*bots: absent, fixed, human, instant, leader, modes, parity, pool, uniform"
            r".*did you mean 'human'\?",
        ),
        ("promt", r"unknown opponent 'promt'.*agents \(playing seat 1\): prompt.*did you mean 'prompt'\?"),
        ("ppoo:x.zip", r"unknown opponent 'ppoo'.*did you mean 'ppo:PATH'\?"),
        ("fixed:tick=3", "bot 'fixed' has no parameter 'tick'.*it takes ticks; did you mean 'ticks'"),
    ],
)
def test_a_bad_opponent_is_named_with_every_bot_and_agent_and_the_closest_name(spec, complaint):
    with pytest.raises(ValueError, match=complaint):
        make_opponent(spec)


def test_a_config_that_is_not_a_warconfig_is_a_type_error():
    with pytest.raises(TypeError, match="WarConfig"):
        make_agent("last_moment", config={"turn_seconds": 2})


@pytest.mark.parametrize(
    "spec, algo, path, threads",
    [
        ("ppo:runs/x/best.zip", "ppo", "runs/x/best.zip", 1),
        ("maskable_ppo:models/m.zip", "maskable_ppo", "models/m.zip", 1),
        ("dqn:runs/a=b,c.zip", "dqn", "runs/a=b,c.zip", 1),  # any characters: the path is taken verbatim
        ("a2c:path=runs/a.zip", "a2c", "runs/a.zip", 1),
        ("ppo:path=runs/a.zip,threads=1", "ppo", "runs/a.zip", 1),
        (f"ppo:path=runs/a.zip,threads={os.cpu_count()}", "ppo", "runs/a.zip", os.cpu_count()),
        ("ppo:threads=2,path=a.zip", "ppo", "threads=2,path=a.zip", 1),  # options start with path=, else a path
    ],
)
@pytest.mark.parametrize("trust", [False, True])
def test_model_specs_go_to_the_sb3_loader_with_the_path_as_written_and_trust_only_from_the_caller(
    monkeypatch, spec, algo, path, threads, trust
):
    sb3_model = pytest.importorskip("war_env.agents.sb3_agent")
    calls = []
    monkeypatch.setattr(sb3_model, "load_sb3_agent", lambda *args, **kwargs: calls.append((args, kwargs)) or "model")
    assert make_agent(spec, trust_model_file=trust) == "model"
    assert calls == [((algo, path), {"trust_model_file": trust, "threads": threads})]
    assert algo in MODEL_ALGOS


@pytest.mark.parametrize(
    "options, complaint",
    [
        ("threads=0", r"threads must be a whole number from 1 to \d+ \(this machine's cores\), got '0'"),
        (f"threads={os.cpu_count() + 1}", "threads must be a whole number from 1 to"),
        ("threads=1.5", "got '1.5'"),
        ("threads=two", "got 'two'"),
        # trust is never part of a spec: an option that asks for it is refused (the file is never loaded)
        ("trust_model_file=true", "has no option 'trust_model_file'; a ppo model agent takes path, threads"),
    ],
)
def test_a_model_spec_with_a_bad_option_is_refused_in_one_line_before_any_file_is_read(options, complaint):
    with pytest.raises(ValueError, match=complaint) as refused:
        make_agent(f"ppo:path=missing.zip,{options}")
    assert "\n" not in str(refused.value)


# --- the baselines play as their names say -------------------------------------------------------------
@pytest.mark.parametrize("opponent", OPPONENTS)
def test_prompt_draws_on_the_opening_tick_of_every_turn(opponent):
    for record in rounds("prompt", opponent):
        assert record.false_starts[0] == 0 and not record.takeover[0]
        assert set(record.reaction_ticks[0]) == {0}
        assert record.episode_return in (-1.0, 0.0, 1.0)  # no timing cost at all


def test_eager_draws_at_once_but_false_starts_between_its_turns():
    for record in rounds("eager", "human"):
        assert set(record.reaction_ticks[0]) == {0}
        assert record.false_starts[0] > 0 and not record.takeover[0]


def test_never_is_taken_over_at_the_end_of_its_first_turn():
    turn_ticks = WarConfig().turn_ticks
    for record in rounds("never", "instant"):
        assert record.takeover[0] and record.reaction_ticks[0] == ()
        # as starter its turn opens on tick 1; as second player one tick after the instant bot drew
        assert record.steps in (turn_ticks, turn_ticks + 1)


def test_last_moment_draws_on_the_last_tick_and_is_never_taken_over():
    for turn_seconds in (3.0, 0.5):
        config = WarConfig(turn_seconds=turn_seconds)
        for record in rounds("last_moment", "uniform:low=1,high=4", turn_seconds=turn_seconds):
            assert set(record.reaction_ticks[0]) == {config.turn_ticks - 1}
            assert not record.takeover[0] and record.false_starts[0] == 0


def test_random_with_p_0_is_never_and_with_p_1_is_eager():
    for low, high in (("random:p=0", "never"), ("random:p=1", "eager")):
        a, b = rounds(low), rounds(high)
        assert [r.__dict__ | {"agent": None} for r in a] == [r.__dict__ | {"agent": None} for r in b]


def test_random_presses_on_about_a_share_p_of_ticks():
    records = rounds("random:p=0.3", "instant", seeds=range(10))
    presses = sum(r.false_starts[0] + len(r.reaction_ticks[0]) for r in records)
    steps = sum(r.steps for r in records)  # the agent's last press may be a takeover's tick: close enough
    assert abs(presses / steps - 0.3) < 0.03


def test_an_agent_built_for_other_rules_refuses_the_clock_it_sees():
    env = gym.make("War-v0", opponent="instant", turn_seconds=1.0)
    with pytest.raises(ValueError, match="does not fit a turn of 30 ticks"):
        play_round(env, make_agent("last_moment"), seed=0)


def test_the_turn_clock_counts_ticks_from_the_opening_of_the_turn():
    clock = TurnClock(turn_ticks=4)
    closed, opened = np.zeros(16, np.float32), np.zeros(16, np.float32)
    opened[0] = 1.0
    seen = []
    for left in (4, 3, 2):
        opened[1] = left / 4
        seen.append(clock.elapsed(opened))
    assert seen == [0, 1, 2]
    assert clock.elapsed(closed) is None
    opened[1] = 0.5  # a new turn must open with the full timer
    with pytest.raises(ValueError, match="expected 4 ticks left"):
        clock.elapsed(opened)


# --- reaction-model agents are the bots' models ---------------------------------------------------------
def test_a_bot_agent_draws_when_the_bots_own_cdf_says():
    config = WarConfig(turn_seconds=1.0)
    bot = Human(median=0.3)
    agent = BotAgent(bot, config=config)
    env = gym.make("War-v0", opponent="instant", config=config)
    record = play_round(env, agent, seed=3)
    cdf = bot.reaction_cdf(config)
    seed = agent._seed  # the seed play_round gave the agent for this round
    expected = [
        sample_reaction(cdf, hash_uniform(seed, Stream.AGENT_REACTION, n)) for n in range(len(record.reaction_ticks[0]))
    ]
    assert list(record.reaction_ticks[0]) == expected


def test_the_human_agent_reacts_like_the_human_opponent_bot():
    env = gym.make("War-v0", opponent="human")
    agent = make_agent("human")
    agent_ticks, bot_ticks = [], []
    for seed in range(25):
        observation, _ = env.reset(seed=seed)
        agent.reset(seed=seed)
        terminated = False
        while not terminated:
            observation, _, terminated, _, info = env.step(agent.act(observation))
        agent_ticks += info["round"]["reaction_ticks"][0]
        bot_ticks += info["round"]["reaction_ticks"][1]
    assert len(agent_ticks) > 1000 and len(bot_ticks) > 1000
    assert abs(np.mean(agent_ticks) - np.mean(bot_ticks)) < 0.3  # the same model: means agree within noise
    assert abs(np.percentile(agent_ticks, 90) - np.percentile(bot_ticks, 90)) <= 1
    assert make_agent("human").bot == make_bot("human")


# --- the opponent seat --------------------------------------------------------------------------------
@pytest.mark.parametrize("spec", BASELINES)
def test_any_agent_can_play_the_opponent_seat(spec):
    env = gym.make("War-v0", opponent=make_agent(spec))
    records = [play_round(env, make_agent("prompt"), seed) for seed in range(2)]
    assert all(r.reason is not None for r in records)
    if spec == "prompt":
        assert all(not r.takeover[1] and r.false_starts[1] == 0 for r in records)
    if spec == "never":
        assert all(r.takeover[1] for r in records)


def test_a_random_opponent_is_reseeded_by_the_env_so_rounds_repeat():
    def play():
        env = gym.make("War-v0", opponent=make_agent("random:p=0.3"))
        return [play_round(env, make_agent("prompt"), seed) for seed in (5, 6, 5)]

    first, second = play(), play()
    assert first == second
    assert first[0] == first[2]  # the same seed later in the same env: the same round


# --- SB3 ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("spec", ["prompt", "eager", "never", "last_moment"])
def test_sb3_evaluate_policy_measures_a_scripted_agent_like_play_round(spec):
    evaluation = pytest.importorskip("stable_baselines3.common.evaluation")
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import DummyVecEnv

    vec_env = DummyVecEnv([lambda: Monitor(gym.make("War-v0", opponent="instant"))])
    vec_env.seed(11)
    returns, lengths = evaluation.evaluate_policy(
        make_agent(spec), vec_env, n_eval_episodes=3, return_episode_rewards=True
    )
    env = gym.make("War-v0", opponent="instant")
    expected = []
    agent = make_agent(spec)
    for episode in range(3):
        observation, _ = env.reset(seed=11 if episode == 0 else None)  # then unseeded, as the vec env does
        agent.reset()
        total, done, steps = 0.0, False, 0
        while not done:
            observation, reward, done, _, _ = env.step(agent.act(observation))
            total, steps = total + reward, steps + 1
        expected.append((total, steps))
    assert [(pytest.approx(r), n) for r, n in zip(returns, lengths)] == expected


# --- press_once and lead: the simple baselines of the probes ---------------------------------------------
@pytest.mark.slow
def test_press_once_is_prompt_without_latency_and_with_latency_waits_out_its_one_press():
    from war_env.evaluation import play_rounds

    for bot in OPPONENTS:
        once = play_rounds("press_once", bot, WarConfig(), range(4))
        prompt = play_rounds("prompt", bot, WarConfig(), range(4))
        assert [r.reaction_ticks for r in once] == [r.reaction_ticks for r in prompt]
    delayed = play_rounds("press_once", "human", WarConfig(latency="fixed:ticks=3"), range(4))
    assert all(r.false_starts[0] == 0 and set(r.reaction_ticks[0]) == {3} for r in delayed)


def test_the_best_lead_lands_its_press_as_the_turn_opens_against_a_predictable_opponent():
    from war_env.evaluation import play_rounds

    config = WarConfig(latency="fixed:ticks=3")
    lead = make_agent("lead", config=config, opponent="fixed:ticks=6")
    assert lead.ticks == 4 and lead.spec() == "lead"  # pressed 4 ticks in, it lands in tick 7: the opening
    records = play_rounds("lead", "fixed:ticks=6", config, range(4))
    assert all(r.false_starts[0] == 0 and set(r.reaction_ticks[0][1:]) == {0} for r in records)
    assert make_agent("lead:ticks=2", config=config, opponent="human").ticks == 2


@pytest.mark.parametrize(
    "spec, complaint",
    [("lead:ticks=30", "from 0 to 29"), ("lead:ticks=-1", "from 0 to 29"), ("lead:tick=3", "no parameter 'tick'")],
)
def test_a_bad_lead_is_refused(spec, complaint):
    with pytest.raises(ValueError, match=complaint):
        make_agent(spec, config=WarConfig(latency="fixed:ticks=2"), opponent="human")
