"""A TCP proxy on 127.0.0.1 in front of a PostgreSQL Unix socket that delays every packet and
counts round trips: how a store client behaves on a network rather than on one machine.

Each chunk of bytes is forwarded after `delay_s` (in each direction, so a round trip costs
twice that). A round trip is counted each time the client speaks after the server did (or
first): a statement pipelined with others is one, a statement awaited before the next is
sent is one each.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from pathlib import Path


class DelayProxy:
    """`with DelayProxy(socket_path, delay_s) as proxy:` then connect to `proxy.port`."""

    def __init__(self, unix_socket: Path, delay_s: float = 0.0) -> None:
        self.unix_socket = unix_socket
        self.delay_s = delay_s
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = int(self._listener.getsockname()[1])
        self._lock = threading.Lock()
        self._last = "server"
        self._round_trips = 0
        self.flights: list[bytes] = []  # the start of each round trip's request
        self._closing = False
        self._threads: list[threading.Thread] = []

    @property
    def round_trips(self) -> int:
        with self._lock:
            return self._round_trips

    def __enter__(self) -> DelayProxy:
        thread = threading.Thread(target=self._accept, daemon=True)
        thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._closing = True
        self._listener.close()

    def _accept(self) -> None:
        while not self._closing:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            server.connect(str(self.unix_socket))
            for source, target, side in ((client, server, "client"), (server, client, "server")):
                thread = threading.Thread(target=self._pump, args=(source, target, side),
                                          daemon=True)
                thread.start()

    def _pump(self, source: socket.socket, target: socket.socket, side: str) -> None:
        try:
            while data := source.recv(1 << 16):
                with self._lock:
                    if side == "client" and self._last == "server":
                        self._round_trips += 1
                        self.flights.append(data[:200])
                    self._last = side
                if self.delay_s:
                    time.sleep(self.delay_s)
                target.sendall(data)
        except OSError:
            pass
        finally:
            for end in (source, target):
                with contextlib.suppress(OSError):
                    end.shutdown(socket.SHUT_RDWR)


def proxied_url(url: str, port: int) -> str:
    """A pgserver URL (`postgresql://postgres:@/NAME?host=DIR`) through the proxy's port."""
    base, _, _ = url.partition("?")
    name = base.rsplit("/", 1)[1]
    return f"postgresql://postgres@127.0.0.1:{port}/{name}"


def socket_of(url: str) -> Path:
    """The Unix socket a pgserver URL names (its `host` folder, port 5432)."""
    _, _, query = url.partition("?")
    params = dict(part.split("=", 1) for part in query.split("&") if "=" in part)
    port = params.get("port", "5432")
    return Path(params["host"]) / f".s.PGSQL.{port}"
