"""The games' routes: rated games, a person against a computer level, the server holding the
board and playing the computer's moves (:mod:`mancala.web.rated` holds them), and the casual
games the server keeps for the pages (:mod:`mancala.web.casual`); both written down as they
go, in the history's file, so none is lost to a restart or a page left.

==========================  ===============================================
``POST /api/rated/check``   whether a game could be rated, and why not in one line
``POST /api/rated/new``     a rated game: ``{"players", "seeds"?, "capture"?, "token"?}``
``POST /api/rated/move``    the person's move: ``{"game", "token", "pit_index"}``
``POST /api/rated/reply``   the computer's next move: ``{"game", "token"}``
``POST /api/rated/resign``  the person resigns (a loss, kept and rated)
``POST /api/rated/state``   the game as it stands (a page reloaded)
``POST /api/casual/keep``   a page's casual game as it stands, kept in the history once ended
``POST /api/casual/state``  that game as it was written down (a page reloaded, or come back)
==========================  ===============================================

Nothing here shows a score: no hint, no analysis, no takeback, no search's numbers in the
computer's replies; the endpoints that give those refuse the position a rated game stands
at while it is played (:meth:`mancala.web.server.Server.unaided`). A casual game is the
page's own: the server writes it down and keeps it unrated once it ends.
"""
from __future__ import annotations

from typing import Any, Dict, Tuple

from mancala.board import Board
from mancala.errors import Refused
from mancala.game import unrated_because
from mancala.geometry import SIDE_NAMES
from mancala.limits import DEFAULT_CAPTURE, DEFAULT_SEEDS, check_seeds
from mancala.web import api, casual
from mancala.web.policy import endpoint, json_body
from mancala.web.rated import RatedGame, players_request, token_field

ASSETS: Dict[str, tuple] = {}        # the game's page is mancala.web.play's


def rules_request(data: Dict[str, Any]) -> Tuple[int, str]:
    """A request's ``seeds`` and ``capture``, the defaults where left out."""
    return (check_seeds(data.get("seeds", DEFAULT_SEEDS)),
            api.capture_rule(data.get("capture", DEFAULT_CAPTURE)))


async def open_game(request: Any, server: Any, more: frozenset = frozenset()
                    ) -> Tuple[RatedGame, Dict[str, Any]]:
    """The game a request names, for the client holding its token, with its lock made
    (in the event loop), and the request's fields (``more`` beside game and token)."""
    import anyio
    names = {"game", "token"} | set(more)
    data = api.fields(await json_body(request), "the request", names, names)
    game = server.rated.get(data["game"], data["token"])
    if game.lock is None:
        game.lock = anyio.Lock()
    return game, data


def played(game: RatedGame, before: Board) -> Dict[str, Any]:
    """The answer to a move: the move as /api/move describes it, and the game."""
    record = game.board.move_stack[-1]
    path = api.sowing_path(before.pits, before.to_move, record.pit)
    return {"move": api.describe(record, path), **game.answer()}


@endpoint
async def check(request: Any, server: Any) -> Dict[str, Any]:
    """Whether these players and rules make a rated game (:func:`mancala.game.unrated_because`)."""
    data = api.fields(await json_body(request), "the request", {"players", "seeds", "capture"},
                      {"players"})
    seeds, capture = rules_request(data)
    south, north = api.players(data["players"], required=True)
    why = unrated_because(south, north, seeds, capture)
    return {"rated": why is None, "why": why}


@endpoint
async def new(request: Any, server: Any) -> Dict[str, Any]:
    data = api.fields(await json_body(request), "the request",
                      {"players", "seeds", "capture", "token"}, {"players"})
    seeds, capture = rules_request(data)
    south, north = players_request(data["players"], seeds, capture)
    token = token_field(data["token"]) if "token" in data else None
    game, token, left = server.rated.new(south, north, seeds, capture, token)
    for old in left:                    # a game left for good: kept resigned
        await server.disk(lambda: server.rated.write(old))
    await server.disk(lambda: server.rated.write(game))
    return dict(game.answer(), token=token)     # the client's alone: said only here


@endpoint
async def move(request: Any, server: Any) -> Dict[str, Any]:
    game, data = await open_game(request, server, frozenset({"pit_index"}))
    pit = api.pit_index(data["pit_index"])
    async with game.lock:
        if game.over:
            raise Refused(409, "the game is over")
        if game.board.to_move != game.human:
            raise Refused(409, f"it is {SIDE_NAMES[game.board.to_move]}'s move, the "
                               "computer's: POST /api/rated/reply plays it")
        before = game.board.copy(stack=False)
        game.board.push(pit)            # IllegalMoveError (400) naming the legal pits
        await server.disk(lambda: server.rated.write(game))
        return played(game, before)


@endpoint
async def reply(request: Any, server: Any) -> Dict[str, Any]:
    game, _ = await open_game(request, server)
    async with game.lock:
        if game.over:
            raise Refused(409, "the game is over")
        if game.board.to_move == game.human:
            raise Refused(409, f"it is your move ({SIDE_NAMES[game.human]})")
        before = game.board.copy(stack=False)
        pit, _ = await server.choose(request, "rated\n" + game.name, game.level, before)
        game.board.push(pit)
        await server.disk(lambda: server.rated.write(game))
        return played(game, before)     # the move alone: no score, depth or line


@endpoint
async def resign(request: Any, server: Any) -> Dict[str, Any]:
    game, _ = await open_game(request, server)
    async with game.lock:
        if game.over:
            raise Refused(409, "the game is over")
        game.resigned = game.human
        await server.disk(lambda: server.rated.write(game))
        return game.answer()


@endpoint
async def state(request: Any, server: Any) -> Dict[str, Any]:
    game, _ = await open_game(request, server)
    async with game.lock:
        await server.disk(lambda: server.rated.write(game))
        return game.answer()


@endpoint
async def casual_keep(request: Any, server: Any) -> Dict[str, Any]:
    game = casual.Casual(await json_body(request))
    return await server.disk(lambda: casual.keep(server.unfinished, game))


@endpoint
async def casual_state(request: Any, server: Any) -> Dict[str, Any]:
    data = await json_body(request)
    return await server.disk(lambda: casual.state(server.unfinished, data))


#: (path, method, handler) of each route
ROUTES = tuple((f"/api/rated/{handler.__name__}", "POST", handler)
               for handler in (check, new, move, reply, resign, state)) + \
    (("/api/casual/keep", "POST", casual_keep), ("/api/casual/state", "POST", casual_state))


__all__ = ["ASSETS", "ROUTES", "rules_request", "played"]
