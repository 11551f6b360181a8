"""The benchmark's probes: one env id per capability, each a config of the latency game (docs/probes.md).

On War-v0 every working agent ties, and on WarLatency-v0 with its default rewards a one-parameter lead
reaches the optimum in most settings. A probe is a config (opponent bot, latency, reward weights) and an
observation chosen so that an agent *lacking* one capability loses at least ``MIN_GAP`` per round to the
exact optimum, computed, not hoped for (``war_env.evaluation.probe_gaps.exact_gaps``, and
``tests/test_probes.py``). Every probe weighs a false start at -0.02 and an idle tick at -0.01 (the
defaults, -0.1 and -0.001, make a false start cost a hundred idle ticks, and pressing ahead rarely pays), and a
takeover at -100 (more than any round of timing costs, so that being taken over never pays),
and every opponent always reacts within its turn (it is never taken over, so the optimum's cost per move
is exactly the objective it optimises). Each probe names:

* the agent that lacks the capability (``lacking``): the best scripted agent without it;
* the simple baselines (``simple``): the score's 0 is the best of them (``press_once``, and ``lead`` where the
  observation shows the opponent's clock), its 1 the ``oracle`` (the exact optimum, which every probe's
  opponent has: ``Bot.optimal_timing``, ``core.best_response``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from war_env.core.rules import WarConfig

PROBE_REWARDS = {"reward_false_start": -0.02, "reward_idle_tick": -0.01, "reward_takeover": -100.0}
"""The reward weights of every probe (the other weights are War-v0's). The takeover costs more than any round of
timing can (``press_once`` pays at most 0.06 a move, and a seat makes about a hundred moves a round): with War-v0's
-1 a seat that never presses, taken over after 30 idle ticks, paid less than the oracle's timing (the learners found
it, docs/probes.md), and the oracle, the optimum of play that is never taken over, was not the env's."""
MIN_GAP = 0.1
"""The least return per round the agent lacking a probe's capability must lose to the optimum."""
SIMPLE_BASELINES = ("press_once", "lead")


@dataclass(frozen=True)
class OtherFields:
    """The last rung of a probe's ladder: the best play from the observation's fields other than the one its
    capability is about (the yardstick of lacking it)."""

    yardstick: str
    """Its entry in the probe's exact costs: an agent spec, or a bound computed by ``evaluation.probe_gaps.BOUNDS``
    (``card_blind``)."""
    what: str
    """One line: what it is, as the ladder's table says it."""


@dataclass(frozen=True)
class Level:
    """One setting of a probe's difficulty scale: the opponent it plays against, and what the level asks."""

    opponent: str
    what: str
    """One line: what this level asks of the capability, as the levels' table says it."""


@dataclass(frozen=True)
class EnvDoc:
    """The sections of a probe env's docstring that are its own; the sections every probe has alike are written
    from the row (``envs.probe_envs.shared_sections``)."""

    summary: str
    description: str
    observation_space: str
    versions: tuple[str, ...] = ("v0: first release.",)


