"""The web app: the pages' modules on HTTP and a WebSocket (Starlette).

``create_app()`` is the ASGI app ``python -m mancala serve`` runs on uvicorn.
Each page is a module with the same face, listed once in :data:`PAGES`: its
packaged files (``ASSETS``: URL path -> file in ``static/`` and media type) and
``ROUTES`` (path, method, handler: a short module-level function of the request and
the app's one :class:`~mancala.web.server.Server`; method ``WS``: a WebSocket's):

=============================  ==============================================
:mod:`mancala.web.play`        the game: positions, moves, the computer, hints,
                               save files, the live analysis
:mod:`mancala.web.games`       rated games, held and played by the server
:mod:`mancala.web.records`     the history, casual games kept
:mod:`mancala.web.reviews`     the review of a game
:mod:`mancala.web.learn`       puzzles and the search-tree explorer
=============================  ==============================================

Engine work runs in worker threads (the core releases the GIL), at most
:data:`MAX_SEARCHES` at once across all clients so a 2-core machine stays
responsive, through one entrance (:meth:`mancala.web.server.Server.search`); each tab
has at most one search of a kind, and a new request from it stops the old one
(``Engine.stop()``). Every endpoint answers under one policy
(:func:`mancala.web.policy.endpoint`: another site's request is refused, bad input
of any kind is a 4xx with ``{"error": "one line"}``). Pages do not import pages. Only the files the pages
list are served, read once from the package: no path from a request reaches the
file system. docs/web-api.md describes the API.

Starlette is imported only when it is installed (the ``web`` extra), so the
package imports without it; :func:`create_app` then raises CommandError.
"""
from __future__ import annotations

import functools
import importlib.resources
import ipaddress
import socket
from typing import Any, Container, Dict, List, Optional

from mancala.errors import CommandError, quote
from mancala.web import games, learn, play, records, reviews
from mancala.web.policy import MAX_BODY, error_response
from mancala.web.server import MAX_SEARCHES, Server

try:
    from starlette.applications import Starlette
    from starlette.exceptions import HTTPException
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route, WebSocketRoute
except ImportError as exc:      # the web extra is not installed
    MISSING: Optional[ImportError] = exc
else:
    MISSING = None

INSTALL_HINT = "the web app needs its extra: pip install 'kalah[web]' (or -e '.[web]')"

#: the pages, each a module with ASSETS and ROUTES
PAGES = (play, games, records, reviews, learn)
#: every packaged file the server answers with: URL path -> (file in static/, media type)
ASSETS: Dict[str, tuple] = {path: asset for page in PAGES for path, asset in page.ASSETS.items()}
# the page may load only what the server itself serves: no other host, no inline script
SECURITY_HEADERS = {
    "content-security-policy": ("default-src 'self'; img-src 'self' data: blob:; "
                                "connect-src 'self'; object-src 'none'; base-uri 'none'; "
                                "frame-ancestors 'none'"),
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
}


def _asset(name: str) -> bytes:
    return (importlib.resources.files("mancala.web") / "static" / name).read_bytes()


def create_app(allowed_hosts: Optional[Container[str]] = None) -> "Starlette":
    """The ASGI app. Raises CommandError naming the extra if Starlette is missing.

    ``allowed_hosts``: the Host names answered (others get 400; ``serve`` gives an
    :class:`AllowedHosts`), so a page whose domain name is made to point at this machine
    cannot use the server from a visitor's browser; None answers any (the test client's
    ``testserver``).
    """
    if MISSING is not None:
        raise CommandError(f"{INSTALL_HINT} ({MISSING})")
    server = Server()
    server.assets = {path: (_asset(name), media) for path, (name, media) in ASSETS.items()}

    async def page(request: Request) -> Response:
        body, media = server.assets[request.url.path]
        return Response(body, media_type=media,
                        headers=dict(SECURITY_HEADERS, **{"cache-control": "no-cache"}))

    async def not_found(request: Request, exc: HTTPException) -> Response:
        return error_response(exc.status_code, f"{exc.detail}: {request.method} "
                                               f"{quote(request.url.path)}")

    async def failed(request: Request, exc: Exception) -> Response:
        return error_response(500, f"internal error ({type(exc).__name__}); the server goes on")

    routes: List[Any] = [Route(path, page) for path in ASSETS]
    for each in PAGES:
        routes += [WebSocketRoute(path, handler) if method == "WS" else
                   Route(path, handler, methods=[method]) for path, method, handler in each.ROUTES]
    middleware = []
    if allowed_hosts is not None:
        from starlette.middleware import Middleware
        middleware.append(Middleware(HostCheck, hosts=allowed_hosts))
    app = Starlette(routes=routes, middleware=middleware,
                    exception_handlers={HTTPException: not_found, Exception: failed})
    app.state.server = server
    return app


