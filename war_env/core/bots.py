"""Opponent bots: models of *when* a player draws.

A bot never chooses a card (nobody can in War); it only decides when to draw, from a reaction time
in ticks counted from the opening of its turn (0 = it draws on the tick its turn opens). Each bot is
a distribution over reaction ticks ``0 .. turn_ticks - 1`` plus the mass of "not within the timer",
which means the seat is taken over at the end of that turn. The n-th move of a seat in a round uses
the uniform number ``hash_uniform(round_key, STREAM_REACTION[seat], n)`` (see ``randomness``), so the
single env and the batched env draw identical reaction times.

A bot answers every question asked of it by the tools, whatever kind it is: its ``components`` (the
distributions it is made of, with their shares of its moves and of a round's first turns), its
``marginal_reactions``, the ``optimal_timing`` against it (``war_env.core.best_response``), the
``price_of_not_knowing`` its components, the ``round_member`` it plays a round as. Nobody asks its class.

Three bots vary their distribution (``Bot.varies``), for the benchmark's probes (docs/probes.md): ``pool``
plays each round as one of two members drawn by a hash of the round key (``VariesByRound``), ``leader``
reads the score as each of its turns opens (``VariesByScore``), and ``parity`` reads its own last face-up card
(``VariesByCard``); both readers of the table share ``ReadsTheTable``. A new bot that varies by one of these rules
subclasses its base and gives its ``windows``; a new rule is a new base here and its case in the batched
engine's reaction sampling (``batched/turn_clock.py``). The scalar reference asks a bot ``turn_cdf`` as each turn
opens (``TimedRound``); the batched engine gets its CDFs and the rule that picks one (``ReactionModel.of_bot``:
``choices``, ``varies_by``, ``prior``) and applies the same rule itself.

The methods that solve (``optimal_timing``, ``price_of_not_knowing``, a score-reader's ``components``) import
``war_env.core.best_response`` when called: it reads the observation's fields, whose module reads the clock,
which seats bots.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from numbers import Real

from war_env.core.cards import rank_value
from war_env.core.randomness import STREAM_REACTION, Stream, cumulative, hash_uniform, sample_tick
from war_env.core.rules import WarConfig
from war_env.core.specs import build_from_spec


@dataclass(frozen=True)
class Component:
    """One reaction distribution of a bot (``bot``, which does not vary), with its share of the bot's moves
    (``share``) and of the round's first turns (``first_turn_share``)."""

    share: float
    first_turn_share: float
    bot: Bot


