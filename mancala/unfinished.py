"""Games not over yet, kept on disk so that none vanishes, and the one rule for a rated game
left unfinished (:data:`mancala.game.LEFT_RULE`), the same in both faces.

The web's games, rated and casual, are kept in the history's file (its ``unfinished``
table: :class:`Unfinished`, a :class:`mancala.history.History` seen as its games not over
yet), between two requests: a server that restarts, or a page that is left for another and
comes back, finds them as they were. The terminal's game is its autosave
(:mod:`mancala.autosaves`), as ever.

A rated game left unfinished counts as the person's loss, their resignation, kept in the
history and rated, once :data:`mancala.game.LEFT_HOURS` pass with no move or request after
their first move (:func:`mancala.game.left_for_good`); one left before the person's first
move counts for nothing. Each face applies it when it next looks: the web server when it
starts and whenever a rated game is asked for or begun (:mod:`mancala.web.rated`), the
terminal when ``play`` starts (:func:`settle_left`, over the autosaves no running game owns).
"""
from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from dataclasses import dataclass
from typing import Any, Dict, List, Optional

from mancala import autosaves
from mancala.errors import HistoryError, InUseError, MancalaError, one_line
from mancala.game import LEFT_HOURS, left_for_good
from mancala.history import History
from mancala.kept import HUMAN
from mancala.untrusted import printable

MAX_CASUAL = 256        #: casual games kept, all clients together (the least recently used go first)
_FIELDS = ("name", "owner", "rated", "south", "north", "position", "shown", "resigned", "kept", "used")


