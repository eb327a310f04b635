"""Work on a Ray cluster (the extra ``cluster``): endgame builds, solves, arenas.

Every command that takes ``--cluster ADDRESS`` connects through
:func:`connect`, which understands three spellings:

``local`` or ``local:N``
    start a Ray runtime on this machine with N CPUs (default: all of them),
    ended when the command ends;
``auto``
    join the cluster that ``ray start --head`` (or ``ray start --address``)
    made on this node;
``ray://HOST:PORT``
    a remote cluster through Ray Client.

Ray is imported only here, and only when asked for: without the extra,
``--cluster`` is one line naming it. A cluster that cannot be reached is one
line too (:class:`mancala.errors.ClusterError`), not a traceback.
"""
from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import tempfile
import threading
import warnings
from dataclasses import dataclass
from typing import Iterator, Optional

from mancala.errors import ClusterError, quote

INSTALL_HINT = "--cluster needs the extra: pip install 'kalah[cluster]' (or -e '.[cluster]')"
ADDRESS = re.compile(r"local(?::([0-9]{1,4}))?|auto|ray://[^\s/]+:[0-9]{1,5}")


@dataclass(frozen=True)
class Address:
    """Where a cluster is: ``kind`` local, auto or ray; ``cpus`` for local; ``url`` for ray."""
    kind: str
    cpus: Optional[int] = None
    url: Optional[str] = None

    def __str__(self) -> str:
        if self.kind == "local":
            return "local" if self.cpus is None else f"local:{self.cpus}"
        return self.url or self.kind


def parse_address(text: str) -> Address:
    """An ``--cluster`` value, else ClusterError listing the spellings."""
    m = ADDRESS.fullmatch(text.strip()) if isinstance(text, str) else None
    if m is None:
        raise ClusterError(f"--cluster is local, local:N, auto or ray://HOST:PORT, not {quote(text)}")
    if text.startswith("local"):
        cpus = int(m.group(1)) if m.group(1) else None
        if cpus is not None and not 1 <= cpus <= 1024:
            raise ClusterError(f"local:N takes 1 to 1024 CPUs, not {cpus}")
        return Address("local", cpus)
    if text == "auto":
        return Address("auto")
    return Address("ray", url=text.strip())


def _short_temp() -> str:
    """The temporary folder, or /tmp if its path is too long for the sockets Ray
    puts some 75 characters below it (a Unix socket's path has 107 at most)."""
    base = tempfile.gettempdir()
    return base if len(base) <= 24 or not os.access("/tmp", os.W_OK) else "/tmp"


def ray_module():
    """Ray, or ClusterError naming the extra when it is not installed."""
    try:
        import ray
    except ImportError:
        raise ClusterError(INSTALL_HINT) from None
    return ray


@contextlib.contextmanager
def connect(address: "str | Address") -> Iterator[int]:
    """Connect to a cluster for the ``with`` block; yields the CPUs it has.

    A local runtime is started with its files in a temporary folder (removed
    after) and ended on the way out; a cluster joined (auto, ray://) is left
    running, only this driver disconnects. Ray's token authentication is off
    unless ``RAY_AUTH_MODE`` says otherwise (nothing is written under the home
    folder). Raises ClusterError for an address that cannot be reached.
    """
    where = parse_address(address) if isinstance(address, str) else address
    ray = ray_module()
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    if ray.is_initialized():            # a caller (a test, a notebook) connected already
        yield int(ray.cluster_resources().get("CPU", 1))
        return
    temp = None
    options = dict(log_to_driver=False, logging_level="ERROR")
    term = _sigterm_handler()
    try:
        with warnings.catch_warnings():     # Ray's own warning would repeat the one line below
            warnings.simplefilter("ignore")
            if where.kind == "local":
                # the workers run at the command's own priority, as a one-machine
                # command's threads do (Ray's default nices them to 15)
                os.environ.setdefault("RAY_worker_niceness", "0")
                temp = tempfile.mkdtemp(prefix="mancala-ray-", dir=_short_temp())
                ray.init(num_cpus=where.cpus or os.cpu_count() or 1, include_dashboard=False,
                         _temp_dir=temp, **options)
            else:
                ray.init(address=where.url or "auto", **options)
    except (ConnectionError, OSError, ValueError, RuntimeError, TimeoutError) as exc:
        if temp:
            shutil.rmtree(temp, ignore_errors=True)
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ClusterError(f"cannot reach the Ray cluster at {where}: {first}") from None
    finally:
        _keep_sigterm(term)
    try:
        yield int(ray.cluster_resources().get("CPU", 1))
    finally:
        with _stops_deferred():
            ray.shutdown()
            if temp:
                shutil.rmtree(temp, ignore_errors=True)


@contextlib.contextmanager
def _stops_deferred() -> Iterator[None]:
    """For the block, Ctrl-C and SIGTERM wait: their handlers run after it. A stop
    that lands in ray.shutdown() ends it half-way, and the runtime's processes
    live on, writing their logs into a folder already removed (seen: SIGTERM as
    a solve's jobs were being killed). Off the main thread nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    came: list = []
    before = {signum: signal.signal(signum, lambda signum, frame: came.append(signum))
              for signum in (signal.SIGINT, signal.SIGTERM)
              if signal.getsignal(signum) is not None}      # one set outside Python stays
    try:
        yield
    finally:
        for signum, handler in before.items():
            signal.signal(signum, handler)
        for signum in came:                      # now as it would have been
            if callable(before[signum]):
                before[signum](signum, None)
            elif before[signum] == signal.SIG_DFL:
                os.kill(os.getpid(), signum)


def _sigterm_handler():
    """The process's SIGTERM handler (None off the main thread, where none is set)."""
    return signal.getsignal(signal.SIGTERM) if threading.current_thread() is threading.main_thread() \
        else None


def _keep_sigterm(handler) -> None:
    """Put back the SIGTERM handler ray.init replaced: Ray's prints a stack dump
    and exits 1, where the caller's (or the default) decides what SIGTERM does."""
    if handler is not None:
        signal.signal(signal.SIGTERM, handler)


__all__ = ["Address", "parse_address", "connect", "ray_module", "INSTALL_HINT"]