class Bot:
    """Base of the reaction-time bots. Subclasses give ``reaction_probabilities``; a bot that varies overrides
    the questions below that its variation changes."""

    name = "bot"
    varies = False
    """Whether the bot's reaction distribution changes from round to round or turn to turn (``Pool``,
    ``Leader``): then it has no one ``reaction_cdf``, and the clock asks ``turn_cdf`` as each turn opens."""
    varies_by: str | None = None
    """How the CDF of a turn is picked among ``windows`` (``VARIES_BY_ROUND``, ``VARIES_BY_SCORE``,
    ``VARIES_BY_CARD``), or ``None``."""

    def reaction_probabilities(self, config: WarConfig) -> list[float]:
        """P(draw on tick k of an open turn) for k = 0 .. turn_ticks - 1. What is missing to 1 is
        the chance of not drawing in time (the seat is then taken over)."""
        raise NotImplementedError

    def reaction_cdf(self, config: WarConfig) -> tuple[float, ...]:
        return _cumulative(tuple(self.reaction_probabilities(config)))

    def turn_cdf(self, config: WarConfig, round_key: int, seat: int, game) -> tuple[float, ...]:
        """The CDF of the bot's reaction in the turn of ``seat`` opening now, in the round of ``round_key``,
        with the table as ``game`` (a ``war_env.core.engine.Game``) shows it: ``reaction_cdf`` unless it varies."""
        return self.reaction_cdf(config)

    def windows(self) -> tuple[Bot, ...]:
        """The bots of one reaction distribution the bot picks among (the batched engine samples their CDFs)."""
        return (self,)

    def components(self, config: WarConfig) -> tuple[Component, ...]:
        """The bot as bots of one reaction distribution each, with their shares of its moves and of a round's
        first turns: a bot that does not vary is its one component."""
        return (Component(1.0, 1.0, self),)

    def marginal_reactions(self, config: WarConfig) -> tuple[float, ...]:
        """The bot's reaction distribution for an agent that does not tell its components apart: their mixture,
        weighed by their shares of its moves."""
        parts = [(part.share, part.bot.reaction_probabilities(config)) for part in self.components(config)]
        return tuple(sum(share * reactions[k] for share, reactions in parts) for k in range(config.turn_ticks))

    def optimal_timing(self, config: WarConfig, solved=None):
        """The exact optimum against the bot in ``config`` (a policy of ``core.best_response``: ``reset()``,
        ``press(state, observation)``); ``solved`` solves one timing problem (``optimum.solve``, or a cache of it)."""
        from war_env.core.best_response import Stationary, problem_with
        from war_env.core.optimum import solve

        return Stationary((solved or solve)(problem_with(config, self.reaction_probabilities(config))))

    def price_of_not_knowing(self, config: WarConfig, seat: int) -> float:
        """What the exact optimum pays once per round, beyond its cost per move, for not knowing the component
        the bot plays as the round opens with ``seat``'s turn (``optimum.OURS`` or ``THEIRS``): 0 unless the bot
        varies by round."""
        return 0.0

    def round_member(self, round_key: int, seat: int) -> Bot:
        """The bot of one reaction distribution the seat's bot plays the whole round of ``round_key`` as."""
        return self

    def mode_count(self) -> int | None:
        """How many separate windows the bot's reactions are built of (``Modes``), or ``None`` for a bot not built
        that way: timing each window ahead takes a press time of its own."""
        return None

    def spec(self) -> str:
        return self.name


_cumulative = lru_cache(maxsize=256)(cumulative)  # a bot is asked for its CDF once per round


def sample_reaction(cdf: tuple[float, ...], uniform: float) -> int:
    """Reaction tick for one move; ``len(cdf)`` (= turn_ticks) means no draw within the timer."""
    return sample_tick(cdf, uniform)


def _point_mass(ticks: int, config: WarConfig) -> list[float]:
    probabilities = [0.0] * config.turn_ticks
    if ticks < config.turn_ticks:
        probabilities[ticks] = 1.0
    return probabilities


@dataclass(frozen=True)
class Instant(Bot):
    """Draws on the tick its turn opens. Also the takeover bot."""

    name = "instant"

    def reaction_probabilities(self, config):
        return _point_mass(0, config)


@dataclass(frozen=True)
class Fixed(Bot):
    """Always draws ``ticks`` ticks after its turn opens (never in time if ``ticks >= turn_ticks``)."""

    ticks: int = 5
    name = "fixed"

    def __post_init__(self):
        _require_ticks("fixed", "ticks", self.ticks)

    def reaction_probabilities(self, config):
        return _point_mass(self.ticks, config)

    def spec(self):
        return f"fixed:ticks={self.ticks}"


@dataclass(frozen=True)
class Uniform(Bot):
    """Reaction uniform over the whole ticks ``low .. high`` (both included)."""

    low: int = 1
    high: int = 10
    name = "uniform"

    def __post_init__(self):
        _require_ticks("uniform", "low", self.low)
        _require_ticks("uniform", "high", self.high)
        if self.high < self.low:
            raise ValueError(f"uniform bot needs low <= high, got low={self.low}, high={self.high}")

    def reaction_probabilities(self, config):
        share = 1.0 / (self.high - self.low + 1)
        return [share if self.low <= k <= self.high else 0.0 for k in range(config.turn_ticks)]

    def spec(self):
        return f"uniform:low={self.low},high={self.high}"