@dataclass(frozen=True)
class Probe:
    """One capability, one env id: what it measures, how it is built, and how its env says it. Everything that
    defines a probe is here: its env classes (single and vector) are made from the row (``envs.probe_envs``), and
    its gaps, ladder and figures are computed from it."""

    name: str
    env_id: str
    capability: str
    """One sentence: what an agent must do here that the agent lacking it cannot."""
    opponent: str
    latency: str
    observation: str
    """``"latency"`` (WarLatency-v0's), ``"war"`` (War-v0's 16 fields) or ``"inference"`` (WarLatency-v0's and
    the opponent's last reaction): a key of ``observation.OBSERVATIONS``, the one place the probe's observation is
    said (its env shows it, its vector env's engine writes it: ``ProbeEnv.observation_kind``)."""
    lacking: str
    """The agent spec of the best scripted agent without the capability."""
    simple: tuple[str, ...] = SIMPLE_BASELINES
    """The simple baselines that can play from the probe's observation; the best of them is the score's 0."""
    references: tuple[str, ...] = ()
    """The agents the probe plays for reference beside the ``oracle``, ``lacking`` and ``simple``: what its
    capability adds (``counting``, the oracle's policy from a counted state; ``blind``, the optimum that times every
    round alike). With those they are the probe's yardsticks, which a suite never ranks."""
    harnesses: tuple[str, ...] = ()
    """Reference rows that are no agent, played by the probe's own harness (``league.probe_figures.HARNESSES``): the
    inference probe's ``clairvoyant``, its upper bound."""
    rules: dict = field(default_factory=lambda: dict(PROBE_REWARDS))
    hidden: tuple[str, ...] = ()
    """Fields of the observation that the probe shows as 0 (kept in place, so the observation keeps its shape):
    the reading probe hides the pile counts and the battle count, which otherwise show most of the score."""
    other_fields: OtherFields | None = None
    """The ladder's rung of the observation's other fields (``None``: no field but the clocks and the presses in
    flight bears on the opponent); its yardstick is the probe's yardstick of lacking the capability."""
    doc: EnvDoc | None = None
    """Its env's own docstring sections (``None``: a one-line docstring from ``capability``)."""
    levels: tuple[Level, ...] = ()
    """The probe's difficulty scale, easiest first, as bsuite's scaling experiments: level ``n`` (1, 2, ...) is
    ``levels[n - 1]``, the same probe against another opponent (``at_level``), made by
    ``gym.make(env_id, level=n)``, and named ``name@n`` where a probe's name is asked (``probe_named``: ``war-bench
    --suite --probes memory@2``). One of them is the row's own opponent (``default_level``), so ``gym.make(env_id)``
    plays that level. Every level keeps the probe's ``MIN_GAP`` and has exact figures
    (``evaluation.probe_levels``). Empty: the probe has one setting."""

    def config(self) -> WarConfig:
        return WarConfig(latency=self.latency, **self.rules)

    def env_kwargs(self) -> dict:
        """``gym.make(env_id)``'s defaults: the opponent and the config's fields."""
        return {"opponent": self.opponent, "latency": self.latency, **self.rules}

    @property
    def default_level(self) -> int | None:
        """The level whose opponent is the row's own (what ``gym.make(env_id)`` plays); ``None`` without levels."""
        own = [n for n, level in enumerate(self.levels, start=1) if level.opponent == self.opponent]
        return own[0] if own else None

    def at_level(self, level: int) -> Probe:
        """The probe at ``level`` (1 = the easiest): the same row against that level's opponent."""
        if not self.levels:
            raise ValueError(f"{self.env_id} has no levels: it has one setting")
        if isinstance(level, bool) or not isinstance(level, int) or not 1 <= level <= len(self.levels):
            raise ValueError(f"{self.env_id} has levels 1 to {len(self.levels)}, got level={level!r}")
        return replace(self, opponent=self.levels[level - 1].opponent)

    @property
    def lacking_yardstick(self) -> str:
        """The entry of the exact costs that stands for lacking the capability: the other fields' rung, else the
        ``lacking`` agent."""
        return self.other_fields.yardstick if self.other_fields else self.lacking


