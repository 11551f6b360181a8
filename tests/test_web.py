"""The browser table's server (war_env/web): the page it serves and its protocol, played through
Starlette's test client: a whole round by messages, no unrevealed card in any message, bad messages
answered, per-connection bounds, and tabs that stay apart."""

from __future__ import annotations

import json
import re
import time
from importlib import resources

import pytest

from war_env.core.cards import card_code
from war_env.play.session import AUTOPLAY, TURN, PlaySession
from war_env.web.protocol import ProtocolError, parse_command, state_message

pytest.importorskip("starlette")
pytest.importorskip("httpx")  # Starlette's TestClient

from starlette.testclient import TestClient  # noqa: E402
from starlette.websockets import WebSocketDisconnect  # noqa: E402

from war_env.web.app import Limits, TableSettings, TokenBucket, create_app  # noqa: E402

CARD_CODE = re.compile(r"\b(?:10|[2-9JQKA])[CDHS]\b")
WAR_SOON = 11
"""Seed whose first deal ties in the first battle (a nine against a nine: a war at once); you start."""
QUICK = {"target_points": 3}
"""Rounds end at 3 points: a whole round in a few seconds of wall-clock ticks."""


def codes_in(message) -> set[str]:
    return set(CARD_CODE.findall(json.dumps(message)))


class Tab:
    """A browser tab's end of the socket: every message it receives is checked for hidden cards."""

    def __init__(self, socket):
        self.socket = socket
        self.hello = self.receive()
        self.state = self.receive()

    def receive(self) -> dict:
        message = self.socket.receive_json()
        if message["type"] == "state":
            face_up = {seat["face_up"] for seat in message["scene"]["seats"]} - {None}
            assert codes_in(message) <= face_up, message  # no card but the two face-up ones, ever
            self.state = message
        return message

    def until(self, done, limit: int = 3000) -> dict:
        """Messages until ``done(message)``. Only asked while the round runs: its timers change on every
        tick, so a message comes at least every tick."""
        for _ in range(limit):
            message = self.receive()
            if done(message):
                return message
        raise AssertionError(f"no such message in {limit}; the last: {message}")

    def press(self, command: str) -> dict:
        """Send a command; every command is answered (a state, or an error)."""
        self.socket.send_json({"type": "command", "command": command})
        return self.receive()

    def seat(self, seat: int) -> dict:
        return self.state["scene"]["seats"][seat]


def your_turn_again(message) -> bool:
    you = message["scene"]["seats"][0]
    return you["turn"] and you["laid"] == 0


def is_state(message) -> bool:
    return message["type"] == "state"


def is_error(message) -> bool:
    return message["type"] == "error"


TABLE = "ws://localhost/ws"
"""The table's URL as a page served from this machine opens it (TestClient would say Host: testserver)."""


def local_client(app) -> TestClient:
    """A client of a server on this machine: its requests say ``Host: localhost``."""
    return TestClient(app, base_url="http://localhost")


@pytest.fixture
def client():
    app = create_app(TableSettings(opponent="instant", seed=WAR_SOON, rules=QUICK))
    with local_client(app) as client:
        yield client


# --- the page --------------------------------------------------------------------------------------
def test_the_page_has_the_table_the_three_buttons_and_the_rules_guide(client):
    page = client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    html = page.text
    for command in ("turn", "autoplay", "new_round"):
        assert f'data-command="{command}"' in html
    for section in ("The aim", "The steps of a round", "The controls", "An example", "Common questions"):
        assert f"<h3>{section}</h3>" in html
    assert html.index('id="table"') < html.index('id="guide"')  # the table above the guide
    assert "default-src 'self'" in page.headers["content-security-policy"]  # the browser loads nothing else
    for asset in re.findall(r'(?:src|href)="([^"]+)"', html):
        assert client.get("/" + asset).status_code == 200, asset


def test_nothing_on_the_page_comes_from_the_internet():
    static = resources.files("war_env.web") / "static"
    names = sorted(entry.name for entry in static.iterdir())
    assert names == ["favicon.svg", "index.html", "style.css", "table.js"]
    for name in names:
        text = (static / name).read_text().replace('xmlns="http://www.w3.org/2000/svg"', "")  # a name, not a fetch
        assert not re.search(r"https?://|//cdn|@import|url\(", text), name


# --- the protocol --------------------------------------------------------------------------------
def test_a_state_message_holds_exactly_the_revealed_cards_at_every_tick():
    """Played tick by tick on the server's side: a laid card is face down until both have laid, so
    the message holds the revealed cards and nothing else, in every tick of a whole round."""
    session = PlaySession(opponent="instant", seed=WAR_SOON, **QUICK)
    session.new_round(0.0)
    now, hidden_seen = 0.0, 0
    session.handle(AUTOPLAY, now)
    while not session.over:
        now += session.tick_seconds
        if not session.autoplaying:
            session.handle(AUTOPLAY, now)
        session.advance(now)
        game = session.timed.game
        visible = {card_code(card) for card in game.visible if card is not None}
        assert codes_in(state_message(session)) == visible
        hidden_seen += sum(card is not None for card in game.face_up)  # laid, not yet revealed
    assert hidden_seen > 0 and session.timed.game.wars > 0


