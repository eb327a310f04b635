"""The web server against hostile clients, met as a browser or a script meets
it: a real ``python -m mancala serve`` process on 127.0.0.1. Wrongly typed
fields are one-line 4xx (never 500, never a reset), abandoned searches stop,
a busy server says so, and what tabs keep is bounded."""
from __future__ import annotations

import contextlib
import http.client
import json
import os
import random
import socket
import threading
import time

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install -e '.[web]'")

from conftest import fuzzed_requests, serving  # noqa: E402


@pytest.fixture
def server(tmp_path):
    """A server of its own for every test (conftest's serving: .process, .host, .port),
    with no traceback on its stderr when it is stopped."""
    with serving(tmp_path / "cache", tmp_path / "home") as served:
        yield served
    assert "Traceback" not in served.stderr, served.stderr


def post(server, path, body, timeout=60, headers=None, method="POST"):
    connection = http.client.HTTPConnection(server.host, server.port, timeout=timeout)
    try:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        connection.request(method, path, None if method == "GET" else data,
                           {"content-type": "application/json",
                            "host": f"{server.host}:{server.port}", **(headers or {})})
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


START = {"seeds": 4, "capture": "standard", "moves": []}


@pytest.mark.parametrize("level", [[], {}, None, 3, 2.5, True, "ai:nope", ["ai:easy"]])
def test_a_level_of_the_wrong_type_is_400(server, level):
    status, _, body = post(server, "/api/ai", {"position": START, "level": level, "tab": "t"})
    assert status == 400, body
    assert "level is one of" in json.loads(body)["error"]


def test_a_bounded_fuzz_of_every_endpoint(server):
    """Fixed seed: every field of every endpoint's request swapped for a value of
    another JSON type; 0 answers of 500, 0 resets, one-line errors."""
    rng = random.Random(2026)
    values = [None, True, False, 0, -1, 10 ** 30, 2.5, float("1e308"), "", "x" * 300, "ai:easy",
              [], [1, 2], {}, {"a": 1}, [[]], "startpos", -0.0]
    base = {
        "/api/validate": {"position": START},
        "/api/move": {"position": START, "pit_index": 2},
        "/api/ai": {"position": START, "level": "random", "tab": "fuzz"},
        "/api/save": {"position": START, "south": "human", "north": "ai:easy"},
        "/api/load": {"text": "not a save file"},
    }
    position_fields = {"seeds": 4, "capture": "standard", "moves": [2], "board": [4] * 14,
                       "to_move": 0}
    seen = {}
    for path, body in fuzzed_requests(rng, base, values, position_fields, 1200, seconds=90):
        status, _, raw = post(server, path, body)
        seen[status] = seen.get(status, 0) + 1
        assert status != 500, (path, body, raw)
        if status >= 400:
            error = json.loads(raw)["error"]
            assert "\n" not in error and error, (path, body)
    assert seen.get(200, 0) > 10 and sum(seen.values()) > 300, seen


