"""What a round looks like: ``scene`` (what is visible, as plain data), then its painters: ``ansi``
(text) and ``render`` (pygame pixels, the ``render`` extra)."""