def test_commands_are_parsed_strictly():
    assert parse_command('{"type": "command", "command": "turn"}') == TURN
    for text, error in [
        (None, "must be text"),
        ("turn", "not valid JSON"),
        ("[1, 2]", "JSON object"),
        ('{"type": "hello"}', "unknown message type 'hello'"),
        ('{"type": "command", "command": "quit"}', "unknown command 'quit'"),
        ('{"type": "command", "command": ["turn"]}', "unknown command"),
        ('{"type": "command", "command": "turn", "cards": "AS"}', "unknown field"),
        ('{"type": "command", "command": "' + "x" * 300 + '"}', "too long"),
    ]:
        with pytest.raises(ProtocolError, match=re.escape(error)):
            parse_command(text)


def test_a_whole_round_is_played_by_messages(client):
    with client.websocket_connect(TABLE) as socket:
        tab = Tab(socket)
        assert tab.hello["type"] == "hello" and tab.hello["rules"]["target_points"] == 3
        assert tab.hello["opponent"] == "instant"
        assert tab.state["waiting"] and tab.state["controls"][0]["label"] == "Start round"
        time.sleep(0.5)  # five ticks of wall-clock time: a waiting round does not run
        started = tab.press(TURN)
        assert not started["waiting"] and started["scene"]["tick"] <= 1
        assert started["scene"]["seats"][0]["seconds_left"] >= 2.9  # your timer starts now, not at the deal
        seen_war = False
        while tab.state["scene"]["popup"] is None:
            pressed_at = tab.press(TURN)["scene"]["tick"]  # your card is laid on the next tick
            tab.until(
                lambda message: (
                    is_state(message)
                    and message["scene"]["tick"] > pressed_at
                    and (message["scene"]["popup"] or your_turn_again(message))
                )
            )
            seen_war = seen_war or tab.state["scene"]["at_war"]
        scene = tab.state["scene"]
        assert seen_war and scene["wars"] >= 1
        popup = scene["popup"]
        assert popup["round_number"] == 1 and max(scene["seats"][0]["points"], scene["seats"][1]["points"]) == 3
        assert scene["scoreboard"]["rounds"] == 1 and not any(seat["taken_over"] for seat in scene["seats"])
        assert scene["seats"][0]["false_starts"] == 0
        dealt = tab.press("new_round")
        assert dealt["waiting"] and dealt["scene"]["popup"] is None and dealt["scene"]["scoreboard"]["rounds"] == 1


def test_a_press_outside_your_turn_is_answered_as_a_false_start():
    app = create_app(TableSettings(opponent="fixed:ticks=10", seed=WAR_SOON))
    with local_client(app) as client, client.websocket_connect(TABLE) as socket:
        tab = Tab(socket)
        tab.press(TURN)  # start: you draw first
        tab.press(TURN)  # lay your card
        tab.until(lambda message: is_state(message) and message["scene"]["turn"] == 1)  # the bot's turn, for a second
        tab.press(TURN)
        tab.until(lambda message: is_state(message) and message["scene"]["seats"][0]["false_starts"] == 1)
        assert tab.state["notice"] == "False start! Wait for your turn (1 this round)"
        assert tab.seat(0)["laid"] == 1 and tab.seat(1)["laid"] == 0  # nothing moved


def test_bad_messages_get_an_error_and_the_table_plays_on(client):
    with client.websocket_connect(TABLE) as socket:
        tab = Tab(socket)
        for bad in ("not json", "[]", '{"type": "command", "command": "cheat"}', "x" * 10_000):
            socket.send_text(bad)
            assert is_error(tab.receive())
        socket.send_bytes(b'{"type": "command", "command": "turn"}')
        assert "must be text" in tab.receive()["message"]
        assert tab.state["waiting"]  # nothing happened
        assert not tab.press(TURN)["waiting"]  # the connection still plays


def test_each_tab_has_its_own_table_and_a_closed_tab_ends_its_session(client):
    sessions = client.app.state.sessions
    with client.websocket_connect(TABLE) as first, client.websocket_connect(TABLE) as second:
        one, two = Tab(first), Tab(second)
        assert len(sessions) == 2 and len({id(session) for session in sessions.values()}) == 2
        one.press(AUTOPLAY)
        one.until(lambda message: is_state(message) and message["scene"]["battle"] >= 2)
        one.press("new_round")
        answer = two.press("autoplay")  # the second tab starts its own round now
        assert answer["scene"]["round_number"] == 1 and answer["scene"]["battle"] <= 1
        assert one.state["scene"]["round_number"] == 1 and one.state["waiting"]
    deadline = time.monotonic() + 5
    while sessions and time.monotonic() < deadline:
        time.sleep(0.02)
    assert sessions == {}


