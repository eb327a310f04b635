"""The casual games the server keeps for the pages (issue 40, "no game ever lost"): a casual
game is the page's own (it plays the moves, takes them back, looks back at them), and the
server writes it down as it stands after each change, in the history's file
(:class:`mancala.unfinished.Unfinished`), so a page left for another, reloaded, or met
again after the server restarted goes on with it. Their routes are :mod:`mancala.web.games`'.

A casual game belongs to the client holding its ``token`` (the rated games' token: one a
tab), and a client holds one: writing another lets the older go. Once its line ends (played
out, or resigned), the game is kept in the history, casual (never rated: the page could have
made it up), once; a game from a board set by hand is kept nowhere (the history keeps rules
and moves), nor one between two computers (nobody's: :func:`mancala.game.has_person`, the
terminal's rule): ``not_kept`` says why.
"""
from __future__ import annotations

import hmac
import secrets
import time
from typing import Any, Dict, Optional, Tuple

from mancala import history as _history
from mancala.errors import HistoryError, Refused, RequestError, quote
from mancala.game import COMPUTERS_NOT_KEPT, has_person
from mancala.geometry import SIDE_KEYS
from mancala.limits import check_whole
from mancala.unfinished import Held, Unfinished, owner_of
from mancala.web import api
from mancala.web.rated import GAME_CHARS, token_field

#: what a page sends to keep its casual game: its line, the players, the moves of it shown
FIELDS = {"game", "token", "position", "players", "shown", "resigned"}
#: why a game from a board set by hand is kept in no history, in the page's words
SET_BY_HAND = "A position set by hand: not kept in your history."


class Casual:
    """A casual game as a page sends it: its whole line (``spec``, ``board`` at its end), the
    players, the moves shown and the side that resigned (at the position shown)."""

    def __init__(self, data: Any) -> None:
        data = api.fields(data, "the request", FIELDS, {"position", "players"})
        self.name = game_name(data["game"]) if "game" in data else None
        self.token = token_field(data["token"]) if "token" in data else None
        self.spec, self.board = api.parse_position(data["position"])
        self.players = api.players(data["players"], required=True)
        moves = self.spec["moves"]
        self.shown = check_whole(data.get("shown", len(moves)), "shown (the moves shown)", 0, len(moves))
        resigned = data.get("resigned")
        if resigned is not None:
            if resigned not in SIDE_KEYS:
                raise RequestError(f"resigned is south or north, not {quote(resigned)}")
            resigned = SIDE_KEYS.index(resigned)
            if self.shown < len(moves) or self.board.is_game_over():
                raise RequestError("a game is resigned where it stands, not over and at its last move")
        self.resigned = resigned

    @property
    def ended(self) -> bool:
        """Its line played out, or resigned, with its last move shown."""
        return self.shown == len(self.spec["moves"]) and (
            self.resigned is not None or self.board.is_game_over())

    @property
    def not_kept(self) -> Optional[str]:
        """Why, once ended, it is kept in no history (:func:`not_kept`), or None."""
        return not_kept(self.players, self.spec)

    def same_game(self, held: Held) -> bool:
        """The same line, players and resignation as ``held`` (its moves shown aside)."""
        return (held.position, (held.south, held.north), held.resigned) == \
            (self.spec, self.players, self.resigned)


def not_kept(players: Tuple[str, str], spec: Dict[str, Any]) -> Optional[str]:
    """Why a casual game, once ended, is kept in no history (one line), or None."""
    if not has_person(*players):
        return COMPUTERS_NOT_KEPT
    if "board" in spec:
        return SET_BY_HAND
    return None


def game_name(value: Any) -> str:
    if not isinstance(value, str) or not value or len(value) > GAME_CHARS:
        raise RequestError(f"game is the name the server gave, not {quote(value)}")
    return value


def owned(store: Optional[Unfinished], name: Optional[str], token: Optional[str]) -> Optional[Held]:
    """The casual game ``name`` of the client holding ``token``: None when the server holds
    none of that name (or the token is not this client's: then 403)."""
    if store is None or name is None or token is None:
        return None
    held = store.get(name)
    if held is None or held.rated:
        return None
    if not hmac.compare_digest(held.owner, owner_of(token)):
        raise Refused(403, f"the game {name} is another client's: only the page that started "
                           "it goes on with it")
    return held


def keep(store: Optional[Unfinished], game: Casual) -> Dict[str, Any]:
    """POST /api/casual/keep (run in a worker thread): the game written down as it stands, and
    once ended kept in the history, casual, once. Answers its ``game`` and ``token`` (new ones
    for a new game or a new client), ``kept`` (what the history kept, or null), ``not_kept``
    (why a game is kept nowhere: :attr:`Casual.not_kept`) and ``kept_error``. 409 for another
    line under the name of a game already kept."""
    token = game.token or secrets.token_urlsafe(24)
    held = owned(store, game.name, token)
    kept, error = None, None
    if held is not None and held.kept is not None:
        if not game.same_game(held):
            raise Refused(409, f"this game is already in your history (game {held.kept['game']['id']}): "
                               "a new game starts another")
        kept = held.kept
    elif game.ended and game.not_kept is None:
        try:
            kept = api.kept_answer(*_history.record_game(
                *game.players, game.spec["seeds"], game.spec["capture"], game.spec["moves"],
                rated=False, resigned=game.resigned))
        except HistoryError as exc:
            error = f"the game is over but could not be kept: {exc}"
    name = held.name if held is not None else secrets.token_hex(12)
    if store is not None:
        try:
            store.hold(Held(name, owner_of(token), False, *game.players, game.spec, game.shown,
                            game.resigned, kept, time.time()))
        except HistoryError as exc:
            error = error or f"the game is not written down: {exc}"
    return {"game": name, "token": token, "kept": kept, "not_kept": game.not_kept,
            "kept_error": error}


def state(store: Optional[Unfinished], data: Any) -> Dict[str, Any]:
    """POST /api/casual/state ``{"game", "token"}`` (run in a worker thread): the game as it
    was written down: its players, the state of its whole line, the moves shown, who
    resigned and what the history kept. 404 when the server holds no such game."""
    data = api.fields(data, "the request", {"game", "token"}, {"game", "token"})
    name, token = game_name(data["game"]), token_field(data["token"])
    held = owned(store, name, token)
    if held is None:
        raise Refused(404, f"no casual game {quote(name)} (another took its place, or it was "
                           "left long ago)")
    spec, board = api.parse_position(held.position)
    return {"game": held.name, "players": dict(zip(SIDE_KEYS, (held.south, held.north))),
            "state": api.state(spec, board), "shown": min(held.shown, len(spec["moves"])),
            "resigned": held.resigned, "kept": held.kept,
            "not_kept": not_kept((held.south, held.north), spec)}


__all__ = ["Casual", "keep", "state", "FIELDS"]
