"""CMancala's timed search behind the engine protocol, for the arena.

    python bench/cmancala_engine.py PATH/TO/Mancala [--clock cpu]
    python bench/cmancala_engine.py PATH/TO/Mancala --library-pairs N [--clock cpu]

Speaks enough of the engine protocol (docs/protocol.md) for ``python -m mancala
arena 'engine:"python bench/cmancala_engine.py .../Mancala"@0.1' ...``: ``ugi``
(or ``uci``), ``isready``, ``setoption`` and ``newgame`` (accepted, ignored),
``position`` (read by mancala.protocol.lines, so every position the arena
sends is understood), ``isready`` (its table is made here, by a 1 ms search,
not in the first move's time), ``go movetime MS``, ``stop`` (a go ends by itself within
its time), ``quit``. Each ``go`` sends CMancala's ``--api`` mode ``TIME S``
(when it changed) and ``SOLVE <code>``, and answers its move. No endgame
database and no opening book (the ``--api`` mode's defaults), its 2^24-entry
table kept between moves as ours is.

CMancala (LifesLight/CMancala, A. Kurtz; standard capture) is built outside
this repository, with a local patch that none of its code here: its timed
search checks the time only between iterations, on the CPU clock, so a move
took what its last iteration took; the patch makes the move's time a hard
limit on the wall clock (polled every 1024 nodes, the interrupted iteration
dropped, the last finished one's move played, as ours does) and adds the
``TIME S`` command, and ``CLOCK CPU`` (sent with ``--clock cpu``): the time
counts its thread's CPU time, as ``python -m mancala engine --clock cpu``
does ours (matches on a shared machine). docs/strength.md names the commit
and says how to make the patch; bench/compare_solvers.py how to build it.

With ``--library-pairs N`` it plays no protocol: the library's default
``Engine().search(board, time=0.1)`` (a fresh Engine each game) plays CMancala
at 0.1 s a move over the first N openings of the 2-ply suite (the start
first), each twice with sides swapped, and prints each pair and the totals
(with ``--clock cpu`` both count their searching thread's CPU time:
``mancala._core.use_cpu_clock``).

Its board code: 14 cells of 8 bits after a bit for the side to move (1:
South), as two 64-bit words printed in hex, high first, less the first five
digits; its moves are cell indices (North's 7..12).
"""
import subprocess
import sys

from mancala.board import Board
from mancala.protocol.lines import GoLimits, parse_position

SOUTH_PITS = 7      # North's pits are cells 7..12


def board_code(board: Board) -> str:
    """CMancala's code of board (see the module)."""
    low = 1 if board.to_move == 0 else 0
    high = 0
    shift = 1
    for count in board.pits:
        if shift < 64:
            low = (low | (count & 0xFF) << shift) & (2 ** 64 - 1)
        else:
            high |= (count & 0xFF) << (shift - 64)
        shift += 8
    return f"{high:016x}{low:016x}"[5:]


class CMancala:
    def __init__(self, program: str, clock: str = "wall") -> None:
        self.process = subprocess.Popen([program, "--api"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True, bufsize=1)
        self.seconds = None
        if clock == "cpu":
            self.ask("CLOCK CPU")

    def ask(self, line: str) -> str:
        """Its answer to line: the next line starting OK (it writes warnings, such
        as "[WARNING]: High window misses!", before some answers)."""
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()
        while True:
            answer = self.process.stdout.readline()
            if answer.startswith("OK"):
                return answer
            if not answer or answer.startswith("ERROR"):
                raise RuntimeError(f"CMancala answered {answer!r} to {line!r}")

    def move(self, board: Board, seconds: float) -> int:
        """Its pit (0..5 from the mover's left) for board, searched for seconds."""
        if seconds != self.seconds:
            self.ask(f"TIME {seconds:g}")
            self.seconds = seconds
        words = self.ask(f"SOLVE {board_code(board)}").split()
        cell = int(words[words.index("MOVE") + 1])
        pit = cell - SOUTH_PITS if board.to_move == 1 else cell
        return pit if pit in board.legal_moves else board.legal_moves[0]

    def prepare(self) -> None:
        """Make its table now (its first search allocates it: a second or more on a
        loaded machine), as our engine makes its own at isready."""
        if self.seconds is None:
            self.move(Board(), 0.001)

    def close(self) -> None:
        try:
            self.process.stdin.write("QUIT\n")
            self.process.stdin.close()
        except OSError:
            pass
        self.process.wait(5)


def library_pairs(program: str, pairs: int, clock: str) -> None:
    """Engine().search(board, time=0.1) against CMancala over the 2-ply suite's first pairs."""
    from mancala import Engine, _core
    from mancala.openings import opening_suite
    from mancala.stats import elo_estimate
    _core.use_cpu_clock(clock == "cpu")
    cmancala = CMancala(program, clock)
    cmancala.prepare()
    wins = draws = losses = 0
    pentanomial = [0] * 5
    try:
        for opening in opening_suite(2)[:pairs]:
            pair = 0
            margins = []
            for ours in (0, 1):          # our side: South, then North
                board = Board()
                for pit in opening:
                    board.push(pit)
                engine = Engine()
                while not board.is_game_over():
                    board.push(engine.search(board, time=0.1).move if board.to_move == ours
                               else cmancala.move(board, 0.1))
                margin = board.outcome().margin * (1 if ours == 0 else -1)
                margins.append(margin)
                wins, draws, losses = wins + (margin > 0), draws + (margin == 0), losses + (margin < 0)
                pair += 2 if margin > 0 else 1 if margin == 0 else 0
            pentanomial[pair] += 1
            print(f"opening {' '.join(str(p + 1) for p in opening) or 'start'}: our margins "
                  f"{margins[0]:+d} (South), {margins[1]:+d} (North): pair {pair / 2:g}", flush=True)
    finally:
        cmancala.close()
    elo = elo_estimate(pentanomial)
    print(f"W/D/L {wins}/{draws}/{losses}; pairs scoring 0, 1/2, 1, 3/2, 2: "
          f"{' '.join(map(str, pentanomial))}; pairs lost {pentanomial[0] + pentanomial[1]}; "
          f"Elo {elo.elo:+.1f} [{elo.elo_low:+.1f}, {elo.elo_high:+.1f}]")


def main() -> None:
    if len(sys.argv) >= 4 and sys.argv[2] == "--library-pairs":
        clock = sys.argv[5] if sys.argv[4:5] == ["--clock"] and len(sys.argv) == 6 else "wall"
        library_pairs(sys.argv[1], int(sys.argv[3]), clock)
        return
    if len(sys.argv) not in (2, 4) or (len(sys.argv) == 4 and sys.argv[2:] not in (["--clock", "cpu"],
                                                                                 ["--clock", "wall"])):
        sys.exit(__doc__)
    engine = CMancala(sys.argv[1], sys.argv[3] if len(sys.argv) == 4 else "wall")
    board = Board()

    def say(line: str) -> None:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()
    try:
        for line in sys.stdin:
            words = line.split()
            if not words:
                continue
            command = words[0].lower()
            if command in ("ugi", "uci"):
                say("id name CMancala (timed search, hard time limit)")
                say(f"{command}ok")
            elif command == "isready":
                engine.prepare()
                say("readyok")
            elif command == "position":
                board = parse_position(words[1:])
            elif command == "go":
                limits = GoLimits(words[1:], board.to_move)
                seconds = (limits.movetime or 1000) / 1000
                say(f"bestmove {engine.move(board, seconds) + 1}")
            elif command == "quit":
                break
    finally:
        engine.close()


if __name__ == "__main__":
    main()
