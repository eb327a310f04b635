"""Work on a Ray cluster (the extra ``cluster``): endgame builds, solves, arenas.

Every command that takes ``--cluster ADDRESS`` reads it with
:func:`parse_address` before it does anything else, and joins the cluster
with :func:`joined` (:func:`connect`, then one line saying where and with how
many CPUs). Three spellings:

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
line too (:class:`mancala.errors.ClusterError`), not a traceback, and so is a
task's failure (:func:`ray_error_line`).

A local runtime leaves nothing behind, however the command ends: a stop
(Ctrl-C, SIGTERM) while it starts or ends waits till it has (a runtime half
started or half ended once crashed the command or left its processes
running), and a watchdog (:mod:`mancala.cluster.watchdog`, Linux) kills
whatever of it is left and removes its folder when the command ends, even
killed with SIGKILL. Ray's driver sets no signal handler of its own here
(:func:`_ray_leaves_signals`): a stop during ray.shutdown is held, then handled
as any other (:mod:`mancala.cli.signals`).
"""
from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import warnings
from dataclasses import dataclass
from typing import Callable, Iterator, List, Optional

from mancala.errors import ClusterError, quote

INSTALL_HINT = "--cluster needs the extra: pip install 'kalah[cluster]' (or -e '.[cluster]')"
ADDRESS = re.compile(r"local(?::([0-9]{1,4}))?|auto|ray://[^\s/]+:([0-9]{1,5})")
SPELLINGS = "local, local:N, auto or ray://HOST:PORT"
MARK = "MANCALA_RAY_RUNTIME"            # set in a local runtime's processes: the watchdog's sign
WATCHDOG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "watchdog.py")
WATCHDOG_SECONDS = 60.0                 # the longest a command waits for its watchdog's sweep
PROBE_SECONDS = 10.0                    # the longest a ray:// address may take to answer a connection
RAY_START_ERRORS = (ConnectionError, OSError, ValueError, RuntimeError, TimeoutError)


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
    """An ``--cluster`` value as typed (nothing stripped: ``''`` and ``'local:2\\n'``
    are refused), else ClusterError listing the spellings."""
    m = ADDRESS.fullmatch(text) if isinstance(text, str) else None
    if m is None:
        raise ClusterError(f"--cluster is {SPELLINGS}, not {quote(text)}")
    if text.startswith("local"):
        cpus = int(m.group(1)) if m.group(1) else None
        if cpus is not None and not 1 <= cpus <= 1024:
            raise ClusterError(f"local:N takes 1 to 1024 CPUs, not {cpus}")
        return Address("local", cpus)
    if text == "auto":
        return Address("auto")
    if not 1 <= int(m.group(2)) <= 65535:
        raise ClusterError(f"a port is 1 to 65535, not {m.group(2)} (in {quote(text)})")
    return Address("ray", url=text)


def probe(where: Address) -> None:
    """A ray:// address: ClusterError in one line unless something takes a TCP
    connection at its host and port. Ray Client would try for some 30 s before
    it said so; a refused connection is known at once, and an unanswered one
    within :data:`PROBE_SECONDS`."""
    port = ADDRESS.fullmatch(where.url).group(2)
    host = where.url[len("ray://"):-len(port) - 1]
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host     # [::1]
    try:
        with socket.create_connection((host, int(port)), timeout=PROBE_SECONDS):
            pass
    except socket.gaierror:
        raise ClusterError(f"cannot reach the Ray cluster at {where}: no host is named {quote(host)}") \
            from None
    except socket.timeout:
        raise ClusterError(f"cannot reach the Ray cluster at {where}: nothing answered within "
                           f"{PROBE_SECONDS:g} s") from None
    except OSError as exc:
        why = "connection refused" if isinstance(exc, ConnectionRefusedError) else \
            (exc.strerror or type(exc).__name__).lower()
        raise ClusterError(f"cannot reach the Ray cluster at {where}: nothing answers there "
                           f"({why})") from None


def ray_error_line(exc: BaseException) -> str:
    """The line that says what went wrong in a Ray error: a task's exception is
    the last line of its remote traceback."""
    text = str(getattr(exc, "cause", None) or exc).strip()
    return text.splitlines()[-1] if text else type(exc).__name__


def announcement(doing: str, where: "str | Address", cpus: int, details: str = "") -> str:
    """The line a command says once it has joined: "solving on the cluster at
    local:2 (2 CPUs; ...)"."""
    return (f"{doing} on the cluster at {where} ({cpus} CPU{'s' if cpus != 1 else ''}"
            f"{'; ' + details if details else ''})")