def host_name(header: str) -> str:
    """The name in a Host header, without the port (``[::1]:8000`` -> ``[::1]``)."""
    if header.startswith("["):
        return header[:header.find("]") + 1]
    return header.split(":", 1)[0]


@functools.lru_cache(maxsize=256)
def local_address(address: str) -> bool:
    """Whether ``address`` (an IP address) is one of this machine's: a socket can be bound
    to it (every one of 127.0.0.0/8 and ::1, and each interface's)."""
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.bind((address, 0))
    except OSError:
        return False
    return True


class AllowedHosts:
    """The Host names a server on this machine answers, wherever it listens: a page whose
    domain name was made to point at this machine (DNS rebinding) sends that name as its
    Host, and is refused.

    A name is allowed when it is this machine's (``localhost``, its host name, its fully
    qualified name) or ``named`` (what ``serve --host`` was given); an IP address only
    when the server is reachable on it: ``listening`` itself, or, listening on every
    interface (``0.0.0.0``, ``::``), any address of this machine (:func:`local_address`).
    """

    def __init__(self, listening: str, named: str = "") -> None:
        self.listening = ipaddress.ip_address(listening)
        names = ["localhost", socket.gethostname(), socket.getfqdn(), named]
        self.names = sorted({self._plain(name) for name in names if name and not self._ip(name)})

    @staticmethod
    def _plain(name: str) -> str:
        return name.lower().rstrip(".")

    @staticmethod
    def _ip(name: str):
        try:
            return ipaddress.ip_address(name.strip("[]"))
        except ValueError:
            return None

    def __contains__(self, host: object) -> bool:
        if not isinstance(host, str):
            return False
        address = self._ip(host)
        if address is None:
            return self._plain(host) in self.names
        if self.listening.is_unspecified:
            return local_address(str(address))
        return address == self.listening

    def __iter__(self):
        """What the server answers to, in words (for the refusal's one line)."""
        yield from self.names
        if self.listening.is_unspecified:
            yield "this machine's addresses"
        else:
            yield f"[{self.listening}]" if self.listening.version == 6 else str(self.listening)


class HostCheck:
    """ASGI middleware: requests whose Host is not one of ``hosts`` (a container of names,
    such as :class:`AllowedHosts`) get a one-line 400 (a WebSocket is closed with 1008)."""

    def __init__(self, app, hosts: Container[str]) -> None:
        self.app = app
        self.hosts = hosts

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] in ("http", "websocket"):
            host = dict(scope["headers"]).get(b"host", b"").decode("latin-1")
            if host_name(host).lower() not in self.hosts:
                if scope["type"] == "websocket":
                    await send({"type": "websocket.close", "code": 1008})
                    return
                message = f"this server answers to {', '.join(self.hosts)}, not {quote(host)}"
                await error_response(400, message)(scope, receive, send)
                return
        await self.app(scope, receive, send)


__all__ = ["create_app", "AllowedHosts", "HostCheck", "MAX_BODY", "MAX_SEARCHES", "ASSETS", "PAGES", "INSTALL_HINT", "MISSING"]
