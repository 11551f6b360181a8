"""The pixel modes: frames drawn off-screen from the scene, the human window, video recording."""

from __future__ import annotations

import dataclasses
import sys

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.error import DependencyNotInstalled

import war_env  # noqa: F401  (registers War-v0)
from war_env.core.scoreboard import Scoreboard
from war_env.envs.latency import WarLatencyEnv
from war_env.envs.war import WarEnv
from war_env.views.render import layout as L
from war_env.views.scene import build_scene

pygame = pytest.importorskip("pygame")

from war_env.views.render.table import GOLD, POPUP_PAPER, TablePainter  # noqa: E402

WAR_PILES = [["9C", "2C", "JC", "3C", "KC", "4H"], ["9D", "2D", "JD", "3D", "5D", "4S"]]


@pytest.fixture(scope="module")
def painter():
    return TablePainter()


def pixel_env(piles=WAR_PILES, starter=0, **kwargs) -> WarEnv:
    env = WarEnv(render_mode="rgb_array", opponent="instant", **kwargs)
    env.reset(seed=0, options={"piles": piles, "starter": starter})
    return env


def changed_box(before: np.ndarray, after: np.ndarray):
    """(left, top, right, bottom) of the pixels that differ, or None."""
    rows, cols = np.nonzero(np.any(before != after, axis=2))
    if rows.size == 0:
        return None
    return cols.min(), rows.min(), cols.max() + 1, rows.max() + 1


def inside(box, rect, margin=0) -> bool:
    x, y, w, h = rect
    return box[0] >= x - margin and box[1] >= y - margin and box[2] <= x + w + margin and box[3] <= y + h + margin


def test_rgb_array_frames_are_uint8_height_by_width_by_3():
    env = pixel_env()
    frame = env.render()
    assert frame.shape == (L.HEIGHT, L.WIDTH, 3) and frame.dtype == np.uint8
    env.step(1)
    assert env.render().shape == (L.HEIGHT, L.WIDTH, 3)
    env.close()


def test_the_same_state_gives_the_same_frame_and_a_new_state_a_new_one():
    first, second = pixel_env(), pixel_env()
    for env in (first, second):
        env.step(1)
    frame = first.render()
    assert np.array_equal(frame, second.render()) and np.array_equal(frame, first.render())
    first.step(0)
    assert not np.array_equal(frame, first.render())


