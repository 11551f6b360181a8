"""Plumbing every layer may use: ``atomic`` files, optional ``extras``, ``threads`` limits,
``provenance`` of a run and the ``run_folder`` lock. Nothing here knows the game."""