def owner_of(token: str) -> str:
    """Who holds a game, as the file says it: the SHA-256 of the client's token (hex), so the
    file never holds a token itself."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass
class Held:
    """One game not over yet (or over and not yet let go), as the file keeps it."""

    name: str                       #: the face's name for it
    owner: str                      #: :func:`owner_of` its client's token
    rated: bool                     #: rated: the server plays the computer's moves
    south: str                      #: the players' canonical spellings
    north: str
    position: Dict[str, Any]        #: its start and every move, as the web API writes a position
    shown: int                      #: the moves of it shown (a casual game looked back at)
    resigned: Optional[int] = None  #: the side that resigned, else None
    kept: Optional[Dict[str, Any]] = None   #: once kept in the history: what the face said of it
    used: float = 0.0               #: when it was last played or asked for (seconds since the epoch)

    def row(self) -> tuple:
        return (self.name, self.owner, int(self.rated), self.south, self.north,
                json.dumps(self.position), self.shown, self.resigned,
                None if self.kept is None else json.dumps(self.kept), self.used)


def _held(row: tuple) -> Optional[Held]:
    """A row as a Held game, or None for one that does not read (edited by hand)."""
    values = dict(zip(_FIELDS, row))
    try:
        position = json.loads(values["position"])
        kept = None if values["kept"] is None else json.loads(values["kept"])
    except (TypeError, ValueError, RecursionError):
        return None
    if not isinstance(position, dict) or not isinstance(position.get("moves"), list) or \
            values["resigned"] not in (None, 0, 1) or not isinstance(values["shown"], int) or \
            not isinstance(values["used"], (int, float)) or not (kept is None or isinstance(kept, dict)):
        return None
    return Held(values["name"], values["owner"], bool(values["rated"]), values["south"],
                values["north"], position, values["shown"], values["resigned"], kept,
                float(values["used"]))


class Unfinished(History):
    """The history's file (``path``; default :func:`mancala.history.default_path`) seen as
    its games not over yet. Each call is one transaction, as :class:`History`'s; HistoryError
    (one line) when the file cannot be read or written."""

    def hold(self, game: Held) -> None:
        """Keep ``game`` (in place of the one of its name). A casual game is its client's
        one: the client's other casual game goes, and past :data:`MAX_CASUAL` the least
        recently used."""
        def write(db: sqlite3.Connection) -> None:
            db.execute(f"INSERT OR REPLACE INTO unfinished ({', '.join(_FIELDS)}) "
                       f"VALUES ({', '.join('?' * len(_FIELDS))})", game.row())
            if not game.rated:
                db.execute("DELETE FROM unfinished WHERE rated = 0 AND owner = ? AND name != ?",
                           (game.owner, game.name))
                db.execute("DELETE FROM unfinished WHERE rated = 0 AND name IN (SELECT name FROM "
                           "unfinished WHERE rated = 0 ORDER BY used DESC LIMIT -1 OFFSET ?)",
                           (MAX_CASUAL,))
        self._write(write)

    def get(self, name: str) -> Optional[Held]:
        """The game of that name, or None."""
        if not self.path.exists():
            return None
        rows = self._run(False, lambda db: db.execute(
            f"SELECT {', '.join(_FIELDS)} FROM unfinished WHERE name = ?", (name,)).fetchall())
        return _held(rows[0]) if rows else None

    def held(self, rated: bool = True) -> List[Held]:
        """The rated (or casual) games held, least recently used first; rows that do not
        read are left out."""
        if not self.path.exists():
            return []
        rows = self._run(False, lambda db: db.execute(
            f"SELECT {', '.join(_FIELDS)} FROM unfinished WHERE rated = ? ORDER BY used",
            (int(rated),)).fetchall())
        return [game for game in map(_held, rows) if game is not None]

    def drop(self, *names: str) -> None:
        """Let the games of these names go (kept in the history, or forgotten)."""
        if names:
            self._write(lambda db: db.executemany("DELETE FROM unfinished WHERE name = ?",
                                                  [(name,) for name in names]))


def _settle(entry: autosaves.Entry, now: float) -> Optional[List[str]]:
    """One autosaved rated game left for good, kept as its person's loss and its autosave
    removed: the lines to say (None: it is not one, or another running game has just taken
    it; a HistoryError when it cannot be kept, its autosave left as it was)."""
    saved = entry.saved
    humans = [side for side, spec in enumerate((saved.south, saved.north)) if spec == HUMAN]
    if entry.in_use or not saved.rated or len(humans) != 1:
        return None
    board = saved.board()
    moved = any(record.player == humans[0] for record in board.move_stack)
    if not left_for_good(moved, board.is_game_over(), entry.modified, now):
        return None
    try:
        slot, _ = autosaves.Slot.claim(entry.path)
    except (InUseError, MancalaError):
        return None
    try:
        history = History()
        kept = history.record(saved.south, saved.north, saved.seeds, saved.capture, saved.moves,
                              rated=True, resigned=humans[0])
    except (MancalaError, OSError) as exc:
        slot.release()
        raise HistoryError(f"A rated game left unfinished could not be kept: {one_line(exc)}") from None
    slot.finish()
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(entry.modified))
    change = f"rated: {kept.after.shown()}" if kept.after is not None else "not rated"
    return history.notices + [
        f"Your rated game against {printable(saved.north if humans[0] == 0 else saved.south)}, "
        f"left at {when} after {len(saved.moves)} moves, was not finished within {LEFT_HOURS} "
        f"hours: it counts as your loss, kept in your history ({change})."]


def settle_left(found: autosaves.Scan, now: Optional[float] = None) -> autosaves.Scan:
    """The terminal's side of the rule: each rated game autosaved, owned by no running game and
    left for good (:func:`mancala.game.left_for_good`, from when it was last saved) is kept in
    the history as its person's resignation, rated, and its autosave removed; one notice each.
    ``found`` (a :func:`mancala.autosaves.scan`) without them."""
    now = time.time() if now is None else now
    settled = []
    for entry in found.entries:
        try:
            said = _settle(entry, now)
        except HistoryError as exc:     # kept for the next time
            found.notices.append(printable(str(exc)))
            continue
        if said is not None:
            found.notices.extend(said)
            settled.append(entry)
    found.entries = [entry for entry in found.entries if entry not in settled]
    return found


__all__ = ["Unfinished", "Held", "owner_of", "settle_left", "MAX_CASUAL"]
