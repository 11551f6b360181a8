"""war-play's loop, driven by synthetic pygame events (dummy video driver) and a clock that moves
only when the loop sleeps: one frame of 0.1 s is one tick."""

from __future__ import annotations

import io
import os
import subprocess
import sys

import pytest

from war_env.views.render import layout as L

pygame = pytest.importorskip("pygame")

from war_env.play.loop import ManualClock, play_loop  # noqa: E402
from war_env.play.loop import play as main  # noqa: E402
from war_env.play.session import AUTOPLAY, NEW_ROUND, QUIT, TURN, PlaySession  # noqa: E402
from war_env.play.terminal import TerminalKeys, TerminalView  # noqa: E402
from war_env.play.window import PygameEvents, WindowView  # noqa: E402

FPS = 10  # one frame per tick of 0.1 s


@pytest.fixture(scope="module")
def view():
    window = WindowView()
    yield window
    window.close()


@pytest.fixture
def table(view):
    """A session dealt with seed 5 where you start, started at 0 on the clock, the event queue empty."""
    pygame.event.clear()
    clock = ManualClock()
    session = PlaySession(opponent="fixed:ticks=2", seed=5)
    session.new_round(clock.now(), options={"starter": 0})
    session.start(clock.now())
    return session, clock


def run(session, clock, view, frames, until=None):
    return play_loop(session, PygameEvents(), clock, view, fps=FPS, max_frames=frames, until=until)


def center(rect):
    x, y, w, h = rect
    return (x + w // 2, y + h // 2)


def click(rect):
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=center(rect), button=1))


def key(code):
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=code))


def test_a_new_round_waits_for_you_and_your_first_press_starts_the_timers(view):
    pygame.event.clear()
    clock = ManualClock()
    session = PlaySession(opponent="fixed:ticks=2", seed=5)
    session.new_round(clock.now(), options={"starter": 0})
    run(session, clock, view, 60)  # six seconds, twice the turn timer: nothing runs
    assert session.waiting and session.timed.tick_count == 0 and not session.timed.taken_over[0]
    assert session.controls()[0].label == "Start round"
    assert session.notice() == "Press Space or Start round to begin: your timer starts then"
    key(pygame.K_SPACE)
    run(session, clock, view, 11)  # the press starts the round; one second of your turn goes by
    assert not session.waiting and session.timed.game.moves[0] == 0  # starting lays no card
    assert session.scene().seats[0].seconds_left == pytest.approx(2.0) and session.controls()[0].label == "Turn cards"
    key(pygame.K_n)  # a new round waits again
    run(session, clock, view, 40)
    assert session.waiting and session.timed.tick_count == 0


def test_play_10_battles_also_starts_a_waiting_round(view):
    clock = ManualClock()
    session = PlaySession(opponent="instant", seed=5)
    session.new_round(clock.now())
    click(L.BUTTONS[1])
    run(session, clock, view, 3)
    assert not session.waiting and session.autoplaying and session.timed.tick_count > 0


def test_a_click_on_turn_cards_draws_your_card(table, view):
    session, clock = table
    run(session, clock, view, 5)
    assert session.timed.game.moves[0] == 0 and session.your_turn  # nothing happens by itself
    click(L.BUTTONS[0])
    run(session, clock, view, 2)
    assert session.timed.game.moves[0] == 1 and session.timed.game.drawn[0]
    assert session.timed.false_starts[0] == 0


@pytest.mark.parametrize(
    "event",
    [
        pygame.event.Event(pygame.KEYDOWN, key=pygame.K_SPACE),
        pygame.event.Event(pygame.KEYDOWN, key=pygame.K_RETURN),
        pygame.event.Event(
            pygame.FINGERDOWN,
            x=center(L.BUTTONS[0])[0] / L.WIDTH,
            y=center(L.BUTTONS[0])[1] / L.HEIGHT,
            touch_id=0,
            finger_id=0,
            dx=0.0,
            dy=0.0,
            pressure=1.0,
        ),
    ],
    ids=["space", "enter", "touch"],
)
def test_the_space_bar_enter_and_a_touch_also_turn_cards(table, view, event):
    session, clock = table
    pygame.event.post(event)
    run(session, clock, view, 2)
    assert session.timed.game.moves[0] == 1


def test_a_mouse_event_made_from_a_touch_is_not_counted_twice_and_clicks_off_the_buttons_do_nothing(table, view):
    session, clock = table
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=center(L.BUTTONS[0]), button=1, touch=True))
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(20, 20), button=1))
    run(session, clock, view, 3)
    assert session.timed.game.moves[0] == 0


