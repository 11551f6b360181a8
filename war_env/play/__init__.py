"""A person at the War table: the play session, its loop, and the ways to show it (terminal, window).

``session.PlaySession`` is the game with its commands; ``loop.play_loop`` drives it with any event
source, clock and view; ``terminal`` and ``window`` are the two views ``war-play`` offers.
"""
