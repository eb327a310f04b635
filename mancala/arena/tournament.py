"""Tournaments between two players, independent of any terminal.

``run_arena(ArenaConfig("random", "minimax:4", games=100))`` plays the games
and returns an :class:`ArenaReport`: one :class:`GameResult` per finished game
and a :class:`~mancala.arena.results.Summary` from player A's point of view
(the results and their summary are :mod:`mancala.arena.results`).

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
  95% Wilson score interval (:func:`mancala.stats.wilson_interval`) over that score. The
  interval assumes independent games; deterministic players (``minimax:N``,
  ``alphabeta:N``, ``ai:depth=N``) against each other play the same two games
  over and over, which ``Summary.distinct`` shows.
- Ctrl-C (KeyboardInterrupt) stops the run: the report holds the games that
  finished, and ``interrupted`` is True.
- Openings (``openings=2``): game pair k (games 2k and 2k + 1, A South then
  North) starts from opening k of :func:`mancala.openings.opening_suite`
  (the suite repeats when there are more pairs than openings); ``games =
  2 * len(suite)`` plays each once. Without openings every pair starts from
  the start.
- Strength (:mod:`mancala.stats`): with sides alternating, games 2k and 2k + 1
  are a pair and the Elo of A with its 95% interval comes from the
  pentanomial counts of the complete pairs; with ``swap=False`` from the
  trinomial (win/draw/loss) counts. With ``sprt=(ELO0, ELO1)`` the run stops
  as soon as the LLR of the games so far, in game order, at a pair's end
  (each game's, unpaired) crosses a bound; games a parallel run finished
  beyond that point are dropped, so the verdict and games are the serial ones.
- Forfeits: a player whose move raises PlayerFailedError (or who returns an
  illegal pit) loses that game; the game records who and why (``forfeit``)
  and the run goes on. Each game's players are closed (their ``close()``, if
  they have one) when it ends, however it ends, Ctrl-C included.
- ``time=S``: the per-move time of every player that takes one: ``ai:time``
  written without its value and ``engine:...`` specs without ``@S`` get S;
  players with their own time or no notion of time (random, minimax:N,
  alphabeta:N, ai:depth=N, the levels) play as given, and
  :meth:`ArenaConfig.untimed` names them so the output can say so.
"""
from __future__ import annotations

import hashlib
import math
import multiprocessing
import signal
import sys
import time
from multiprocessing.connection import Connection, wait
from dataclasses import asdict, dataclass
from typing import Callable, Dict, List, Optional, Sequence, Tuple, Union

import mancala.engine  # noqa: F401  engine players import it on their first move; not timed
from mancala.arena.results import GAME_POINTS, GameResult, Summary, summarise
from mancala.board import Board
from mancala.errors import IllegalMoveError, InvalidLimitError, PlayerFailedError, quote
from mancala.geometry import SIDE_NAMES, store_slot
from mancala.limits import DEFAULT_SEEDS, check_move_seconds, check_seed, check_whole
from mancala.game import Game
from mancala.openings import opening_suite
from mancala.players import Player, PlayerSpecError, make_player
from mancala.specs import PlayerSpec, machine_spec
from mancala.stats import DEFAULT_ALPHA, DEFAULT_BETA, check_error_rate, sprt_state

SEED_RANGE = 2 ** 32         # game seeds are small whole numbers people can type

Progress = Callable[["GameResult", int, int], None]


