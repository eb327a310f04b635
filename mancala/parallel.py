"""A limited search on several threads sharing one table (Lazy SMP).

This is :meth:`mancala.Engine.search`'s work when the engine has threads:
every thread deepens the same position in the engine's one table, so what one
finds (a cut, a best move, an exact value) the others read at once. What sets
the threads apart is ABDADA's deferral, as in the exact solve
(:mod:`mancala.solving`): a thread puts off till last a subtree another is in,
and by the time it comes back the table often knows it. Without it the
threads walk the same tree in the same order and each does the whole of it:
on a quiet machine two threads reached a depth 0.99 times as fast as one
(helpers starting a depth ahead or not, reading deeper entries or not); with
it, 1.64 times (docs/strength.md, ``bench/thread_scaling.py``).
The first thread keeps the time (its soft limit and time manager);
the helpers deepen until it ends, until a hard limit (time, every thread's
nodes together, ``Engine.stop()``, Ctrl-C), or until one of them finishes the
last depth or an exact value, which ends them all. The answer is the deepest
finished iteration's, from the first thread to finish it.
"""
from __future__ import annotations

import threading
from dataclasses import replace
from typing import Any, Callable, List, NamedTuple, Optional, Sequence

from mancala._core import Searcher, clock
from mancala._threads import Workers
from mancala.board import Board
from mancala.search_values import Found, SearchRequest, SearchRole

#: threads put off the subtrees another is in (ABDADA, see above)
DEFER = True
#: a search limited to fewer moves than this runs on one thread: its whole tree
#: takes about a millisecond, what starting and ending the helpers costs
MIN_DEPTH = 10


class Team(NamedTuple):
    """An engine's searchers for one call: the first, the helpers that share its
    table, and ``rearm``, which lets searches run again after the helpers' stop
    (Engine._rearm)."""

    main: Searcher
    helpers: Sequence[Searcher]
    rearm: Callable[[], None]

    @property
    def searchers(self) -> List[Searcher]:
        return [self.main, *self.helpers]


def search(team: Team, board: Board, request: SearchRequest) -> Found:
    """``request`` answered by the team's searchers together (see the module).

    Its times count from this call; its node limit is every thread's nodes
    together. Raises what a thread's search raised (Ctrl-C, a progress that
    failed), once every thread has ended.
    """
    main, searchers = team.main, team.searchers
    answers: List[Optional[Found]] = [None] * len(searchers)
    raised: List[BaseException] = []
    lock = threading.Lock()
    main.begin_shared()
    started = clock()
    if request.progress is not None:
        request = replace(request, progress=rising(request.progress))

    def work(index: int) -> None:
        role = SearchRole(shared=True, helper=index > 0, defer=DEFER, started=started)
        try:
            answer = searchers[index].search(board, request, role)
        except BaseException as exc:    # Ctrl-C on the first thread, a progress that raised
            with lock:
                raised.append(exc)
            main.abort()
            return
        answers[index] = answer
        if index == 0 or answer.depth >= request.depth or answer.exact:
            main.abort()    # the first thread's time is up, or the last depth is reached

    team.rearm()
    running = Workers(work, [(i,) for i in range(1, len(searchers))], "mancala search helper").start()
    try:
        work(0)
    finally:
        running.wait(main.abort)      # none may still search when we go on
        team.rearm()
    if raised:
        raise raised[0]
    given = [answer for answer in answers if answer is not None]
    return replace(best_answer(answers), nodes=sum(answer.nodes for answer in given),
                   tt_hits=sum(answer.tt_hits for answer in given))


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


def best_answer(answers: Sequence[Optional[Found]]) -> Found:
    """The answer to give: the deepest finished iteration's, from the thread that
    finished it first (an exact value over any depth); none finished: the first
    thread's (its move None)."""
    def rank(index: int):
        answer = answers[index]
        return answer.exact, answer.depth, answer.first, -index
    finished = [i for i, answer in enumerate(answers) if answer is not None and answer.finished]
    if not finished:
        return answers[0] or Found()
    return answers[max(finished, key=rank)]


__all__ = ["Team", "search", "best_answer", "DEFER", "MIN_DEPTH"]
