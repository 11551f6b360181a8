"""The server of ``war-play --web``: one page, and one game per browser tab over a WebSocket.

``create_app`` builds the Starlette app: ``GET /`` is the page (plain HTML, CSS and JS shipped in
``war_env/web/static``), ``/ws`` is the table. Each WebSocket connection is a tab and gets its own
``PlaySession``, played on the server in wall-clock ticks; the session ends when the tab closes (or
stays silent for ``Limits.idle_seconds``). The page only draws the ``state`` messages it is sent
(``war_env.web.protocol``). ``serve`` runs the app with uvicorn.

Bounds per connection and per server (``Limits``): a message longer than ``max_message_bytes`` is
refused (uvicorn closes the socket on a frame that large; the app answers a shorter over-long one
with an error), at most ``messages_per_second`` (with bursts of ``burst``) are read and the rest
answered with an error until ``dropped_before_close`` have been dropped, then the socket is closed;
at most ``max_sessions`` tabs play at once, at most ``tables_per_client`` of them from one address (the
next one is told so and closed). In front of the app (``war_env.web.guards``): a request's head must be
complete within ``head_seconds`` (slowloris), and a request whose ``Host`` is not this server's is
refused (DNS rebinding).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import socket
import sys
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from urllib.parse import urlsplit

import anyio
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import Mount, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from war_env.play.loop import WallClock
from war_env.play.session import PlaySession
from war_env.web.guards import KnownHosts, PerAddress, SlowHeads
from war_env.web.protocol import (
    MAX_MESSAGE_BYTES,
    ProtocolError,
    error_message,
    hello_message,
    parse_command,
    state_message,
)

CLOSE_GOING_AWAY, CLOSE_POLICY, CLOSE_TRY_AGAIN = 1001, 1008, 1013
"""WebSocket close codes (RFC 6455): idle, abuse or a foreign page, server full."""
SECURITY_HEADERS = [
    (b"content-security-policy", b"default-src 'self'; connect-src 'self'; frame-ancestors 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
]
"""The page loads nothing but its own files: the browser enforces it."""


@dataclass(frozen=True)
class TableSettings:
    """How every tab's game is dealt and played: the arguments of ``PlaySession``."""

    opponent: str = "human"
    turn_seconds: float = 3.0
    seed: int | None = None
    """Seed of each tab's first deal (``None``: a random deal per tab)."""
    rules: Mapping = field(default_factory=dict)
    """Other ``WarConfig`` fields, e.g. ``{"target_points": 10}``."""
    trust_model_file: bool = False

    def new_session(self) -> PlaySession:
        session = PlaySession(self.opponent, self.turn_seconds, self.seed, self.trust_model_file, **self.rules)
        return session


@dataclass(frozen=True)
class Limits:
    """What one server and one connection may use."""

    max_sessions: int = 16
    tables_per_client: int = 4
    """Tables one client address may hold at once: a quarter of the default ``max_sessions``."""
    max_message_bytes: int = MAX_MESSAGE_BYTES
    messages_per_second: float = 20.0
    burst: int = 40
    dropped_before_close: int = 100
    idle_seconds: float = 1800.0
    """A tab that sends nothing for this long is closed (its session ends)."""
    frame_seconds: float = 0.04
    """How often a session's due ticks are played and a changed table is sent."""
    head_seconds: float = 10.0
    """A request's head (its line and headers) must be complete this long after its first byte."""
    heads_per_client: int = 64
    heads_in_total: int = 512
    """Requests whose head is still coming, from one address and in all: more are refused at once."""

    def __post_init__(self):
        for name, value in asdict(self).items():
            if not value > 0:
                raise ValueError(f"{name} must be positive, got {value!r}")