@contextlib.contextmanager
def joined(address: "str | Address", doing: str, say: Callable[[str], None],
           details: Callable[[int], str] = lambda cpus: "") -> Iterator[int]:
    """:func:`connect` for the block, then ``say`` the :func:`announcement`
    (``details(cpus)`` after the CPUs); yields the CPUs."""
    with connect(address) as cpus:
        say(announcement(doing, address, cpus, details(cpus)))
        yield cpus


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

    A local runtime is started with its files in a temporary folder and ended
    on the way out, its folder removed (:class:`LocalRuntime`); a cluster
    joined (auto, ray://) is left running, only this driver disconnects. Ray's
    token authentication is off unless ``RAY_AUTH_MODE`` says otherwise
    (nothing is written under the home folder). Ctrl-C and SIGTERM wait while
    Ray starts and ends, then act. Raises ClusterError for an address that
    cannot be reached.
    """
    where = parse_address(address) if isinstance(address, str) else address
    ray = ray_module()
    if where.kind == "ray" and not ray.is_initialized():
        probe(where)
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    if ray.is_initialized():            # a caller (a test, a notebook) connected already
        yield int(ray.cluster_resources().get("CPU", 1))
        return
    runtime: List[LocalRuntime] = []
    try:
        # a local runtime's start is held from stops (a few seconds): one cut
        # short left processes running or crashed the command; joining one may
        # wait on the network for minutes, and a stop may cut it short
        with _stops_deferred(where.kind == "local") as held:
            if where.kind == "local":
                runtime.append(LocalRuntime())
            _start(ray, where, runtime[0] if runtime else None, held)
            cpus = int(ray.cluster_resources().get("CPU", 1))
    except BaseException:               # a stop that came meanwhile is raised here, too
        with _stops_deferred():
            _end(ray, runtime)
        raise
    try:
        yield cpus
    finally:
        with _stops_deferred():
            _end(ray, runtime)


_RAY_STARTED: List[bool] = []


def ray_was_used() -> bool:
    """Whether this process has started Ray (joined a cluster, or run a runtime):
    its threads may outlive ray.shutdown, so the command ends at once after
    (mancala._command_start.leave)."""
    return bool(_RAY_STARTED)


def _start(ray, where: Address, runtime: "Optional[LocalRuntime]", held: "_Held") -> None:
    """ray.init for the address, stops held (see :func:`connect`)."""
    options = dict(log_to_driver=False, logging_level="ERROR")
    _RAY_STARTED.append(True)
    try:
        with warnings.catch_warnings(), _ray_leaves_signals(ray):
            warnings.simplefilter("ignore")     # Ray's own warning would repeat the one line below
            if runtime is not None:
                # the workers run at the command's own priority, as a one-machine
                # command's threads do (Ray's default nices them to 15)
                os.environ.setdefault("RAY_worker_niceness", "0")
                with runtime.marking():
                    ray.init(num_cpus=where.cpus or os.cpu_count() or 1, include_dashboard=False,
                             _temp_dir=runtime.folder, **options)
            else:
                ray.init(address=where.url or "auto", **options)
    except RAY_START_ERRORS as exc:
        raise ClusterError(f"cannot reach the Ray cluster at {where}: {ray_error_line(exc)}") from None
    except Exception as exc:            # Ray raises a bare Exception when a node misses its start
        if runtime is None:             # time (30 s: "timed out during startup", a loaded machine)
            raise ClusterError(f"cannot reach the Ray cluster at {where}: {ray_error_line(exc)}") \
                from None
        raise ClusterError(f"the local Ray runtime did not start: {ray_error_line(exc)}") from None
    except SystemExit as exc:           # Ray's own SIGTERM handler, where it could set one
        if exc.code != signal.SIGTERM:
            raise
        held.came.append(signal.SIGTERM)
    finally:
        held.again()                    # ray.init may have set its handlers over ours


def _end(ray, runtime: "List[LocalRuntime]") -> None:
    """Disconnect (a local runtime: shut it down, then its watchdog's sweep)."""
    try:
        ray.shutdown()
    finally:
        for each in runtime:
            each.close()


@contextlib.contextmanager
def _ray_leaves_signals(ray) -> Iterator[None]:
    """For the block (ray.init), Ray's driver sets no handler of its own for
    SIGTERM, so the caller's stays, from the start through ray.shutdown; nor
    does it print the cluster's error notes.

    Two of Ray's handlers would take SIGTERM: ray.init's own in Python (it
    exits 15 at once, no line, half started: a runtime's processes and folder
    were left behind), whose setter (Ray 2.x:
    ``ray._private.utils.set_sigterm_handler``) does nothing here; and the C++
    core's failure-signal handler (absl's), set below Python
    (``signal.getsignal`` still names ours): it printed a C++ stack and killed
    the command by SIGTERM or SIGABRT, and ray.shutdown uninstalls it by setting
    SIGTERM to SIG_DFL, so a stop during the shutdown killed the command (-15,
    no line). The core sets it unless
    ``ray._private.ray_constants.RAY_DISABLE_FAILURE_SIGNAL_HANDLER``, read as
    the driver connects: set here, for this process alone (Ray's own processes
    keep theirs). And the driver's thread that prints the raylet's notes
    (``listen_error_messages``: "Task ... will be retried", on stdout, into a
    ``--json`` document, as a stop ends the actors) does not start: a task's
    failure reaches the command as its exception (:func:`ray_error_line`).
    Where a setter or the switch is not found, a SIGTERM still comes out of
    ray.init as SystemExit(15), which :func:`_start` takes."""
    private = getattr(ray, "_private", None)
    ours = (("utils", "set_sigterm_handler", lambda handler: None),
            ("ray_constants", "RAY_DISABLE_FAILURE_SIGNAL_HANDLER", True),
            ("worker", "listen_error_messages", lambda *args: None))
    kept = []                           # (module, name, Ray's own value), for each found
    for where, name, value in ours:
        module = getattr(private, where, None)
        if hasattr(module, name):
            kept.append((module, name, getattr(module, name)))
            setattr(module, name, value)
    try:
        yield
    finally:
        for module, name, before in kept:
            setattr(module, name, before)


class LocalRuntime:
    """What a ``local`` runtime leaves to clean: its folder, and its processes,
    those Ray starts with the mark in their environment (:meth:`marking`) and
    their descendants. A watchdog process (Linux, where /proc shows both) sweeps
    them when :meth:`close` is called or this process dies, whichever comes
    first, and no other process (see :mod:`mancala.cluster.watchdog`)."""

    def __init__(self) -> None:
        self.folder = tempfile.mkdtemp(prefix="mancala-ray-", dir=_short_temp())
        self.mark = f"{os.getpid()}-{secrets.token_hex(8)}"
        self.watchdog: Optional[subprocess.Popen] = None
        if os.path.exists(f"/proc/{os.getpid()}/environ"):
            environ = {key: value for key, value in os.environ.items() if key != MARK}
            try:
                self.watchdog = subprocess.Popen(
                    [sys.executable, "-I", "-S", WATCHDOG, f"{MARK}={self.mark}", self.folder],
                    stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                    start_new_session=True, env=environ)
            except OSError:
                self.watchdog = None       # ray.shutdown and the folder's removal still run

    @contextlib.contextmanager
    def marking(self) -> Iterator[None]:
        """For the block (ray.init), this runtime's mark in the environment, so
        every process it starts carries it (their workers inherit it from them)."""
        os.environ[MARK] = self.mark
        try:
            yield
        finally:
            os.environ.pop(MARK, None)

    def close(self) -> None:
        """Sweep: the watchdog kills what is left of the runtime and removes the
        folder; wait for it (and remove the folder here too, watchdog or not)."""
        if self.watchdog is not None:
            watchdog, self.watchdog = self.watchdog, None
            try:
                watchdog.stdin.close()
                watchdog.wait(WATCHDOG_SECONDS)
            except (OSError, subprocess.TimeoutExpired):
                pass
        shutil.rmtree(self.folder, ignore_errors=True)


class _Held:
    """Ctrl-C and SIGTERM for a block (see :func:`_stops_deferred`): noted in
    :attr:`came` and their handlers run after it, or, not held, only their
    handlers put back after it."""

    def __init__(self, hold: bool) -> None:
        self.came: List[int] = []
        self.handlers = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM)} \
            if threading.current_thread() is threading.main_thread() else {}
        # a handler set outside Python (None) stays, and so does one ignored (nohup)
        self.held = [signum for signum, handler in self.handlers.items()
                     if hold and handler is not None and handler is not signal.SIG_IGN]
        self.again()

    def _note(self, signum, frame) -> None:
        self.came.append(signum)

    def again(self) -> None:
        """The handlers as the block wants them, after something (ray.init) set its
        own: set again even where ``signal.getsignal`` names them, as it still does
        after C code replaced them."""
        for signum, handler in self.handlers.items():
            wanted = self._note if signum in self.held else handler
            if wanted is not None:
                signal.signal(signum, wanted)

    def release(self) -> None:
        for signum, handler in self.handlers.items():
            if handler is not None:
                signal.signal(signum, handler)
        for signum in self.came:                 # now as it would have been
            handler = self.handlers.get(signum)
            if callable(handler):
                handler(signum, None)
            elif handler == signal.SIG_DFL:
                os.kill(os.getpid(), signum)


@contextlib.contextmanager
def _stops_deferred(hold: bool = True) -> Iterator[_Held]:
    """For the block, Ctrl-C and SIGTERM wait: their handlers run after it. A stop
    that lands in ray.init() or ray.shutdown() ends it half-way: the runtime's
    processes lived on, writing their logs into a folder already removed, or
    the command died of SIGSEGV or SIGABRT. Off the main thread nothing changes;
    with ``hold`` false, only the handlers are put back after the block."""
    held = _Held(hold)
    try:
        yield held
    finally:
        held.release()


__all__ = ["Address", "parse_address", "probe", "connect", "joined", "announcement", "ray_error_line",
           "ray_module", "ray_was_used", "LocalRuntime", "INSTALL_HINT"]
