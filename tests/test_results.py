"""results.json's numbers: a round's return split by cause adds up, regrets are paired differences to
the reference agent and add up from their causes, the reference is the best agent unless named, and
pooled intervals resample deals (round i is the same deal against every opponent)."""

import pytest

from war_env.core.rewards import CAUSES
from war_env.core.rules import WarConfig
from war_env.evaluation import play_rounds
from war_env.evaluation.summary import RoundColumns, paired_difference, paired_difference_by_cause
from war_env.league import League, make_shards, play_shard
from war_env.league.results import choose_reference, ranked, rounds_of, summarise

ODD_WEIGHTS = dict(
    reward_win=3.0,
    reward_loss=-2.0,
    reward_draw=0.5,
    reward_takeover=-2.0,
    reward_false_start=-0.5,
    reward_idle_tick=-0.01,
)


def play(league: League) -> dict:
    return rounds_of(league, [r for shard in make_shards(league, set(), 50) for r in play_shard(shard)])


@pytest.mark.parametrize("rules", [{}, {"turn_seconds": 1.0}, ODD_WEIGHTS, {"max_battles": 20, **ODD_WEIGHTS}])
@pytest.mark.parametrize("agent", ["prompt", "eager", "random:p=0.3", "last_moment", "never", "human"])
def test_the_causes_of_a_round_add_up_to_its_return(agent, rules):
    """Fast-path agents and tick-by-tick ones, with takeovers (human on 1 s turns, never), false starts
    (eager, random) and draws (20-battle rounds)."""
    config = WarConfig(**rules)
    records = play_rounds(agent, "human", config, range(12))
    parts = RoundColumns.of_records(records, config).return_by_cause(config)
    assert list(parts) == list(CAUSES)
    assert sum(parts.values()).tolist() == pytest.approx([r.episode_return for r in records], abs=1e-9), (agent, rules)


def test_idle_ticks_are_the_reaction_ticks_plus_a_whole_turn_for_a_takeover():
    config = WarConfig(turn_seconds=2.0)
    assert all(r.idle_ticks(0, config.turn_ticks) == 20 for r in play_rounds("never", "instant", config, range(5)))
    assert all(r.idle_ticks(0, config.turn_ticks) == 0 for r in play_rounds("prompt", "instant", config, range(5)))
    for record in play_rounds("bot:fixed:ticks=4", "instant", config, range(5)):
        assert record.idle_ticks(0, config.turn_ticks) == 4 * len(record.reaction_ticks[0])


def test_the_rates_count_what_the_records_show():
    config = WarConfig(turn_seconds=1.0)  # the human bot misses some 1-second turns: takeovers on both sides
    records = play_rounds("human", "human", config, range(30))
    played = RoundColumns.of_records(records, config)
    assert played.takeovers(0) == sum(r.takeover[0] for r in records) > 0
    assert played.takeovers(1) == sum(r.takeover[1] for r in records) > 0
    assert played.takeover_rate() == played.takeovers() / 30
    assert played.idle_ticks_per_round == sum(r.idle_ticks(0, config.turn_ticks) for r in records) / 30
    eager = play_rounds("eager", "human", config, range(30))
    assert (
        RoundColumns.of_records(eager, config).false_starts_per_round == sum(r.false_starts[0] for r in eager) / 30 > 1
    )


@pytest.fixture(scope="module")
def league_and_rounds():
    league = League(("human", "prompt", "eager", "never"), ("instant", "uniform"), 40, 11)
    return league, play(league)


def test_the_reference_is_the_agent_with_the_best_mean_return(league_and_rounds):
    league, indexed = league_and_rounds
    assert choose_reference(league, indexed) == "prompt"
    results = summarise(league, indexed)
    assert results["reference_agent"] == "prompt"
    assert [entry["agent"] for entry in ranked(results)][0] == "prompt"


def test_on_a_tie_the_reference_is_the_agent_listed_first():
    # without a false-start penalty, pressing on every tick costs nothing: eager and prompt tie exactly
    league = League(("eager", "prompt"), ("human",), 10, 0, {"reward_false_start": 0.0})
    assert choose_reference(league, play(league)) == "eager"