@dataclass(frozen=True)
class ArenaConfig:
    """What to play: two player specs, how many games, the rules and the base seed.

    The players are :class:`mancala.specs.PlayerSpec` values (a spelling is
    parsed into one: :func:`check_player`). Raises PlayerSpecError for a spec a
    machine cannot play (or ``ai:time`` without ``time``), InvalidLimitError
    for games below 1 or a seed outside 0..2**63-1 (:mod:`mancala.limits`),
    InvalidRuleError for seeds per pit outside 1..12 or an unknown capture rule.
    """

    player_a: PlayerSpec
    player_b: PlayerSpec
    games: int = 20
    seeds: int = DEFAULT_SEEDS
    capture: str = "standard"
    seed: int = 0
    swap: bool = True
    openings: Optional[int] = None      #: plies of the opening suite (None: every game from the start)
    time: Optional[float] = None        #: seconds per move for the players that take a time
    sprt: Optional[Tuple[float, float]] = None      #: (ELO0, ELO1): stop when the SPRT decides
    sprt_alpha: float = DEFAULT_ALPHA
    sprt_beta: float = DEFAULT_BETA

    def __post_init__(self) -> None:
        if self.time is not None:
            check_move_seconds(self.time)
        for name in ("player_a", "player_b"):
            object.__setattr__(self, name, check_player(getattr(self, name)))
        for spec in self.specs:
            if spec.needs_time:
                raise PlayerSpecError(f"{spec} without its seconds needs the arena's time "
                                      f"(or write ai:time=S)")
        check_whole(self.games, "games", 1)
        Board(seeds=self.seeds, capture=self.capture)       # InvalidRuleError quoting a bad rule
        check_seed(self.seed)
        if self.openings is not None:
            opening_suite(self.openings, self.seeds, self.capture)     # InvalidLimitError: plies
            if not self.swap:
                raise InvalidLimitError("openings are played in pairs with sides swapped; "
                                        "they cannot be used with swap=False")
            if self.games % 2:
                raise InvalidLimitError(f"with openings games come in pairs: games is an even "
                                        f"number, not {quote(self.games)}")
        if self.sprt is not None:
            sprt_state((0, 0, 0), *self.sprt, self.sprt_alpha, self.sprt_beta)   # checks them
        check_error_rate(self.sprt_alpha, "alpha")
        check_error_rate(self.sprt_beta, "beta")

    @property
    def specs(self) -> Tuple[PlayerSpec, PlayerSpec]:
        """A's and B's specs as played: with ``time``, the ones that take a time get it
        (:meth:`PlayerSpec.timed`)."""
        return self.player_a.timed(self.time), self.player_b.timed(self.time)

    def untimed(self) -> List[str]:
        """With ``time``: the spellings of the players that do not take it (they play as given)."""
        if self.time is None:
            return []
        return [str(spec) for spec in (self.player_a, self.player_b)
                if spec.timed(self.time) == spec]

    def suite(self) -> List[Tuple[int, ...]]:
        """The openings game pairs start from, in order (just the start without ``openings``)."""
        return [()] if self.openings is None else opening_suite(self.openings, self.seeds, self.capture)

    def a_side(self, index: int) -> int:
        """The side A plays in game ``index``: 0 (South, moves first) or 1 (North)."""
        return index % 2 if self.swap else 0


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
        """As JSON shows it: an infinite Elo (all wins or all losses) is None."""
        config = self.config
        return {
            "config": dict(asdict(config), player_a=str(config.player_a),
                           player_b=str(config.player_b)),
            "workers": self.workers,
            "elapsed": self.elapsed,
            "interrupted": self.interrupted,
            "summary": _finite(asdict(self.summary)),
            "games": [game.to_dict() for game in self.games],
        }


def _finite(value):
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    return value


# -- the pieces

def check_player(spec: Union[str, PlayerSpec]) -> PlayerSpec:
    """The spec of a player the arena can play (a machine's, not human; ``ai:time``
    alone takes the arena's time), or PlayerSpecError listing those spellings."""
    return machine_spec(spec, needed_by="the arena", open_time=True)


