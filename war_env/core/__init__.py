"""The game core: War's rules, played by the scalar reference, free of Gymnasium and of every tool.

``rules`` (``WarConfig``, the one config object), ``cards``, ``randomness`` (every random stream of a
round, named in one table), ``deal``, ``engine`` (the card game), ``clock`` (the turn timer and the
takeover), ``bots`` (reaction-time models), ``latency``, ``rewards`` (the reward of every event),
``observation`` (what a seat can see), ``round_info`` (a round's result, declared once), ``scoreboard``,
``optimum`` (the exact optimal timing) and ``specs`` (the spec-string parser). Nothing here imports
from another layer of the package (``docs/architecture.md``).
"""