def test_turn_cards_outside_your_turn_is_a_false_start_that_the_table_shows(view):
    pygame.event.clear()
    clock = ManualClock()
    session = PlaySession(opponent="fixed:ticks=10", seed=5)
    session.new_round(clock.now(), options={"starter": 1})  # the bot draws first, after 1 s
    session.start(clock.now())
    assert not session.your_turn and not session.controls()[0].enabled  # greyed, but a press counts
    key(pygame.K_SPACE)
    run(session, clock, view, 3)
    assert session.timed.game.moves[0] == 0 and session.timed.false_starts[0] == 1  # nothing moved
    assert session.notice() == "False start! Wait for your turn (1 this round)"
    assert session.scene().seats[0].false_starts == 1
    run(session, clock, view, 20)
    assert session.notice() is None  # the notice fades; the count stays on the table
    assert session.scene().seats[0].false_starts == 1


def test_a_press_while_the_bot_plays_for_you_is_not_a_false_start(table, view):
    session, clock = table
    click(L.BUTTONS[1])
    key(pygame.K_SPACE)
    run(session, clock, view, 30)
    assert session.autoplaying and session.timed.false_starts[0] == 0


def test_play_10_battles_plays_exactly_ten_battles_for_you(table, view):
    session, clock = table
    click(L.BUTTONS[1])
    run(session, clock, view, 3)
    button = session.controls()[1]
    assert session.autoplaying and not button.enabled and button.label.endswith("left")
    stopped = run(session, clock, view, 400, until=lambda s: not s.autoplaying)
    assert stopped == "until" and not session.over
    assert session.completed_battles() == 10 and session.timed.game.battles == 10
    assert session.timed.reaction_ticks[0] and max(session.timed.reaction_ticks[0]) == 0  # drawn at once
    run(session, clock, view, 10)  # one second later: the 11th battle waits for you (you start)
    assert session.timed.game.battles == 10 and session.your_turn and not session.timed.taken_over[0]


def test_new_round_deals_again_and_keeps_the_scoreboard(view):
    pygame.event.clear()
    clock = ManualClock()
    session = PlaySession(opponent="instant", seed=5)
    session.new_round(clock.now(), options={"piles": [["AS"], ["2C"]], "starter": 0})
    key(pygame.K_SPACE)  # start
    run(session, clock, view, 1)
    key(pygame.K_SPACE)  # lay the ace
    run(session, clock, view, 4)
    assert session.over and session.env.scoreboard.rounds_won == [1, 0]
    assert not session.controls()[0].enabled and session.controls()[2].enabled
    click(L.BUTTONS[2])
    run(session, clock, view, 1)
    assert not session.over and session.waiting
    assert session.env.scoreboard.rounds_won == [1, 0] and session.env.scoreboard.rounds == 1
    assert [len(pile) for pile in session.timed.game.piles] == [26, 26]  # a full shuffled deal
    key(pygame.K_n)  # the N key too; an unfinished round is not counted
    run(session, clock, view, 1)
    assert session.env.scoreboard.rounds == 1 and session.timed.tick_count == 0


def test_doing_nothing_longer_than_the_timer_hands_your_seat_to_the_bot(table, view):
    session, clock = table
    turn_ticks = session.env.config.turn_ticks
    run(session, clock, view, turn_ticks)  # ticks 1 .. turn_ticks - 1: still yours
    assert not session.timed.taken_over[0] and session.scene().seats[0].ticks_left == 1
    run(session, clock, view, 1)
    scene = session.scene()
    assert session.timed.taken_over[0] and scene.seats[0].taken_over  # the BOT badge
    assert not session.controls()[0].enabled and not session.controls()[1].enabled
    moves = session.timed.game.moves[0]
    run(session, clock, view, 20)
    assert session.timed.game.moves[0] > moves and not session.over  # the bot plays on, in real time


def test_ticks_follow_the_wall_clock_and_a_stall_plays_at_most_one_turn(table):
    session, _ = table
    assert session.advance(0.05) == 0 and session.advance(0.25) == 2 and session.advance(0.3) == 1
    assert session.advance(60.0) <= session.env.config.turn_ticks


def test_closing_the_window_or_q_quits(table, view):
    session, clock = table
    pygame.event.post(pygame.event.Event(pygame.QUIT))
    assert run(session, clock, view, 10) == "quit"
    key(pygame.K_q)
    assert run(session, clock, view, 10) == "quit"


def test_main_runs_the_window_until_quit():
    pygame.display.init()
    pygame.event.clear()
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_ESCAPE))
    result = main(opponent="instant", seed=1, mode="window", clock=ManualClock(), max_frames=50)
    assert result.stopped == "quit" and result.rounds == 0


