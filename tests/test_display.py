"""A window only where one can be shown: without a display, ``render_mode="human"`` is refused in one line
(SDL would draw offscreen, silently), and Gymnasium's ``check_env`` checks the other modes without
touching the display (it printed SDL's XDG_RUNTIME_DIR error)."""

import os
import subprocess
import sys

import gymnasium as gym
import pytest

import war_env  # noqa: F401  (registers War-v0)
from war_env.envs.multiagent import WarParallelEnv
from war_env.views.render.display import NoDisplay

NO_DISPLAY = ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER")


@pytest.fixture
def no_display(monkeypatch):
    if not sys.platform.startswith("linux"):
        pytest.skip("a display is assumed off Linux")
    for name in NO_DISPLAY:
        monkeypatch.delenv(name, raising=False)


def test_human_mode_without_a_display_is_refused_in_one_line(no_display):
    for make in (
        lambda: gym.make("War-v0", render_mode="human"),
        lambda: gym.make("WarLatency-v0", render_mode="human"),
        lambda: WarParallelEnv(render_mode="human"),
    ):
        with pytest.raises(NoDisplay, match=r"render_mode='human'\) needs a display, and none was found") as refused:
            make()
        assert "\n" not in str(refused.value) and "SDL_VIDEODRIVER=dummy" in str(refused.value)


def test_without_a_display_an_env_lists_only_the_modes_it_can_render(no_display):
    assert gym.make("War-v0").unwrapped.metadata["render_modes"] == ["ansi", "rgb_array"]
    frames = gym.make("War-v0", render_mode="rgb_array")
    frames.reset(seed=0)
    assert frames.render().shape[2] == 3  # frames need no display
    assert WarParallelEnv().metadata["render_modes"] == ["ansi", "rgb_array"]


def test_drawing_nowhere_on_purpose_keeps_the_window_mode(monkeypatch, no_display):
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    assert "human" in gym.make("War-v0").unwrapped.metadata["render_modes"]


def test_check_env_without_a_display_passes_and_prints_no_sdl_error():
    environment = {name: value for name, value in os.environ.items() if name not in NO_DISPLAY}
    code = (
        "import gymnasium as gym, war_env\nfrom gymnasium.utils.env_checker import check_env\n"
        "check_env(gym.make('War-v0').unwrapped)\nprint('checked')"
    )
    done = subprocess.run([sys.executable, "-c", code], env=environment, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "checked", done.stderr
    assert "XDG_RUNTIME_DIR" not in done.stderr and "error" not in done.stderr.lower(), done.stderr
