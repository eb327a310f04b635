"""The rated games the server holds (issue 31, item 7; issue 34, "rated means unaided";
issue 38, "a rated game belongs to the client that started it"): the server's own state,
made with it (:attr:`mancala.web.server.Server.rated`); their routes are
:mod:`mancala.web.games`'.

A rated game is a person against a computer level with an Elo, from a start, under the
rules the levels were measured on (:func:`mancala.game.can_be_rated`). The server holds
its board and plays the computer's moves itself, so a result cannot be made up; an ended
game is kept in the history, rated (:meth:`RatedGames.keep`).

**Whose game.** A game is known by a name the server makes and belongs to the client
holding its ``token`` (:meth:`RatedGames.get`: 400 without one, 403 with another's). A
client holds one game at a time (:data:`GAMES_PER_CLIENT`): its game in play must be
resigned before its next starts (409).

**What is dropped, and how.** No client's traffic scores another's game. A game unused for
:data:`IDLE_SECONDS` is dropped when the next game is asked for, kept as the person's
resignation once they had played a move (leaving a game is no escape from a loss), forgotten
when they had not. Past :data:`MAX_GAMES`, the least recently used game nobody has moved in
(or one already kept) is forgotten, never scored; when every game held is in play the new
one is refused (429) until one ends or is left six hours.
"""
from __future__ import annotations

import hmac
import secrets
import time
from collections import OrderedDict
from typing import Any, Dict, List, Optional, Tuple

from mancala import history as _history
from mancala.board import Board
from mancala.errors import HistoryError, Refused, RequestError, quote
from mancala.game import unrated_because
from mancala.geometry import SIDE_KEYS
from mancala.web import api

MAX_GAMES = 256                     # rated games held at once, all clients together
GAMES_PER_CLIENT = 1                # rated games one client (one token) holds: the page plays one
IDLE_SECONDS = 6 * 3600.0           # a game unused this long is dropped
GAME_CHARS = 32                     # a game's name: at most this long
TOKEN_CHARS = 64                    # a client's token: at most this long


class RatedGame:
    """One rated game on the server: the board, who plays which side, and, once it
    ended, how it was kept (:attr:`kept`, the answer of :func:`mancala.web.api.kept_answer`)."""

    def __init__(self, name: str, token: str, south: str, north: str, seeds: int,
                 capture: str) -> None:
        self.name = name
        self.token = token                              # the client's, whose game this is
        self.players = (south, north)
        self.human = 0 if south == _history.HUMAN else 1
        self.level = self.players[1 - self.human]
        self.seeds, self.capture = seeds, capture
        self.board = Board(seeds=seeds, capture=capture)
        self.resigned: Optional[int] = None
        self.kept: Optional[Dict[str, Any]] = None      # the history's answer, once kept
        self.kept_error: Optional[str] = None           # why it could not be kept, the last time
        self.used = time.monotonic()
        self.lock = None                                # an anyio.Lock, made in the event loop

    @property
    def human_moved(self) -> bool:
        """The person has played a move: leaving the game now is resigning it."""
        return any(record.player == self.human for record in self.board.move_stack)

    @property
    def moves(self) -> List[int]:
        return [record.pit for record in self.board.move_stack]

    @property
    def over(self) -> bool:
        return self.resigned is not None or self.board.is_game_over()

    @property
    def forgettable(self) -> bool:
        """Nothing is lost by forgetting it: nobody has moved in it, or it ended and was kept."""
        return not self.human_moved or self.kept is not None

    def owned_by(self, token: str) -> bool:
        return hmac.compare_digest(self.token.encode(), token.encode())

    def position(self) -> Dict[str, Any]:
        return {"seeds": self.seeds, "capture": self.capture, "moves": self.moves}

    def answer(self) -> Dict[str, Any]:
        """The game as the page draws it: the state, players, who the person is, how it ended."""
        return {"game": self.name, "rated": True, "players": dict(zip(SIDE_KEYS, self.players)),
                "human": self.human, "level": self.level,
                "state": api.state(self.position(), self.board),
                "resigned": self.resigned, "kept": self.kept, "kept_error": self.kept_error}


def players_request(data: Any, seeds: int, capture: str) -> Tuple[str, str]:
    """A rated game's players: one person and one computer level with an Elo, under rules
    the levels were measured on (:func:`mancala.game.unrated_because`), else RequestError."""
    south, north = api.players(data, required=True)
    why = unrated_because(south, north, seeds, capture)
    if why is not None:
        raise RequestError(f"not a rated game: {why} (play it casual: it is kept, not rated)")
    return south, north


def token_field(value: Any) -> str:
    """A request's ``token``: a string of at most :data:`TOKEN_CHARS` ASCII characters."""
    if not isinstance(value, str) or len(value) > TOKEN_CHARS or not value.isascii():
        raise RequestError(f"token is the one /api/rated/new gave, not {quote(value)}")
    return value


