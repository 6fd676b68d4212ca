"""Fixtures: real HTTP and HTTPS servers on 127.0.0.1 (trustme CAs made here), one per test session."""

from __future__ import annotations

import ssl
from collections.abc import Iterator

import pytest
import trustme
from links_servers import ResetServer, Server, SilentServer


@pytest.fixture(scope="session")
def ca() -> trustme.CA:
    return trustme.CA()


@pytest.fixture(scope="session")
def client_tls(ca: trustme.CA) -> ssl.SSLContext:
    """What the checker trusts in tests: the default store plus our CA. Verification stays on."""
    ctx = ssl.create_default_context()
    ca.configure_trust(ctx)
    return ctx


def _server_tls(ca: trustme.CA, *names: str) -> ssl.SSLContext:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ca.issue_cert(*names).configure_cert(ctx)
    return ctx


@pytest.fixture(scope="session")
def http() -> Iterator[Server]:
    server = Server()
    yield server
    server.close()


@pytest.fixture(scope="session")
def https(ca: trustme.CA) -> Iterator[Server]:
    server = Server(_server_tls(ca, "127.0.0.1", "localhost"))
    yield server
    server.close()


@pytest.fixture(scope="session")
def untrusted_https() -> Iterator[Server]:
    """A certificate from a CA nobody trusts (a self-signed chain)."""
    server = Server(_server_tls(trustme.CA(), "127.0.0.1", "localhost"))
    yield server
    server.close()


@pytest.fixture(scope="session")
def wrong_host_https(ca: trustme.CA) -> Iterator[Server]:
    """A trusted CA, but the certificate names another host."""
    server = Server(_server_tls(ca, "other.example"))
    yield server
    server.close()


@pytest.fixture(scope="session")
def silent() -> Iterator[SilentServer]:
    server = SilentServer()
    yield server
    server.close()


@pytest.fixture(scope="session")
def reset() -> Iterator[ResetServer]:
    server = ResetServer()
    yield server
    server.close()
