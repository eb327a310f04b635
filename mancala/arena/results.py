"""An arena's results: each game from player A's point of view, and their summary.

:func:`summarise` turns the finished games into a :class:`Summary` (wins,
draws and losses; the win rate with its Wilson interval; the pentanomial
counts of the game pairs and the Elo they give, :mod:`mancala.stats`);
:func:`mancala.arena.run_arena` answers with them in an
:class:`mancala.arena.ArenaReport`.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Dict, List, Optional, Sequence, Tuple

from mancala.stats import SprtState, elo_estimate, sprt_state, wilson_interval


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
    opening: str = ""   #: the opening's moves (the first plies of ``line``, played by neither player)
    #: None, or who lost by forfeit: {"player": "A"|"B", "reason": ..., "message": ...}
    forfeit: Optional[Dict[str, str]] = None

    def to_dict(self) -> Dict[str, object]:
        """The fields as JSON and CSV show them (``line`` as ``pit_indices``)."""
        return {OUTPUT_NAMES.get(name, name): value for name, value in asdict(self).items()}


# Output names of the fields whose own name would not say that its pits are
# indices 0..5 (people see pits 1..6)
OUTPUT_NAMES = {"line": "pit_indices", "opening": "opening_indices"}


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
    #: A's (losses, draws, wins): the trinomial counts
    trinomial: Tuple[int, int, int] = (0, 0, 0)
    #: complete pairs (games 2k, 2k + 1) by A's points 0, 1/2, 1, 3/2, 2; None without swapped sides
    pentanomial: Optional[Tuple[int, int, int, int, int]] = None
    pairs: int = 0
    elo_model: str = "trinomial"    #: what the Elo comes from: "pentanomial" or "trinomial"
    elo: Optional[float] = None     #: A's Elo over B (infinite for all wins or losses)
    elo_low: Optional[float] = None     #: its 95% interval
    elo_high: Optional[float] = None
    forfeits_a: int = 0             #: games A lost by forfeit
    forfeits_b: int = 0
    sprt: Optional[SprtState] = None    #: the SPRT's state after these games, if one was asked for


def summarise(games: List[GameResult], paired: bool = True,
              sprt: Optional[Tuple[float, float, float, float]] = None) -> Summary:
    """Totals and averages of finished games, from A's point of view.

    ``paired``: games 2k and 2k + 1 are a pair (sides swapped); the Elo comes
    from the pentanomial counts of the complete pairs, else from the
    trinomial counts. ``sprt`` = (ELO0, ELO1, alpha, beta) adds the SPRT's state.
    """
    n = len(games)
    wins = sum(game.result == "A" for game in games)
    draws = sum(game.result == "draw" for game in games)
    score = wins + draws / 2
    low, high = wilson_interval(score, n) if n else (None, None)
    a_moves = sum(game.a_moves for game in games)
    b_moves = sum(game.b_moves for game in games)
    trinomial = (n - wins - draws, draws, wins)
    pentanomial = pair_counts(games) if paired else None
    counts: Sequence[int] = pentanomial if pentanomial is not None else trinomial
    estimate = elo_estimate(counts)
    return Summary(
        games=n, wins=wins, draws=draws, losses=n - wins - draws, score=score,
        win_rate=score / n if n else None, ci_low=low, ci_high=high,
        mean_margin=sum(game.margin for game in games) / n if n else None,
        mean_plies=sum(game.plies for game in games) / n if n else None,
        a_time_per_move=sum(game.a_time for game in games) / a_moves if a_moves else None,
        b_time_per_move=sum(game.b_time for game in games) / b_moves if b_moves else None,
        distinct=len({(game.a_side, game.line) for game in games}),
        trinomial=trinomial, pentanomial=pentanomial,
        pairs=sum(pentanomial) if pentanomial is not None else 0,
        elo_model=estimate.model, elo=estimate.elo, elo_low=estimate.elo_low,
        elo_high=estimate.elo_high,
        forfeits_a=sum(bool(game.forfeit) and game.forfeit["player"] == "A" for game in games),
        forfeits_b=sum(bool(game.forfeit) and game.forfeit["player"] == "B" for game in games),
        sprt=sprt_state(counts, *sprt) if sprt is not None else None)


GAME_POINTS = {"A": 2, "draw": 1, "B": 0}       # A's half-points in one game


def pair_counts(games: Sequence[GameResult]) -> Tuple[int, int, int, int, int]:
    """The pentanomial counts: complete pairs (games 2k and 2k + 1 both present)
    by A's points in the pair, 0, 1/2, 1, 3/2 or 2 (lowest first)."""
    by_index = {game.index: game for game in games}
    counts = [0] * 5
    for index, game in by_index.items():
        partner = by_index.get(index + 1)
        if index % 2 == 0 and partner is not None:
            counts[GAME_POINTS[game.result] + GAME_POINTS[partner.result]] += 1
    return tuple(counts)    # type: ignore[return-value]


__all__ = ["GameResult", "OUTPUT_NAMES", "Summary", "summarise", "pair_counts", "GAME_POINTS"]
