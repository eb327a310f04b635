"""Which endgame database an engine's searches read, position by position.

An :class:`mancala.Engine` holds one :class:`DatabaseChoice`: its
``endgame`` setting (``"auto"``, None or an :class:`EndgameDatabase`), the
databases ``"auto"`` found in the cache (looked for once per capture rule,
the first look in a thread of its own so a timed search never waits for
it), and the one its searchers read now. Table entries hold for one rule set
and one database, so a change of either clears the table.
"""
from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Dict, List, Optional, Union

from mancala import endgame
from mancala.board import Board
from mancala.endgame import EndgameDatabase, files

if TYPE_CHECKING:
    from mancala._core import Searcher

Setting = Union[None, str, EndgameDatabase]


class DatabaseChoice:
    """The endgame database the ``searchers`` read (the first owns the table)."""

    def __init__(self, setting: Setting, searchers: "List[Searcher]") -> None:
        self.setting = setting
        self._searchers = searchers
        self._found: Dict[str, Optional[EndgameDatabase]] = {}     # "auto" finds, by rule
        self._finding: Dict[str, threading.Thread] = {}             # "auto" looks under way, by rule
        self._context: Optional[tuple] = None
        self._in_use: Optional[EndgameDatabase] = None              # the database the searchers read

    def found(self, capture: str, wait: bool) -> Optional[EndgameDatabase]:
        """The database "auto" finds for a rule, looked for once per rule; a first
        look runs in a thread of its own, and without wait the answer is None
        till it is done."""
        if capture not in self._found:
            finding = self._finding.get(capture)
            if finding is None:
                finding = self._finding[capture] = threading.Thread(
                    target=self._find, args=(capture,), daemon=True,
                    name=f"mancala endgame database ({capture})")
                finding.start()
            if wait:
                finding.join()
        return self._found.get(capture)

    def _find(self, capture: str) -> None:
        self._found[capture] = endgame.find(capture)      # never raises (looked up now: tests replace it)

    def use(self, board: Board, auto: bool, wait: bool) -> Optional[int]:
        """Set the database for searching board: the setting, or with "auto" the
        cached one if ``auto`` (loaded first if ``wait``, see :meth:`found`).
        Returns its seed count (None if none is used); a change clears the table."""
        db = self.setting
        if db == "auto":
            db = self.found(board.capture, wait) if auto else None
        if db is not None and db.capture != board.capture:
            db = None
        context = (board.capture, id(db) if db else None)
        if context != self._context:
            if self._context is not None:
                self._searchers[0].clear()
            for searcher in self._searchers:
                searcher.set_endgame(db.levels if db else None)
            self._context = context
            self._in_use = db
        return db.max_seeds if db else None

    def failed(self) -> bool:
        """Whether a level file of the database in use changed under the call that
        just ended (truncated, rewritten: csrc/guard.h keeps the process alive).
        Then its answer is void: the database is dropped (said in one line), the
        table cleared, and the caller searches again without it."""
        db = self._in_use
        problem = db.intact() if db is not None else None
        if problem is None:
            return False
        files.warn(f"refused {problem}; the engine goes on without the {db.capture} database")
        if self.setting is db:
            self.setting = None
        for capture, found in list(self._found.items()):
            if found is db:
                self._found[capture] = None
        for searcher in self._searchers:
            searcher.set_endgame(None)
        self._searchers[0].clear()
        self._context = None
        self._in_use = None
        return True


__all__ = ["DatabaseChoice"]
