"""Plumbing every layer may use: ``atomic`` files, optional ``extras``, ``threads`` limits,
``provenance`` of a run and the ``run_folder`` of every command that resumes (its lock, its frozen settings,
its record of sessions). Nothing here knows the game."""
