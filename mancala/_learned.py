"""The weights of the learned evaluation (``evaluation="learned"``).

The learned evaluation is the store difference plus a guess of what the rest
of the game adds to it: a weighted sum of terms, fitted by least squares to
the exact values (perfect play to the end) of positions from Kalah(6,4)
games, by ``bench/fit_evaluation.py``. Its terms, each from the mover's view:

    a constant (the right to move)
    the seeds in each of the mover's six pits, from its left
    the seeds in each of the opponent's six pits, from their left
    the mover's moves that end in its store, its best capture, its empty pits
    the same three of the opponent's

Two sets of weights blend by the share of all seeds still in the pits
(tapered): MIDGAME when every seed is in a pit, ENDGAME when none are. The
weights are in 64ths of a seed; the blended sum is rounded to whole seeds
(halves away from zero) and kept within the seeds in the pits, as the final
margin is. The core (mancala/_core_rules.pxi) and the twin
(mancala/_reference.py) both read them from here.
"""
SCALE = 64

# fitted to 10,185 positions (bench/fit_evaluation.py); the root mean square
# error of the guess, in seeds: 8.49 for the store difference alone, 8.16 with
# the positional terms, 6.09 with these (on 2,588 positions held out of an
# earlier fit: 8.16, 7.76, 5.95)
#          const  mover's pits 1..6 from its left  opponent's pits 1..6
#                 extra-turn moves, best capture, empty pits: the mover's, the opponent's
MIDGAME = (0, -4, -47, -78, -34, -25, 4, 3, 43, 74, 61, 22, -11,
           255, 67, -182, 38, -19, 195)
ENDGAME = (74, 92, 101, 90, 37, 32, 4, -66, -102, -93, -72, -34, -9,
           -28, 69, -61, -64, -32, 47)
