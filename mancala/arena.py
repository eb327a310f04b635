"""Tournaments between two players, independent of any terminal.

``run_arena(ArenaConfig("random", "minimax:4", games=100))`` plays the games
and returns an :class:`ArenaReport`: one :class:`GameResult` per finished game
and a :class:`Summary` from player A's point of view.

- Sides alternate: A is South (moves first) in the even-numbered games and
  North in the odd ones, so each player starts half the games (unless
  ``swap=False``: then A is always South).
- Every game has its own seed, derived from the base seed and the game's index
  alone (:func:`game_seed`), and its players are made afresh from their specs
  inside the game, exactly as ``python -m mancala play --south S --north N
  --seed SEED`` makes them (South's random choices use SEED, North's SEED + 1).
  So random players and the randomised levels (``ai:easy``, ``ai:medium``)
  repeat from run to run, any game can be replayed on its own, and a run on
  worker processes gives exactly the same games as a serial run. Players that
  search for a time (``ai:hard``, ``ai:perfect``, ``ai:time=S``) depend on the
  clock, so their games repeat only as far as the machine's speed does.
- The win rate counts a draw as half a win: (wins + draws / 2) / games, with a
  95% Wilson score interval (:func:`wilson_interval`) over that score. The
  interval assumes independent games; deterministic players (``minimax:N``,
  ``alphabeta:N``, ``ai:depth=N``) against each other play the same two games
  over and over, which ``Summary.distinct`` shows.
- Ctrl-C (KeyboardInterrupt) stops the run: the report holds the games that
  finished, and ``interrupted`` is True.
"""
from __future__ import annotations

import hashlib
import math
import multiprocessing
import signal
import time
from dataclasses import asdict, dataclass
from functools import partial
from typing import Callable, Dict, List, Optional, Tuple

import mancala.engine  # noqa: F401  engine players import it on their first move; not timed
from mancala.board import PLAYER_NAMES, Board
from mancala.errors import InvalidLimitError, quote
from mancala.limits import DEFAULT_SEEDS, check_seed, check_whole
from mancala.game import Game
from mancala.players import VALID_SPECS, Player, PlayerSpecError, parse_player

Z_95 = 1.959963984540054     # the standard normal quantile for a two-sided 95% interval
SEED_RANGE = 2 ** 32         # game seeds are small whole numbers people can type
MACHINE_SPECS = ", ".join(form for form in VALID_SPECS.split(", ") if form != "human")

Progress = Callable[["GameResult", int, int], None]


@dataclass(frozen=True)
class ArenaConfig:
    """What to play: two player specs, how many games, the rules and the base seed.

    Raises PlayerSpecError for a spec a machine cannot play, InvalidLimitError
    for games below 1 or a seed outside 0..2**63-1 (:mod:`mancala.limits`),
    InvalidRuleError for seeds per pit outside 1..12 or an unknown capture rule.
    """

    player_a: str
    player_b: str
    games: int = 20
    seeds: int = DEFAULT_SEEDS
    capture: str = "standard"
    seed: int = 0
    swap: bool = True

    def __post_init__(self) -> None:
        for spec in (self.player_a, self.player_b):
            check_player(spec)
        check_whole(self.games, "games", 1)
        Board(seeds=self.seeds, capture=self.capture)       # InvalidRuleError quoting a bad rule
        check_seed(self.seed)

    def a_side(self, index: int) -> int:
        """The side A plays in game ``index``: 0 (South, moves first) or 1 (North)."""
        return index % 2 if self.swap else 0


@dataclass(frozen=True)
class GameResult:
    """One finished game, from player A's point of view."""

    index: int          #: 0-based game number
    seed: int           #: the game's seed (South's random choices; North's use seed + 1)
    a_side: str         #: "South" (moved first) or "North"
    result: str         #: "A", "B" or "draw": who won
    margin: int         #: A's final seeds minus B's
    a_seeds: int        #: A's final seeds (store after the sweep)
    b_seeds: int
    plies: int          #: moves in the game, extra-turn moves included
    a_moves: int        #: moves A made
    b_moves: int
    a_time: float       #: seconds A spent on its moves, all together
    b_time: float
    line: str           #: the moves in order, one digit each: pit index 0..5 from the mover's left

    def to_dict(self) -> Dict[str, object]:
        """The fields as JSON and CSV show them (``line`` as ``pit_indices``)."""
        return {OUTPUT_NAMES.get(name, name): value for name, value in asdict(self).items()}


