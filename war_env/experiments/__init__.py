"""Experiments that train and then benchmark: the top of the tools, above both the league and training.

``learners`` (``python -m war_env.scripts.learners``): every learner trained on every probe, its final models
scored by the league's suite (docs/probes.md, "The learners"). A study that trains models with
``war_env.training`` and then measures them with ``war_env.league`` goes here, so that neither of those two
imports the other's way back (``docs/architecture.md``).
"""
