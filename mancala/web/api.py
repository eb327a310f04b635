"""What the web app's endpoints answer, without the web: JSON in, JSON out.

Every function here takes the decoded JSON of a request (untrusted) and
returns the JSON of the answer, or raises an :class:`mancala.errors.InputError`
subclass whose message is the one line the client sees. The rules are the
library's: positions are :class:`mancala.Board`, checks are
:mod:`mancala.limits`, save files are :mod:`mancala.storage`, players are
:mod:`mancala.players`. :mod:`mancala.web.app` puts these on HTTP and a
WebSocket; docs/web.md describes the API.

A *position* is either a start and the moves played from it::

    {"seeds": 4, "capture": "standard", "moves": [2, 5]}

or any board (14 counts, the slot order of the rules) with its side to move,
and the moves played from it::

    {"board": [4, 4, 4, 4, 4, 4, 0, 4, 4, 4, 4, 4, 4, 0], "to_move": 0,
     "capture": "standard", "moves": []}

Moves are pit indices 0..5 from each mover's left, as in save files.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple, Union

from mancala import records, storage
from mancala.board import CAPTURE_RULES, Board, MoveRecord, capture_code
from mancala.board import CAPTURE_WORDS as RULE_WORDS
from mancala.analysis import AnalysisProgress
from mancala.engine import SearchResult
from mancala.errors import IllegalMoveError, InvalidLimitError, RequestError, quote
from mancala.history import GameRecord
from mancala.geometry import PITS, SIDE_NAMES, SLOTS, PovScore, facing_slot, pit_slot, store_slot
from mancala.limits import DEFAULT_CAPTURE, DEFAULT_SEEDS, check_seconds, check_seeds, check_whole
from mancala.players import Player, canonical_spec, make_player
from mancala.puzzles import teaching
from mancala.players import level_elo as level_elo_of
from mancala.scores import Score
from mancala.levels import elo_range
from mancala.specs import LEVELS as ENGINE_LEVELS
from mancala.specs import PlayerSpec

MAX_MOVES = 2000                # longer than any game: a request holding more is not one
#: the players the web app runs, as the page names them: no external programs, no pure-Python searches
LEVEL_NAMES = {"human": "Human", "random": "Random moves",
               **{f"ai:{level}": f"Computer: {level}" for level in ENGINE_LEVELS}}
LEVELS = tuple(LEVEL_NAMES)
COMPUTER_LEVELS = LEVELS[1:]
ELO_LEVEL = "ai:elo="   #: with N, the engine at a strength of N Elo (mancala.specs), run too


def runs(spec: Any, computer: bool = False) -> bool:
    """Whether the web app runs ``spec`` as a player (a computer, with ``computer``): one of
    :data:`LEVELS`, or ``ai:elo=N`` as the library writes it, N within
    :func:`mancala.levels.elo_range`."""
    if not isinstance(spec, str) or len(spec) > 20:
        return False
    if spec in (COMPUTER_LEVELS if computer else LEVELS):
        return True
    try:
        parsed = PlayerSpec.parse(spec) if spec.startswith(ELO_LEVEL) else None
    except ValueError:
        return False
    return parsed is not None and parsed.elo is not None and str(parsed) == spec


def levels_words(computer: bool = False) -> str:
    """The players the web runs, in words, for a refusal."""
    low, high = elo_range()
    return f"one of {', '.join(COMPUTER_LEVELS if computer else LEVELS)} or ai:elo=N ({low} to {high})"


#: each capture rule named and in a few words (mancala.board.CAPTURE_WORDS), for the
#: new-game dialog and the editor
CAPTURE_WORDS = {name: f"{name}: {words}" for name, words in RULE_WORDS.items()}


def level_elo() -> Dict[str, float]:
    """The Elo of each computer level the page offers (:func:`mancala.players.level_elo`)."""
    found = {level: level_elo_of(level) for level in COMPUTER_LEVELS}
    return {level: entry.elo for level, entry in found.items() if entry is not None}


def rated_levels() -> List[str]:
    """The computer levels a rated game may be played against: those with an Elo (the
    history rates a game against no other)."""
    return list(level_elo())


def score_text(score: int, side: int, *, exact: bool, depth: Optional[int] = None,
               you: Optional[int] = None) -> str:
    """A score in words that names its side and its kind (:class:`mancala.scores.Score`,
    the wording of every face): ``score`` seeds from ``side``'s view, said for ``you`` (a
    side) when given, else for the side ahead: ``"South +8 (depth 14)"``,
    ``"-3 for you (exact)"``, ``"even (exact)"``."""
    return Score(score, side, exact, None if exact else depth).text(you)


MAX_ANALYSIS_DEPTH = 60         # a live analysis deepens at most this far...
MAX_ANALYSIS_SECONDS = 60.0     # ...and for at most this long
DEFAULT_ANALYSIS_SECONDS = 20.0

_START_FIELDS = {"seeds", "capture", "moves"}
_BOARD_FIELDS = {"board", "to_move", "capture", "moves"}


MINE = "mine"       #: the puzzles' theme of your own puzzles: your reviewed games' mistakes


def theme_list() -> List[Dict[str, str]]:
    """The puzzles' themes a player may choose (:mod:`mancala.puzzles.teaching`), and your
    own puzzles (:data:`MINE`), for /api/info: ``[{"key", "name"}]``."""
    return [{"key": key, "name": teaching.THEME_NAMES[key]} for key in teaching.THEMES] + \
        [{"key": MINE, "name": "your own mistakes"}]


# -- reading requests ----------------------------------------------------------------

def fields(data: Any, what: str, allowed: set, required: set = frozenset()) -> Dict[str, Any]:
    """``data`` if it is a JSON object with only ``allowed`` fields and every
    ``required`` one, else RequestError naming the first problem."""
    if not isinstance(data, dict):
        raise RequestError(f"{what} is a JSON object, not {quote(data)}")
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise RequestError(f"unknown field {quote(unknown[0])} in {what}; "
                           f"it takes {', '.join(sorted(allowed))}")
    missing = sorted(set(required) - set(data))
    if missing:
        raise RequestError(f"{what} has no {quote(missing[0])} field")
    return data


def pit_index(value: Any, what: str = "pit") -> int:
    """A pit index 0..5 (not a bool, not 2.0), else IllegalMoveError stating the range."""
    return check_whole(value, f"{what} (an index from the mover's left)", 0, PITS - 1,
                       error=IllegalMoveError)


def capture_rule(value: Any) -> str:
    """A capture rule name, else InvalidRuleError listing them."""
    capture_code(value)
    return value


def parse_position(data: Any) -> Tuple[Dict[str, Any], Board]:
    """A position's JSON as (its normal form, the Board it reaches).

    Raises RequestError for a shape that is not a position, and what
    :class:`mancala.Board` raises for a board, rule or move it refuses (a
    move's error says which move it was).
    """
    if isinstance(data, dict) and "board" in data:
        data = fields(data, "position", _BOARD_FIELDS, {"board"})
        capture = capture_rule(data.get("capture", DEFAULT_CAPTURE))
        slots = data["board"]
        if not isinstance(slots, list):
            raise RequestError(f"board is a list of 14 seed counts, not {quote(slots)}")
        to_move = data.get("to_move", 0)
        board = Board(slots, to_move, capture=capture)
        spec: Dict[str, Any] = {"board": list(board.pits), "to_move": board.to_move,
                                "capture": capture}
    else:
        data = fields(data, "position", _START_FIELDS)
        seeds = check_seeds(data.get("seeds", DEFAULT_SEEDS))
        capture = capture_rule(data.get("capture", DEFAULT_CAPTURE))
        board = Board(seeds=seeds, capture=capture)
        spec = {"seeds": seeds, "capture": capture}
    moves = data.get("moves", [])
    if not isinstance(moves, list):
        raise RequestError(f"moves is a list of pit indices 0..5, not {quote(moves)}")
    if len(moves) > MAX_MOVES:
        raise RequestError(f"moves holds {len(moves):,} moves; a game has at most {MAX_MOVES:,}")
    for number, pit in enumerate(moves, 1):
        pit = pit_index(pit, f"move {number}")
        try:
            board.push(pit)
        except IllegalMoveError as exc:
            raise IllegalMoveError(f"move {number}: {exc}") from None
    spec["moves"] = list(moves)
    return spec, board


def start_of(spec: Dict[str, Any]) -> Board:
    """The board a position's moves start from."""
    if "board" in spec:
        return Board(spec["board"], spec["to_move"], capture=spec["capture"])
    return Board(seeds=spec["seeds"], capture=spec["capture"])


# -- answers -------------------------------------------------------------------------

def state(spec: Dict[str, Any], board: Board) -> Dict[str, Any]:
    """Everything the page draws: the slots, who moves, what is legal, the result."""
    outcome = board.outcome()
    return {
        "position": spec,
        "slots": list(board.pits),
        "to_move": board.to_move,
        "to_move_name": SIDE_NAMES[board.to_move],
        "capture": board.capture,
        "legal_moves": list(board.legal_moves),
        "game_over": outcome is not None,
        "outcome": None if outcome is None else {
            "winner": outcome.winner, "south": outcome.south, "north": outcome.north,
            "margin": outcome.margin},
        "ply": len(spec["moves"]),
        "movers": [record.player for record in board.move_stack],    # who played each move
        # each move of the position's line, as the move list marks it
        "played": [{"player": record.player, "pit_index": record.pit, "captured": record.captured,
                    "extra_turn": record.extra_turn, "effects": record.effects()}
                   for record in board.move_stack],
    }


def sowing_path(slots: List[int], player: int, pit: int) -> List[int]:
    """The slots the seeds of ``pit`` land in, one per seed, in order.

    Sowing runs up the slot numbers, wrapping 13 -> 0 and skipping the other
    side's store (the rules: docs/rules.md); the page animates this path. The
    board after the move comes from :meth:`Board.push`, never from here.
    """
    start = pit_slot(player, pit)
    skip = store_slot(1 - player)
    path: List[int] = []
    slot = start
    while len(path) < slots[start]:
        slot = (slot + 1) % SLOTS
        if slot != skip:
            path.append(slot)
    return path


def describe(record: MoveRecord, path: List[int]) -> Dict[str, Any]:
    """A move as the page shows it: who, which pit, where the seeds went, what happened."""
    last = path[-1]
    return {
        "player": record.player,
        "pit_index": record.pit,
        "slot": pit_slot(record.player, record.pit),
        "path": path,
        "extra_turn": record.extra_turn,
        "captured": record.captured,
        # a capture takes the last seed's pit and the one facing it
        "capture_slots": [last, facing_slot(last)] if record.captured else [],
        "game_over": record.game_over,
        # what it did, and the move in the words of every face (MoveRecord.words, effects):
        # '3 (C), extra turn', '2 (H), the game is over, South keeps the 11 seeds left in its row'
        "effects": record.effects(), "words": record.words(),
    }


def move(data: Any) -> Dict[str, Any]:
    """POST /api/move ``{"position", "pit_index"}``: the move played, and the new state."""
    data = fields(data, "the request", {"position", "pit_index"}, {"position", "pit_index"})
    spec, board = parse_position(data["position"])
    pit = pit_index(data["pit_index"])
    if len(spec["moves"]) >= MAX_MOVES:
        raise RequestError(f"a game has at most {MAX_MOVES:,} moves")
    path = sowing_path(board.pits, board.to_move, pit) if pit in board.legal_moves else []
    record = board.push(pit)        # IllegalMoveError (naming the legal pits) if it is not legal
    spec = dict(spec, moves=spec["moves"] + [pit])
    return {"move": describe(record, path), "state": state(spec, board)}


def validate(data: Any) -> Dict[str, Any]:
    """POST /api/validate ``{"position"}``: the state of a position, or why it is refused."""
    data = fields(data, "the request", {"position"}, {"position"})
    return state(*parse_position(data["position"]))


# -- computer players ------------------------------------------------------------------

def computer(level: Any, seed: Optional[int] = None) -> Player:
    """The computer player of a level the web runs (:func:`runs`), else RequestError listing them."""
    if not runs(level, computer=True):
        raise RequestError(f"level is {levels_words(computer=True)}, not {quote(level)}")
    return make_player(PlayerSpec.parse(level), seed)


def choice(player: Player, board: Board, pit: int, level: str) -> Dict[str, Any]:
    """The answer of POST /api/ai: the move and how it was found (score from the mover's view)."""
    info = player.last
    answer: Dict[str, Any] = {"level": level, "pit_index": pit}
    if info is not None:
        answer.update(score=info.score, depth=info.depth, nodes=info.nodes,
                      seconds=info.elapsed, exact=info.exact, note=info.note)
    return answer


# -- analysis --------------------------------------------------------------------------

def analysis_request(data: Any) -> Tuple[Dict[str, Any], Board, int, float]:
    """An ``analyze`` message: (position, board, deepest depth, seconds)."""
    data = fields(data, "an analyze message", {"type", "position", "depth", "time"}, {"position"})
    spec, board = parse_position(data["position"])
    # depth 2 at least: each move's child is searched one move less deep
    depth = check_whole(data.get("depth", MAX_ANALYSIS_DEPTH), "depth", 2, MAX_ANALYSIS_DEPTH)
    seconds = data.get("time", DEFAULT_ANALYSIS_SECONDS)
    check_seconds(seconds)
    if seconds > MAX_ANALYSIS_SECONDS:
        raise InvalidLimitError(f"time is at most {MAX_ANALYSIS_SECONDS:g} seconds, "
                                f"not {quote(seconds)}")
    return spec, board, depth, float(seconds)


def move_update(depth: int, result: SearchResult, side: int) -> Dict[str, Any]:
    """One move's score at a depth (from ``side``'s view: the mover's), sent as soon as it
    is known, with its words."""
    return {"type": "move", "depth": depth, "pit_index": result.move, "score": result.score,
            "pv": list(result.pv), "exact": result.exact,
            "text": score_text(result.score, side, exact=result.exact, depth=depth)}


def analysis_update(board: Board, step: AnalysisProgress) -> Dict[str, Any]:
    """One finished depth of a live analysis: every legal move's score (from the
    mover's view), the best line, speed, and whether every score is exact."""
    moves = [move_update(step.depth, result, board.to_move)
             for _, result in sorted(step.results.items())]
    for entry in moves:
        del entry["type"], entry["depth"]
    best = step.best
    seconds = step.seconds
    return {"type": "depth", "depth": step.depth, "moves": moves, "best": best.move,
            "score": best.score, "score_south": PovScore(best.score, board.to_move).south(),
            "text": score_text(best.score, board.to_move, exact=step.exact, depth=step.depth),
            "pv": list(best.pv), "nodes": step.nodes, "seconds": round(seconds, 4),
            "nps": int(step.nodes / seconds) if seconds > 0 else 0, "exact": step.exact}


# -- games kept -----------------------------------------------------------------------

def rating_json(rating: Optional[Any], **more: Any) -> Optional[Dict[str, Any]]:
    """A Glicko-2 rating for a page (a game's or a puzzle's): :meth:`mancala.rating.Rating.to_json`
    (value, deviation, 95% interval, provisional, shown), ``more`` fields beside them; None for None."""
    if rating is None:
        return None
    return dict(rating.to_json(), **more)


def result_words(game: GameRecord) -> str:
    """A kept game's result as its player reads it: "You lost 11-37", "You won by
    resignation, 20-12 in the stores" (a resigned game's seeds are where the stores stood,
    not a result), "North won 30-18" (no one person in it); the person's seeds first."""
    south, north = game.south_store, game.north_store
    if game.human is None:
        if game.result == "draw":
            return f"Draw {south}\u2013{north}"
        if game.resigned is not None:
            return f"{game.result.capitalize()} won by resignation, {south}\u2013{north} in the stores"
        return f"{game.result.capitalize()} won {south}\u2013{north}"
    mine, theirs = (south, north) if game.human == 0 else (north, south)
    said = {"won": "You won", "lost": "You lost", "drew": "You drew"}[game.result_for(game.human)]
    if game.resigned is not None:
        return f"{said} by resignation, {mine}\u2013{theirs} in the stores"
    return f"{said} {mine}\u2013{theirs}"


def kept_answer(kept: GameRecord, notices: List[str]) -> Dict[str, Any]:
    """What a page shows once a game is kept: the game, its result in words and for the
    person, the margin, and the rating it moved (None for a game that rated nobody)."""
    change = None if not kept.rated else round(kept.after.rating - kept.before.rating, 1)
    return {"game": kept.to_json(), "rated": kept.rated, "words": result_words(kept),
            "result": None if kept.human is None else kept.result_for(kept.human),
            "margin": abs(kept.south_store - kept.north_store),
            "rating": rating_json(kept.after), "change": change, "notices": list(notices)}


# -- save files ------------------------------------------------------------------------

#: a save's formats (``/api/save``'s ``format``): the terminal's JSON save file, or a game
#: record (:mod:`mancala.records`), as ``save FILE.kalah`` writes them; (media type, file name)
SAVE_FORMATS = {"json": ("application/json", "mancala-save.json"),
                "record": ("text/plain; charset=utf-8", f"mancala-game{records.EXTENSION}")}


def save_text(data: Any) -> Tuple[str, str, str]:
    """POST /api/save ``{"position", "players"?, "format"?}``: (the text, its media type, a
    file name): the terminal's save file (``format`` ``json``, the default) or the game's
    record (``record``), each written by :func:`mancala.storage.dumps`, as ``save`` writes it.

    Only games from a start can be saved (the formats keep rules and moves).
    """
    data = fields(data, "the request", {"position", "players", "format"}, {"position"})
    kind = data.get("format", "json")
    if kind not in SAVE_FORMATS:
        raise RequestError(f"format is {' or '.join(SAVE_FORMATS)}, not {quote(kind)}")
    spec, board = parse_position(data["position"])
    if "board" in spec:
        raise RequestError("only a game from a start can be saved (the save format keeps the "
                           "rules and the moves, not a board set by hand)")
    south, north = players(data.get("players", {}))
    game = storage.SavedGame.from_board(board, spec["seeds"], south, north)
    return (storage.dumps(game, record=kind == "record"), *SAVE_FORMATS[kind])


DEFAULT_PLAYERS = {"south": "human", "north": "ai:medium"}


def players(data: Any, required: bool = False) -> Tuple[str, str]:
    """A ``players`` field ``{"south", "north"}``, each one of :data:`LEVELS`, as
    (south, north); a side left out is :data:`DEFAULT_PLAYERS`' unless ``required``.
    RequestError naming the side otherwise."""
    data = fields(data, "players", {"south", "north"}, {"south", "north"} if required else set())
    specs = []
    for side, default in DEFAULT_PLAYERS.items():
        spec_text = data.get(side, default)
        if not runs(spec_text):
            raise RequestError(f"the {side} player is {levels_words()}, "
                               f"not {quote(spec_text)}")
        specs.append(spec_text)
    return specs[0], specs[1]


def load_text(text: Union[str, bytes]) -> Dict[str, Any]:
    """POST /api/load (the file's text or bytes): its position, players and state.

    The file is checked as the terminal game checks it (:func:`mancala.storage.loads`);
    a side the web app cannot run (an external engine) comes back as ``human``,
    named in ``note``.
    """
    game = storage.loads(text, players=canonical_spec)
    players, notes = {}, []
    for side, spec in (("south", game.south), ("north", game.north)):
        if runs(spec):
            players[side] = spec
        else:
            players[side] = "human"
            notes.append(f"{side} was {spec}, which the web app does not run: human instead")
    position = {"seeds": game.seeds, "capture": game.capture, "moves": list(game.moves)}
    answer = state(position, game.board())
    return {"players": players, "note": "; ".join(notes), "state": answer}


__all__ = ["MINE", "theme_list", "runs", "ELO_LEVEL", "LEVELS", "LEVEL_NAMES", "COMPUTER_LEVELS", "CAPTURE_WORDS", "level_elo", "rated_levels",
           "score_text",
           "MAX_MOVES", "parse_position", "state", "move",
           "validate", "sowing_path", "computer", "choice", "analysis_request",
           "analysis_update", "move_update", "save_text", "load_text", "players", "CAPTURE_RULES",
           "rating_json", "result_words", "kept_answer"]