# Output names of the fields whose own name would not say that its pits are
# indices 0..5 (people see pits 1..6)
OUTPUT_NAMES = {"line": "pit_indices"}


@dataclass(frozen=True)
class Summary:
    """The games so far, from A's point of view (a draw counts as half a win)."""

    games: int
    wins: int
    draws: int
    losses: int
    score: float                    #: wins + draws / 2
    win_rate: Optional[float]       #: score / games (None before any game)
    ci_low: Optional[float]         #: 95% Wilson score interval of the win rate
    ci_high: Optional[float]
    mean_margin: Optional[float]    #: average of A's final seeds minus B's
    mean_plies: Optional[float]
    a_time_per_move: Optional[float]  #: seconds, over all of A's moves in all games
    b_time_per_move: Optional[float]
    distinct: int                   #: games whose move sequences differ


@dataclass
class ArenaReport:
    """The games that finished, in index order, and their summary."""

    config: ArenaConfig
    games: List[GameResult]
    summary: Summary
    elapsed: float                  #: wall-clock seconds of the whole run
    workers: int = 1
    interrupted: bool = False       #: stopped early by Ctrl-C

    def to_dict(self) -> Dict[str, object]:
        return {
            "config": asdict(self.config),
            "workers": self.workers,
            "elapsed": self.elapsed,
            "interrupted": self.interrupted,
            "summary": asdict(self.summary),
            "games": [game.to_dict() for game in self.games],
        }


# -- the pieces

def check_player(spec: str) -> Player:
    """The player a spec makes, or PlayerSpecError: a spec a machine can play (not human)."""
    try:
        player = parse_player(spec)
    except PlayerSpecError as exc:
        raise PlayerSpecError(str(exc).replace(VALID_SPECS, MACHINE_SPECS)) from None
    if player.is_human:
        raise PlayerSpecError(f"the arena plays computer players, not {quote(spec)}; "
                              f"use one of: {MACHINE_SPECS}")
    return player