PROBES = {
    probe.name: probe
    for probe in (
        Probe(
            "anticipation",
            "WarAnticipation-v1",
            "Pressing ahead of its own turn, timed to each of the opponent's three modes of reaction, which an "
            "agent that waits to see its turn open (press_once) cannot, and one or two fixed press times cannot "
            "match.",
            "modes:first=3,every=8,count=3,width=2",
            "fixed:ticks=6",
            "latency",
            "press_once",
            doc=EnvDoc(
                "The anticipation probe: WarLatency-v0 against an opponent with three modes of reaction, where "
                "pressing ahead pays.",
                "WarLatency-v0's game (read ``war_env.envs.latency.WarLatencyEnv``) with the probe's defaults: the "
                "opponent ``modes:first=3,every=8,count=3,width=2`` (it draws 3-4, 11-12 or 19-20 ticks into its turn, "
                "each tick alike), a fixed latency of 6 ticks, and a false start weighed at -0.02, an idle tick at "
                "-0.01, a takeover at -100 (``war_env.core.probes.PROBE_REWARDS``). Waiting to see the turn open costs "
                "the 6 ticks of latency on every move; the optimum sends one press per mode, each landing just after "
                "the mode's last tick (the first as its own draw lands, the others 7 and 15 ticks into the opponent's "
                "turn), and no rule of one or two press times comes within 0.48 per round of it (docs/probes.md).",
                "WarLatency-v0's: War-v0's 16 fields, the opponent's turn clock, the presses in flight by age.",
                (
                    "v1 (war-env 0.4.0): the opponent reacts in three modes "
                    "(``modes:first=3,every=8,count=3,width=2``), not ``uniform:low=3,high=12``, against which the "
                    'two-press rule "2 and 7" was the optimum.',
                    "v0: first release (war-env 0.3.0).",
                ),
            ),
            levels=(
                Level(
                    "modes:first=3,every=8,count=1,width=2", "one mode (3-4 ticks in): one press, as its own draw lands"
                ),
                Level(
                    "modes:first=3,every=8,count=2,width=2",
                    "two modes (3-4, 11-12): presses as its own draw lands and 7 ticks into the opponent's turn",
                ),
                Level(
                    "modes:first=3,every=8,count=3,width=2",
                    "three modes (3-4, 11-12, 19-20): presses as its own draw lands and 7, 15 ticks in",
                ),
            ),
        ),
        Probe(
            "memory",
            "WarMemory-v1",
            "Counting the ticks of the opponent's turn and its own presses in flight, which the observation "
            "leaves out, so that its presses ahead land as each of the opponent's three modes of reaction "
            "ends; a memoryless policy cannot time them.",
            "modes:first=5,every=8,count=3,width=2",
            "fixed:ticks=6",
            "war",
            "press_once",
            simple=("press_once",),
            references=("counting",),
            other_fields=OtherFields(
                "press_once", "press_once: the best memoryless policy on War-v0's fields (tests/test_probes.py)"
            ),
            doc=EnvDoc(
                "The memory probe: WarLatency-v0's game with War-v0's observation, so the clocks must be counted.",
                "WarLatency-v0's game with the probe's defaults: the opponent "
                "``modes:first=5,every=8,count=3,width=2`` (it draws 5-6, 13-14 or 21-22 ticks into its turn), a fixed "
                "latency of 6 ticks, the probe weights. The observation is War-v0's 16 fields: the opponent's turn "
                "clock and the agent's own presses in flight are left out. They stay knowable to an agent with memory "
                "(its own turn's end starts the opponent's; a fixed latency lands every press 6 ticks after it was "
                "sent), so the optimum is the game's (``counting`` plays it from these fields); during the opponent's "
                "turn the observation does not change, so a memoryless policy cannot time the presses the optimum "
                "sends 1, 9 and 17 ticks into it.",
                "War-v0's 16 fields (``war_env.envs.war.WarEnv``), nothing more.",
                (
                    "v1 (war-env 0.4.0): the opponent reacts in three modes "
                    "(``modes:first=5,every=8,count=3,width=2``) and the latency is 6 ticks, not "
                    "``uniform:low=12,high=13`` with 4, where one press 10 ticks in was the optimum.",
                    "v0: first release (war-env 0.3.0).",
                ),
            ),
            levels=(
                Level("modes:first=9,every=8,count=1,width=2", "counts 5 ticks: one mode (9-10), one press 5 ticks in"),
                Level(
                    "modes:first=12,every=8,count=1,width=2", "counts 8 ticks: one mode (12-13), one press 8 ticks in"
                ),
                Level(
                    "modes:first=20,every=8,count=1,width=2", "counts 16 ticks: one mode (20-21), one press 16 ticks in"
                ),
                Level(
                    "modes:first=5,every=8,count=3,width=2",
                    "counts 17 ticks: three modes (5-6, 13-14, 21-22), presses 1, 9 and 17 ticks in",
                ),
                Level(
                    "modes:first=27,every=8,count=1,width=2", "counts 23 ticks: one mode (27-28), one press 23 ticks in"
                ),
            ),
        ),
        Probe(
            "inference",
            "WarInference-v0",
            "Telling from the opponent's first reaction which of two bots of a pool it faces this round, and "
            "timing its presses for that bot; an agent that times every round alike (blind) cannot.",
            "pool:fast=4,slow=10,width=2,share_fast=0.5",
            "fixed:ticks=4",
            "inference",
            "blind",
            harnesses=("clairvoyant",),
            other_fields=OtherFields("blind", "blind: every field but the opponent's last reaction, without memory"),
            doc=EnvDoc(
                "The inference probe: the opponent is one of a pool's two bots, drawn per round and never named.",
                "WarLatency-v0's game with the probe's defaults: the opponent ``pool:fast=4,slow=10,width=2``, which "
                "plays each round as ``uniform:low=4,high=5`` or as ``uniform:low=10,high=11`` (even odds, drawn by a "
                "hash of the round key: ``war_env.core.bots.Pool``), a fixed latency of 4 ticks, the probe weights. "
                "The two bots' reaction windows do not overlap, so the opponent's first own draw of a round tells "
                "which it is; the observation shows how long its last draw took, so telling them apart needs "
                "inference, not memory. The optimum is Bayes-optimal and exact (``war_env.core.optimum.solve_pool``); "
                "the clairvoyant that knows the bot from the start does better only in the first turns "
                "(docs/probes.md).",
                "WarLatency-v0's, then ``opponent_reaction``: (ticks from the opening of the opponent's turn to its "
                "last own draw + 1) / turn ticks, 0 before its first.",
                ("v0: first release (war-env 0.3.0).",),
            ),
            levels=(
                Level(
                    "pool:fast=4,slow=10,width=2,share_fast=0.5", "windows of 2 ticks apart: every draw names the bot"
                ),
                Level(
                    "pool:fast=4,slow=7,width=4,share_fast=0.5",
                    "windows of 4 ticks sharing 1 (4-7, 7-10): a draw names the bot with probability 3/4",
                ),
                Level(
                    "pool:fast=4,slow=6,width=4,share_fast=0.5",
                    "windows of 4 ticks sharing 2 (4-7, 6-9): a draw names the bot with probability 1/2",
                ),
                Level(
                    "pool:fast=4,slow=5,width=4,share_fast=0.5",
                    "windows of 4 ticks sharing 3 (4-7, 5-8): a draw names the bot with probability 1/4",
                ),
            ),
        ),
        Probe(
            "reading",
            "WarTableReading-v2",
            "Reading the opponent's last face-up card on the table, whose rank sets how fast it reacts (fast after "
            "an even rank), and timing its presses for it; an agent that does not read it cannot, with or without "
            "memory: the context is fresh each turn, and no other field, nor the opponent's earlier reactions, "
            "shows it.",
            "parity:even=4,odd=10,width=2",
            "fixed:ticks=4",
            "latency",
            "blind",
            references=("blind",),
            hidden=("own_pile", "opponent_pile", "own_points", "opponent_points", "battles"),
            other_fields=OtherFields(
                "card_blind",
                "card_blind: every field but the opponent's card, each turn; memory adds nothing "
                "(a bound: tests/test_probe_gaps_reading.py)",
            ),
            doc=EnvDoc(
                "The reading probe: the opponent reacts fast after laying a card of even rank, slowly otherwise.",
                "WarLatency-v0's game with the probe's defaults: the opponent ``parity:even=4,odd=10,width=2``, "
                "which, as each of its turns opens, reacts ``uniform`` over ticks 4-5 if the rank of its own last "
                "face-up card is even (2, 4, ..., 10, Q, A) and over ticks 10-11 if it is odd or no card is up yet "
                "(``war_env.core.bots.Parity``), a fixed latency of 4 ticks, the probe weights. The card is in the "
                "observation (``opponent_card``), so the optimum reads it and is exact (every window starts 3 or "
                "more ticks in, so nothing carries over from one turn to the next: "
                "``war_env.core.optimum.nothing_carries_over``). The context is fresh each turn: a trick's winner "
                "takes a higher and a lower card, which says much about their ranks and little about their "
                "parities, so the opponent's earlier reactions, the turn count and earlier frames tell nothing "
                "measurable of its next context (docs/probes.md).",
                "WarLatency-v0's, with ``own_pile``, ``opponent_pile``, ``own_points``, ``opponent_points`` and "
                "``battles`` always 0: with memory, how the score or a pile changed shows which card took the last "
                "trick, so the table's one field that shows the bot's context is ``opponent_card``, and in a war "
                "``own_card``, which ties with it (docs/probes.md).",
                (
                    "v2 (unreleased): the opponent reads its own last face-up card (``parity``), not the score "
                    "(``leader``), whose context persisted from turn to turn and showed in its previous reaction; "
                    "the score is hidden too.",
                    "v1 (war-env 0.4.0): the pile counts and the battle count are hidden.",
                    "v0: first release (war-env 0.3.0).",
                ),
            ),
            levels=(
                Level("parity:even=4,odd=10,width=2", "windows of 2 ticks apart (4-5, 10-11)"),
                Level("parity:even=4,odd=7,width=4", "windows of 4 ticks sharing 1 (4-7, 7-10)"),
                Level("parity:even=4,odd=6,width=4", "windows of 4 ticks sharing 2 (4-7, 6-9)"),
                Level("parity:even=4,odd=5,width=4", "windows of 4 ticks sharing 3 (4-7, 5-8)"),
            ),
        ),
    )
}


LEVEL_MARK = "@"
"""``name@level`` names a probe at one of its levels (``memory@2``), where a probe's name is asked."""


def probe_named(name: str) -> Probe:
    """The probe ``name`` (a key of ``PROBES``), or with ``name@n`` the probe at its level ``n``
    (``Probe.at_level``), named so."""
    base, mark, level = name.partition(LEVEL_MARK)
    if base not in PROBES:
        raise ValueError(f"unknown probe {base!r}; known: {', '.join(PROBES)} (a level: NAME{LEVEL_MARK}N)")
    if not mark:
        return PROBES[base]
    if not level.isdigit():
        raise ValueError(f"a probe's level is a whole number after {LEVEL_MARK!r}, got {name!r}")
    return replace(PROBES[base].at_level(int(level)), name=name)
