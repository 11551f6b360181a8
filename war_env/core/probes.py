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

from dataclasses import dataclass, field

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
class Probe:
    """One capability, one env id: what it measures and how it is built."""

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
    """Reference rows that are no agent, played by the probe's own harness (``league.probe_figures.records_of``): the
    inference probe's ``clairvoyant``, its upper bound."""
    rules: dict = field(default_factory=lambda: dict(PROBE_REWARDS))
    hidden: tuple[str, ...] = ()
    """Fields of the observation that the probe shows as 0 (kept in place, so the observation keeps its shape):
    the reading probe hides the pile counts and the battle count, which otherwise show most of the score."""

    def config(self) -> WarConfig:
        return WarConfig(latency=self.latency, **self.rules)

    def env_kwargs(self) -> dict:
        """``gym.make(env_id)``'s defaults: the opponent and the config's fields."""
        return {"opponent": self.opponent, "latency": self.latency, **self.rules}


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
        ),
        Probe(
            "reading",
            "WarTableReading-v1",
            "Reading the score the table shows, which sets how fast the opponent reacts (fast when it is ahead), "
            "and timing its presses for it; an agent that times every turn alike (blind) cannot, and no other "
            "field shows it (the pile counts and the battle count are hidden).",
            "leader:ahead=4,behind=10,width=2",
            "fixed:ticks=4",
            "latency",
            "blind",
            references=("blind",),
            hidden=("own_pile", "opponent_pile", "battles"),
        ),
    )
}
