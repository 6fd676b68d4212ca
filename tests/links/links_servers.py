"""Real HTTP(S) servers on 127.0.0.1 for the link checker tests, each started and stopped by a test fixture.

Every behaviour the checker must handle is a path (see ``_Handler.routes``); ``Server.counts`` counts
requests per (method, path) so tests can assert what was, and was not, sent.
"""

from __future__ import annotations

import socket
import ssl
import struct
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>A page</title></head>
<body>
<h1 id="intro">Introduction</h1>
<p>Plenty of ordinary static text so that this does not look like an app shell to the checker. {filler}</p>
<a name="legacy">old-style anchor</a>
<h2 id="user-content-install">Install</h2>
<p>More text.</p>
<script>var config = {{"anchors": ["from-script"]}};</script>
</body></html>
"""
FILLER = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. " * 10

APP_SHELL = """<!doctype html><html><head><title>App</title><script src="/app.js"></script></head>
<body><div id="root"></div><noscript>Enable JavaScript.</noscript></body></html>"""

MAX_STREAM_SECONDS = 30.0  # no handler streams for longer than this, whatever the client does


class _Httpd(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128  # the default 5 makes concurrent connects wait for a SYN retransmit (1 s)

    def __init__(self, addr: tuple[str, int], tls: ssl.SSLContext | None) -> None:
        super().__init__(addr, _Handler)
        self.tls = tls
        self.counts: Counter[tuple[str, str]] = Counter()
        self.keys: Counter[str] = Counter()
        self.agents: list[str] = []
        self.in_flight: Counter[str] = Counter()  # /track/KEY: requests being answered now
        self.most_in_flight: Counter[str] = Counter()  # /track/KEY: the most at once
        self.arrivals: dict[str, list[float]] = {}  # /track/KEY: monotonic arrival times
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.connections = 0  # TCP connections accepted

    def finish_request(self, request: Any, client_address: Any) -> None:
        with self.lock:
            self.connections += 1
        request.settimeout(10)
        if self.tls is not None:
            try:
                request = self.tls.wrap_socket(request, server_side=True)
            except (ssl.SSLError, OSError):
                return  # the client rejected our certificate: exactly what the bad-certificate test wants
        super().finish_request(request, client_address)

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # clients hang up mid-body on purpose (body cap, deadline); nothing to report


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in two writes; without this, Nagle's algorithm holds the body until the
    # client's delayed ACK (about 40 ms), which would slow every client for reasons of our own making.
    disable_nagle_algorithm = True
    server: _Httpd

    def log_message(self, format: str, *args: Any) -> None:
        pass

    # --- helpers -----------------------------------------------------------------------------------

    def _send(self, status: int, body: bytes = b"", ctype: str = "text/html; charset=utf-8",
              headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _count_key(self, key: str) -> int:
        with self.server.lock:
            self.server.keys[key] += 1
            return self.server.keys[key]

    # --- routing -----------------------------------------------------------------------------------

    def do_HEAD(self) -> None:
        self._route()

    def do_GET(self) -> None:
        self._route()

    def _route(self) -> None:
        parts = urlsplit(self.path)
        path, query = parts.path, {k: v[0] for k, v in parse_qs(parts.query).items()}
        with self.server.lock:
            self.server.counts[(self.command, path)] += 1
            self.server.agents.append(self.headers.get("User-Agent", ""))
        segs = path.strip("/").split("/")
        head = segs[0]
        page = PAGE.format(filler=FILLER).encode()
        if head in ("ok", "page", ""):
            self._send(200, page)
        elif head == "redirect":  # /redirect/3 -> /redirect/2 -> ... -> /redirect/0 (a page)
            n = int(segs[1])
            if n == 0:
                self._send(200, page)
            else:
                self._send(int(query.get("code", "301")), headers={"Location": f"/redirect/{n - 1}"})
        elif head == "goto":  # /goto?to=URL: a redirect to any address (another host, for one)
            self._send(302, headers={"Location": query["to"]})
        elif head == "cookie":  # /cookie: sets a session cookie and redirects to itself; with it, a page
            if "session=yes" in self.headers.get("Cookie", ""):
                self._send(200, page)
            else:
                self._send(302, headers={"Location": "/cookie", "Set-Cookie": "session=yes; Path=/"})
        elif head == "cookie-check":  # 200 if a cookie came along (no cookie may leak across pages)
            self._send(403 if self.headers.get("Cookie") else 200, page)
        elif head == "loop":  # /loop/a -> /loop/b -> /loop/a
            self._send(301, headers={"Location": "/loop/b" if segs[1] == "a" else "/loop/a"})
        elif head == "status":
            code = int(segs[1])
            self._send(code, f"<html><body>status {code}</body></html>".encode())
        elif head == "challenge":
            self._send(403, b"<html><body>Just a moment...</body></html>", headers={"cf-mitigated": "challenge"})
        elif head == "ratelimit":  # /ratelimit/KEY?n=1&after=1: n answers 429 with Retry-After, then 200
            n = self._count_key(path)
            if n <= int(query.get("n", "1")):
                self._send(429, b"slow down", "text/plain", {"Retry-After": query.get("after", "1")})
            else:
                self._send(200, page)
        elif head == "flaky":  # /flaky/KEY?n=1: n answers 503, then 200
            n = self._count_key(path)
            if n <= int(query.get("n", "1")):
                self._send(503, b"busy", "text/plain")
            else:
                self._send(200, page)
        elif head == "track":  # /track/KEY?ms=100: answers after ms, recording concurrency and arrival times
            key = segs[1]
            with self.server.lock:
                self.server.arrivals.setdefault(key, []).append(time.monotonic())
                self.server.in_flight[key] += 1
                self.server.most_in_flight[key] = max(self.server.most_in_flight[key], self.server.in_flight[key])
            time.sleep(int(query.get("ms", "100")) / 1000)
            with self.server.lock:
                self.server.in_flight[key] -= 1
            self._send(200, page)
        elif head == "hang":  # /hang?s=30: reads the request, then says nothing for s seconds
            self.server.stopping.wait(float(query.get("s", "30")))
            self.close_connection = True
        elif head == "drop-once":  # /drop-once/KEY: the first request is read, then its connection closed
            if self._count_key(path) == 1:  # unanswered; later ones get the page
                self.close_connection = True
            else:
                self._send(200, page)
        elif head == "slow-once":  # /slow-once/KEY?s=20: the first request waits s seconds, later ones do not
            if self._count_key(path) == 1:
                self.server.stopping.wait(float(query.get("s", "20")))
            self._send(200, page)
        elif head == "head405":
            if self.command == "HEAD":
                self._send(405, headers={"Allow": "GET"})
            else:
                self._send(200, page)
        elif head == "js":
            self._send(200, APP_SHELL.encode())
        elif head == "bigheader":  # /bigheader/N: a page with an N-byte Content-Security-Policy header
            self._send(200, page, headers={"Content-Security-Policy": "x" * int(segs[1])})
        elif head == "pdf":
            self._send(200, b"%PDF-1.4\n%%EOF\n", "application/pdf")
        elif head == "drip":  # headers at once, then one byte per `every` seconds
            self._stream(total=100_000, chunk=b" ", every=float(query.get("every", "0.1")))
        elif head == "huge":  # a huge page: the anchor is at the start or at the very end
            anchor = query.get("anchor", "end")
            start = b'<html><body><h1 id="start">Start</h1><p>' + FILLER.encode() + b"</p>"
            self._stream(total=256 * 1024 * 1024, chunk=b"<p>" + b"x" * 65_000 + b"</p>\n", every=0.0,
                         prefix=start if anchor == "start" else b"<html><body><p>" + FILLER.encode() + b"</p>")
        else:
            self._send(404, b"<html><body>no such page</body></html>")

    def _stream(self, *, total: int, chunk: bytes, every: float, prefix: bytes = b"") -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(total))
        self.end_headers()
        if self.command == "HEAD":
            return
        sent = 0
        until = time.monotonic() + MAX_STREAM_SECONDS
        try:
            if prefix:
                self.wfile.write(prefix)
                sent += len(prefix)
            while sent < total and time.monotonic() < until and not self.server.stopping.is_set():
                piece = chunk[: total - sent]
                self.wfile.write(piece)
                self.wfile.flush()
                sent += len(piece)
                if every:
                    time.sleep(every)
        except OSError:
            return
        self.close_connection = True


class Server:
    """An HTTP or (with ``tls``) HTTPS server on 127.0.0.1 in a background thread."""

    def __init__(self, tls: ssl.SSLContext | None = None) -> None:
        self.httpd = _Httpd(("127.0.0.1", 0), tls)
        self.scheme = "https" if tls else "http"
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                       daemon=True)
        self.thread.start()

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"{self.scheme}://{host}:{self.port}{path}"

    @property
    def counts(self) -> Counter[tuple[str, str]]:
        return self.httpd.counts

    def close(self) -> None:
        self.httpd.stopping.set()
        self.httpd.shutdown()
        self.httpd.server_close()


class ResetServer:
    """Accepts each TCP connection and resets it at once (SO_LINGER 0), before any answer."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(128)
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return  # closed
            self.accepted += 1
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            conn.close()

    def url(self, path: str = "/") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def close(self) -> None:
        self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()


class SilentServer:
    """Accepts TCP connections (the kernel completes the handshake) and never answers a byte."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]

    def url(self, path: str = "/") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def close(self) -> None:
        self.sock.close()
