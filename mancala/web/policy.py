"""The one policy every endpoint answers under (:func:`endpoint`), and reading a request.

The origin policy: a request whose ``Origin`` names another scheme, host or port than
the request's own, or that a browser marks as sent from another site
(``Sec-Fetch-Site``, in any case), is refused (403)
by every endpoint and the analysis socket, before any work: a page of another
site may not run this server's engine or change what it keeps. A POST's body is
JSON and says so (``Content-Type: application/json``, else 415): the content
types another site's page may send without asking first (a "simple" request)
are refused. Bad input of any kind is a 4xx with ``{"error": "one line"}``
(:class:`mancala.errors.InputError`, :class:`mancala.errors.Refused`).
"""
from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Optional, Tuple
from urllib.parse import urlsplit

from mancala.errors import InputError, Refused, RequestError, quote
from mancala.limits import parse_whole
from mancala.untrusted import read_json

if TYPE_CHECKING:
    from starlette.requests import Request

try:
    from starlette.responses import JSONResponse, Response
except ImportError:     # the web extra is not installed: mancala.web.app says so
    JSONResponse = Response = None

MAX_BODY = 64 * 1024            # bytes of a request body or WebSocket message
TAB_ID_CHARS = 64               # a tab's name: at most this long


def decode(raw: bytes) -> Any:
    """A request body as JSON (:func:`mancala.untrusted.read_json`), or RequestError saying why not."""
    try:
        return read_json(raw, RequestError)
    except RequestError as exc:
        raise RequestError(f"the request body: {exc}") from None


async def read_body(request: "Request") -> bytes:
    """The body, refused (413) past :data:`MAX_BODY` bytes before reading it all."""
    length = request.headers.get("content-length")
    if length is not None and (parse_whole(length) is None or int(length) > MAX_BODY):
        raise Refused(413, f"the request body is larger than {MAX_BODY // 1024} KB")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            raise Refused(413, f"the request body is larger than {MAX_BODY // 1024} KB")
        chunks.append(chunk)
    return b"".join(chunks)


async def json_body(request: "Request") -> Any:
    """The request's body, read within :data:`MAX_BODY` and decoded as JSON (:func:`decode`)."""
    return decode(await read_body(request))


#: the port an origin or a Host header leaves out, by scheme (a socket's is its page's)
DEFAULT_PORTS = {"http": 80, "https": 443}
PAGE_SCHEMES = {"ws": "http", "wss": "https"}


def _origin(scheme: str, netloc: str) -> Optional[Tuple[str, str, int]]:
    """(scheme, host, port) of an origin, names in lower case and the default port
    written out; None for one that cannot be read (no host, a port that is not one)."""
    scheme = PAGE_SCHEMES.get(scheme.lower(), scheme.lower())
    try:
        parts = urlsplit(f"//{netloc}")
        port = parts.port
    except ValueError:
        return None
    if not parts.hostname or scheme not in DEFAULT_PORTS:
        return None
    return scheme, parts.hostname, DEFAULT_PORTS[scheme] if port is None else port


def cross_site(headers: Any, scheme: str = "http") -> Optional[str]:
    """Why a request comes from another site's page (one line), or None when it comes from
    this server's own pages or from a client that is not a browser (no ``Origin``, no
    ``Sec-Fetch-Site``): an ``Origin`` whose scheme, host or port is not the request's
    own (``scheme``: the request's, ``ws`` counting as ``http``; the Host header's host
    and port), or a browser's word that the request was sent from another site (in any case)."""
    origin = headers.get("origin")
    if origin is not None:
        sent = urlsplit(origin)
        own = _origin(scheme, headers.get("host") or "")
        if own is None or _origin(sent.scheme, sent.netloc) != own:
            return f"another site's page ({quote(origin)}) may not use this server"
    site = (headers.get("sec-fetch-site") or "").strip().lower()
    if site in ("cross-site", "same-site"):
        return "another site's page may not use this server"
    return None


def same_origin(headers: Any, scheme: str = "http") -> bool:
    """No word of another site in the headers (:func:`cross_site`)."""
    return cross_site(headers, scheme) is None


def json_type(headers: Any) -> bool:
    """A body said to be JSON: ``application/json``, with or without parameters."""
    media = (headers.get("content-type") or "").split(";", 1)[0].strip().lower()
    return media == "application/json"


def tab_name(value: Any) -> str:
    """A request's ``tab`` (a name a browser tab sends with its requests), else RequestError."""
    if not isinstance(value, str) or len(value) > TAB_ID_CHARS:
        raise RequestError(f"tab is a name of at most {TAB_ID_CHARS} characters, not {quote(value)}")
    return value


def replaced() -> Refused:
    """The answer to a request whose work was stopped by a newer one from its tab (409)."""
    return Refused(409, "stopped: a newer request from the same tab replaced this one, "
                        "or the client went away")


def error_response(status: int, message: str) -> "Response":
    """``{"error": message}`` with ``status``: every refusal's one shape."""
    return JSONResponse({"error": message}, status_code=status)


def endpoint(handler: Callable[["Request", Any], Awaitable[Any]]):
    """A JSON endpoint under the app's one policy: another site's request is a 403 and a
    POST whose body is not said to be JSON a 415, before ``handler(request, server)`` runs
    (``server``: the app's :class:`mancala.web.server.Server`); bad input of any kind
    becomes a 4xx with ``{"error": "one line"}``."""
    async def call(request: "Request") -> "Response":
        start = time.perf_counter()
        try:
            why = cross_site(request.headers, request.url.scheme)
            if why is not None:
                raise Refused(403, why)
            if request.method == "POST" and not json_type(request.headers):
                raise Refused(415, "the request body is JSON and says so: "
                                   "Content-Type: application/json")
            answer = await handler(request, request.app.state.server)
            response = answer if isinstance(answer, Response) else JSONResponse(answer)
        except Refused as exc:
            response = error_response(exc.status, str(exc))
            response.headers.update(exc.headers)
        except InputError as exc:
            response = error_response(400, str(exc))
        # the time the server spent (waiting for a search slot included), for bench/web_load.py
        response.headers["server-timing"] = f"app;dur={(time.perf_counter() - start) * 1000:.2f}"
        return response
    call.__name__ = handler.__name__
    call.guarded = True         # the tests find every route's handler under this policy
    return call


__all__ = ["endpoint", "decode", "read_body", "json_body", "cross_site", "same_origin", "json_type",
           "tab_name", "replaced", "error_response", "Refused", "MAX_BODY",
           "TAB_ID_CHARS"]
