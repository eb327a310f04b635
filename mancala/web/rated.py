"""The rated games the server holds (issue 31, item 7; issue 34, "rated means unaided";
issue 38, "a rated game belongs to the client that started it"; issue 40, "no game ever
lost"): the server's own state, made with it (:attr:`mancala.web.server.Server.rated`);
their routes are :mod:`mancala.web.games`'.

A rated game is a person against a computer level with an Elo, from a start, under the
rules the levels were measured on (:func:`mancala.game.can_be_rated`). The server holds
its board and plays the computer's moves itself, so a result cannot be made up. Every
game is written down as it goes (:meth:`RatedGames.write`): held in the history's file
(:class:`mancala.unfinished.Unfinished`), so a server that restarts finds each game as it
was, and once over kept in the history, rated, once.

**Whose game.** A game is known by a name the server makes and belongs to the client
holding its ``token`` (:meth:`RatedGames.get`: 400 without one, 403 with another's); the
file keeps the token's digest, never the token. A client holds one game at a time
(:data:`GAMES_PER_CLIENT`): its game in play must be resigned before its next starts (409).

**What is dropped, and how.** No client's traffic scores another's game. A game left
unfinished counts as the person's loss once :data:`mancala.game.LEFT_HOURS` pass after
their first move with no request about it (:func:`mancala.game.left_for_good`, the
terminal's rule too): it is kept resigned when the server starts, when any game begins,
and when it is asked for, and its client finds it over. A game nobody moved in, or one
kept, is forgotten once left as long. Past
:data:`MAX_GAMES`, the least recently used game nobody has moved in (or one already kept)
is forgotten, never scored; when every game held is in play the new one is refused (429).
"""
from __future__ import annotations

import hmac
import secrets
import time
from collections import OrderedDict
from typing import Any, Dict, List, Optional, Tuple

from mancala import history as _history
from mancala.board import Board
from mancala.errors import HistoryError, IllegalMoveError, Refused, RequestError, quote
from mancala.game import LEFT_HOURS, LEFT_SECONDS, left_for_good, unrated_because
from mancala.geometry import SIDE_KEYS
from mancala.unfinished import Held, Unfinished, owner_of
from mancala.web import api

MAX_GAMES = 256                     # rated games held at once, all clients together
GAMES_PER_CLIENT = 1                # rated games one client (one token) holds: the page plays one
GAME_CHARS = 32                     # a game's name: at most this long
TOKEN_CHARS = 64                    # a client's token: at most this long