@dataclass(frozen=True)
class Modes(Bot):
    """Reacts in one of ``count`` windows of ``width`` ticks, ``every`` ticks apart from ``first`` on, each window
    as likely as the others and every tick of a window alike: a reaction distribution with several modes (a
    player who either snaps, looks twice or checks the table first), against which no one or two press times
    are the optimum (the anticipation and memory probes, docs/probes.md)."""

    first: int = 3
    every: int = 8
    count: int = 3
    width: int = 2
    name = "modes"

    def __post_init__(self):
        for field_name in ("first", "every", "count", "width"):
            _require_ticks("modes", field_name, getattr(self, field_name))
        if self.count < 1 or self.width < 1 or self.every < self.width:
            raise ValueError(
                f"modes bot needs count >= 1, width >= 1 and every >= width (windows apart), got "
                f"count={self.count}, width={self.width}, every={self.every}"
            )

    def ticks(self) -> list[int]:
        return [self.first + mode * self.every + k for mode in range(self.count) for k in range(self.width)]

    def mode_count(self):
        return self.count

    def reaction_probabilities(self, config):
        share = 1.0 / (self.count * self.width)
        ticks = set(self.ticks())
        return [share if k in ticks else 0.0 for k in range(config.turn_ticks)]

    def spec(self):
        return f"modes:first={self.first},every={self.every},count={self.count},width={self.width}"


@dataclass(frozen=True)
class Human(Bot):
    """A person: log-normal reaction time (median ``median`` seconds, log-space ``sigma``), and on a
    share ``miss`` of turns no reaction at all, so that it is itself sometimes taken over.

    A reaction of t seconds draws on the tick in which t falls: tick ``floor(t / tick_seconds)``.
    """

    median: float = 0.6
    sigma: float = 0.5
    miss: float = 1 / 200
    name = "human"

    def __post_init__(self):
        if not (_is_number(self.median) and 0 < self.median < math.inf):
            raise ValueError(f"human bot median must be a positive finite number of seconds, got {self.median!r}")
        if not (_is_number(self.sigma) and 0 < self.sigma < math.inf):
            raise ValueError(f"human bot sigma must be a positive finite number, got {self.sigma!r}")
        if not (_is_number(self.miss) and 0 <= self.miss <= 1):
            raise ValueError(f"human bot miss must be a probability in [0, 1], got {self.miss!r}")

    def _lognormal_cdf(self, seconds: float) -> float:
        z = (math.log(seconds) - math.log(self.median)) / self.sigma
        return 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))

    def reaction_probabilities(self, config):
        dt = config.tick_seconds
        edges = [0.0] + [self._lognormal_cdf((k + 1) * dt) for k in range(config.turn_ticks)]
        return [(1.0 - self.miss) * (edges[k + 1] - edges[k]) for k in range(config.turn_ticks)]

    def spec(self):
        return f"human:median={self.median},sigma={self.sigma},miss={self.miss}"


@dataclass(frozen=True)
class Absent(Bot):
    """Never draws: taken over at the end of its first turn."""

    name = "absent"

    def reaction_probabilities(self, config):
        return [0.0] * config.turn_ticks


VARIES_BY_ROUND = "round"
"""``ReactionModel.varies_by`` of a ``pool``: one of its CDFs per round, index ``sample_tick(cumulative(prior),
hash_uniform(round_key, Stream.OPPONENT_POOL, seat))`` (``Pool.member_of``)."""
VARIES_BY_SCORE = "score"
"""``ReactionModel.varies_by`` of a ``leader``: one of its CDFs per turn, index ``int(points[seat] >
points[other])`` as the turn opens (``Leader.context``)."""
VARIES_BY_CARD = "card"
"""``ReactionModel.varies_by`` of a ``parity``: one of its CDFs per turn, index 1 if the rank value of the seat's last
face-up card is even, else 0 (none yet: 0), as the turn opens (``VariesByCard.context``)."""
READS_THE_TABLE = (VARIES_BY_SCORE, VARIES_BY_CARD)
"""The rules that pick a CDF as each turn opens, from the table."""


