"""An httpcore network backend on plain asyncio streams (in place of its anyio one).

httpcore talks to the network through a small backend interface (connect, read, write, start TLS,
close). Its default backend goes through anyio, which wraps every read and write in a cancel scope and
a checkpoint: about a tenth of the checker's CPU per URL. The checker only ever runs on asyncio, so
this backend calls asyncio directly, with one ``asyncio.timeout`` per operation that has a timeout, and
maps errors to httpcore's exceptions exactly as the anyio backend does (the original error stays
chained as the cause, which is what :func:`~site_plugins.links.verdict.classify_exception` reads).
"""

from __future__ import annotations

import asyncio
import select
import ssl
from collections.abc import Iterable
from typing import Any

import httpcore


class AsyncioStream(httpcore.AsyncNetworkStream):
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader = reader
        self._writer = writer

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        try:
            async with asyncio.timeout(timeout):
                return await self._reader.read(max_bytes)
        except TimeoutError as exc:
            raise httpcore.ReadTimeout(str(exc) or "timed out reading") from exc
        except OSError as exc:
            raise httpcore.ReadError(str(exc) or type(exc).__name__) from exc

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        if not buffer:
            return
        try:
            self._writer.write(buffer)
            if self._writer.transport.get_write_buffer_size():  # the kernel did not take it all at once
                async with asyncio.timeout(timeout):
                    await self._writer.drain()
        except TimeoutError as exc:
            raise httpcore.WriteTimeout(str(exc) or "timed out writing") from exc
        except (OSError, RuntimeError) as exc:
            raise httpcore.WriteError(str(exc) or type(exc).__name__) from exc

    async def aclose(self) -> None:
        self._writer.close()

    async def start_tls(self, ssl_context: ssl.SSLContext, server_hostname: str | None = None,
                        timeout: float | None = None) -> httpcore.AsyncNetworkStream:
        try:
            async with asyncio.timeout(timeout):
                await self._writer.start_tls(ssl_context, server_hostname=server_hostname)
        except TimeoutError as exc:
            await self.aclose()
            raise httpcore.ConnectTimeout(str(exc) or "timed out in the TLS handshake") from exc
        except (OSError, ssl.SSLError, EOFError) as exc:
            await self.aclose()
            raise httpcore.ConnectError(str(exc) or type(exc).__name__) from exc
        return self

    def get_extra_info(self, info: str) -> Any:
        if info == "ssl_object":
            return self._writer.get_extra_info("ssl_object")
        if info == "client_addr":
            return self._writer.get_extra_info("sockname")
        if info == "server_addr":
            return self._writer.get_extra_info("peername")
        if info == "socket":
            return self._writer.get_extra_info("socket")
        if info == "is_readable":
            # An idle keep-alive connection that has something to read has been closed by the server.
            if self._reader.at_eof() or self._writer.transport.is_closing():
                return True
            sock = self._writer.get_extra_info("socket")
            if sock is None or sock.fileno() < 0:
                return True
            return bool(select.select([sock], [], [], 0)[0])
        return None


class AsyncioBackend(httpcore.AsyncNetworkBackend):
    async def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                          local_address: str | None = None,
                          socket_options: Iterable[Any] | None = None) -> httpcore.AsyncNetworkStream:
        try:
            async with asyncio.timeout(timeout):
                reader, writer = await asyncio.open_connection(
                    host, port, local_addr=(local_address, 0) if local_address else None, limit=2 ** 20)
        except TimeoutError as exc:
            raise httpcore.ConnectTimeout(str(exc) or "timed out connecting") from exc
        except OSError as exc:
            raise httpcore.ConnectError(str(exc) or type(exc).__name__) from exc
        sock = writer.get_extra_info("socket")
        for option in socket_options or ():
            sock.setsockopt(*option)
        return AsyncioStream(reader, writer)

    async def connect_unix_socket(self, path: str, timeout: float | None = None,
                                  socket_options: Iterable[Any] | None = None) -> httpcore.AsyncNetworkStream:
        raise httpcore.ConnectError("the link checker does not connect to Unix sockets")

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)