def test_the_war_bubbles_change_pixels_only_where_the_scene_puts_them(painter):
    env = pixel_env()
    env.step(1), env.step(0)  # the nines tie: a war is on
    scene = build_scene(env.round, env.scoreboard)
    assert all(view.war_bubble for view in scene.seats)
    quiet = dataclasses.replace(scene, seats=tuple(dataclasses.replace(v, war_bubble=False) for v in scene.seats))
    with_bubbles, without = painter.frame(scene), painter.frame(quiet)
    for seat in (0, 1):
        band = (0, L.row_y(seat) - 130, L.WIDTH, 200)  # the seat's row
        top, height = band[1], band[3]
        box = changed_box(without[top : top + height], with_bubbles[top : top + height])
        box = (box[0], box[1] + top, box[2], box[3] + top)
        assert inside(box, L.bubble_rect(seat), margin=30), box
        x, y, w, h = L.bubble_rect(seat)
        assert with_bubbles[y + 6, x + w // 2].tolist() == [255, 255, 255]  # the bubble is white there
        assert without[y + 6, x + w // 2].tolist() != [255, 255, 255]


def test_the_popup_covers_the_table_where_the_scene_says_and_leaves_the_controls_bar(painter):
    env = pixel_env(piles=[["AS", "3C"], ["2C", "4C"]], starter=0, max_battles=1)
    env.step(1), env.step(0)  # one battle and the limit: a draw
    scene = build_scene(env.round, env.scoreboard)
    assert scene.popup is not None
    with_popup, without = painter.frame(scene), painter.frame(dataclasses.replace(scene, popup=None))
    bar_top = L.BAR[1]
    assert np.array_equal(with_popup[bar_top:], without[bar_top:])
    x, y, w, h = L.popup_rect(len(scene.popup.rows))
    paper = with_popup[y + h - 60, x + 10]
    assert paper.tolist() == list(POPUP_PAPER)
    assert changed_box(without[:bar_top], with_popup[:bar_top]) is not None


def test_the_timer_ring_and_the_bot_badge_are_drawn_at_the_seat(painter):
    env = pixel_env()
    scene = build_scene(env.round, env.scoreboard)
    seat0 = scene.seats[0]
    half = dataclasses.replace(scene, seats=(dataclasses.replace(seat0, timer_share=0.5), scene.seats[1]))
    cx, cy = L.avatar_center(0)
    box = changed_box(painter.frame(scene), painter.frame(half))
    assert box is not None
    seat_column = (0, cy - L.RING_RADIUS - 20, L.PILE_X, 2 * L.RING_RADIUS + 140)  # ring, name, turn pill
    assert inside(box, seat_column), box
    ring = changed_box(painter.frame(scene)[: cy + L.RING_RADIUS + 1], painter.frame(half)[: cy + L.RING_RADIUS + 1])
    assert ring[1] >= cy - L.RING_RADIUS - 3 and ring[0] >= cx - L.RING_RADIUS - 3  # the ring itself emptied
    badge = dataclasses.replace(scene, seats=(dataclasses.replace(seat0, taken_over=True), scene.seats[1]))
    before, after = painter.frame(scene), painter.frame(badge)
    assert inside(changed_box(before, after), (cx - 60, cy - 70, 130, 130))  # the grey avatar and its BOT badge
    noted = painter.frame(dataclasses.replace(badge, takeover_note="Your timer ran out: the computer plays your cards"))
    between_the_rows = (
        L.TABLE[0],
        L.card_top(1) + L.CARD_H,
        L.SCOREBOARD[0] - L.TABLE[0],
        L.card_top(0) - L.card_top(1) - L.CARD_H,
    )
    assert inside(changed_box(after, noted), between_the_rows), changed_box(after, noted)


def test_the_notice_and_the_key_are_drawn_where_the_layout_puts_them(painter):
    scene = build_scene(pixel_env().round, pixel_env().scoreboard)
    quiet, noticed = painter.frame(scene), painter.frame(scene, notice="False start! Wait for your turn (1 this round)")
    box = changed_box(quiet, noticed)
    assert box is not None and abs((box[0] + box[2]) / 2 - L.MIDDLE_X) <= 1 and box[1] > L.card_top(1) + L.CARD_H
    x, y, w, h = L.KEY_PANEL
    gold_frame = quiet[y + 38 : y + 62, x + 16 : x + 34].reshape(-1, 3)
    assert (gold_frame == np.array(GOLD)).all(axis=1).sum() > 40  # the key's gold frame, as around a winning card


def test_a_card_face_shows_its_rank_in_the_suit_colour(painter):
    env = pixel_env(piles=[["KH", "2C"], ["7S", "3D"]])
    env.step(1), env.step(0)
    frame = env.render()
    x, y, w, h = L.face_up_rect(0)
    card = frame[y : y + h, x : x + w].reshape(-1, 3).astype(int)
    red = (card[:, 0] > 150) & (card[:, 1] < 80) & (card[:, 2] < 90)
    assert red.sum() > 200  # a red king of hearts
    x, y, w, h = L.face_up_rect(1)
    card = frame[y : y + h, x : x + w].reshape(-1, 3).astype(int)
    assert ((card[:, 0] > 150) & (card[:, 1] < 80)).sum() < 20  # a black seven of spades


@pytest.mark.slow
def test_gymnasiums_checker_accepts_the_pixel_modes():
    from gymnasium.utils.env_checker import check_env

    for mode in ("rgb_array", "human"):
        env = gym.make("War-v0", render_mode=mode, opponent="instant")
        check_env(env.unwrapped)
        env.close()


def test_human_mode_shows_a_window_on_reset_and_step_and_close_shuts_it():
    env = gym.make("War-v0", render_mode="human", opponent="instant")
    env.reset(seed=1, options={"piles": [["KC", "2C"], ["7D", "3D"]], "starter": 0})
    window = pygame.display.get_surface()
    assert pygame.display.get_init() and window.get_size() == (L.WIDTH, L.HEIGHT)
    shown = pygame.surfarray.array3d(window)
    env.step(1)  # the window is redrawn by step itself: your card now lies face down
    x, y, w, h = L.laid_rect(0, 0)
    assert not np.array_equal(shown[x : x + w, y : y + h], pygame.surfarray.array3d(window)[x : x + w, y : y + h])
    assert env.render() is None
    env.close()
    assert not pygame.display.get_init()


def test_the_pixel_modes_name_the_render_extra_when_pygame_is_missing(monkeypatch):
    for module in ("war_env.views.render.table", "war_env.views.render.window"):
        monkeypatch.delitem(sys.modules, module, raising=False)
    monkeypatch.setitem(sys.modules, "pygame", None)  # import pygame now raises ImportError
    env = gym.make("War-v0", render_mode="rgb_array")
    env.reset(seed=0)
    with pytest.raises(
        DependencyNotInstalled,
        match=r'pip install "war-env\[render\]" \(or, from a clone, pip install -e "\.\[render\]"\)',
    ):
        env.render()


def test_record_video_writes_a_video_of_a_round(tmp_path):
    pytest.importorskip("moviepy", reason="RecordVideo needs moviepy")
    imageio_ffmpeg = pytest.importorskip("imageio_ffmpeg", reason="no video writer (ffmpeg) installed")
    env = gym.make("War-v0", render_mode="rgb_array", opponent="instant")
    env = gym.wrappers.RecordVideo(
        env, str(tmp_path / "videos"), episode_trigger=lambda episode: True, disable_logger=True
    )
    env.reset(seed=0, options={"piles": [["KC", "QC"], ["7D", "3D"]], "starter": 0})  # over in 2 battles
    steps, terminated = 0, False
    while not terminated:
        _, _, terminated, _, _ = env.step(1)
        steps += 1
    env.close()
    videos = list((tmp_path / "videos").glob("*.mp4"))
    assert len(videos) == 1 and videos[0].stat().st_size > 1000
    frames, _ = imageio_ffmpeg.count_frames_and_secs(str(videos[0]))
    assert frames == steps + 1  # the reset frame and one per step


def test_the_screenshot_script_writes_the_table_and_the_popup(tmp_path):
    from war_env.scripts.screenshot import main

    paths = main(tmp_path)
    assert [path.name for path in paths] == ["screenshot.png", "screenshot-popup.png"]
    for path in paths:
        assert pygame.image.load(str(path)).get_size() == (L.WIDTH, L.HEIGHT)


def test_presses_in_flight_are_marks_beside_the_timer_ring_filled_while_they_fly(painter):
    env = WarLatencyEnv(render_mode="rgb_array", opponent="fixed:ticks=9", latency="fixed:ticks=3")
    env.reset(seed=0, options={"piles": WAR_PILES, "starter": 1})
    for action in (1, 0, 1):  # presses of ages 2 and 0 fly
        env.step(action)
    scene = build_scene(env.round, env.scoreboard)
    assert scene.seats[0].in_flight == (True, False, True) and scene.seats[1].in_flight == ()  # a bot
    landed = dataclasses.replace(
        scene, seats=(dataclasses.replace(scene.seats[0], in_flight=(False,) * 3), scene.seats[1])
    )
    flying, empty = painter.frame(scene), painter.frame(landed)
    for age, expected in enumerate((True, False, True)):
        x, y = L.in_flight_mark(0, age, 3)
        assert (flying[y, x].tolist() == list(GOLD)) == expected
        assert empty[y, x].tolist() != list(GOLD)
    r = L.IN_FLIGHT_RADIUS
    top, bottom = L.in_flight_mark(0, 0, 3), L.in_flight_mark(0, 2, 3)
    assert inside(changed_box(empty, flying), (top[0] - r, top[1] - r, 2 * r + 1, bottom[1] - top[1] + 2 * r + 1))
    without_latency = build_scene(pixel_env().round, Scoreboard())
    assert all(view.in_flight == () for view in without_latency.seats)  # War-v0's frames draw no marks
