"""info["round"] of the vector env: full-size columns, blank where no round ended, written again only when no
caller holds them (war_env.envs.round_columns)."""

import copy
import weakref

import gymnasium as gym
import numpy as np

import war_env  # noqa: F401

BLANK = {"winner": -1, "reason": None, "reaction_ticks": None, "takeover": False}


def plain(column):
    """A column as lists, reaction pairs as pairs of lists, to compare."""
    return [value if not isinstance(value, tuple) else tuple(map(list, value)) for value in column.tolist()]


def ending_steps(env, count):
    """The infos of the next ``count`` steps where a round ended (every sub-env presses on every tick)."""
    presses = np.ones(env.num_envs, dtype=np.int64)
    while count:
        *_, info = env.step(presses)
        if "round" in info:
            count -= 1
            yield info


def vector_env(num_envs=32):
    env = gym.make_vec("War-v0", num_envs=num_envs, vectorization_mode="vector_entry_point", opponent="instant")
    env.reset(seed=0)
    return env


def test_an_info_a_caller_keeps_is_never_written_again():
    env = vector_env()
    infos = ending_steps(env, 200)
    kept_info = next(infos)
    kept_column = next(infos)["round"]["battles"]
    kept_view = next(infos)["round"]["points"][2:9]
    kept_reasons = next(infos)["round"]["reason"]
    copies = copy.deepcopy((kept_info, kept_column, kept_view, kept_reasons))
    for _ in infos:  # the rest, each dropped as the next is made
        pass
    for name, column in kept_info["round"].items():
        assert plain(column) == plain(copies[0]["round"][name]), name
    for kept, then in zip((kept_column, kept_view, kept_reasons), copies[1:]):
        assert plain(kept) == plain(then)


def test_columns_no_caller_holds_are_written_again():
    env = vector_env()
    infos = ending_steps(env, 4)
    first = weakref.ref(next(infos)["round"]["winner"])  # a weak reference holds nothing
    later = [info["round"]["winner"] is first() for info in infos]
    assert first() is not None and any(later)


def test_every_row_where_no_round_ended_is_blank_even_where_one_ended_before():
    env = vector_env()
    ended_before = np.zeros(env.num_envs, dtype=bool)
    for info in ending_steps(env, 300):
        ended, rounds = info["_round"], info["round"]
        assert all(np.array_equal(rounds[f"_{name}"], ended) for name in ("winner", "reaction_ticks"))
        for name, column in rounds.items():
            if name.startswith("_"):
                continue
            blank = [value == BLANK.get(name, 0) or value is BLANK.get(name) for value in column[~ended].ravel()]
            assert all(blank), name
            assert all(value is not None for value in column[ended].ravel()), name
        ended_before |= ended
    assert ended_before.sum() > env.num_envs // 2  # rows are blanked again after rounds ended in them
