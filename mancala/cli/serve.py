"""``python -m mancala serve``: the web app on a local web server (the ``web`` extra)."""
from __future__ import annotations

import argparse
import socket
import sys
import threading
import webbrowser

from mancala.cli import options
from mancala.errors import CommandError

ALL_INTERFACES = ("0.0.0.0", "::", "")


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "serve", help="the game and its analysis in a web browser",
        description="Serve the web app (play, analysis, position editor, save and load) on "
                    "this machine. Needs the web extra: pip install 'kalah[web]'.")
    p.add_argument("--host", default="127.0.0.1",
                   help="the address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=options.port, default=8000, metavar="N",
                   help="the port (default 8000; 0 picks a free one)")
    p.add_argument("--open", action="store_true", help="open the page in a web browser")
    p.set_defaults(run=run)


def listen(host: str, port: int) -> socket.socket:
    """A listening socket on host:port; OSError (one line) if it cannot be had."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    except socket.gaierror as exc:
        raise CommandError(f"cannot listen on {host!r}: {exc.strerror}") from None
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise CommandError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.set_inheritable(True)
    return sock


def url_of(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    if host in ALL_INTERFACES:
        host = "127.0.0.1" if sock.family == socket.AF_INET else "::1"
    return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"


def run(args: argparse.Namespace) -> int:
    from mancala.web import app as web      # the optional extra web's (Starlette): only to serve
    if web.MISSING is not None:
        raise CommandError(web.INSTALL_HINT)
    import uvicorn

    sock = listen(args.host, args.port)
    url = url_of(sock)
    # wherever it listens, answer only this machine's names and the addresses it is
    # reached on, never a domain made to point here (DNS rebinding)
    hosts = web.AllowedHosts(sock.getsockname()[0], args.host)
    application = web.create_app(allowed_hosts=hosts)
    if args.host in ALL_INTERFACES:
        print("mancala: warning: listening on all interfaces: anyone who can reach this "
              "machine can use the server", file=sys.stderr)
    # log_config=None: uvicorn leaves the process's logging as it is (its warnings
    # and errors still reach stderr through logging's last-resort handler)
    config = uvicorn.Config(application, log_config=None, log_level="warning",
                            ws_max_size=web.MAX_BODY, lifespan="off")
    server = uvicorn.Server(config)
    print(f"mancala: serving the web app on {url} (Ctrl-C to stop)", flush=True)
    if args.open:
        threading.Timer(0.5, webbrowser.open, (url,)).start()
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
    return 0