def game_seed(base: int, index: int) -> int:
    """The seed of game ``index`` of a run with base seed ``base``: a hash of both, nothing else."""
    digest = hashlib.sha256(f"mancala-arena/{base}/{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % SEED_RANGE


def play_game(config: ArenaConfig, index: int) -> GameResult:
    """Play game ``index`` of a run: players made from their specs, each move timed.

    A move's time is the wall time of the game loop's step (the player's
    ``choose`` and the sowing); an engine player's first move includes making
    its transposition table (and loading a cached endgame database, if any).
    The game starts from opening ``index // 2`` of the suite (cycled). A
    player whose move raises PlayerFailedError, or who returns an illegal pit,
    loses the game by forfeit; the seeds recorded are then the stores as they
    stood. Both players are closed at the end, whatever happened.
    """
    seed = game_seed(config.seed, index)
    a_side = config.a_side(index)
    suite = config.suite()
    opening = suite[(index // 2) % len(suite)]
    spec_a, spec_b = config.specs
    specs = (spec_a, spec_b) if a_side == 0 else (spec_b, spec_a)
    players: List[Player] = []
    try:
        for side, spec in enumerate(specs):      # as Game makes them: South's seed, North's seed + 1
            players.append(make_player(spec, seed + side))
        game = Game(*players, seeds=config.seeds, capture=config.capture, moves=opening,
                    seed=seed)
        spent = [0.0, 0.0]      # by side
        moves = [0, 0]
        forfeit: Optional[Dict[str, str]] = None
        while not game.is_over():
            side = game.to_move
            start = time.perf_counter()
            try:
                game.step()
            except (PlayerFailedError, IllegalMoveError) as exc:
                spent[side] += time.perf_counter() - start
                moves[side] += 1
                reason = getattr(exc, "reason", "illegal-move")
                forfeit = {"player": "A" if side == a_side else "B", "reason": reason,
                           "message": str(exc)}
                break
            spent[side] += time.perf_counter() - start
            moves[side] += 1
    finally:
        close_players(players)
    b_side = 1 - a_side
    if forfeit is None:
        outcome = game.outcome()
        finals = (outcome.south, outcome.north)
        a_seeds, b_seeds = finals[a_side], finals[b_side]
        result = "A" if a_seeds > b_seeds else "B" if b_seeds > a_seeds else "draw"
    else:
        pits = game.board.pits
        a_seeds, b_seeds = pits[store_slot(a_side)], pits[store_slot(b_side)]
        result = "B" if forfeit["player"] == "A" else "A"
    return GameResult(index, seed, SIDE_NAMES[a_side], result, a_seeds - b_seeds,
                      a_seeds, b_seeds, game.board.ply, moves[a_side], moves[b_side],
                      spent[a_side], spent[b_side], "".join(str(pit) for pit in game.moves),
                      "".join(str(pit) for pit in opening), forfeit)


def close_players(players: Sequence[Player]) -> None:
    """Call each player's ``close()``, if it has one; one that fails does not stop the others."""
    for player in players:
        close = getattr(player, "close", None)
        if callable(close):
            try:
                close()
            except Exception:       # the game's result stands; the next game makes new players
                pass


# -- running

def _ignore_interrupt() -> None:
    # Ctrl-C reaches every process of the terminal's group; only the parent acts on it.
    # The parent stops workers with SIGTERM; exiting through SystemExit runs the
    # game's ``finally``, which closes its players (external engines included).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _exit_on_term)


def _exit_on_term(signum, frame) -> None:
    sys.exit(128 + signum)


class _Decided(Exception):
    """The SPRT decided: the run stops (raised out of the progress bookkeeping)."""


def _sprt_settings(config: ArenaConfig) -> Optional[Tuple[float, float, float, float]]:
    if config.sprt is None:
        return None
    return (config.sprt[0], config.sprt[1], config.sprt_alpha, config.sprt_beta)


Runner = Callable[[ArenaConfig, int, Callable[[GameResult], None]], None]


def run_arena(config: ArenaConfig, workers: int = 1,
              progress: Optional[Progress] = None, runner: Optional[Runner] = None) -> ArenaReport:
    """Play every game of ``config``, on ``workers`` processes, and summarise.

    ``runner(config, workers, record)``, if given, plays the games instead
    (:func:`mancala.cluster.arena.run_on_cluster` on a Ray cluster), passing
    each finished game to ``record``; the results are the same.

    ``progress(result, done, total)`` is called in this process as each game
    finishes (in the order they finish). Ctrl-C stops the run and returns the
    games finished so far, with ``interrupted`` set; worker processes are
    stopped at once, their unfinished games dropped. With ``config.sprt`` the
    run stops at the first game, in game order, after which the SPRT decides
    (see the module docstring). InvalidLimitError if ``workers`` is below 1.
    """
    check_whole(workers, "workers", 1)
    workers = min(workers, config.games)
    start = time.perf_counter()
    finished: Dict[int, GameResult] = {}
    interrupted = False
    sprt = _sprt_settings(config)
    checked = [0]                          # games 0..checked-1 are in ``finished``
    counts = [0] * (5 if config.swap else 3)    # the SPRT's counts over those games
    decided: List[int] = []

    def record(result: GameResult) -> None:
        finished[result.index] = result
        if progress is not None:
            progress(result, len(finished), config.games)
        if sprt is None:
            return
        while checked[0] in finished:       # in game order, whatever order games finish in
            index = checked[0]
            checked[0] += 1
            if config.swap and index % 2 == 0:
                continue                    # the SPRT looks at whole pairs
            points = GAME_POINTS[finished[index].result]      # 0, 1, 2: the trinomial index
            if config.swap:
                points += GAME_POINTS[finished[index - 1].result]  # 0..4: the pentanomial's
            counts[points] += 1
            if sprt_state(counts, *sprt).verdict != "inconclusive":
                decided.append(checked[0])
                raise _Decided

    try:
        if runner is not None:
            runner(config, workers, record)
        elif workers == 1:
            for index in range(config.games):
                record(play_game(config, index))
        else:
            _run_parallel(config, workers, record)
    except KeyboardInterrupt:       # after the last game, it cut nothing short
        interrupted = len(finished) < config.games
    except _Decided:
        pass
    limit = decided[0] if decided else config.games
    games = [finished[index] for index in sorted(finished) if index < limit]
    return ArenaReport(config, games, summarise(games, config.swap, sprt),
                       time.perf_counter() - start, workers, interrupted)


_STOP_SECONDS = 10.0     # how long a stopped worker may take to close its players


def _run_parallel(config: ArenaConfig, workers: int,
                  record: Callable[[GameResult], None]) -> None:
    # Each worker has a pipe of its own: a worker stopped halfway through sending
    # holds no lock that anyone else needs. (multiprocessing.Pool's workers share
    # one result queue, and its terminate() could wait forever on the queue's lock
    # that a worker stopped by SIGTERM was holding.)
    games = iter(range(config.games))
    processes: Dict[Connection, multiprocessing.Process] = {}
    finished = False
    try:
        for _ in range(workers):
            mine, theirs = multiprocessing.Pipe()
            process = multiprocessing.Process(target=_work, args=(config, theirs), daemon=True)
            process.start()
            theirs.close()
            processes[mine] = process
            mine.send(next(games))
        busy = set(processes)
        while busy:
            for connection in wait(list(busy)):
                try:
                    played, answer = connection.recv()
                except EOFError:
                    process = processes[connection]
                    process.join()
                    raise RuntimeError(f"an arena worker stopped before it finished its game "
                                       f"(exit code {process.exitcode})") from None
                if not played:
                    raise answer
                record(answer)
                index = next(games, None)
                connection.send(index)
                if index is None:
                    busy.discard(connection)
        finished = True
    finally:
        for connection, process in processes.items():
            if not finished:
                process.terminate()     # SystemExit in the worker: its game closes its players
            process.join(_STOP_SECONDS)
            if process.is_alive():      # a player that would not close
                process.kill()
                process.join()
            connection.close()


def _work(config: ArenaConfig, connection: Connection) -> None:
    """A worker process: play the games whose indices arrive, until None arrives."""
    _ignore_interrupt()
    while True:
        index = connection.recv()
        if index is None:
            return
        try:
            answer = (True, play_game(config, index))
        except Exception as error:          # the parent raises it, as Pool did
            answer = (False, error)
        try:
            connection.send(answer)
        except Exception:                   # an error that does not pickle: its words do
            connection.send((False, RuntimeError(f"{type(answer[1]).__name__}: {answer[1]}")))


__all__ = ["ArenaConfig", "ArenaReport", "Runner", "run_arena", "play_game", "close_players", "game_seed",
           "check_player"]
