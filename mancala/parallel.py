"""A limited search on several threads sharing one table (Lazy SMP).

This is :meth:`mancala.Engine.search`'s work when the engine has threads:
every thread deepens the same position in the engine's one table, so what one
finds (a cut, a best move, an exact value) the others read at once, and the
threads' timing sets them apart: one ahead in a subtree leaves the others its
results. The odd-numbered helpers start one depth deeper, so they run ahead
by part of an iteration. (ABDADA's deferral, the exact solve's way of setting
threads apart, in :mod:`mancala.solving`, is here too, off: with it two
threads reached a depth 1.85 times as fast as one, without it 1.89-1.91,
each thread's CPU time, 30 positions, docs/strength.md.)
The first thread keeps the time (its soft limit and time manager);
the helpers deepen until it ends, until a hard limit (time, every thread's
nodes together, ``Engine.stop()``, Ctrl-C), or until one of them finishes the
last depth or an exact value, which ends them all. The answer is the deepest
finished iteration's, from the first thread to finish it.
"""
from __future__ import annotations

import threading
from typing import Any, Callable, List, Optional, Sequence, Tuple

from mancala._core import Searcher, clock
from mancala._threads import Workers
from mancala.board import Board

#: threads put off the subtrees another is in (ABDADA; measured slower here, see above)
DEFER = False
#: helper i starts its deepening at depth 1 + (i % 2) * HELPER_AHEAD
HELPER_AHEAD = 1
#: a search limited to fewer moves than this runs on one thread: its whole tree
#: takes about a millisecond, what starting and ending the helpers costs
MIN_DEPTH = 10

#: (score, move, depth, exact, nodes, table hits) of a search
Found = Tuple[int, Optional[int], int, bool, int, int]


def search(main: Searcher, helpers: Sequence[Searcher], board: Board, evaluation: int,
           max_depth: int, iterative: bool, time_left: float, node_limit: int, progress: Any,
           soft_left: float, keep_partial: bool, play: int, rearm: Any) -> Found:
    """``main.search``'s answer found by main and helpers together (see the module).

    ``time_left`` and ``soft_left`` count from this call; ``node_limit`` is
    every thread's nodes together; ``rearm`` lets searches run again after
    the helpers' stop (Engine._rearm). Raises what a thread's search raised
    (Ctrl-C, a progress that failed), once every thread has ended.
    """
    searchers: List[Searcher] = [main, *helpers]
    answers: List[Optional[Tuple[int, Optional[int], int, bool]]] = [None] * len(searchers)
    raised: List[BaseException] = []
    lock = threading.Lock()
    main.begin_shared()
    started = clock()
    report = None if progress is None else rising(progress)

    def work(index: int) -> None:
        searcher = searchers[index]
        try:
            answer = searcher.search(
                board, evaluation, max_depth, iterative, time_left, node_limit, report,
                soft_left, keep_partial, play, shared=True, helper=index > 0, defer=DEFER,
                first_depth=1 + (index % 2) * HELPER_AHEAD, started=started)
        except BaseException as exc:    # Ctrl-C on the first thread, a progress that raised
            with lock:
                raised.append(exc)
            main.abort()
            return
        answers[index] = answer
        if index == 0 or answer[2] >= max_depth or answer[3]:
            main.abort()    # the first thread's time is up, or the last depth is reached

    rearm()
    running = Workers(work, [(i,) for i in range(1, len(searchers))], "mancala search helper").start()
    try:
        work(0)
    finally:
        running.wait(main.abort)      # none may still search when we go on
        rearm()
    if raised:
        raise raised[0]
    nodes = sum(s.nodes for s in searchers)
    hits = sum(s.tt_hits for s in searchers)
    return best_answer(answers, [s.first for s in searchers]) + (nodes, hits)


def rising(progress: Callable[..., None]) -> Callable[..., None]:
    """progress, called only with a depth deeper than any before, one call at a
    time: the threads' reports (each the first to finish its depth) may cross
    on their way here, a deeper one overtaking."""
    lock = threading.Lock()
    reported = [0]

    def report(depth: int, *rest: Any) -> None:
        with lock:
            if depth > reported[0]:
                reported[0] = depth
                progress(depth, *rest)
    return report


def best_answer(answers: Sequence[Optional[Tuple[int, Optional[int], int, bool]]],
                first: Sequence[bool]) -> Tuple[int, Optional[int], int, bool]:
    """The answer to give: the deepest finished iteration's, from the thread that
    finished it first (an exact value over any depth); none finished: the first
    thread's (its move None)."""
    def rank(index: int) -> Tuple[bool, int, bool, int]:
        score, move, depth, exact = answers[index]
        return exact, depth, first[index], -index
    finished = [i for i, answer in enumerate(answers) if answer is not None and answer[1] is not None]
    if not finished:
        return answers[0] or (0, None, 0, False)
    return answers[max(finished, key=rank)]


__all__ = ["search", "best_answer", "DEFER", "HELPER_AHEAD", "MIN_DEPTH"]