class _Varies(Bot):
    """A bot whose reaction distribution is one of a few bots of one distribution each (``windows``), picked per
    round (``VariesByRound``) or per turn (``ReadsTheTable``). It has no one ``reaction_cdf``: the scalar reference
    asks ``turn_cdf`` as each turn opens; the batched engine takes its windows' CDFs and its rule (``varies_by``)
    from ``ReactionModel.of_bot`` and picks the CDF itself, by the same rule."""

    varies = True

    def windows(self) -> tuple[Bot, ...]:
        raise NotImplementedError

    def prior_of_windows(self) -> tuple[float, ...]:
        """The prior over ``windows`` of a bot that picks one per round (empty for one that picks per turn)."""
        return ()

    def reaction_cdf(self, config):
        raise ValueError(
            f"the {self.name} bot ({self.spec()}) changes its reaction distribution by round or by turn: "
            f"it has no one reaction CDF (ReactionModel.of_bot gives each of its windows' and its rule)"
        )


class VariesByRound(_Varies):
    """A bot that plays each round as one of its ``windows``, drawn by ``prior`` from a hash of the round key
    (``member_of``), and never named to the other seat. Its exact optimum is Bayes-optimal: it tells the member by
    the bot's first own draw of the round that falls in a tick only one member reacts in (``best_response.Inferring``;
    a draw in a tick the members share, each with the same probability, tells nothing)."""

    varies_by = VARIES_BY_ROUND

    @property
    def prior(self) -> tuple[float, ...]:
        raise NotImplementedError

    def prior_of_windows(self):
        return self.prior

    def member_of(self, round_key: int, seat: int) -> int:
        """The index (in ``windows``) of the member the seat's bot plays the round of ``round_key`` as."""
        return sample_tick(cumulative(self.prior), hash_uniform(round_key, Stream.OPPONENT_POOL, seat))

    def round_member(self, round_key, seat):
        return self.windows()[self.member_of(round_key, seat)]

    def reaction_probabilities(self, config):
        """A move's reaction over the draw of the member: the prior's mixture of the members' distributions
        (what an agent that never tells the members apart faces on average)."""
        members = [member.reaction_probabilities(config) for member in self.windows()]
        return [sum(share * member[k] for share, member in zip(self.prior, members)) for k in range(config.turn_ticks)]

    def turn_cdf(self, config, round_key, seat, game):
        return self.round_member(round_key, seat).reaction_cdf(config)

    def components(self, config):
        """Its members, each with its prior: a member is drawn per round, for its first turns as for the rest."""
        return tuple(Component(share, share, member) for share, member in zip(self.prior, self.windows()))

    def optimal_timing(self, config, solved=None):
        from war_env.core.best_response import Inferring, pool_policy

        return Inferring(pool_policy(config, self))

    def price_of_not_knowing(self, config, seat):
        from war_env.core.best_response import pool_policy

        return pool_policy(config, self).price_of_not_knowing(seat)


