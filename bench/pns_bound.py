"""Proof-number search against the solver's null-window search on small bound questions.

    python bench/pns_bound.py [--seeds 3] [--moves "1 4"] [--endgame 14] [--limit 3000000]

For the start of Kalah(6,seeds) (after --moves, pits 1..6 from each mover's left)
and its solved value v, asks the two questions a solve ends with, "is the
value at least v?" (true) and "at least v + 2?" (false), twice each:

  alpha-beta  ``Engine(64, threads=1, endgame=db).null_window(board, beta)``: the
              solver's own search (table, enhanced cut-offs, futility, database);
              its node count (every position visited, the database's children
              valued in place included);
  PNS         a plain proof-number search (Allis 1994) over the same rules and
              database, in Python: best-first, a tree whose positions once
              settled (proven or disproven) are remembered by their slots and
              mover, so a transposition to one is settled at once (a table that
              never forgets: more than the solver's has); every position it
              creates counted (the root, and each child of an expanded node,
              those the database, the end of the game or that memory settle
              included) -- the measure closest to alpha-beta's nodes.

PNS keeps its whole tree in memory: --limit stops it (reported as not proven).
Node counts only; PNS here is Python and its seconds mean nothing.
"""
import argparse
import sys

from mancala import Board, Engine, endgame

INF = float("inf")


class Node:
    __slots__ = ("slots", "to_move", "is_or", "pn", "dn", "children", "parent")

    def __init__(self, slots, to_move, is_or, parent):
        self.slots, self.to_move, self.is_or, self.parent = slots, to_move, is_or, parent
        self.pn = self.dn = 1
        self.children = None


class Pns:
    """Is the value of the root's mover at least beta? AND/OR over the moves."""

    def __init__(self, board, beta, db, limit):
        self.capture, self.root_side, self.beta, self.db, self.limit = board.capture, board.to_move, beta, db, limit
        self.created = 0
        self.settled = {}   # (slots, mover): True proven, False disproven
        self.root = self.make(board, None)

    def make(self, board, parent):
        self.created += 1
        node = Node(tuple(board.pits), board.to_move, board.to_move == self.root_side, parent)
        value = None
        known = self.settled.get((node.slots, node.to_move))
        if known is not None:
            node.pn, node.dn = (0, INF) if known else (INF, 0)
        elif board.is_game_over():
            value = board.outcome().score.pov(board.to_move)
        elif self.db is not None and self.db.covers(board):
            value = self.db.value(board)
        if value is not None:
            ours = value if board.to_move == self.root_side else -value
            node.pn, node.dn = (0, INF) if ours >= self.beta else (INF, 0)
        return node

    def expand(self, node):
        board = Board(list(node.slots), node.to_move, capture=self.capture)
        node.children = []
        for pit in board.legal_moves:
            board.push(pit)
            node.children.append(self.make(board, node))
            board.pop()

    @staticmethod
    def update(node):
        if node.is_or:
            node.pn = min(c.pn for c in node.children)
            node.dn = sum(c.dn for c in node.children)
        else:
            node.pn = sum(c.pn for c in node.children)
            node.dn = min(c.dn for c in node.children)

    def run(self):
        root = self.root
        while root.pn and root.dn and self.created < self.limit:
            node = root
            while node.children is not None:
                key = (lambda c: c.pn) if node.is_or else (lambda c: c.dn)
                node = min(node.children, key=key)
            self.expand(node)
            while node is not None:
                pn, dn = node.pn, node.dn
                self.update(node)
                if node.pn == 0 or node.dn == 0:
                    self.settled[(node.slots, node.to_move)] = node.pn == 0
                if (node.pn, node.dn) == (pn, dn) and node.children is not None and node is not root:
                    break
                node = node.parent
        return None if root.pn and root.dn else root.pn == 0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--moves", default="")
    parser.add_argument("--endgame", type=int, default=14)
    parser.add_argument("--limit", type=int, default=3_000_000)
    args = parser.parse_args(argv)
    db = endgame.load("standard", args.endgame) if args.endgame else None
    board = Board(seeds=args.seeds)
    for move in args.moves.split():
        board.push(int(move) - 1)
    value = Engine(64, threads=1, endgame=db).solve(board).score
    print(f"Kalah(6,{args.seeds}){' after ' + args.moves if args.moves else ''}: value {value:+d} "
          f"(database {args.endgame})")
    for beta in (value, value + 2):
        bound, nodes = Engine(64, threads=1, endgame=db).null_window(board, beta)
        pns = Pns(board, beta, db, args.limit)
        proven = pns.run()
        said = "not settled" if proven is None else ("true" if proven else "false")
        print(f"  value >= {beta:+d}? alpha-beta {'true' if bound >= beta else 'false'} in {nodes:,} nodes; "
              f"PNS {said} in {pns.created:,} nodes ({pns.created / nodes:.2f}x)", flush=True)
        if proven is not None and proven != (bound >= beta):
            sys.exit("PNS and alpha-beta disagree")


if __name__ == "__main__":
    main()
