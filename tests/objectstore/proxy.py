"""A TCP proxy on 127.0.0.1 in front of the S3 server, for the tests that look at the
wire: it counts the bytes the server sends (what a reader fetched), and can cut a
connection in the middle of a response (a connection dropped mid-read)."""

from __future__ import annotations

import socket
import threading
from typing import Any

#: How long a connection may stay silent before the proxy gives up on it (seconds).
IDLE_TIMEOUT = 30.0


class Proxy:
    """Forwards 127.0.0.1:``port`` to 127.0.0.1:``target``. ``received``: bytes the server
    sent since the last ``reset()``. ``cut_after(n, times)``: the next ``times``
    connections (-1: all) whose responses reach ``n`` bytes are closed there."""

    def __init__(self, target: int) -> None:
        self._target = target
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.1)      # so that close() ends the accepting thread at once
        self._closing = False
        self.port = self._listener.getsockname()[1]
        self._lock = threading.Lock()
        self.received = 0
        self.cuts = 0
        self._cut_at: int | None = None
        self._cuts_left = 0
        self._open: set[socket.socket] = set()
        self._thread = threading.Thread(target=self._accept, name="s3-proxy", daemon=True)
        self._thread.start()

    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def reset(self) -> None:
        with self._lock:
            self.received = 0

    def cut_after(self, size: int, times: int = 1) -> None:
        with self._lock:
            self._cut_at, self._cuts_left = size, times

    def _accept(self) -> None:
        while not self._closing:
            try:
                client, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:         # closed
                return
            try:
                server = socket.create_connection(("127.0.0.1", self._target), timeout=IDLE_TIMEOUT)
            except OSError:
                client.close()
                continue
            client.settimeout(IDLE_TIMEOUT)     # (an accepted socket inherits the listener's timeout)
            with self._lock:
                self._open |= {client, server}
            threading.Thread(target=self._pump, args=(client, server, False), daemon=True).start()
            threading.Thread(target=self._pump, args=(server, client, True), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket, downstream: bool) -> None:
        sent = 0
        try:
            while data := source.recv(1 << 16):
                if downstream:
                    data, cut = self._count(sent, data)
                    sent += len(data)
                    sink.sendall(data)
                    if cut:
                        break
                else:
                    sink.sendall(data)
        except OSError:
            pass
        finally:
            self._close(source, sink)

    def _count(self, sent: int, data: bytes) -> tuple[bytes, bool]:
        with self._lock:
            if self._cut_at is not None and self._cuts_left and sent + len(data) >= self._cut_at:
                data = data[:max(0, self._cut_at - sent)]
                self._cuts_left -= 1
                self.cuts += 1
                self.received += len(data)
                return data, True
            self.received += len(data)
        return data, False

    def _close(self, *sockets: socket.socket) -> None:
        for item in sockets:
            try:
                item.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            item.close()
            with self._lock:
                self._open.discard(item)

    def close(self) -> None:
        self._closing = True
        self._thread.join(timeout=10)
        self._listener.close()
        with self._lock:
            still_open = list(self._open)
        self._close(*still_open)

    def __enter__(self) -> Proxy:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()
