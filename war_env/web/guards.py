"""What keeps a hostile client from starving or hijacking ``war-play --web``: two guards in front of the app.

``SlowHeads`` (slowloris). A client that opens connections and sends their request headers a byte at a
time holds each connection for as long as it likes: uvicorn has no timeout for a request's head, and its
``limit_concurrency`` then answers 503 to everyone. So uvicorn runs without that limit, and every
connection passes through ``SlowHeads``, which closes a connection whose request head (up to the blank
line) is not complete ``head_seconds`` after it began, and refuses at once a connection while its client
address already has ``heads_per_client`` heads in progress. When the server has ``heads_in_total``, the
address with the most gives up its oldest head to a newcomer with at least two fewer (``admit``). A
connection that finished its head (a page request, a WebSocket upgrade) is no longer counted; uvicorn's
keep-alive timeout and the app's own limits take over. Why not a library: uvicorn has no such option,
and the usual answer (a reverse proxy) is not something a ``war-play --web`` user runs.

``KnownHosts`` (DNS rebinding). A page on ``evil.example`` whose DNS name is switched to 127.0.0.1 is
same-origin with itself, so an Origin check alone lets it open a table. A request (a page or a
WebSocket handshake) is served only if its ``Host`` is an IP address, ``localhost``, or a name the
server was started for: the rebinding page's Host is its own name, which is none of those.
"""

from __future__ import annotations

import asyncio
import ipaddress
from collections.abc import Callable, Iterable
from urllib.parse import urlsplit

END_OF_HEAD = b"\r\n\r\n"


class PerAddress:
    """What each client address holds of a pool shared by the server, oldest first: the bookkeeping of a fair
    share (the slow heads here, the tables in ``app.TablePool``), where the address holding the most gives way."""

    def __init__(self):
        self.held: dict[str, list] = {}

    def of(self, client: str) -> list:
        return self.held.get(client, [])

    def total(self) -> int:
        return sum(map(len, self.held.values()))

    def richest(self) -> list:
        """What the address holding the most holds (empty when nobody holds anything)."""
        return max(self.held.values(), key=len) if self.held else []

    def add(self, client: str, item) -> None:
        self.held.setdefault(client, []).append(item)

    def remove(self, client: str, item) -> None:
        held = self.held.get(client, [])
        if item in held:
            held.remove(item)
            if not held:
                del self.held[client]


class SlowHeads:
    """The per-server state of the slowloris guard; ``protocol(inner)`` is what uvicorn's ``http`` takes."""

    def __init__(self, head_seconds: float, heads_per_client: int, heads_in_total: int):
        self.head_seconds, self.per_client, self.in_total = head_seconds, heads_per_client, heads_in_total
        self.heads = PerAddress()
        """Client address -> its connections in the middle of a request head, oldest first."""

    def protocol(self, inner: Callable[..., asyncio.Protocol]) -> Callable[..., asyncio.Protocol]:
        """A protocol factory that wraps each of ``inner``'s protocols (uvicorn calls it with its keywords)."""
        return lambda **kwargs: _Guarded(self, inner(**kwargs))

    def admit(self, connection: _Guarded) -> bool:
        """Count ``connection``'s head in, or refuse it. When the server's heads are all taken, the address
        with the most gives up its oldest (the slowest) if it has at least two more than the newcomer: slow
        clients from many addresses cannot fill the server and lock out a new one."""
        mine = self.heads.of(connection.client)
        if len(mine) >= self.per_client:
            return False
        if self.heads.total() >= self.in_total:
            richest = self.heads.richest()
            if len(richest) < len(mine) + 2:
                return False
            richest[0].cut_off()
        self.heads.add(connection.client, connection)
        return True

    def release(self, connection: _Guarded) -> None:
        self.heads.remove(connection.client, connection)


class _Guarded(asyncio.Protocol):
    """An HTTP connection in front of uvicorn's protocol: bytes go through as they come; the head is timed."""

    def __init__(self, guard: SlowHeads, inner: asyncio.Protocol):
        self.guard, self.inner = guard, inner
        self.transport: asyncio.Transport | None = None
        self.client = ""
        self.timer: asyncio.TimerHandle | None = None
        self.admitted = False
        self.tail = b""
        """The last bytes of the head so far (the blank line may arrive split in two)."""

    def connection_made(self, transport: asyncio.Transport) -> None:
        self.transport = transport
        peer = transport.get_extra_info("peername")
        self.client = str(peer[0]) if isinstance(peer, (tuple, list)) and peer else "unknown"
        self.admitted = self._start_head()
        if not self.admitted:
            transport.abort()  # uvicorn never hears of it
            return
        self.inner.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        if self.timer is None and not self._start_head():  # the next request of a kept-alive connection
            self.transport.abort()
            return
        seen = self.tail + data
        if END_OF_HEAD in seen:
            self._end_head()  # a body or the next request after it: uvicorn's business
        else:
            self.tail = seen[-len(END_OF_HEAD) :]
        self.inner.data_received(data)

    def connection_lost(self, exc: Exception | None) -> None:
        if self.timer is not None:
            self._end_head()
        if self.admitted:
            self.inner.connection_lost(exc)

    def _start_head(self) -> bool:
        if not self.guard.admit(self):
            return False
        self.timer = asyncio.get_running_loop().call_later(self.guard.head_seconds, self._too_slow)
        self.tail = b""
        return True

    def _end_head(self) -> None:
        self.timer.cancel()
        self.timer = None
        self.guard.release(self)

    def _too_slow(self) -> None:
        self.timer = None
        self.guard.release(self)
        self.transport.abort()

    def cut_off(self) -> None:
        """Close this connection in the middle of its head, to make room for another client's."""
        self._end_head()
        self.transport.abort()

    # uvicorn's protocol handles the rest: end of file, flow control
    def eof_received(self):
        return self.inner.eof_received() if self.admitted else None

    def pause_writing(self) -> None:
        self.inner.pause_writing()

    def resume_writing(self) -> None:
        self.inner.resume_writing()


class KnownHosts:
    """ASGI middleware: requests whose ``Host`` is not this server's are refused (see the module)."""

    def __init__(self, app, names: Iterable[str]):
        self.app = app
        self.names = {"localhost", *(name.lower() for name in names)}

    def allows(self, host: str | None) -> bool:
        if not host:
            return False
        try:
            name = urlsplit(f"//{host}").hostname or ""
        except ValueError:
            return False
        try:
            ipaddress.ip_address(name)
            return True
        except ValueError:
            return name in self.names

    async def __call__(self, scope, receive, send):
        if scope["type"] not in ("http", "websocket"):
            return await self.app(scope, receive, send)
        host = dict(scope["headers"]).get(b"host", b"").decode("latin-1")
        if self.allows(host):
            return await self.app(scope, receive, send)
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008, "reason": "unknown Host"})
            return
        body = (
            f"unknown Host {host!r}: this server answers to its IP addresses and to {', '.join(sorted(self.names))}\n"
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 400,
                "headers": [
                    (b"content-type", b"text/plain; charset=utf-8"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