class RatedGame:
    """One rated game on the server: the board, who plays which side, and, once it
    ended, how it was kept (:attr:`kept`, the answer of :func:`mancala.web.api.kept_answer`)."""

    def __init__(self, name: str, owner: str, south: str, north: str, seeds: int,
                 capture: str) -> None:
        self.name = name
        self.owner = owner                              # its client's token's digest
        self.players = (south, north)
        self.human = 0 if south == _history.HUMAN else 1
        self.level = self.players[1 - self.human]
        self.seeds, self.capture = seeds, capture
        self.board = Board(seeds=seeds, capture=capture)
        self.resigned: Optional[int] = None
        self.kept: Optional[Dict[str, Any]] = None      # the history's answer, once kept
        self.kept_error: Optional[str] = None           # why it could not be kept, the last time
        self.used = time.time()
        self.lock = None                                # an anyio.Lock, made in the event loop

    @classmethod
    def of(cls, held: Held) -> Optional["RatedGame"]:
        """The game the file held (its moves replayed), or None for one that does not replay."""
        position = held.position
        try:
            game = cls(held.name, held.owner, held.south, held.north, position["seeds"],
                       position["capture"])
            for pit in position["moves"]:
                game.board.push(pit)
        except (IllegalMoveError, KeyError, TypeError, ValueError):
            return None
        game.resigned, game.kept, game.used = held.resigned, held.kept, held.used
        return game

    def held(self) -> Held:
        """The game as the file holds it."""
        return Held(self.name, self.owner, True, *self.players, self.position(), len(self.moves),
                    self.resigned, self.kept, self.used)

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

    def left(self, now: float) -> bool:
        """Left unfinished for good (:func:`mancala.game.left_for_good`): it counts as lost."""
        return left_for_good(self.human_moved, self.over, self.used, now)

    def owned_by(self, token: str) -> bool:
        return hmac.compare_digest(self.owner, owner_of(token))

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
    """The rated games the server holds, by name (at most :data:`MAX_GAMES`), each written
    down in ``store`` (the history's file; None: none) as it goes. Those the file held when
    the server started are held again, those left for good kept as their person's loss."""

    def __init__(self, store: Optional[Unfinished] = None) -> None:
        self.games: "OrderedDict[str, RatedGame]" = OrderedDict()
        self.store = store
        self.gone: List[str] = []           # games let go, not yet out of the file (write() does it)
        self.off: Optional[str] = None      # why games are not written down, once they could not be
        if store is None:
            return
        try:
            held = [game for game in map(RatedGame.of, store.held(rated=True)) if game is not None]
        except HistoryError as exc:
            self.off = str(exc)
            return
        self.games.update((game.name, game) for game in held)
        for game in self.settled(time.time()) or [None]:
            self.write(game)

    def settled(self, now: float) -> List[RatedGame]:
        """Every game left for good resigned (the caller writes them: kept in the history; they
        stay, over, for their client to see), and every game nobody moved in, or kept, left
        as long forgotten."""
        left = [game for game in self.games.values() if game.left(now)]
        for game in left:
            game.resigned = game.human
        idle = [name for name, game in self.games.items()
                if game.forgettable and game not in left and now - game.used > LEFT_SECONDS]
        for name in idle:
            del self.games[name]
        self.forget(*idle)
        return left

    def new(self, south: str, north: str, seeds: int, capture: str,
            token: Optional[str] = None) -> Tuple[RatedGame, str, List[RatedGame]]:
        """A new game for the client holding ``token`` (a new client without one: a token is
        made), its token, and the games just found left for good, resigned: the caller
        writes them all (:meth:`write`). In turn:

        1. every game left for good is resigned, every one left before a move forgotten;
        2. the client's own games: one in play refuses the new one (409), the others go;
        3. past :data:`MAX_GAMES`, the least recently used game that is
           :attr:`~RatedGame.forgettable` goes; none is: the new one is refused (429).
        """
        left = self.settled(time.time())
        if token is not None and not self._leave_mine(token):
            token = None                        # its games were dropped: a new client
        if len(self.games) >= MAX_GAMES:
            spare = next((game for game in self.games.values() if game.forgettable), None)
            if spare is None:
                raise Refused(429, f"the server holds {MAX_GAMES} rated games in play; one must "
                                   f"end (or be left {LEFT_HOURS:g} hours) before another starts")
            del self.games[spare.name]
            self.forget(spare.name)
        token = token or secrets.token_urlsafe(24)
        game = RatedGame(secrets.token_hex(12), owner_of(token), south, north, seeds, capture)
        self.games[game.name] = game
        return game, token, left

    def _leave_mine(self, token: str) -> bool:
        """The client's games but its newest :data:`GAMES_PER_CLIENT` - 1 let go (409 for
        one in play); whether it held any."""
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
        self.forget(*(game.name for game in going))
        return bool(mine)

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
        such game, 403 when it is another client's (and it is left as it was). A game left
        for good is resigned first (the caller writes it: it answers as over)."""
        if not isinstance(name, str) or len(name) > GAME_CHARS:
            raise RequestError(f"game is the name /api/rated/new gave, not {quote(name)}")
        token = token_field(token)
        game = self.games.get(name)
        if game is None:
            raise Refused(404, f"no rated game {quote(name)} (it was forgotten: left before "
                               "your first move, or ended and followed by your next game)")
        if not game.owned_by(token):
            raise Refused(403, f"the rated game {name} is another client's: only the page "
                               "that started it plays it")
        now = time.time()
        if game.left(now):
            game.resigned = game.human
        game.used = now
        self.games.move_to_end(name)
        return game

    def write(self, game: Optional[RatedGame]) -> None:
        """The game written down (run in a worker thread: it writes the file): once over,
        kept in the history, once (when the history cannot be written, why:
        :attr:`RatedGame.kept_error`, and it is tried again at the game's next request);
        held in the file as it stands, or let go once kept and no longer held; and the games
        let go since (:meth:`forget`) out of the file."""
        if game is not None and game.kept is None and game.over:
            try:
                kept = _history.record_game(game.players[0], game.players[1], game.seeds,
                                            game.capture, game.moves, rated=True,
                                            resigned=game.resigned)
                game.kept, game.kept_error = api.kept_answer(*kept), None
            except HistoryError as exc:
                game.kept_error = (f"the game is over but could not be kept: {exc} "
                                   "(POST /api/rated/state tries again)")
        gone, self.gone = self.gone, []
        if self.store is None:
            return
        try:
            if game is not None and game.name in self.games:
                self.store.hold(game.held())
            elif game is not None:
                gone.append(game.name)
            self.store.drop(*gone)
            self.off = None
        except HistoryError as exc:
            self.off = str(exc)
            self.gone += gone

    def forget(self, *names: str) -> None:
        """Games let go, never scored: out of the file at the next :meth:`write`."""
        self.gone += names


__all__ = ["RatedGame", "RatedGames", "players_request", "token_field", "MAX_GAMES",
           "GAMES_PER_CLIENT"]
