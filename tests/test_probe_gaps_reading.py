"""The reading probe's line of lacking the capability: the bot's context is fresh each turn, set by its own last
face-up card, so that neither the fields it leaves shown nor memory of the round (the bot's earlier reactions, the
turn count, the frames a 4-frame stack sees) tell it better than the published line, ``card_blind``.

Every reader here plays, as each of the bot's turns opens, the optimum for one belief of its context (nothing
carries over from one of its turns to the next, so that is all a reader can do), chosen per value of what it reads
on the turns of seeds 0-1999 (the line's own deals) and played on the turns of seeds 2000-3999: held out, as a
learner would meet them. The cost of a turn is exact (``probe_gaps.context_policies``; checked against play below);
a round's is the sum over its turns, so two readers compare round by round (a paired interval).
"""

from __future__ import annotations

import numpy as np
import pytest
from test_probes import FS, IDLE, best_return, timing_return

from war_env.agents import make_agent
from war_env.core.best_response import problem_with
from war_env.core.bots import Parity, VariesByCard, make_bot
from war_env.core.optimum import State, evaluate_policy, solve
from war_env.core.probes import MIN_GAP, PROBES
from war_env.core.rules import WarConfig
from war_env.envs.latency import WarLatencyEnv
from war_env.evaluation import play_rounds
from war_env.evaluation.probe_gaps import (
    component_problems,
    context_policies,
    exact_gaps,
    table_turns,
    visible_table_fields,
)
from war_env.league.stats import bootstrap_mean

PROBE = PROBES["reading"]
DEALS = 2000
"""Card games of the choice (seeds 0-1999, the line's) and, as many again, of the test (seeds 2000-3999)."""


def turns(first: int) -> dict:
    """The bot's turns of ``DEALS`` card games from seed ``first``: its context, each shown field as the turn opens,
    and what memory of the round adds (the context of the bot's previous turn, which its previous reaction shows
    exactly, the windows being apart; the one before; the turn count; the fields as its previous turn opened)."""
    rounds, contexts, table = table_turns(PROBE.config(), make_bot(PROBE.opponent), DEALS, first)
    same_round = np.r_[False, rounds[1:] == rounds[:-1]]
    moves = np.zeros(len(rounds), dtype=int)
    for index in np.flatnonzero(same_round):
        moves[index] = moves[index - 1] + 1

    def before(values, lag=1):
        earlier = np.full(len(values), -1)
        earlier[lag:] = values[:-lag]
        shown = same_round.copy()
        for more in range(1, lag):
            shown[more:] &= same_round[:-more]
        return np.where(shown, earlier, -1)

    fields = {name: table[name] for name in visible_table_fields(PROBE)}
    return {
        "rounds": rounds,
        "contexts": contexts,
        "fields": fields,
        "previous reaction": before(contexts),
        "reaction before it": before(contexts, 2),
        "turn count": moves,
        "previous turn's fields": {name: before(values) for name, values in fields.items()},
    }


PROXIES = {
    "the previous reaction": lambda t: [t["previous reaction"]],
    "the last two reactions": lambda t: [t["previous reaction"], t["reaction before it"]],
    "the turn count": lambda t: [t["turn count"]],
    "the shown fields and the previous reaction": lambda t: [*t["fields"].values(), t["previous reaction"]],
    "a 4-frame stack's other fields": lambda t: [
        *t["fields"].values(),
        *t["previous turn's fields"].values(),
        t["previous reaction"],
    ],
}
"""What a reader that never looks at the bot's card may read, memory included."""


def held_out_round_costs(read) -> np.ndarray:
    """The cost per round (the sum over its turns) of the reader of ``read`` (turns -> the columns it reads), on
    the test deals, chosen on the choice deals."""
    config, bot = PROBE.config(), make_bot(PROBE.opponent)
    policies = context_policies(config, bot)  # [policy, context]
    choice, test = turns(0), turns(DEALS)
    keys = np.concatenate([np.stack(read(choice), axis=1), np.stack(read(test), axis=1)])
    _, group = np.unique(keys, axis=0, return_inverse=True)
    group = group.ravel()
    chosen_on, played_on = group[: len(choice["contexts"])], group[len(choice["contexts"]) :]
    sums = np.zeros((group.max() + 1, len(policies)))
    np.add.at(sums, chosen_on, policies[:, choice["contexts"]].T)
    best = sums.argmin(axis=1)
    unseen = ~np.isin(np.arange(len(sums)), chosen_on)
    best[unseen] = policies[:, choice["contexts"]].sum(axis=1).argmin()  # a value never seen: blind's choice
    costs = policies[best[played_on], test["contexts"]]
    return np.bincount(test["rounds"] - DEALS, weights=costs, minlength=DEALS)


