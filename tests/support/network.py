"""Addresses for tests about servers that are not there."""

from __future__ import annotations

import socket


def closed_port_url() -> str:
    """`http://127.0.0.1:PORT` for a port that was free a moment ago: nothing listens there,
    so a connection is refused at once (unlike a fixed port, which some machine may use)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"