class ReadsTheTable(_Varies):
    """A bot that reads the table: as each of its turns opens it reacts as the window of its ``context``, which
    something both seats see sets (``VariesByScore``: the score; ``VariesByCard``: its own last face-up card). Its
    exact optimum reads the same thing (``best_response.ReadingTheTable``), each turn the problem of its context,
    which holds when nothing carries over from one of its turns to the next. A subclass gives ``CONTEXTS`` (in the
    order of ``windows``), ``READS`` (the other seat's observation fields that show the context), ``context_at``
    and ``context_seen``."""

    CONTEXTS: tuple[str, ...] = ()
    READS: tuple[str, ...] = ()
    """The fields of the other seat's observation that show the bot's context (its optimum reads them)."""

    def context_at(self, game, seat: int) -> int:
        """The context (index in ``CONTEXTS``) of the turn of ``seat`` opening now, the table as ``game`` (a
        ``war_env.core.engine.Game``) shows it."""
        raise NotImplementedError

    def context_seen(self, observation) -> int:
        """The same context, read from the other seat's observation (``observation.OBSERVATION_FIELDS`` order)."""
        raise NotImplementedError

    def reaction_probabilities(self, config):
        raise ValueError(
            f"the {self.name} bot's reactions depend on the table as each of its turns opens; ask windows() "
            "for the distribution in each context"
        )

    def turn_cdf(self, config, round_key, seat, game):
        return self.windows()[self.context_at(game, seat)].reaction_cdf(config)

    def components(self, config):
        """Its contexts' windows, each with its share of the bot's turns over dealt card games, and its share of a
        round's first turns (``first_context``)."""
        from war_env.core.best_response import context_shares

        shares = context_shares(config, self)
        return tuple(
            Component(share, float(index == self.first_context), window)
            for index, (share, window) in enumerate(zip(shares, self.windows()))
        )

    first_context = 0
    """The context of a round's first turns: nothing scored, no card laid yet (both read as the first context)."""

    def optimal_timing(self, config, solved=None):
        from war_env.core.best_response import ReadingTheTable, problem_with
        from war_env.core.optimum import nothing_carries_over, solve

        problems = [problem_with(config, window.reaction_probabilities(config)) for window in self.windows()]
        if not all(nothing_carries_over(problem) for problem in problems):
            raise ValueError(
                f"the optimum against {self.spec()} is exact only when every reaction window starts at "
                f"least max_delay - 1 = {config.max_delay - 1} ticks into the bot's turn (a press in "
                f"flight as its turn opens is then a sure false start in every context)"
            )
        return ReadingTheTable(self, tuple((solved or solve)(problem) for problem in problems))

    def round_member(self, round_key, seat):
        raise ValueError(f"the {self.name} bot ({self.spec()}) changes its reactions turn by turn: no one per round")


class VariesByScore(ReadsTheTable):
    """A bot that reads the score: as its turn opens it reacts as the window of its context, ahead on points or
    not (both seats see the score)."""

    varies_by = VARIES_BY_SCORE
    CONTEXTS = ("not ahead", "ahead")
    READS = ("own_points", "opponent_points")

    @staticmethod
    def context(points: int, other_points: int) -> int:
        """The context (index in ``CONTEXTS``) of a turn opening with the bot on ``points`` and the other seat on
        ``other_points``."""
        return int(points > other_points)

    def context_at(self, game, seat):
        return self.context(game.points[seat], game.points[1 - seat])

    def context_seen(self, observation):
        from war_env.core.observation import INDEX

        # the score scales both seats' points alike, so comparing the fields compares the points
        return self.context(observation[INDEX["opponent_points"]], observation[INDEX["own_points"]])


class VariesByCard(ReadsTheTable):
    """A bot that reads its own last face-up card: as its turn opens it reacts as the window of the parity of that
    card's rank (2..14, the ace 14), even or not, and as ``odd or none`` before its first card is revealed. The
    card is on the table (the other seat's ``opponent_card``), and the parity of consecutive cards is near
    independent: a trick's winner takes a higher and a lower card, which says much about their ranks and little
    about their parities, so the bot's earlier reactions tell nothing of its next one."""

    varies_by = VARIES_BY_CARD
    CONTEXTS = ("odd or none", "even")
    READS = ("opponent_card",)

    @staticmethod
    def context(rank: int) -> int:
        """The context (index in ``CONTEXTS``) of a turn opening with the bot's last face-up card of rank value
        ``rank`` (``cards.rank_value``; 0 for none yet)."""
        return int(rank > 0 and rank % 2 == 0)

    def context_at(self, game, seat):
        card = game.visible[seat]
        return self.context(0 if card is None else rank_value(card))

    def context_seen(self, observation):
        from war_env.core.observation import HIGHEST_RANK_VALUE, INDEX

        return self.context(round(float(observation[INDEX["opponent_card"]]) * HIGHEST_RANK_VALUE))