def test_the_bot_reads_the_parity_of_its_own_last_face_up_card():
    bot = make_bot(PROBE.opponent)
    assert isinstance(bot, VariesByCard) and bot.READS == ("opponent_card",)
    assert [bot.context(rank) for rank in (0, 2, 3, 9, 10, 13, 14)] == [0, 1, 0, 0, 1, 0, 1]
    assert [window.spec() for window in bot.windows()] == ["uniform:low=10,high=11", "uniform:low=4,high=5"]


def test_the_line_reads_every_shown_field_but_the_card_and_lies_at_least_the_minimum_gap_from_the_oracle():
    gaps = exact_gaps(PROBE)
    assert visible_table_fields(PROBE) == ("own_card", "at_war", "pot", "started")
    assert gaps.lacking == "card_blind" == PROBE.other_fields.yardstick
    assert gaps.per_move["oracle"] < gaps.per_move["card_blind"] <= gaps.per_move["blind"]
    assert gaps.gap("card_blind") >= MIN_GAP
    assert gaps.gap(gaps.best_simple) > gaps.gap("card_blind")


@pytest.mark.slow
@pytest.mark.parametrize("proxy", sorted(PROXIES))
def test_no_reader_without_the_bot_s_card_beats_the_line_on_held_out_deals(proxy):
    """Each proxy's reader, chosen on the line's deals and played on others, against the line's reader (every shown
    field but the card) on the same rounds: its 95% paired interval does not lie below the line's cost."""
    line = held_out_round_costs(lambda t: list(t["fields"].values()))
    reader = held_out_round_costs(PROXIES[proxy])
    difference = bootstrap_mean(reader - line)
    assert difference["high"] >= 0, (proxy, difference)
    published = exact_gaps(PROBE).per_move["card_blind"]
    assert line.sum() / len(turns(DEALS)["contexts"]) == pytest.approx(published, rel=0.02)


@pytest.mark.slow
def test_a_turn_s_exact_cost_is_what_it_costs_in_play_so_readers_compare_turn_by_turn():
    """What the readers above rest on: summed over the turns each round deals, the exact cost per turn of the
    oracle's and ``blind``'s policies in the turn's context gives ``blind``'s regret in every round played."""
    config, bot = PROBE.config(), make_bot(PROBE.opponent)
    seeds = range(12)
    rounds, contexts, _ = table_turns(config, bot, len(seeds), 0)
    _, _, problems = component_problems(config, bot)
    blind = solve(problem_with(config, bot.marginal_reactions(config)))

    def blind_rule(phase, elapsed, masks):
        return [blind.press(State(phase, elapsed, False, int(mask))) for mask in masks]

    excess = np.array(
        [evaluate_policy(problem, blind_rule).cost_per_move - solve(problem).cost_per_move for problem in problems]
    )
    assert excess.max() > 0  # blind pays in some context: the regrets below are not all 0
    expected = np.bincount(rounds, weights=excess[contexts], minlength=len(seeds))
    played = {
        agent: play_rounds(make_agent(agent, config=config, opponent=bot), bot, config, seeds, env_id=PROBE.env_id)
        for agent in ("oracle", "blind")
    }
    regrets = [o.episode_return - b.episode_return for o, b in zip(played["oracle"], played["blind"])]
    assert regrets == pytest.approx(expected, abs=1e-9)


@pytest.mark.slow
@pytest.mark.parametrize("latency", ["fixed:ticks=1", "fixed:ticks=2"])
@pytest.mark.parametrize("starter", [0, 1])
def test_on_small_rounds_the_card_reading_oracle_returns_the_best_of_every_press_schedule(latency, starter):
    """A parity bot that reacts in tick 1 after an even card and in tick 3 otherwise (and before its first card);
    over two battles its context changes with the card it laid."""
    config = WarConfig(turn_seconds=0.5, latency=latency, reward_false_start=-FS, reward_idle_tick=-IDLE)
    bot = Parity(even=1, odd=3, width=1)
    for piles in ([["AC", "KC"], ["2D", "3D"]], [["2C", "3C"], ["AD", "KD"]], [["5C", "9C"], ["4D", "8D"]]):
        oracle = make_agent("oracle", config=config, opponent=bot)
        played = timing_return(WarLatencyEnv(opponent=bot, config=config), oracle, piles, starter)
        assert played == pytest.approx(best_return(config, piles, starter, bot), abs=1e-12)
