"""``wsctl serve --http``'s header timeout closes connections that owe a request head,
never a live client the server was too busy to read (issue 32, item 6a).

A real uvicorn server (the protocol class ``wsctl serve`` uses, under
:func:`wskit_serve.guard.bounded_protocol`) on a loopback socket and real client
sockets, in one event loop: the test runs the keeper's ``sweep`` itself at chosen
moments (the clock it is given stands for time passing) while the loop cannot read,
which is what a starved server on a loaded machine does. Each case asserts what the
client receives.
"""

from __future__ import annotations

import asyncio
import select
import socket
import time

import pytest

pytest.importorskip("uvicorn")
pytest.importorskip("wskit_serve")

from wskit_serve.guard import bounded_protocol  # noqa: E402

TIMEOUT = 2.0
REQUEST = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"


async def _app(scope, receive, send):
    if scope["type"] != "http":
        return
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain"),
                                                                         (b"content-length", b"2")]})
    await send({"type": "http.response.body", "body": b"ok"})


async def _server():
    import uvicorn
    from uvicorn.protocols.http.h11_impl import H11Protocol

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    proto, conns = bounded_protocol(H11Protocol, 16, TIMEOUT)
    server = uvicorn.Server(uvicorn.Config(_app, http=proto, log_config=None, lifespan="off", access_log=False))
    task = asyncio.ensure_future(server.serve(sockets=[sock]))
    while not server.started:
        await asyncio.sleep(0.01)
    return server, task, conns, sock.getsockname()[1]


async def _accepted(conns, n: int) -> list:
    for _ in range(500):
        if len(conns.open) >= n:
            return list(conns.open)
        await asyncio.sleep(0.01)
    raise AssertionError("the server did not accept the connection")


def _in_server_socket(proto) -> None:
    """Wait (without yielding to the loop) until the server's socket of ``proto`` is readable."""
    fd = proto.transport.get_extra_info("socket").fileno()
    assert select.select([fd], [], [], 5)[0]


async def _answer(client: socket.socket) -> bytes:
    """The whole answer (up to its 2-byte body), or b"" when the server closed first."""
    client.settimeout(10)

    def read() -> bytes:
        data = b""
        while not data.endswith(b"\r\n\r\nok"):
            chunk = client.recv(4096)
            if not chunk:
                break
            data += chunk
        return data

    return await asyncio.get_running_loop().run_in_executor(None, read)


def _run(case) -> None:
    async def main():
        server, task, conns, port = await _server()
        try:
            await case(conns, port)
        finally:
            server.should_exit = True
            await asyncio.wait_for(task, 30)

    asyncio.run(main())


def test_a_request_the_starved_loop_has_not_read_is_not_timed_out():
    """The client sent its whole head, but the loop did not get to read it before the
    keeper's sweeps ran well past the timeout: the bytes waiting in the socket are a
    live client, it is answered."""
    async def case(conns, port):
        client = socket.create_connection(("127.0.0.1", port))
        (proto,) = await _accepted(conns, 1)
        t0 = time.monotonic()
        conns.sweep(t0)
        client.sendall(REQUEST)
        _in_server_socket(proto)
        for i in range(1, 21):  # 10 s in half-second sweeps, the loop reading nothing meanwhile
            conns.sweep(t0 + i * 0.5)
        assert (await _answer(client)).startswith(b"HTTP/1.1 200")
        client.close()

    _run(case)


def test_time_the_server_could_not_run_is_not_charged_to_its_clients():
    """A 30 s gap between two sweeps (the whole machine stalled) advances the server's
    clock by two sweep intervals only: a client that connected before the stall and sends
    its request right after it is answered."""
    async def case(conns, port):
        client = socket.create_connection(("127.0.0.1", port))
        await _accepted(conns, 1)
        t0 = time.monotonic()
        conns.sweep(t0)
        conns.sweep(t0 + 30)
        client.sendall(REQUEST)
        assert (await _answer(client)).startswith(b"HTTP/1.1 200")
        client.close()

    _run(case)


def test_connections_that_owe_a_head_are_still_closed():
    """Nothing sent, or half a head: closed once the server's clock passes the timeout,
    while a connection idle after its response is left to the keep-alive timeout."""
    async def case(conns, port):
        silent = socket.create_connection(("127.0.0.1", port))
        partial = socket.create_connection(("127.0.0.1", port))
        served = socket.create_connection(("127.0.0.1", port))
        await _accepted(conns, 3)
        partial.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # no blank line: the head never ends
        served.sendall(REQUEST)
        assert (await _answer(served)).startswith(b"HTTP/1.1 200")
        t0 = time.monotonic()
        for i in range(0, 10):  # 4.5 s in half-second sweeps, the loop free between them
            conns.sweep(t0 + i * 0.5)
            await asyncio.sleep(0.01)
        for s in (silent, partial):
            assert await _answer(s) == b""  # closed by the server, no answer
        served.sendall(REQUEST)  # idle after a response is not owing a head: it is answered again
        assert (await _answer(served)).startswith(b"HTTP/1.1 200")
        for s in (silent, partial, served):
            s.close()

    _run(case)