def _check_windows(bot: Bot, width: int, apart: bool = True, **starts) -> None:
    """Two windows of ``width`` ticks from ``starts``: apart (``apart``), or at least not the same window."""
    for field, value in (*starts.items(), ("width", width)):
        _require_ticks(bot.name, field, value)
    if width < 1:
        raise ValueError(f"{bot.name} bot width must be at least 1 tick, got {width}")
    low, high = sorted(starts.values())
    if apart and low + width > high:
        raise ValueError(f"{bot.name} bot windows {sorted(starts)} must not overlap: {low} + width {width} > {high}")
    if low == high:
        raise ValueError(f"{bot.name} bot windows {sorted(starts)} must differ: both start at {low}")


def _window(start: int, width: int) -> Uniform:
    return Uniform(start, start + width - 1)


@dataclass(frozen=True)
class Pool(VariesByRound):
    """Drawn once per round from a declared pool of two bots, ``uniform`` over ``fast .. fast + width - 1``
    (with probability ``share_fast``) or over ``slow .. slow + width - 1``, and never named to the other seat.
    When the windows are apart the pool member's first own draw of a round tells which it is; when they overlap,
    a draw in a shared tick tells nothing (both members draw there with probability ``1 / width``), so it takes
    draws until one falls outside them (the inference probe's levels). Its member for the round is
    ``sample_tick(cumulative(prior), hash_uniform(round_key, Stream.OPPONENT_POOL, seat))``."""

    fast: int = 3
    slow: int = 9
    width: int = 2
    share_fast: float = 0.5
    name = "pool"

    def __post_init__(self):
        _check_windows(self, self.width, apart=False, fast=self.fast, slow=self.slow)
        if not (_is_number(self.share_fast) and 0 < self.share_fast < 1):
            raise ValueError(
                f"pool bot share_fast must be a probability strictly between 0 and 1, got {self.share_fast!r}"
            )

    def windows(self) -> tuple[Uniform, ...]:
        """The members, in the order of ``prior``."""
        return _window(self.fast, self.width), _window(self.slow, self.width)

    @property
    def prior(self) -> tuple[float, float]:
        return float(self.share_fast), 1.0 - float(self.share_fast)

    def spec(self):
        return f"pool:fast={self.fast},slow={self.slow},width={self.width},share_fast={self.share_fast}"


@dataclass(frozen=True)
class Leader(VariesByScore):
    """Reads the table: as its turn opens it reacts ``uniform`` over ``ahead .. ahead + width - 1`` when it is
    ahead on points (more tricks than the other seat: both seats see the score), else over ``behind .. behind
    + width - 1``. Everything it reads is in the other seat's observation (``own_points``, ``opponent_points``)."""

    ahead: int = 3
    behind: int = 9
    width: int = 2
    name = "leader"

    def __post_init__(self):
        _check_windows(self, self.width, ahead=self.ahead, behind=self.behind)

    def windows(self) -> tuple[Uniform, ...]:
        """Its reaction window in each context of ``CONTEXTS``."""
        return _window(self.behind, self.width), _window(self.ahead, self.width)

    def spec(self):
        return f"leader:ahead={self.ahead},behind={self.behind},width={self.width}"


@dataclass(frozen=True)
class Parity(VariesByCard):
    """Reads its own last face-up card: as its turn opens it reacts ``uniform`` over ``even .. even + width - 1``
    when that card's rank value is even (2, 4, ..., 10, Q, A), else over ``odd .. odd + width - 1`` (and so before
    its first card is revealed). Everything it reads is in the other seat's observation (``opponent_card``). The
    windows may overlap (the less they differ, the less reading the card is worth: the reading probe's levels)."""

    even: int = 4
    odd: int = 10
    width: int = 2
    name = "parity"

    def __post_init__(self):
        _check_windows(self, self.width, apart=False, even=self.even, odd=self.odd)

    def windows(self) -> tuple[Uniform, ...]:
        """Its reaction window in each context of ``CONTEXTS``."""
        return _window(self.odd, self.width), _window(self.even, self.width)

    def spec(self):
        return f"parity:even={self.even},odd={self.odd},width={self.width}"


def _is_number(value) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool)


