"""The batched engine's data, named and typed: the state of a round (``ROUND``), the parameters of a
game (``PARAMS``), the seats' reaction tables, and the bundles the compiled calls take them in.

* ``state``: a numpy record array of n rounds, one ``ROUND`` record each: every counter of the card game
  (``engine.Game``) and of the clock (``clock.TimedRound``), its keys, and its cards: both face-down piles
  as 64-slot rings (the top card at ``head``, ``cards`` of them, wrapping with ``& RING_MASK``) and the pot
  in the order laid, in ``piles``. A compiled function takes a round as a record, ``r = state[g]``, and
  reads ``r.ticks``, ``r.opens[seat]``. A round's whole state is one contiguous record of whole cache lines,
  laid out by line: what a tick without a draw reads in the first, what a draw reads in the next few, small
  counters as bytes. The fields that ``RoundInfo`` reports have its names (``winner``, ``points``, ``cards``,
  ``takeover``, ``ticks``, ...), so a finished round's numbers are read by name (``RoundTable``).
* ``params``: one ``PARAMS`` record (an array of one): the rules of a ``WarConfig`` as integers, the
  reward of each kind of tick and outcome (``war_env.core.rewards``), the latency's CDF, the observation's
  scales and how each seat times its draws.
* the seats' reaction tables (``models.reaction_tables``): arrays, since their size depends on the config.

Plus each seat's reaction log, ``log`` ``(n, 2, capacity)``, grown when a round outlasts it.

The compiled calls take these arrays in a few bundles (tuples, which numba accepts whole): ``RoundArrays``
(what changes round by round), ``Rules`` (what is fixed for a game), ``StepOutputs`` (what a step writes),
and what the resets and deals start rounds from (``Resets``, ``Deals``). A step that must not be taken
raises ``InvalidAction`` or ``RoundOver`` before any round moves (``stepping.check_step``; the scalar
reference's vector engine raises them too).
"""

from __future__ import annotations

from functools import cache
from typing import NamedTuple

import numpy as np

from war_env.core.bots import VARIES_BY_CARD, VARIES_BY_ROUND, VARIES_BY_SCORE, ReactionModel
from war_env.core.cards import DECK_SIZE
from war_env.core.latency import MAX_LATENCY, latency_cdf
from war_env.core.observation import OBSERVATION_SIZE, OBSERVATIONS, scales
from war_env.core.randomness import cumulative
from war_env.core.rewards import outcome_rewards, tick_reward_table
from war_env.core.round_info import NO_WINNER, REASONS, table_fields
from war_env.core.rules import WarConfig

RING = 64
"""Slots of a pile's ring: at least the 52 cards, a power of two so that wrapping is a bit mask."""
RING_MASK = RING - 1
POT = 2
"""``r.piles[POT]`` is the pot of round r, in the order laid."""
NEVER = 1 << 62
"""Tick of a turn that is not pending (compares greater than any real tick)."""
NO_CARD = -1
NO_TURN = -1
"""``turn`` of a round that is over."""
NO_KEY_STREAM = -1
VARIES_CODE = {None: 0, VARIES_BY_ROUND: 1, VARIES_BY_SCORE: 2, VARIES_BY_CARD: 3}
"""``params.varies[seat]`` of a ``ReactionModel.varies_by``: which of the seat's CDFs a turn samples."""
ONE_CDF, BY_ROUND, BY_SCORE, BY_CARD = VARIES_CODE.values()
MAX_CHOICES = 2
"""The most CDFs a seat's reaction model has (a pool's members, a leader's or a parity's contexts)."""
REASON_CODE = {reason: code for code, reason in enumerate(REASONS)}
"""``r.reason`` is ``REASON_CODE[reason]`` (``-1`` while the round runs)."""

ENCODED = 128
"""Counts of an observation field whose encoding ``params.encoded`` holds: the step reads them instead of
dividing (a count at or above it is divided, as the single env does)."""