def game_seed(base: int, index: int) -> int:
    """The seed of game ``index`` of a run with base seed ``base``: a hash of both, nothing else."""
    digest = hashlib.sha256(f"mancala-arena/{base}/{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % SEED_RANGE


def wilson_interval(score: float, games: int, z: float = Z_95) -> Tuple[float, float]:
    """The Wilson score interval of a win rate ``score / games`` (95% by default).

    Unlike the textbook p +- z*sqrt(p(1-p)/n) it stays inside [0, 1] and does
    not shrink to nothing at 0 or ``games`` wins. ``score`` may hold halves
    (a draw is half a win). No games: the whole range, (0, 1).
    InvalidLimitError if ``score`` is outside 0..``games``.
    """
    if games <= 0:
        return 0.0, 1.0
    if not 0 <= score <= games:
        raise InvalidLimitError(f"score is from 0 to games ({games}), not {quote(score)}")
    p = score / games
    z2 = z * z
    denominator = 1 + z2 / games
    centre = (p + z2 / (2 * games)) / denominator
    half = z * math.sqrt(p * (1 - p) / games + z2 / (4 * games * games)) / denominator
    # at 0 or all wins one end is exactly 0 or 1; rounding would leave 1e-17 off it
    low = 0.0 if score == 0 else centre - half
    high = 1.0 if score == games else centre + half
    return low, high


def play_game(config: ArenaConfig, index: int) -> GameResult:
    """Play game ``index`` of a run: players made from their specs, each move timed.

    A move's time is the wall time of the game loop's step (the player's
    ``choose`` and the sowing); an engine player's first move includes making
    its transposition table (and loading a cached endgame database, if any).
    """
    seed = game_seed(config.seed, index)
    a_side = config.a_side(index)
    specs = (config.player_a, config.player_b) if a_side == 0 else (config.player_b, config.player_a)
    game = Game(*specs, seeds=config.seeds, capture=config.capture, seed=seed)
    spent = [0.0, 0.0]      # by side
    moves = [0, 0]
    while not game.is_over():
        side = game.to_move
        start = time.perf_counter()
        game.step()
        spent[side] += time.perf_counter() - start
        moves[side] += 1
    outcome = game.outcome()
    finals = (outcome.south, outcome.north)
    b_side = 1 - a_side
    a_seeds, b_seeds = finals[a_side], finals[b_side]
    result = "A" if a_seeds > b_seeds else "B" if b_seeds > a_seeds else "draw"
    return GameResult(index, seed, PLAYER_NAMES[a_side], result, a_seeds - b_seeds,
                      a_seeds, b_seeds, game.board.ply, moves[a_side], moves[b_side],
                      spent[a_side], spent[b_side], "".join(str(pit) for pit in game.moves))


def summarise(games: List[GameResult]) -> Summary:
    """Totals and averages of finished games, from A's point of view."""
    n = len(games)
    wins = sum(game.result == "A" for game in games)
    draws = sum(game.result == "draw" for game in games)
    score = wins + draws / 2
    low, high = wilson_interval(score, n) if n else (None, None)
    a_moves = sum(game.a_moves for game in games)
    b_moves = sum(game.b_moves for game in games)
    return Summary(
        games=n, wins=wins, draws=draws, losses=n - wins - draws, score=score,
        win_rate=score / n if n else None, ci_low=low, ci_high=high,
        mean_margin=sum(game.margin for game in games) / n if n else None,
        mean_plies=sum(game.plies for game in games) / n if n else None,
        a_time_per_move=sum(game.a_time for game in games) / a_moves if a_moves else None,
        b_time_per_move=sum(game.b_time for game in games) / b_moves if b_moves else None,
        distinct=len({(game.a_side, game.line) for game in games}))


# -- running

def _ignore_interrupt() -> None:
    # Ctrl-C reaches every process of the terminal's group; only the parent acts on it
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def run_arena(config: ArenaConfig, workers: int = 1,
              progress: Optional[Progress] = None) -> ArenaReport:
    """Play every game of ``config``, on ``workers`` processes, and summarise.

    ``progress(result, done, total)`` is called in this process as each game
    finishes (in the order they finish). Ctrl-C stops the run and returns the
    games finished so far, with ``interrupted`` set; worker processes are
    stopped at once, their unfinished games dropped. InvalidLimitError if
    ``workers`` is below 1.
    """
    check_whole(workers, "workers", 1)
    workers = min(workers, config.games)
    start = time.perf_counter()
    finished: Dict[int, GameResult] = {}
    interrupted = False

    def record(result: GameResult) -> None:
        finished[result.index] = result
        if progress is not None:
            progress(result, len(finished), config.games)

    try:
        if workers == 1:
            for index in range(config.games):
                record(play_game(config, index))
        else:
            _run_parallel(config, workers, record)
    except KeyboardInterrupt:
        interrupted = True
    games = [finished[index] for index in sorted(finished)]
    return ArenaReport(config, games, summarise(games), time.perf_counter() - start,
                       workers, interrupted)


def _run_parallel(config: ArenaConfig, workers: int,
                  record: Callable[[GameResult], None]) -> None:
    pool = multiprocessing.Pool(workers, initializer=_ignore_interrupt)
    try:
        for result in pool.imap_unordered(partial(play_game, config), range(config.games)):
            record(result)
        pool.close()
    except BaseException:
        pool.terminate()
        raise
    finally:
        pool.join()


__all__ = ["ArenaConfig", "ArenaReport", "GameResult", "OUTPUT_NAMES", "Summary", "run_arena",
           "play_game", "summarise", "wilson_interval", "game_seed", "check_player"]