def _require_ticks(bot: str, field: str, value) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{bot} bot {field} must be a whole number of ticks >= 0, got {value!r}")


TAKEOVER_BOT = Instant()
"""Plays a seat whose timer ran out, for the rest of the round: it draws at once."""

BOTS = {
    "instant": Instant,
    "fixed": Fixed,
    "uniform": Uniform,
    "modes": Modes,
    "human": Human,
    "absent": Absent,
    "pool": Pool,
    "leader": Leader,
    "parity": Parity,
}


def make_bot(spec: str | Bot) -> Bot:
    """``"human"``, ``"fixed:ticks=5"``, ``"uniform:low=1,high=10"``, ... or a ``Bot`` as it is."""
    if isinstance(spec, Bot):
        return spec
    return build_from_spec(spec, BOTS, "bot")


@dataclass(frozen=True)
class ReactionModel:
    """When a seat draws by itself: reaction tick ``searchsorted(cdf, u, side="right")`` for its n-th
    move, ``u = hash_uniform(key, stream, n)``, where ``key`` is the round key, or, with
    ``key_stream`` set, ``hash64(round_key, key_stream, 0) >> 33`` (``randomness.derive_seed``: the seed the
    benchmark gives an agent). A reaction of ``turn_ticks`` or more means no draw:
    the seat is taken over on the last tick of its turn.

    ``presses_always`` (seat 0 of the fast path only) is the ``eager`` agent: it presses draw on every
    tick, so it draws as its turn opens and every other tick of the round is a false start.

    A bot that varies (``Bot.varies``: ``pool``, ``leader``, ``parity``) has several CDFs, ``choices`` (``cdf`` is the
    first), and ``varies_by`` says which one a turn samples: ``VARIES_BY_ROUND``, the one of index
    ``sample_tick(cumulative(prior), hash_uniform(round_key, Stream.OPPONENT_POOL, seat))`` all round;
    ``VARIES_BY_SCORE``, as each turn opens, the one of index ``int(points[seat] > points[other seat])``;
    ``VARIES_BY_CARD``, as each turn opens, 1 if the rank value of the seat's last face-up card is even, else 0."""

    cdf: tuple[float, ...]
    stream: int
    key_stream: int | None = None
    presses_always: bool = False
    choices: tuple[tuple[float, ...], ...] = ()
    varies_by: str | None = None
    prior: tuple[float, ...] = ()

    def __post_init__(self):
        if self.varies_by not in (None, VARIES_BY_ROUND, *READS_THE_TABLE):
            raise ValueError(
                f"varies_by must be None, {VARIES_BY_ROUND!r} or one of {READS_THE_TABLE}, got {self.varies_by!r}"
            )
        if self.varies_by is not None and len(self.choices) < 2:
            raise ValueError("a reaction model that varies needs two CDFs or more (choices)")
        if (self.varies_by == VARIES_BY_ROUND) != (len(self.prior) > 0) or (
            self.prior and len(self.prior) != len(self.choices)
        ):
            raise ValueError("a reaction model that varies by round needs a prior over its choices, and only it")
        if self.varies_by in READS_THE_TABLE and len(self.choices) != 2:
            raise ValueError(f"a reaction model that varies by {self.varies_by} has one CDF per context (two)")

    @property
    def cdfs(self) -> tuple[tuple[float, ...], ...]:
        """Every CDF the model samples from: ``choices``, or ``(cdf,)``."""
        return self.choices or (self.cdf,)

    @classmethod
    def of_bot(cls, bot: str | Bot, config: WarConfig, seat: int) -> ReactionModel:
        """The model of a bot seated at ``seat`` by the clock (``TimedRound`` controllers)."""
        bot = make_bot(bot)
        if not bot.varies:
            return cls(bot.reaction_cdf(config), STREAM_REACTION[seat])
        choices = tuple(window.reaction_cdf(config) for window in bot.windows())
        return cls(
            choices[0],
            STREAM_REACTION[seat],
            choices=choices,
            varies_by=bot.varies_by,
            prior=tuple(bot.prior_of_windows()),
        )