PAIR = (2,)
ROUND_FIELDS = (
    # The record is laid out by cache line (CACHE_LINE), the small counters as bytes, so that a step touches few
    # lines. Line 0: what a tick without a draw reads and writes (seat 0's false starts included).
    ("ticks", np.int64, (), "the last tick played: the round's ticks so far"),
    ("due", np.int64, PAIR, "tick on which the pending seat draws by itself: a bot's press, or the takeover"),
    ("steps", np.int64, (), "env steps of seat 0 (the vector env's; the fast path's: up to its takeover)"),
    ("opens", np.int64, PAIR, "tick on which the seat's pending turn opens (NEVER: no turn pending)"),
    ("needs_reset", np.uint8, (), "1: the vector env starts a new round here on its next step (next-step autoreset)"),
    ("over", np.uint8, (), "1: the round has ended"),
    ("due_takeover", np.uint8, PAIR, "1: the due draw is the takeover bot's (the seat's reaction missed the timer)"),
    ("drawn", np.uint8, PAIR, "1: the seat has laid its card in this step"),
    ("at_war", np.uint8, (), "1: a tie is pending: this step is a war step"),
    ("turn", np.int8, (), "the seat whose turn is pending (only one ever is), NO_TURN once the round is over"),
    ("false_starts", np.int64, PAIR, "draws pressed while the seat's turn was not open"),
    # Line 1: the rest of what every draw reads and writes.
    ("takeover", np.int64, PAIR, "the seat is played by the takeover bot"),
    ("logged", np.int64, PAIR, "entries of the seat's reaction log"),
    (
        "last_reaction",
        np.int64,
        PAIR,
        "the seat's last own reaction + 1 (its log's last entry + 1), 0 before its "
        "first: the inference probe's opponent_reaction",
    ),
    ("starter", np.uint8, (), "the seat that draws first in every step"),
    ("head", np.uint8, PAIR, "ring slot of the seat's top card"),
    ("pot", np.uint8, (), "cards on the table"),
    ("face_up", np.int8, PAIR, "the card the seat laid face up in this step, hidden until both drew (NO_CARD: none)"),
    ("visible", np.int8, PAIR, "the seat's last revealed card (NO_CARD: none yet)"),
    # Line 2: the counts of the card game that every move changes (a move lays a battle's first card, or reveals).
    ("cards", np.int64, PAIR, "cards in the seat's pile"),
    ("points", np.int64, PAIR, "tricks the seat won"),
    ("moves", np.int64, PAIR, "draws the seat made this round"),
    ("battles", np.int64, (), "battles started (a war counts once)"),
    ("tricks", np.int64, (), "tricks taken (numbers the shuffled pick-ups)"),
    # Line 3: a bot's reaction as its turn opens, and the rest.
    ("reaction_key", np.uint64, PAIR, "the key of the seat's reaction hashes (the round key, or an agent's seed)"),
    ("wars", np.int64, (), "ties (each war step counted)"),
    ("winner", np.int64, (), "seat that won, NO_WINNER for a draw"),
    ("reason", np.int64, (), "REASON_CODE of why the round ended"),
    (
        "choice",
        np.int64,
        PAIR,
        "which of the seat's reaction CDFs its reactions sample (params.varies): a pool's "
        "member for the round, a leader's or a parity's context as its turn opened; else 0",
    ),
    ("round_key", np.uint64, (), "the round key: every random event of the round is a hash of it"),
    # Line 4, action latency (a seat pressed from outside): read and written only when the rules have latency.
    ("sent", np.int64, PAIR, "presses the seat sent this round (k of the next press's delay hash)"),
    ("flight", np.int64, PAIR, "bit a: the seat's press sent a ticks ago (at the last tick) has not landed yet"),
    ("delays", np.int64, PAIR, "4 bits at 4a: the delay - 1 of the press of flight's bit a (delays are 1 .. 16)"),
    # Lines 5 to 7, a line each (LINE_STARTS).
    ("piles", np.int8, (3, RING), "rows 0 and 1: the seats' piles as rings; row POT: the pot in the order laid"),
)
"""(name, type, shape, meaning) of every field of a round's state."""
CACHE_LINE = 64
LINE_STARTS = frozenset({"piles"})
"""Fields that start a cache line of the record (a pile's ring is one line)."""