def test_a_tab_beyond_the_limit_is_told_and_closed():
    app = create_app(TableSettings(opponent="instant"), Limits(max_sessions=1))
    with local_client(app) as client, client.websocket_connect(TABLE) as first:
        Tab(first)
        with client.websocket_connect(TABLE) as second:
            message = second.receive_json()
            assert message["type"] == "error" and "1 tables open" in message["message"]
            with pytest.raises(WebSocketDisconnect) as closed:
                second.receive_json()
            assert closed.value.code == 1013
        assert len(app.state.sessions) == 1


def test_a_flood_of_messages_is_refused_then_the_connection_closed():
    limits = Limits(messages_per_second=0.1, burst=3, dropped_before_close=5)
    app = create_app(TableSettings(opponent="instant"), limits)
    with local_client(app) as client, client.websocket_connect(TABLE) as socket:
        tab = Tab(socket)
        replies = []
        with pytest.raises(WebSocketDisconnect) as closed:
            for _ in range(20):
                socket.send_json({"type": "command", "command": "new_round"})
                replies.append(tab.receive())
        assert closed.value.code == 1008
        errors = [reply["message"] for reply in replies if is_error(reply)]
        assert len([reply for reply in replies if is_state(reply)]) == 3  # the burst
        assert errors[0].startswith("too many messages: at most 0.1 a second") and "closed" in errors[-1]


def test_a_silent_tab_is_closed_after_the_idle_limit():
    app = create_app(TableSettings(opponent="instant"), Limits(idle_seconds=0.3))
    with local_client(app) as client, client.websocket_connect(TABLE) as socket:
        Tab(socket)
        message = socket.receive_json()
        assert message["type"] == "error" and "reload to play again" in message["message"]
        with pytest.raises(WebSocketDisconnect) as closed:
            socket.receive_json()
        assert closed.value.code == 1001


def test_another_sites_page_may_not_open_a_table(client):
    with pytest.raises(WebSocketDisconnect) as refused:
        with client.websocket_connect(TABLE, headers={"origin": "http://elsewhere.example"}):
            pass
    assert refused.value.code == 1008
    with client.websocket_connect(TABLE, headers={"origin": "http://localhost"}) as socket:
        assert Tab(socket).hello["type"] == "hello"


def test_bad_settings_fail_before_the_server_starts():
    with pytest.raises(ValueError, match="unknown opponent 'nobody'"):
        create_app(TableSettings(opponent="nobody"))
    with pytest.raises(ValueError, match="max_sessions must be positive"):
        Limits(max_sessions=0)


@pytest.mark.parametrize("port", ["99999", "-1", "80000"])
def test_a_port_that_does_not_exist_is_one_line_from_war_play(port):
    import subprocess
    import sys
    from pathlib import Path

    war_play = Path(sys.executable).parent / "war-play"
    done = subprocess.run([str(war_play), "--web", "--port", port], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1] == (
        f"war-play: error: port must be a whole number from 0 (any free port) to 65535, got {port}"
    )


def test_the_token_bucket_allows_a_burst_then_the_rate():
    bucket = TokenBucket(rate=2, burst=3, now=0.0)
    assert [bucket.allow(0.0) for _ in range(4)] == [True, True, True, False]
    assert bucket.allow(0.5) and not bucket.allow(0.5)  # one token back every half second


def test_a_trained_model_can_be_the_opponent(tmp_path):
    """``--opponent ppo:PATH``: the model plays seat 1 tick by tick on the server (an untrained net here)."""
    pytest.importorskip("stable_baselines3")
    import gymnasium as gym

    from war_env.agents.algorithms import build_model
    from war_env.agents.model_files import save_model

    architecture = {"net_arch": {"pi": [8], "vf": [8]}}
    model = build_model("ppo", gym.make("War-v0"), architecture, {"n_steps": 16, "batch_size": 16}, seed=0)
    save_model(model, tmp_path / "ppo.zip", "ppo", architecture)
    app = create_app(TableSettings(opponent=f"ppo:{tmp_path / 'ppo.zip'}", seed=WAR_SOON, rules=QUICK))
    with local_client(app) as client, client.websocket_connect(TABLE) as socket:
        tab = Tab(socket)
        (session,) = app.state.sessions.values()
        assert session.env.opponent_bot is None and type(session.env.opponent_policy).__name__ != "Bot"
        tab.press(AUTOPLAY)
        tab.until(lambda message: is_state(message) and (message["scene"]["battle"] >= 3 or message["scene"]["popup"]))
        assert session.timed.game.moves[1] >= 2  # the model's seat laid its cards (itself, or taken over)