class RatedGames:
    """The rated games the server holds, by name (at most :data:`MAX_GAMES`)."""

    def __init__(self) -> None:
        self.games: "OrderedDict[str, RatedGame]" = OrderedDict()

    def new(self, south: str, north: str, seeds: int, capture: str,
            token: Optional[str] = None) -> Tuple[RatedGame, List[RatedGame]]:
        """A new game for the client holding ``token`` (a new client without one), and
        the games left :data:`IDLE_SECONDS` that the person had moved in and not finished,
        resigned: the caller keeps them (:meth:`keep`). In turn:

        1. every game left too long is dropped;
        2. the client's own games: one in play refuses the new one (409), the others go;
        3. past :data:`MAX_GAMES`, the least recently used game that is
           :attr:`~RatedGame.forgettable` goes; none is: the new one is refused (429).
        """
        now = time.monotonic()
        dropped = [self.games.pop(name) for name, game in list(self.games.items())
                   if now - game.used > IDLE_SECONDS]
        left = [old for old in dropped if old.human_moved and not old.over]
        for old in left:                # a game left six hours unfinished: its resignation
            old.resigned = old.human
        if token is not None:
            token = self._leave_mine(token)
        if len(self.games) >= MAX_GAMES:
            spare = next((game for game in self.games.values() if game.forgettable), None)
            if spare is None:
                raise Refused(429, f"the server holds {MAX_GAMES} rated games in play; one must "
                                   f"end (or be left {IDLE_SECONDS / 3600:g} hours) before another "
                                   "starts")
            del self.games[spare.name]
        game = RatedGame(secrets.token_hex(12), token or secrets.token_urlsafe(24),
                         south, north, seeds, capture)
        self.games[game.name] = game
        return game, left

    def _leave_mine(self, token: str) -> Optional[str]:
        """The client's games but its newest :data:`GAMES_PER_CLIENT` - 1 let go (409 for
        one in play); its token, or None when it holds none (a new client then)."""
        mine = [game for game in self.games.values() if game.owned_by(token)]
        going = mine[:max(0, len(mine) - GAMES_PER_CLIENT + 1)]     # least recently used
        for game in going:
            if game.over and not game.forgettable:
                raise Refused(409, f"your rated game {game.name} is over but not kept yet: "
                                   "POST /api/rated/state keeps it")
            if not game.forgettable:
                raise Refused(409, f"your rated game {game.name} is not over: resign it "
                                   "first (POST /api/rated/resign)")
        for game in going:
            del self.games[game.name]
        return token if mine else None

    def in_play(self, board: Board) -> bool:
        """Whether ``board`` is where a rated game not yet over stands, as a search sees it
        (:meth:`mancala.board.Board.search_key`: its pits from the mover's side, however
        the stores hold or the sides are written) under its capture rule: no endpoint helps
        with that position (:meth:`mancala.web.server.Server.unaided`). A start no move
        was played from is not one: every game begins there."""
        key = board.search_key()
        return any(not game.over and game.board.move_stack and game.capture == board.capture
                   and game.board.search_key() == key
                   for game in self.games.values())

    def get(self, name: Any, token: Any) -> RatedGame:
        """The game ``name`` for the client holding ``token``: 404 when the server holds no
        such game, 403 when it is another client's (and it is left as it was)."""
        if not isinstance(name, str) or len(name) > GAME_CHARS:
            raise RequestError(f"game is the name /api/rated/new gave, not {quote(name)}")
        token = token_field(token)
        game = self.games.get(name)
        if game is None:
            raise Refused(404, f"no rated game {quote(name)} (it was dropped after "
                               f"{IDLE_SECONDS / 3600:g} hours unused, or the server restarted)")
        if not game.owned_by(token):
            raise Refused(403, f"the rated game {name} is another client's: only the page "
                               "that started it plays it")
        game.used = time.monotonic()
        self.games.move_to_end(name)
        return game

    @staticmethod
    def keep(game: RatedGame) -> None:
        """An ended game kept in the history, once (run in a worker thread: it writes the
        file); when the history cannot be written, why (:attr:`RatedGame.kept_error`), and
        it is tried again at the game's next request."""
        if game.kept is not None or not game.over:
            return
        try:
            kept = _history.record_game(game.players[0], game.players[1], game.seeds,
                                        game.capture, game.moves, rated=True,
                                        resigned=game.resigned)
            game.kept = api.kept_answer(*kept)
            game.kept_error = None
        except HistoryError as exc:
            game.kept_error = (f"the game is over but could not be kept: {exc} "
                               "(POST /api/rated/state tries again)")


__all__ = ["RatedGame", "RatedGames", "players_request", "token_field", "MAX_GAMES",
           "GAMES_PER_CLIENT", "IDLE_SECONDS"]