def _by_lines(fields) -> np.dtype:
    """The record of ``fields`` in their order, each at its own alignment, those of ``LINE_STARTS`` on a new cache
    line, the size whole cache lines: in an array that starts on a line (``new_state``) every record's lines hold
    the same fields."""
    names, formats, offsets, end = [], [], [], 0
    for name, kind, shape, _ in fields:
        field = np.dtype((kind, shape))
        align = CACHE_LINE if name in LINE_STARTS else field.base.alignment
        offset = -(-end // align) * align
        names.append(name)
        formats.append(field)
        offsets.append(offset)
        end = offset + field.itemsize
    size = -(-end // CACHE_LINE) * CACHE_LINE
    return np.dtype({"names": names, "formats": formats, "offsets": offsets, "itemsize": size}, align=True)


ROUND = _by_lines(ROUND_FIELDS)

PARAMS_FIELDS = (
    ("war_face_down", np.int64, (), "WarConfig.war_face_down (at most a deck: more plays the same)"),
    ("cards_for_war", np.int64, (), "cards a seat must hold when a war starts (WarConfig.cards_for_war)"),
    ("target_points", np.int64, (), "WarConfig.target_points, -1 when off"),
    ("max_battles", np.int64, (), "WarConfig.max_battles, -1 when off"),
    ("shuffled", np.int64, (), "1 if the pot is shuffled before it is picked up"),
    ("turn_ticks", np.int64, (), "WarConfig.turn_ticks"),
    ("max_episode_steps", np.int64, (), "the vector env's TimeLimit (0: none)"),
    (
        "restart",
        np.int64,
        (),
        "1: a round that ended starts again on the vector env's next step (next-step "
        "autoreset); 0: the caller restarts or resets it, and stepping it before is refused",
    ),
    ("max_delay", np.int64, (), "WarConfig.max_delay: 0 without latency (a press acts in the tick it is made)"),
    ("random_delay", np.int64, (), "1 if delays vary (sampled from delay_cdf), 0 if every press takes max_delay"),
    ("delay_cdf", np.float64, (MAX_LATENCY + 1,), "the latency's CDF over delays 0 .. max_delay (1 beyond)"),
    (
        "tick_rewards",
        np.float64,
        (4,),
        "seat 0's reward of a tick by false_start + 2 * idle + takeover (rewards.tick_reward_table)",
    ),
    ("outcomes", np.float64, (3,), "seat 0's reward of a round's end by winner + 1 (rewards.outcome_rewards)"),
    ("divisors", np.float64, (OBSERVATION_SIZE,), "the scale of each War-v0 observation field (observation.scales)"),
    (
        "encoded",
        np.float32,
        (OBSERVATION_SIZE, ENCODED),
        "encoded[i, count]: field i's observation of a count below ENCODED, min(count / divisors[i], 1.0) as float32",
    ),
    (
        "observation",
        np.int64,
        (),
        "OBSERVATION_CODE of the observation seat 0 is shown (the single env's "
        "observation_kind): WAR_OBSERVATION, LATENCY_OBSERVATION, INFERENCE_OBSERVATION",
    ),
    ("has_model", np.int64, PAIR, "1 if the seat draws by itself (a reaction model); 0 if pressed from outside"),
    ("stream", np.int64, PAIR, "the stream of the seat's reaction hashes"),
    ("key_stream", np.int64, PAIR, "ReactionModel.key_stream, NO_KEY_STREAM for the round key itself"),
    (
        "varies",
        np.int64,
        PAIR,
        "VARIES_CODE of the seat's ReactionModel.varies_by: ONE_CDF, BY_ROUND (a pool's "
        "member, drawn as the round begins), BY_SCORE (a leader's context, as a turn opens), BY_CARD (a "
        "parity's context, as a turn opens)",
    ),
    ("choices", np.int64, PAIR, "how many CDFs the seat's model has (1 unless it varies)"),
    ("prior_cdf", np.float64, (2, MAX_CHOICES), "BY_ROUND: the cumulative prior over the seat's CDFs (1 beyond)"),
)
"""(name, type, shape, meaning) of every field of a game's parameters."""
PARAMS = np.dtype([(name, kind, shape) for name, kind, shape, _ in PARAMS_FIELDS], align=True)
OBSERVATION_CODE = {name: code for code, name in enumerate(OBSERVATIONS)}
"""The code of each observation (``observation.OBSERVATIONS``, in its order: each extends the one before)."""
WAR_OBSERVATION, LATENCY_OBSERVATION, INFERENCE_OBSERVATION = (OBSERVATION_CODE[name] for name in OBSERVATIONS)
UNREACHABLE = 1 << 62
"""A count no round reaches (points, battles): a rule above it plays exactly as this value."""


class InvalidAction(ValueError):
    """``stepping.step`` refused, before any round moved: some action is neither 0 (wait) nor 1 (draw)."""

    def __init__(self):
        super().__init__("an action other than 0 (wait) and 1 (draw)")


class RoundOver(RuntimeError):
    """``stepping.step`` refused, before any round moved: without ``params.restart``, round ``game`` ended and was
    neither restarted nor reset."""

    def __init__(self, game: int):
        super().__init__(f"round {game} is over")
        self.game = game


class RoundArrays(NamedTuple):
    """What the compiled calls change, round by round."""

    state: np.ndarray
    """``ROUND`` records ``(n,)``."""
    log: np.ndarray
    """Each seat's reaction log ``(n, 2, capacity)``."""
    generator_pointers: np.ndarray
    """Each round's numpy Generator as the compiled code reads it (``generators.pointers_of``) ``(n, POINTERS)``:
    the vector env's resets deal from it; zeros where rounds are dealt from outside (the fast path)."""


class Rules(NamedTuple):
    """What is fixed for a game: its parameters and how the seats time their draws."""

    params: np.ndarray
    """One ``PARAMS`` record (an array of one)."""
    tables: np.ndarray
    """The seats' reaction tables (``models.reaction_tables``)."""
    cdfs: np.ndarray
    """The seats' reaction CDFs (``models.reaction_tables``)."""


class StepOutputs(NamedTuple):
    """What the vector env's step writes for each round g: its observation and action mask (kept between
    steps: a step rewrites only the fields that changed), reward, and whether it ended or was cut."""

    observations: np.ndarray
    masks: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray


class Resets(NamedTuple):
    """The rounds the vector env starts again (``stepping.reset_rounds``): round ``games[i]`` deals from its
    generator, then takes ``pile_counts[i, seat]`` cards of ``piles[i, seat]`` (-1: keep the deal's) and the
    starter ``starters[i]`` (-1: keep the drawn one)."""

    games: np.ndarray
    piles: np.ndarray
    pile_counts: np.ndarray
    starters: np.ndarray


class Deals(NamedTuple):
    """Deals from outside (``stepping.start_decks``): round i starts from ``decks[i]`` (seat 0 gets the first
    half), ``starters[i]`` and ``round_keys[i]``."""

    decks: np.ndarray
    starters: np.ndarray
    round_keys: np.ndarray


def new_state(n: int) -> np.ndarray:
    """The state of ``n`` rounds that have not started."""
    size = n * ROUND.itemsize
    memory = np.zeros(size + CACHE_LINE, dtype=np.uint8)
    start = -memory.ctypes.data % CACHE_LINE  # the records on whole cache lines
    state = memory[start : start + size].view(ROUND)
    state["over"] = 1
    state["turn"] = NO_TURN
    state["winner"] = NO_WINNER
    return state


def new_log(n: int, turn_ticks: int, capacity: int = 128) -> np.ndarray:
    """Reaction logs of ``n`` rounds: reactions are ticks below ``turn_ticks``."""
    dtype = next(dtype for dtype in (np.uint8, np.uint16, np.int64) if turn_ticks <= np.iinfo(dtype).max)
    return np.zeros((n, 2, capacity), dtype=dtype)


def params_of(
    config: WarConfig,
    models: tuple[ReactionModel | None, ReactionModel | None],
    max_episode_steps: int | None = None,
    observation: str = "war",
    restart: bool = False,
) -> np.ndarray:
    """The parameters of ``config`` with the seats timed by ``models`` (``None``: pressed from outside),
    seat 0 shown ``observation`` (a key of ``observation.OBSERVATIONS``), ``restart`` (``PARAMS``' field),
    without changing the game: a target or a limit beyond any reachable count (``WarConfig`` accepts
    Python ints of any size) becomes ``UNREACHABLE``, and more face-down war cards than a deck holds make
    every war a shortage, as any number above 52 does."""

    def capped(value):
        return -1 if value is None else min(value, UNREACHABLE)

    params = np.zeros(1, dtype=PARAMS)
    p = params[0]
    p["war_face_down"] = min(config.war_face_down, DECK_SIZE)
    p["cards_for_war"] = min(config.cards_for_war, DECK_SIZE + 1)  # the rule's own count, capped as war_face_down
    p["target_points"] = capped(config.target_points)
    p["max_battles"] = capped(config.max_battles)
    p["shuffled"] = config.pickup == "shuffled"
    p["turn_ticks"] = config.turn_ticks
    p["max_episode_steps"] = min(max_episode_steps or 0, UNREACHABLE)
    p["restart"] = restart
    p["max_delay"] = config.max_delay
    p["random_delay"] = any(0.0 < probability < 1.0 for probability in config.latency_probabilities)
    cdf = latency_cdf(config.latency)
    p["delay_cdf"][:] = 1.0
    p["delay_cdf"][: len(cdf)] = cdf
    p["tick_rewards"] = tick_reward_table(config)
    p["outcomes"] = outcome_rewards(config, seat=0)
    p["divisors"] = scales(config)
    counts = np.arange(ENCODED, dtype=np.float64)
    p["encoded"] = np.minimum(counts / p["divisors"][:, None], 1.0).astype(np.float32)  # observation.encode's numbers
    p["observation"] = OBSERVATION_CODE[observation]
    for seat, model in enumerate(models):
        p["key_stream"][seat] = NO_KEY_STREAM
        p["choices"][seat] = 1
        p["prior_cdf"][seat] = 1.0
        if model is not None:
            p["has_model"][seat] = 1
            p["stream"][seat] = model.stream
            p["key_stream"][seat] = NO_KEY_STREAM if model.key_stream is None else model.key_stream
            p["varies"][seat] = VARIES_CODE[model.varies_by]
            p["choices"][seat] = len(model.cdfs)
            if len(model.cdfs) > MAX_CHOICES:
                raise ValueError(
                    f"seat {seat}'s reaction model has {len(model.cdfs)} CDFs, the batched engine at most {MAX_CHOICES}"
                )
            if model.prior:
                p["prior_cdf"][seat, : len(model.prior)] = cumulative(model.prior)
    return params


@cache
def reported_words() -> np.ndarray:
    """Where the ``RoundInfo`` numbers are in a ``ROUND`` record seen as int64 words: the word of each number
    of ``info_dtype``, in its order (a pair: two words). The state holds every table field under the same
    name, so a finished round's numbers are one gather of these words (``BatchedRounds.table``)."""
    words = []
    for item in table_fields():
        kind, offset = ROUND.fields[item.name]
        assert kind.base == np.int64 and offset % 8 == 0, item.name  # int64 words, as info_dtype's
        words += range(offset // 8, offset // 8 + max(1, kind.itemsize // 8))
    return np.array(words)