def test_regrets_are_paired_differences_to_the_reference_and_add_up_from_their_causes(league_and_rounds):
    league, indexed = league_and_rounds
    results = summarise(league, indexed)
    for entry in results["agents"]:
        if entry["agent"] == "prompt":
            assert entry["regret"] is None and entry["regret_by_cause"] is None
            continue
        gaps = [
            gap
            for o in league.opponents
            for gap in indexed[("prompt", o)].returns - indexed[(entry["agent"], o)].returns
        ]
        assert entry["regret"]["value"] == pytest.approx(sum(gaps) / len(gaps))
        assert sum(entry["regret_by_cause"].values()) == pytest.approx(entry["regret"]["value"])
        assert entry["regret_by_cause"]["outcome"] == 0  # paired deals: the cards are the same
    for pairing in results["pairings"]:
        if pairing["agent"] != "prompt":
            assert sum(pairing["regret_by_cause"].values()) == pytest.approx(pairing["regret"]["value"])
    by_agent = {entry["agent"]: entry for entry in results["agents"]}
    assert by_agent["never"]["regret"]["exact"] and by_agent["never"]["takeover_share"] == 1
    assert by_agent["never"]["regret_by_cause"]["takeover"] == pytest.approx(1.0)  # -1 per round it never pays
    assert by_agent["eager"]["regret_by_cause"]["false_starts"] > 0 == by_agent["eager"]["regret_by_cause"]["takeover"]


def test_a_named_reference_is_used_and_an_unknown_one_refused(league_and_rounds):
    league, indexed = league_and_rounds
    results = summarise(league, indexed, reference="human")
    assert results["reference_agent"] == "human"
    prompt = next(entry for entry in results["agents"] if entry["agent"] == "prompt")
    assert prompt["regret"]["high"] < 0  # prompt does better than the reference: a negative regret
    with pytest.raises(ValueError, match="'oracle' is not one of the league's agents"):
        summarise(league, indexed, reference="oracle")


def test_pooled_intervals_resample_deals_not_the_same_deal_once_per_opponent(league_and_rounds):
    """human plays every deal the same way against every opponent: pooling its rounds over the two
    opponents adds no information, so the pooled interval is the one of a single pairing."""
    league, indexed = league_and_rounds
    results = summarise(league, indexed)
    pooled = next(entry for entry in results["agents"] if entry["agent"] == "human")
    single = next(p for p in results["pairings"] if p["agent"] == "human" and p["opponent"] == "instant")
    for key in ("return", "regret"):
        assert (pooled[key]["low"], pooled[key]["high"]) == pytest.approx((single[key]["low"], single[key]["high"]))


def test_pooled_columns_are_an_agents_rounds_against_every_opponent(league_and_rounds):
    league, indexed = league_and_rounds
    never = RoundColumns.pooled([indexed[("never", o)] for o in league.opponents])
    assert never.rounds == 2 * 40 and never.takeover_rate() == 1 and never.takeovers(1) == 0
    assert never.idle_ticks_per_round == league.config.turn_ticks  # a whole turn, then the takeover bot
    human = [indexed[("human", o)] for o in league.opponents]
    assert RoundColumns.pooled(human).reaction_histogram.tolist() == sum(p.reaction_histogram for p in human).tolist()


def test_a_paired_difference_is_taken_round_by_round_on_the_same_rounds(league_and_rounds):
    league, indexed = league_and_rounds
    prompt, never = indexed[("prompt", "instant")], indexed[("never", "instant")]
    gaps = paired_difference(prompt, never)
    assert gaps.tolist() == [mine - theirs for mine, theirs in zip(prompt.returns, never.returns)]
    assert sum(paired_difference_by_cause(prompt, never, league.config).values()) == pytest.approx(gaps)
    with pytest.raises(ValueError, match="the same rounds on both sides"):
        paired_difference(prompt, RoundColumns.pooled([never, never]))


def test_the_columns_of_a_round_are_declared_once_and_annotated_alike():
    from war_env.evaluation.summary import COLUMNS, RoundColumns

    assert set(RoundColumns.__annotations__) == {"present", *COLUMNS, "reaction_histogram"}