def test_terminal_keys_map_to_the_same_commands():
    read_end, write_end = os.pipe()
    with os.fdopen(read_end, "rb", buffering=0) as stream:
        keys = TerminalKeys(stream)
        os.write(write_end, b" pxN\nq")
        assert keys.poll() == [TURN, AUTOPLAY, NEW_ROUND, TURN, QUIT]
        assert keys.poll() == []
        os.close(write_end)
        assert keys.poll() == [QUIT]  # the end of the input: nobody is left to press a key
        assert keys.poll() == [] and keys.poll() == []  # and no busy loop reading it again
        keys.close()


def test_the_terminal_game_ends_at_the_end_of_its_input():
    """``war-play --terminal`` quits when its input ends; keys piped in are played first."""
    done = subprocess.run(
        [sys.executable, "-m", "war_env.scripts.play", "--terminal", "--seed", "1"],
        input="p",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "Rounds won: You 0, Bot 0, draws 0"


def test_the_terminal_game_with_no_input_at_all_says_so_and_fails():
    """``war-play < /dev/null`` (no terminal, a CI job) once quit with status 0 and not a word."""
    done = subprocess.run(
        [sys.executable, "-m", "war_env.scripts.play", "--terminal", "--seed", "1"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "war-play: error: standard input ended before any key was pressed (it is not a terminal): play in a "
        "terminal, or pipe keys into it, e.g. printf 'pq' | war-play --terminal"
    ]


def test_when_the_bot_starts_the_round_the_notice_says_it_draws_first():
    session = PlaySession(opponent="fixed:ticks=2", seed=5)
    session.new_round(0.0, options={"starter": 1})
    assert session.notice() == "Press Space or Start round to begin: the bot draws first, then your timer starts"


def test_a_window_without_a_display_is_refused_in_one_line(monkeypatch, capsys):
    from war_env.scripts.play import cli

    for name in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER"):
        monkeypatch.delenv(name, raising=False)
    assert cli(["--window"]) == 1
    assert capsys.readouterr().err.strip().splitlines() == [
        "war-play: error: a window needs a display, and none was found (DISPLAY and WAYLAND_DISPLAY unset, or not "
        "usable): play in the terminal with --terminal"
    ]


def test_the_terminal_mode_plays_with_keys_and_shows_the_ansi_table():
    read_end, write_end = os.pipe()
    out = io.StringIO()
    with os.fdopen(read_end, "rb", buffering=0) as stream:
        result = main(
            opponent="instant", seed=3, mode="terminal", clock=ManualClock(), keys=stream, out=out, max_frames=2
        )
        assert result.stopped == "max_frames"
        waiting = out.getvalue()
        assert ">> Press Space or Start round to begin" in waiting and "[space] Start round" in waiting
        clock = ManualClock()
        session = PlaySession(opponent="instant", seed=3)
        session.new_round(clock.now(), options={"starter": 0})
        os.write(write_end, b"  ")  # start, then lay your card
        play_loop(session, TerminalKeys(stream), clock, TerminalView(out), fps=FPS, max_frames=3)
        assert session.timed.game.moves == [1, 1]
        os.write(write_end, b"q")
        result = main(
            opponent="instant", seed=3, mode="terminal", clock=ManualClock(), keys=stream, out=out, max_frames=5
        )
    os.close(write_end)
    text = out.getvalue()[len(waiting) :]
    assert result.stopped == "quit"
    assert "pile 25" in text and "[space] Turn cards" in text and "[p] Play 10 battles" in text
    assert "key: * draws first in every battle" in text and "You win the battle: J beats 7" in text


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="mode must be"):
        main(mode="vr")
    with pytest.raises(ValueError, match="unknown opponent 'nobody'"):
        PlaySession(opponent="nobody")
    session = PlaySession(opponent="instant", seed=0)
    session.new_round(0.0)
    with pytest.raises(ValueError, match="unknown command"):
        session.handle("jump", 0.0)


def test_an_agent_can_be_the_opponent():
    """Any agent spec plays seat 1 tick by tick (here the scripted 'prompt' agent, which draws at once)."""
    session = PlaySession(opponent="prompt", seed=5)
    assert session.env.opponent_bot is None and session.env.opponent_policy is not None
    session.new_round(0.0, options={"starter": 1})
    session.start(0.0)
    assert session.advance(0.2) == 2
    assert session.timed.game.moves[1] == 1 and session.your_turn and session.timed.reaction_ticks[1] == [0]