def test_abandoned_searches_stop_and_a_busy_server_says_so(server):
    """Twelve clients ask for ai:hard moves of Kalah(6,6) at once and hang up after
    a second: past the cap the server answers 503 with a Retry-After; once they
    are gone the server's CPU goes quiet (before: it searched every one to the end),
    and the next request is answered."""
    position = {"seeds": 6, "capture": "standard", "moves": []}
    body = json.dumps({"position": position, "level": "ai:hard"}).encode()
    request = (f"POST /api/ai HTTP/1.1\r\nHost: {server.host}:{server.port}\r\n"
               f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body
    answers = []

    def client(index):
        with socket.create_connection((server.host, server.port), timeout=10) as sock:
            sock.sendall(request)
            sock.settimeout(1.0)
            try:
                answers.append(sock.recv(4096).decode("latin-1"))
            except socket.timeout:
                answers.append("")                      # gave up, hangs up

    threads = [threading.Thread(target=client, args=(i,)) for i in range(12)]
    for thread in threads:
        thread.start()
        time.sleep(0.02)
    for thread in threads:
        thread.join(15)
    busy = [a for a in answers if a.startswith("HTTP/1.1 503")]
    assert busy and all("retry-after: 2" in a.lower() for a in busy), answers
    time.sleep(1.5)                                     # the searches notice their clients left
    before = cpu_seconds(server.process.pid)
    time.sleep(3.0)
    assert cpu_seconds(server.process.pid) - before < 0.6
    status, _, raw = post(server, "/api/ai", {"position": START, "level": "ai:easy"})
    assert status == 200 and 0 <= json.loads(raw)["pit_index"] <= 5


@pytest.mark.slow
def test_many_tabs_at_the_strongest_level_keep_memory_bounded(server):
    """Sixteen tabs each get an ai:perfect move (each player a 256 MB table, filled
    by its solve): the server stays under 2 GB (before: 4.25 GB, and it stayed)."""
    position = {"seeds": 5, "capture": "standard", "moves": [2, 5]}
    for tab in range(16):
        status, _, raw = post(server, "/api/ai", {"position": position, "level": "ai:perfect",
                                                  "tab": f"tab{tab}"}, timeout=120)
        assert status == 200, raw
    assert rss_mb(server.process.pid) < 2048


def test_another_sites_requests_get_403_from_every_endpoint_and_do_no_work(server, tmp_path):
    """Issue 31, item 6, as a script meets it on a real server: with ``Origin:
    http://evil.example`` (and, as another site's page may send it without asking,
    ``Content-Type: text/plain``) every route the app has answers a one-line 403;
    /api/explain and /api/ai at their heaviest cost the server no CPU, and nothing is
    kept. Before: /api/explain (8.6 s of search), /api/review, /api/ai and
    /api/puzzle/answer answered 200."""
    from starlette.routing import Route

    from mancala.web.app import create_app
    routes = [(route.path, "GET" if "GET" in route.methods else "POST")
              for route in create_app().routes
              if isinstance(route, Route) and route.path.startswith("/api/")]
    heavy = {"seeds": 6, "capture": "standard", "moves": []}
    bodies = {"/api/explain": {"position": heavy, "depth": 6}, "/api/ai": {"position": heavy, "level": "ai:hard"},
              "/api/hint": {"position": heavy}, "/api/review": {"position": dict(heavy, moves=[0, 1, 2])}}
    before = cpu_seconds(server.process.pid)
    for headers in ({"origin": "http://evil.example", "content-type": "text/plain"},
                    {"origin": "http://evil.example"}, {"sec-fetch-site": "cross-site"}):
        for path, method in routes:
            status, _, raw = post(server, path, bodies.get(path, {}), headers=headers, method=method)
            assert status == 403, (path, headers, raw)
            error = json.loads(raw)["error"]
            assert "another site's page" in error and "\n" not in error
    assert cpu_seconds(server.process.pid) - before < 1.0
    for kept in ("history.sqlite3", "puzzles.sqlite3"):          # the server's MANCALA_HOME
        assert not (tmp_path / "home" / kept).exists()


def test_the_socket_past_the_cap_is_closed_with_1013(server):
    websockets = pytest.importorskip("websockets.sync.client", reason="no websockets client")
    from websockets.exceptions import ConnectionClosed
    url = f"ws://{server.host}:{server.port}/api/analyze"
    origin = f"http://{server.host}:{server.port}"
    with contextlib.ExitStack() as stack:
        for _ in range(64):
            stack.enter_context(websockets.connect(url, origin=origin, open_timeout=10))
        extra = stack.enter_context(websockets.connect(url, origin=origin, open_timeout=10))
        with pytest.raises(ConnectionClosed) as closed:                  # accepted, then closed
            extra.recv(timeout=10)
        assert closed.value.rcvd.code == 1013 and "64" in closed.value.rcvd.reason


@contextlib.contextmanager
def serving_on(tmp_path, host):
    """``python -m mancala serve --host HOST --port 0``: (the process, the port it printed)."""
    import signal
    import subprocess
    import sys
    env = dict(os.environ, MANCALA_HOME=str(tmp_path / "home"), MANCALA_CACHE=str(tmp_path / "cache"))
    process = subprocess.Popen([sys.executable, "-m", "mancala", "serve", "--host", host, "--port", "0"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = process.stdout.readline()
        assert " on http://" in line, line + process.stderr.read()
        yield process, int(line.split(" on ", 1)[1].split()[0].rstrip("/").rsplit(":", 1)[1])
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        process.stdout.close()
        process.stderr.close()


def raw_get(address, port, host, origin=None):
    """GET /api/info from ``address``:``port`` with the Host (and Origin) a browser sends:
    (status, body)."""
    extra = f"Origin: {origin}\r\n" if origin else ""
    request = f"GET /api/info HTTP/1.1\r\nHost: {host}\r\n{extra}Connection: close\r\n\r\n"
    with socket.create_connection((address, port), timeout=30) as sock:
        sock.sendall(request.encode("latin-1"))
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split()[1]), body


@pytest.mark.parametrize("listen, address, allowed, refused", [
    ("127.0.0.2", "127.0.0.2", ["127.0.0.2", "localhost", socket.gethostname()], ["127.0.0.1"]),
    ("127.1", "127.0.0.1", ["127.0.0.1", "127.1", "localhost"], ["127.0.0.2"]),
    ("0.0.0.0", "127.0.0.1", ["127.0.0.1", "127.0.0.2", "localhost"], ["192.0.2.1"]),
])
def test_a_rebound_name_is_refused_on_every_address_the_server_listens_on(
        tmp_path, listen, address, allowed, refused):
    """Issue 38, item 6: ``serve --host 127.0.0.2``, ``--host 127.1`` and ``--host 0.0.0.0``
    answered a request whose Host and Origin were ``rebind.example:PORT`` (a domain made to
    point at this machine: DNS rebinding) with 200. Now a name is answered only when it is
    this machine's or --host's, an address only when the server is reached on it (192.0.2.1,
    a documentation address, is no address of this machine)."""
    with serving_on(tmp_path, listen) as (process, port):
        for name in ("rebind.example", "Rebind.Example.", "evil.localhost.example", *refused):
            host = f"{name}:{port}"
            status, body = raw_get(address, port, host, origin=f"http://{host}")
            assert status == 400, (host, body)
            error = json.loads(body)["error"]
            assert "this server answers to" in error and "\n" not in error
        for name in allowed:
            host = f"{name}:{port}"
            status, body = raw_get(address, port, host, origin=f"http://{host}")
            assert status == 200, (host, body)
            assert "version" in json.loads(body)