class TokenBucket:
    """At most ``rate`` events a second on average, ``burst`` at once."""

    def __init__(self, rate: float, burst: int, now: float):
        self.rate, self.capacity = rate, burst
        self.tokens, self.at = float(burst), now

    def allow(self, now: float) -> bool:
        self.tokens = min(self.capacity, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


def create_app(
    settings: TableSettings = TableSettings(), limits: Limits = Limits(), clock=None, hosts: Iterable[str] = ()
) -> Starlette:
    """The app. A bad setting (an unknown opponent, a model file that cannot be loaded) raises here,
    before any tab connects. ``app.state.sessions`` maps each open connection to its session.
    ``hosts``: the names (besides ``localhost`` and IP addresses) a request's ``Host`` may give."""
    settings.new_session()  # fail now, not in every tab
    clock = clock if clock is not None else WallClock()
    numbers = itertools.count(1)
    pool = TablePool(limits)

    async def table(websocket: WebSocket) -> None:
        sessions = app.state.sessions
        if not _same_origin(websocket):
            await websocket.close(code=CLOSE_POLICY)  # another site's page may not play here
            return
        await websocket.accept()
        client = websocket.client.host if websocket.client else "unknown"
        seat, why, victim = pool.take(client)
        if seat is None:
            await websocket.send_json(error_message(why))
            await websocket.close(code=CLOSE_TRY_AGAIN)
            return
        if victim is not None:
            with contextlib.suppress(*GONE):
                await victim.close(CLOSE_TRY_AGAIN, EVICTED)
        number = next(numbers)
        sessions[number] = None  # the place is taken while the session is made
        try:
            sessions[number] = session = await anyio.to_thread.run_sync(settings.new_session)
            seat.connection = Connection(websocket, session, settings, limits, clock)
            await seat.connection.run()
        finally:
            del sessions[number]
            pool.leave(seat)

    static = StaticFiles(packages=[("war_env.web", "static")], html=True)
    app = Starlette(
        routes=[WebSocketRoute("/ws", table), Mount("/", app=static)],
        middleware=[Middleware(SecurityHeaders), Middleware(KnownHosts, names=hosts)],
    )
    app.state.sessions = {}
    return app


EVICTED = (
    "this table was closed to make room for a player from another address (the server's tables are "
    "shared between addresses): reload to play again when a table is free"
)


@dataclass(eq=False)
class Seat:
    """A table held by a client address; ``connection`` once its session is made."""

    client: str
    connection: Connection | None = None


class TablePool:
    """Who holds the server's ``max_sessions`` tables, at most ``tables_per_client`` per address. When all
    are taken, a new address is not simply refused: the address holding the most tables gives up its
    table idle the longest, if it holds at least two more than the newcomer (so a few addresses with many
    tabs cannot lock everyone out, and two addresses never take a table from each other in turn). So each
    address is sure of a share of the pool: ``max_sessions`` over the addresses that want tables."""

    def __init__(self, limits: Limits):
        self.limits = limits
        self.seats = PerAddress()
        """Client address -> the seats it holds, oldest first."""

    def take(self, client: str) -> tuple[Seat | None, str | None, Connection | None]:
        """A seat for ``client`` and the connection to close for it (or ``None``); or no seat and why."""
        mine = len(self.seats.of(client))
        if mine >= self.limits.tables_per_client:
            return (
                None,
                (
                    f"you already have {self.limits.tables_per_client} tables open here, the most one address "
                    "may hold: close a tab to open another"
                ),
                None,
            )
        victim = None
        if self.seats.total() >= self.limits.max_sessions:
            victim = self._victim(mine)
            if victim is None:
                return (
                    None,
                    (f"this server already has {self.limits.max_sessions} tables open: close a tab or try again later"),
                    None,
                )
            self.leave(victim)
        seat = Seat(client)
        self.seats.add(client, seat)
        return seat, None, None if victim is None else victim.connection

    def _victim(self, newcomer_holds: int) -> Seat | None:
        """The longest-idle playing table of the address holding the most, if it holds two more than the
        newcomer."""
        richest = self.seats.richest()
        playing = [seat for seat in richest if seat.connection is not None]
        if len(richest) < newcomer_holds + 2 or not playing:
            return None
        return min(playing, key=lambda seat: seat.connection.last_heard)

    def leave(self, seat: Seat) -> None:
        self.seats.remove(seat.client, seat)


class Connection:
    """One tab: reads its commands, plays its session's ticks as they fall due, sends the table."""

    def __init__(self, websocket: WebSocket, session: PlaySession, settings: TableSettings, limits: Limits, clock):
        self.websocket, self.session, self.limits, self.clock = websocket, session, limits, clock
        self.settings = settings
        self.bucket = TokenBucket(limits.messages_per_second, limits.burst, clock.now())
        self.dropped = 0
        self.last_heard = clock.now()
        self.last_sent: str | None = None
        self.lock = anyio.Lock()

    async def run(self) -> None:
        session = self.session
        session.new_round(self.clock.now())
        limits = {
            "max_message_bytes": self.limits.max_message_bytes,
            "messages_per_second": self.limits.messages_per_second,
        }
        try:
            await self.send(hello_message(session, self.settings.opponent, limits))
            await self.send_state(always=True)
        except GONE:
            return  # the tab is gone: its session ends with this connection
        async with anyio.create_task_group() as group:
            group.start_soon(self._play, group.cancel_scope)
            group.start_soon(self._read, group.cancel_scope)

    async def _read(self, scope: anyio.CancelScope) -> None:
        """Commands from the page until the tab closes; then the connection ends."""
        try:
            await self._read_commands()
        except GONE:
            pass
        scope.cancel()

    async def _read_commands(self) -> None:
        """Each command is answered with the table (or an error)."""
        while True:
            message = await self.websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
            now = self.clock.now()
            self.last_heard = now
            if not self.bucket.allow(now):
                self.dropped += 1
                if self.dropped >= self.limits.dropped_before_close:
                    await self.close(CLOSE_POLICY, "too many messages: the connection is closed")
                    return
                await self.send(
                    error_message(
                        f"too many messages: at most {self.limits.messages_per_second:g} a second; this one was dropped"
                    )
                )
                continue
            try:
                command = parse_command(message.get("text"), self.limits.max_message_bytes)
            except ProtocolError as error:
                await self.send(error_message(str(error)))
                continue
            self.session.handle(command, now)
            self.session.advance(now)
            await self.send_state(always=True)

    async def _play(self, scope: anyio.CancelScope) -> None:
        """The session's ticks in wall-clock time; the table is sent whenever it changed."""
        try:
            while True:
                await anyio.sleep(self.limits.frame_seconds)
                now = self.clock.now()
                if now - self.last_heard > self.limits.idle_seconds:
                    await self.close(
                        CLOSE_GOING_AWAY, "no press for a long time: this table is closed, reload to play again"
                    )
                    break
                self.session.advance(now)
                await self.send_state()
        except GONE:
            pass
        scope.cancel()

    async def send_state(self, always: bool = False) -> None:
        text = json.dumps(state_message(self.session), separators=(",", ":"))
        if always or text != self.last_sent:
            self.last_sent = text
            await self._send_text(text)

    async def send(self, message: dict) -> None:
        await self._send_text(json.dumps(message, separators=(",", ":")))

    async def close(self, code: int, reason: str) -> None:
        """Say why, then close the socket."""
        await self.send(error_message(reason))
        await self._on_socket(self.websocket.close, code=code)

    async def _send_text(self, text: str) -> None:
        await self._on_socket(self.websocket.send_text, text)

    async def _on_socket(self, action, *args, **kwargs) -> None:
        """Two tasks use one socket: one whole action at a time. A socket closed meanwhile (Starlette
        and uvicorn say so with these errors) is ``ClosedWhileSending``."""
        async with self.lock:
            try:
                await action(*args, **kwargs)
            except (RuntimeError, OSError) as error:
                raise ClosedWhileSending() from error


class ClosedWhileSending(Exception):
    """The socket closed while a message was being sent."""


GONE = (WebSocketDisconnect, ClosedWhileSending)
"""How a closed tab shows itself to the connection's tasks."""


def _same_origin(websocket: WebSocket) -> bool:
    """A browser names the page that opens a WebSocket (``Origin``); only this server's own page may.
    Clients that send no ``Origin`` (not browsers) are let in."""
    origin = websocket.headers.get("origin")
    return origin is None or urlsplit(origin).netloc == websocket.headers.get("host")


class SecurityHeaders:
    """ASGI middleware: the security headers on every HTTP response."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *SECURITY_HEADERS]}
            await send(message)

        return await self.app(scope, receive, send_with_headers)


# --- running it ----------------------------------------------------------------------------------
@dataclass
class Server:
    """A bound, not yet running uvicorn server and the page's URL."""

    server: object
    socket: socket.socket
    url: str

    def run(self) -> None:
        """Serve until interrupted (Ctrl-C) or ``stop()``."""
        self.server.run(sockets=[self.socket])

    def stop(self) -> None:
        self.server.should_exit = True


def make_server(
    settings: TableSettings, limits: Limits = Limits(), host: str = "127.0.0.1", port: int = 8000
) -> Server:
    """The app under uvicorn, its socket bound and listening now (port 0: any free port), so the URL is
    known and a port in use is an error before anything runs."""
    import uvicorn

    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        raise ValueError(f"port must be a whole number from 0 (any free port) to 65535, got {port!r}")
    app = create_app(settings, limits, hosts=_names_of(host))
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(128)  # a browser opened at the printed URL waits in the queue until uvicorn runs
    except OSError as error:
        sock.close()
        raise OSError(f"cannot serve on {host}:{port}: {error.strerror}") from error
    bound_port = sock.getsockname()[1]
    from uvicorn.protocols.http.auto import AutoHTTPProtocol

    heads = SlowHeads(limits.head_seconds, limits.heads_per_client, limits.heads_in_total)
    # no limit_concurrency: uvicorn would answer 503 to everyone while slow clients hold connections
    config = uvicorn.Config(
        app,
        log_level="warning",
        lifespan="off",
        ws_max_size=limits.max_message_bytes,
        http=heads.protocol(AutoHTTPProtocol),
    )
    shown_host = f"[{host}]" if ":" in host else host
    return Server(uvicorn.Server(config), sock, f"http://{shown_host}:{bound_port}/")


def _names_of(host: str) -> list[str]:
    """The host names a request to a server bound to ``host`` may give (IP addresses and ``localhost``
    always may): the name it was started with, if one, and this machine's own names."""
    machine = socket.gethostname().lower()
    return [name for name in (host.lower(), machine, f"{machine}.local") if name]


def serve(
    settings: TableSettings, limits: Limits = Limits(), host: str = "127.0.0.1", port: int = 8000, out=None
) -> None:
    """Serve the page until Ctrl-C, after printing its URL to ``out`` (standard output)."""
    server = make_server(settings, limits, host, port)
    out = out if out is not None else sys.stdout
    print(f"War table: open {server.url} in a browser (Ctrl-C stops the server)", file=out, flush=True)
    if host in ("0.0.0.0", "::"):
        print("Other devices on your network can play at this machine's address, same port.", file=out, flush=True)
    server.run()
