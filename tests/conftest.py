import os

# Headless and single-threaded everywhere: pygame needs no display, torch stays on one core.
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("OMP_NUM_THREADS", "1")
